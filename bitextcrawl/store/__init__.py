"""Page stores: where page records live during and after a crawl."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from scrapy.utils.misc import load_object

from bitextcrawl.pages.record import PageRecord

# zlib level of a stored record. The store is the crawl's working copy (pages.jsonl and the
# WARC are the outputs): level 1 takes 0.36 of level 6's CPU for 1.23 times the bytes on
# WET's records, and every response is stored.
COMPRESS_LEVEL = 1


@runtime_checkable
class PageStore(Protocol):
    """What the crawl asks of a page store (:mod:`.sqlite`, :mod:`.redis`)."""

    def add(self, record: PageRecord) -> bool: ...
    def get_many(self, urls) -> dict[str, PageRecord]: ...
    def has_content(self, content_hash: str) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[PageRecord]: ...
    def urls_by_lang(self) -> dict[str, list[str]]: ...
    def add_redirect(self, url: str, target: str) -> None: ...
    def redirects(self) -> dict[str, str]: ...
    def get_meta(self, key: str, default=None): ...
    def set_meta(self, key: str, value) -> None: ...
    def close(self) -> None: ...


def open_store(settings, output_dir: str) -> PageStore:
    """The page store named by ``BITEXT_PAGE_STORE``, opened on ``output_dir``."""
    cls = load_object(settings.get("BITEXT_PAGE_STORE"))
    return cls.from_settings(settings, output_dir)
