"""Stage functions of the pair decision (``pairing/align.py``) on hand-made pages."""

from __future__ import annotations

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.align import Evidence, marked_untranslated

H = "http://example.org"


def page(path: str, lang: str, switch: str) -> PageRecord:
    return PageRecord(url=H + path, lang=lang, html=f"<html><body>{switch}<p>text</p></body></html>")


def test_a_page_whose_switch_bar_says_untranslated_is_not_paired_by_similarity():
    """nginx.org's /it/support.html: "english" named without a link, no English original."""
    pages1 = {p.url: p for p in (page("/en/enterprise.html", "en", '<a href="../ru/">русский</a>'),
                                 page("/en/a.html", "en", '<a href="../it/a.html">italiano</a>'))}
    pages2 = {p.url: p for p in (page("/it/support.html", "it",
                                      '<a class="notrans">english</a><a class="notrans">русский</a>'),
                                 page("/it/a.html", "it", '<a href="../en/a.html">english</a>'))}
    cands = [(a, b) for a in pages1 for b in pages2]
    out = marked_untranslated(cands, pages1, pages2, "en", "it", Evidence())
    assert out == {(H + "/en/enterprise.html", H + "/it/support.html"),
                   (H + "/en/a.html", H + "/it/support.html")}
    # known evidence (a URL pattern, hreflang) outranks the mark
    evidence = Evidence(hreflang={(H + "/en/a.html", H + "/it/support.html"): 1.0})
    out = marked_untranslated(cands, pages1, pages2, "en", "it", evidence)
    assert out == {(H + "/en/enterprise.html", H + "/it/support.html")}
