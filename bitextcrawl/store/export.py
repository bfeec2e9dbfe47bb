"""A page store -> ``pages.jsonl``: one record per content, other URLs of the same page in
its ``aliases``. A light module (no pairing models): a record worker exports with it
while the crawl's process pairs and aligns."""

from __future__ import annotations

import itertools

from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.pages.compact import DROPPED, Interner, compact
from bitextcrawl.pages.site import canonical_records
from bitextcrawl.store.sqlite import SQLitePageStore

# Records whose HTML export_pages reads at a time.
EXPORT_BATCH = 256


def export_pages(store, path: str, langs=None) -> int:
    """``pages.jsonl`` of a page store: one record per content (``canonical_records``),
    the records read once without their HTML, then a batch at a time with it. ``langs``:
    the crawl's languages, each page's language as the closing alignment counts it
    (a variant asked for: ``pages.variants``)."""
    intern = Interner()
    pages = canonical_records((compact(p, intern) for p in store), redirects=store.redirects(),
                              langs=langs)

    def dicts():
        while batch := list(itertools.islice(pages, EXPORT_BATCH)):
            full = store.get_many(p.url for p in batch)
            for p in batch:
                d = p.to_dict()
                for name in DROPPED:
                    d[name] = getattr(full[p.url], name)
                yield d

    return write_jsonl(path, dicts())


def export_store(output_dir: str, path: str, langs=None) -> int:
    """:func:`export_pages` of the SQLite page store of ``output_dir``, opened here: a
    worker process exports while the crawl's process pairs and aligns (the store is only
    read, and SQLite's WAL lets both read it)."""
    store = SQLitePageStore(output_dir)
    try:
        return export_pages(store, path, langs)
    finally:
        store.close()
