"""How a page store keeps a record: compressed JSON (no Scrapy here: record workers use it).

A record made by a record worker arrives with its content fields (HTML, text, STRAND
tokens, chunks, links) and its HTML features encoded already (``PageRecord.stored_content``,
:func:`encode_content`): the crawl's process then encodes only the rest, its language
decided there (plain JSON: it is small), and the stored blob is the two parts behind a
marker. A blob without the marker is one zlib stream of the whole record (a record made
in the crawl's process, or a store written before).
"""

from __future__ import annotations

import json
import struct
import zlib

from bitextcrawl.pages.compact import features_from_json, features_to_json
from bitextcrawl.pages.record import PageRecord

# zlib level of a stored record. The store is the crawl's working copy (pages.jsonl and the
# WARC are the outputs): level 1 takes 0.36 of level 6's CPU for 1.23 times the bytes on
# WET's records, and every response is stored.
COMPRESS_LEVEL = 1
# The key of a stored record's HTML features (``pages.compact.STORED_FEATURES``): not a
# field of pages.jsonl.
FEATURES_KEY = "_features"
# The fields a record worker encodes: the bulk of a record, which nothing in the crawl's
# process changes.
CONTENT_FIELDS = ("html", "text", "strand", "chunks", "links")
# A two-part blob: the marker (no zlib stream starts with it), the first part's length.
_TWO_PARTS = b"BXC2"
_LENGTH = struct.Struct(">I")


def _compress(d: dict, record: PageRecord | None = None) -> bytes:
    """``d`` as compressed JSON, with ``record``'s HTML features when given."""
    if record is not None:
        features = features_to_json(record.derived)
        if features:
            d[FEATURES_KEY] = features
    return zlib.compress(json.dumps(d, ensure_ascii=False).encode("utf-8"), COMPRESS_LEVEL)


def encode_content(record: PageRecord) -> bytes:
    """The record's :data:`CONTENT_FIELDS` and HTML features, compressed (a record worker's
    part of :func:`encode_record`)."""
    return _compress({name: getattr(record, name) for name in CONTENT_FIELDS}, record)


def encode_record(record: PageRecord) -> bytes:
    """A record as a store keeps it: compressed JSON, with the HTML features it has made."""
    d = record.to_dict()
    if record.stored_content is None:
        return _compress(d, record)
    for name in CONTENT_FIELDS:
        del d[name]
    # The rest (~800 bytes) is kept as plain JSON: zlib would save ~400 bytes a page, and
    # in the crawl's process each compression cost 130 us (its 256 KB state, allocated
    # and faulted in each time), 6 times the JSON's.
    rest = json.dumps(d, ensure_ascii=False).encode("utf-8")
    return _TWO_PARTS + _LENGTH.pack(len(rest)) + rest + record.stored_content


def _parts(blob: bytes) -> tuple[bytes | None, bytes]:
    """(the rest, or None for a one-part blob; the part that holds the content fields)."""
    if not blob.startswith(_TWO_PARTS):
        return None, blob
    start = len(_TWO_PARTS) + _LENGTH.size
    (n,) = _LENGTH.unpack_from(blob, len(_TWO_PARTS))
    return blob[start:start + n], blob[start + n:]


def _decode(blob: bytes) -> dict:
    rest, content = _parts(blob)
    d = json.loads(zlib.decompress(content))
    if rest is not None:
        # plain JSON, or a zlib stream (stores written before: no zlib stream starts with "{")
        d = {**json.loads(rest if rest[:1] == b"{" else zlib.decompress(rest)), **d}
    return d


def decode_html(blob: bytes) -> str:
    """A stored record's HTML (of a two-part blob, only the content part is read)."""
    return json.loads(zlib.decompress(_parts(blob)[1])).get("html") or ""


def decode_dict(blob: bytes) -> dict:
    """A stored record's fields (what pages.jsonl has), its HTML features left out."""
    d = _decode(blob)
    d.pop(FEATURES_KEY, None)
    return d


def decode_record(blob: bytes) -> PageRecord:
    """:func:`encode_record`'s record, its HTML features in ``derived``."""
    d = _decode(blob)
    features = d.pop(FEATURES_KEY, None)
    record = PageRecord.from_dict(d)
    if features:
        record.derived.update(features_from_json(features))
    return record
