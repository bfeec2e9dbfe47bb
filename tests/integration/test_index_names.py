"""A directory index linked under both of its URLs (``/fr/docs/`` and
``/fr/docs/index.html``, one page) gets one name whichever went out first.

The crawl downloads a directory index once, under the spelling whose request reaches the
downloader first (``focus/rules/index_aliases.py``): which one depends on the order the
pages linking it come in. Here the server answers one of the two French pages that link
the index late, each in its turn, so that each spelling goes out first in one of the two
crawls; the page is stored, and paired, under one name in both (``pages.urls.page_name``).
"""

from __future__ import annotations

import json
import time

import pytest

from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.demo.site_model import Resource
from bitextcrawl.store.sqlite import SQLitePageStore
from testkit.partial_site import _html, _text
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

LATE = 1.5   # seconds the late page waits: the other's link goes out first


def _pages() -> dict[str, str]:
    """Path -> HTML: two homes, two page pairs, the docs index pair; the French index is
    linked as ``docs/`` by ``/fr/a.html`` and as ``docs/index.html`` by ``/fr/b.html``
    (no other page links it: the two are the race)."""
    def page(lang, i, title, links):
        return _html(lang, title, f"<nav>{links}</nav><p>{_text(lang, i)}</p>")

    return {
        "/en/": page("en", 0, "Manual", '<a href="a.html">A</a> <a href="b.html">B</a> '
                                         '<a href="docs/">Docs</a> <a href="/fr/">Français</a>'),
        "/en/a.html": page("en", 1, "Page A", '<a href="./">Manual</a> '
                                                '<a href="/fr/a.html">Français</a>'),
        "/en/b.html": page("en", 2, "Page B", '<a href="./">Manual</a> '
                                                '<a href="/fr/b.html">Français</a>'),
        "/en/docs/index.html": page("en", 3, "Documentation", '<a href="../">Manual</a>'),
        "/fr/": page("fr", 0, "Manuel", '<a href="a.html">A</a> <a href="b.html">B</a> '
                                         '<a href="/en/">English</a>'),
        "/fr/a.html": page("fr", 1, "Page A", '<a href="./">Manuel</a> <a href="docs/">Doc</a> '
                                                '<a href="/en/a.html">English</a>'),
        "/fr/b.html": page("fr", 2, "Page B", '<a href="./">Manuel</a> '
                                                '<a href="docs/index.html">Doc</a> '
                                                '<a href="/en/b.html">English</a>'),
        "/fr/docs/index.html": page("fr", 3, "Documentation",
                                    '<a href="../">Manuel</a> <a href="/en/docs/">English</a>'),
    }


class TwoSpellingSite:
    """The pages, each folder's ``index.html`` answered at the folder's URL too; ``late``
    answered after :data:`LATE` seconds."""

    def __init__(self, port: int, late: str):
        self.start_url = f"http://127.0.0.1:{port}/en/"
        self.pages = _pages()
        self.late = late

    def lookup(self, host: str, path: str):
        if path.endswith("/"):
            path += "index.html"
        html = self.pages.get(path) or self.pages.get(path[:-len("index.html")])
        if html is None:
            return None
        if path == self.late:
            time.sleep(LATE)
        return Resource(headers={"Content-Type": "text/html; charset=utf-8"},
                        body=html.encode("utf-8"))


def _crawl(tmp_path, late: str):
    port = free_port()
    site = TwoSpellingSite(port, late)
    out = tmp_path / late.strip("/").replace("/", "_")
    with serve_site(site, port) as server:
        run_crawl(site.start_url, out, timeout=300)
        fetched = {path for (_, path) in server.hits}
    base = f"http://127.0.0.1:{port}"
    store = SQLitePageStore(str(out))
    try:
        stored = {record.url[len(base):] for record in store}
    finally:
        store.close()
    pairs = {(p["url_1"][len(base):], p["url_2"][len(base):])
             for p in map(json.loads, (out / "pairs.jsonl").open(encoding="utf-8"))}
    return fetched, stored, pairs


def test_a_directory_index_gets_one_name_whichever_spelling_goes_out_first(tmp_path):
    fetched_1, stored_1, pairs_1 = _crawl(tmp_path, late="/fr/b.html")   # docs/ first
    fetched_2, stored_2, pairs_2 = _crawl(tmp_path, late="/fr/a.html")   # index.html first
    # the order differed: each crawl downloaded the index under another URL, once
    assert "/fr/docs/" in fetched_1 and "/fr/docs/index.html" not in fetched_1, fetched_1
    assert "/fr/docs/index.html" in fetched_2 and "/fr/docs/" not in fetched_2, fetched_2
    # one name in both
    assert "/fr/docs/" in stored_1 and "/fr/docs/" in stored_2
    assert "/fr/docs/index.html" not in stored_1 | stored_2
    assert stored_1 == stored_2
    assert ("/en/docs/", "/fr/docs/") in pairs_1, pairs_1
    assert pairs_1 == pairs_2
