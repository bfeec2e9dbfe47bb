"""Stage functions of the pair decision (``pairing/align.py``) on hand-made pages."""

from __future__ import annotations

import numpy as np

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.align import marked_untranslated
from bitextcrawl.pairing.evidence import Evidence, entrance_pairs
from bitextcrawl.pairing.stages import _Scores, anchor_vouched, neighbours_rank

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


def linked(path: str, lang: str, *targets: str) -> PageRecord:
    return PageRecord(url=H + path, lang=lang,
                      links=[{"url": H + t, "text": "", "hreflang": None} for t in targets])


def test_the_one_link_between_two_languages_pairs_its_ends():

    en = {p.url: p for p in (linked("/en/", "en", "/en/a.html", "/p/1.html"),
                             linked("/en/a.html", "en", "/en/"))}
    fr = {p.url: p for p in (linked("/p/1.html", "fr", "/p/2.html", "/en/"),
                             linked("/p/2.html", "fr", "/p/1.html"))}
    assert entrance_pairs(en, fr) == {(H + "/en/", H + "/p/1.html"): 1.0}
    fr[H + "/p/1.html"].links = fr[H + "/p/1.html"].links[:1]     # one way only: a floor
    assert entrance_pairs(en, fr) == {(H + "/en/", H + "/p/1.html"): 0.75}
    # links between the languages from two pages: no entrance, nothing said
    en[H + "/en/a.html"].links.append({"url": H + "/p/2.html", "text": "", "hreflang": None})
    assert entrance_pairs(en, fr) == {}


def test_neighbours_rank_rivals_and_do_not_sink_a_pair_nothing_rivals():

    final = {("e1", "f1"): 0.4, ("e2", "f2"): 0.7, ("e2", "f3"): 0.6, ("e3", "f3"): 0.3}
    internal = {("e1", "f1"): 0.95, ("e2", "f2"): 0.8, ("e2", "f3"): 0.9, ("e3", "f3"): 0.9}
    out = neighbours_rank(final, internal)
    assert out[("e1", "f1")] == 0.95            # the best of both its pages
    assert out[("e2", "f2")] == 0.8
    assert out[("e2", "f3")] == 0.6             # a rival ETS ranked lower keeps its ETS
    assert out[("e3", "f3")] == 0.3             # f3's best by ETS is e2
    # a pair its pages' content and rare evidence agree on keeps its internal similarity
    # against a rival that the neighbours rank higher
    out = neighbours_rank(final, internal, agreed={("e3", "f3")})
    assert out[("e3", "f3")] == 0.9
    assert out[("e2", "f3")] == 0.6


def test_agreed_pairs_are_the_sole_best_by_content_and_by_rare_evidence():
    import numpy as np

    from bitextcrawl.pairing.stages import _Scores, agreed_pairs

    cands = [("e1", "f1"), ("e1", "f2"), ("e2", "f2"), ("e3", "f3"), ("e3", "f4")]
    zeros = np.zeros(len(cands))
    scores = _Scores(cands, np.zeros((len(cands), 5)), zeros, zeros,
                     content=np.array([0.8, 0.3, 0.7, 0.5, 0.5]),
                     anchor=np.array([0.4, 0.1, 0.3, 0.6, 0.2]))
    # e1-f1 and e2-f2 are chosen by both; e3's candidates tie on content
    assert agreed_pairs(scores) == {("e1", "f1"), ("e2", "f2")}
    scores.anchor = np.array([0.1, 0.4, 0.3, 0.6, 0.2])      # rare evidence says e1-f2
    assert agreed_pairs(scores) == set()
    scores.anchor = None
    assert agreed_pairs(scores) == set()


def test_a_list_of_language_names_in_the_text_is_no_untranslated_mark():
    """WET's home page lists the 34 languages its toolkit supports: no switch bar."""
    listing = "<ul><li>English</li><li>French</li><li>Arabic</li><li>Spanish</li></ul>"
    en = {p.url: p for p in (page("/en/index.html", "en", listing),)}
    fr = {p.url: p for p in (page("/p/1.html", "fr", listing.replace("French", "Français")),)}
    cands = [(a, b) for a in en for b in fr]
    assert marked_untranslated(cands, en, fr, "en", "fr", Evidence()) == set()


def test_an_unsure_page_is_read_again_on_its_prose():
    """A Russian index of directive names: fastText, on all of it, guesses English (p 0.4);
    on its words without identifiers, Russian."""
    from bitextcrawl.pages.site import SitePages
    from bitextcrawl.pages.template import SiteTemplate
    from bitextcrawl.pairing.align import prose, settle_unsure_languages

    names = " ".join(f"proxy_{w}_timeout ssl_{w}" for w in ("read", "send", "connect", "next"))
    text = f"Алфавитный указатель директив\n{names}\naccess_log error_log listen server_name"
    unsure = PageRecord(url=H + "/p/1.html", lang="en", lang_prob=0.4, lang_method="fasttext",
                        title="Алфавитный указатель директив", text=text)
    sure = PageRecord(url=H + "/en/a.html", lang="en", lang_prob=0.99, lang_method="fasttext",
                      title="Index", text=text)
    russian = [PageRecord(url=H + f"/p/r{i}.html", lang="ru", lang_prob=0.99,
                          lang_method="fasttext", title="Модуль", text="Модуль ngx_http") for i in range(3)]
    assert "proxy_read_timeout" not in prose(text) and "указатель" in prose(text)
    # a line of one word is a name in a list; a line of a script without spaces is a phrase
    assert prose("deny\nallow\nbreak") == "" and prose("日本語のページ") == "日本語のページ"
    site = SitePages([unsure, sure])
    # Russian is no language of this site (no page is surely Russian): left alone
    assert settle_unsure_languages(site, SiteTemplate().fit(site.pages)) == 0
    site = SitePages([unsure, sure, *russian])
    assert settle_unsure_languages(site, SiteTemplate().fit(site.pages)) == 1
    assert site.pages[0].lang == "ru" and site.pages[0].lang_method == "content"
    assert site.pages[1].lang == "en"          # a sure reading is left alone


def test_anchor_vouched_is_made_once_per_candidates_and_overlaps():
    """A round reads ``anchor_vouched`` three times (internal scores, the known pairs'
    floor, the structural rejects): made once, and made again when the candidates or
    their overlaps are new."""
    cands = [("a1", "b1"), ("a1", "b2"), ("a2", "b2")]
    zeros = np.zeros(3)
    scores = _Scores(cands, np.zeros((3, 5)), zeros, zeros, zeros,
                     anchor=np.array([0.9, 0.2, 0.5]))
    first = anchor_vouched(scores)
    assert first.tolist() == [True, False, True]
    assert anchor_vouched(scores) is first
    scores.anchor = np.array([0.9, 0.95, 0.5])      # a new round's overlaps
    assert anchor_vouched(scores).tolist() == [False, True, False]
    scores.extend([("a2", "b1")], {u: [] for u in ("a1", "a2")},
                  {u: [] for u in ("b1", "b2")})
    scores.anchor = np.append(scores.anchor, 0.99)
    assert anchor_vouched(scores).tolist() == [False, True, False, True]
