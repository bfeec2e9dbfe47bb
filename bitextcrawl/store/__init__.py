"""Page stores: where page records live during and after a crawl."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from scrapy.utils.misc import load_object

from bitextcrawl.pages.compact import features_from_json, features_to_json
from bitextcrawl.pages.record import PageRecord

# zlib level of a stored record. The store is the crawl's working copy (pages.jsonl and the
# WARC are the outputs): level 1 takes 0.36 of level 6's CPU for 1.23 times the bytes on
# WET's records, and every response is stored.
COMPRESS_LEVEL = 1
# The key of a stored record's HTML features (``pages.compact.STORED_FEATURES``): not a
# field of pages.jsonl.
FEATURES_KEY = "_features"


def encode_record(record: PageRecord) -> bytes:
    """A record as a store keeps it: compressed JSON, with the HTML features it has made."""
    d = record.to_dict()
    features = features_to_json(record.derived)
    if features:
        d[FEATURES_KEY] = features
    return zlib.compress(json.dumps(d, ensure_ascii=False).encode("utf-8"), COMPRESS_LEVEL)


def decode_dict(blob: bytes) -> dict:
    """A stored record's fields (what pages.jsonl has), its HTML features left out."""
    d = json.loads(zlib.decompress(blob))
    d.pop(FEATURES_KEY, None)
    return d


def decode_record(blob: bytes) -> PageRecord:
    """:func:`encode_record`'s record, its HTML features in ``derived``."""
    d = json.loads(zlib.decompress(blob))
    features = d.pop(FEATURES_KEY, None)
    record = PageRecord.from_dict(d)
    if features:
        record.derived.update(features_from_json(features))
    return record


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
