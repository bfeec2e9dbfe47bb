"""The name a page is known by (``pages.urls.page_name``): a directory index document is
named by its folder, so that a page downloaded under either of its URLs gets one name
(the crawl downloads it once, under whichever spelling went out first)."""

from __future__ import annotations

from collections import Counter

import pytest

from bitextcrawl.bitext.extract import known_link_pairs
from bitextcrawl.pages.record import record_from_body
from bitextcrawl.pages.site import canonical_pages
from bitextcrawl.pages.urls import page_name
from bitextcrawl.pairing.align import Pair
from testkit.partial_site import _html, _text

H = "http://h.test"


@pytest.mark.parametrize("url, name", [
    (f"{H}/fr/docs/index.html", f"{H}/fr/docs/"),
    (f"{H}/fr/docs/", f"{H}/fr/docs/"),
    (f"{H}/index.html", f"{H}/"),
    (f"{H}/a/INDEX.HTM", f"{H}/a/"),
    (f"{H}/a/default.aspx", f"{H}/a/"),
    (f"{H}/a/index.php", f"{H}/a/"),
    # not a folder's document: its own name
    (f"{H}/a/index.html?page=2", f"{H}/a/index.html?page=2"),
    (f"{H}/a/index-en.html", f"{H}/a/index-en.html"),
    (f"{H}/a/dirindex.html", f"{H}/a/dirindex.html"),
    (f"{H}/a/b.html", f"{H}/a/b.html"),
])
def test_page_name(url, name):
    assert page_name(url) == name


def _record(url: str, lang: str, i: int, links: str = ""):
    html = _html(lang, f"Page {i}", f"<nav>{links}</nav><p>{_text(lang, i)}</p>")
    return record_from_body(url, html.encode(), None, Counter().update,
                            content_type="text/html; charset=utf-8", requested_url=url)


def test_a_page_downloaded_under_either_url_gets_one_name():
    by_folder = _record(f"{H}/fr/docs/", "fr", 3)
    by_document = _record(f"{H}/fr/docs/index.html", "fr", 3)
    assert by_folder.url == by_document.url == f"{H}/fr/docs/"
    assert by_folder.aliases == [] and by_folder.fetched_url == ""
    # the URL it was downloaded from is kept, as a redirect's source is
    assert by_document.aliases == [f"{H}/fr/docs/index.html"]
    assert by_document.fetched_url == f"{H}/fr/docs/index.html"
    assert by_document.requested_url == f"{H}/fr/docs/index.html"
    # links are read against the URL downloaded (the same folder)
    assert by_folder.links == by_document.links
    assert _record(f"{H}/fr/x.html", "fr", 4).url == f"{H}/fr/x.html"


@pytest.mark.parametrize("fetched", [f"{H}/fr/docs/", f"{H}/fr/docs/index.html"])
def test_links_to_either_spelling_reach_the_named_page(fetched):
    """An English page linking ``docs/index.html``, another ``docs/``: both links point at
    the French index page, whichever URL it was downloaded from."""
    en_1 = _record(f"{H}/en/a.html", "en", 1, '<a href="/fr/docs/index.html">Doc</a>'
                                             '<link rel="alternate" hreflang="fr" '
                                             'href="/fr/docs/index.html">')
    en_2 = _record(f"{H}/en/b.html", "en", 2, '<a href="/fr/docs/">Doc</a>')
    fr = _record(fetched, "fr", 3)
    site = canonical_pages([en_1, en_2, fr])
    pages = {p.url: p for p in site.pages}
    assert f"{H}/fr/docs/" in pages and f"{H}/fr/docs/index.html" not in pages
    assert {link["url"] for link in pages[f"{H}/en/a.html"].links} == {f"{H}/fr/docs/"}
    assert {link["url"] for link in pages[f"{H}/en/b.html"].links} == {f"{H}/fr/docs/"}
    assert pages[f"{H}/en/a.html"].hreflang == {"fr": f"{H}/fr/docs/"}
    assert site.resolve[f"{H}/fr/docs/index.html"] == f"{H}/fr/docs/"


@pytest.mark.parametrize("fetched", [f"{H}/fr/docs/", f"{H}/fr/docs/index.html"])
def test_known_link_pairs_read_links_by_page_name(fetched):
    """A pair's pages linking a known pair, one of them by the document's URL: found
    whichever URL the linked page was downloaded from."""
    en_docs, fr_docs = _record(f"{H}/en/docs/", "en", 3), _record(fetched, "fr", 3)
    en = _record(f"{H}/en/a.html", "en", 1, '<a href="/en/docs/">Docs</a>')
    fr = _record(f"{H}/fr/a.html", "fr", 1, '<a href="/fr/docs/index.html">Doc</a>')
    pairs = [Pair(en_docs.url, fr_docs.url, "en", "fr", 1.0, [], {}),
             Pair(en.url, fr.url, "en", "fr", 1.0, [], {})]
    index = {p.url: p for p in (en_docs, fr_docs, en, fr)}
    assert known_link_pairs(pairs, index)[(en.url, fr.url)] == (
        (f"{H}/en/docs/", f"{H}/fr/docs/index.html"),)
