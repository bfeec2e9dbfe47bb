"""Outside links that name their page's language (``pages.variants.without_language``):
a page's source file in the site's repository, a reference in the reader's language.
They name the same thing in each translation, and are a rare anchor of the pair
(``pairing.anchors.page_anchors``)."""

from __future__ import annotations

from bitextcrawl.pages.record import build_record
from bitextcrawl.pages.variants import without_language
from bitextcrawl.pairing.anchors import page_anchors

EDIT = "https://github.com/o/r/edit/main/content"


def test_a_language_tag_of_the_page_reads_as_any_language():
    assert (without_language(f"{EDIT}/ja/x.md", "ja") == without_language(f"{EDIT}/en/x.md", "en")
            == "github.com/o/r/edit/main/content/{lang}/x.md")
    assert without_language(f"{EDIT}/pt-br/x.md", "pt-br") == without_language(
        f"{EDIT}/pt_BR/x.md", "pt")
    assert without_language("https://developer.mozilla.org/en-US/docs/Web", "en") == \
        without_language("https://developer.mozilla.org/ja/docs/Web", "ja")


def test_another_language_or_none_is_left_alone():
    assert without_language(f"{EDIT}/fr/x.md", "ja") is None
    assert without_language("https://example.org/docs/x", "en") is None
    assert without_language(f"{EDIT}/en/x.md", None) is None


def _page(url: str, lang: str, edit: str):
    html = (f'<html lang="{lang}"><head><title>t</title></head><body><p>Some words here.</p>'
            f'<a href="{EDIT}/{edit}">e</a></body></html>')
    return build_record(url, html)      # the language its html lang declares


def test_a_page_and_its_translation_share_their_source_file_as_an_anchor():
    en = _page("http://s.test/en/x.html", "en", "en/x.md")
    ja = _page("http://s.test/p/1.html", "ja", "ja/x.md")
    other = _page("http://s.test/p/2.html", "ja", "ja/y.md")
    assert page_anchors(en) & page_anchors(ja)
    assert not page_anchors(en) & page_anchors(other)
