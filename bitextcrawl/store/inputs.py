"""Offline inputs of ``scrapy align`` and the API: the readers of :mod:`bitextcrawl.formats`,
and a crawl's own page store (``pages.sqlite``) with the redirects the crawl saw."""

from __future__ import annotations

import os
from typing import Iterator

from bitextcrawl.formats.readers import check_readable, input_kind, iter_pages
from bitextcrawl.store.sqlite import SQLitePageStore

__all__ = ["input_redirects", "read_input"]


def read_input(path: str | os.PathLike, identify=None, stats=None) -> Iterator:
    """The page records of ``path``: :func:`~bitextcrawl.formats.readers.iter_pages`, or the
    records of a page store as the crawl's closing step reads them."""
    if input_kind(path) == "store":
        check_readable(os.fspath(path))
        return _store_pages(os.fspath(path))
    return iter_pages(path, identify=identify, stats=stats)


def _store_pages(path: str) -> Iterator:
    store = SQLitePageStore(os.path.dirname(os.path.abspath(path)))
    try:
        yield from store
    finally:
        store.close()


def input_redirects(path: str | os.PathLike) -> dict[str, str]:
    """The redirects an input keeps (requested URL -> target): a page store's; {} for
    the other kinds, whose records name their redirects themselves."""
    path = os.fspath(path)
    if input_kind(path) != "store":
        return {}
    store = SQLitePageStore(os.path.dirname(os.path.abspath(path)))
    try:
        return store.redirects()
    finally:
        store.close()
