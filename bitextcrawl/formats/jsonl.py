"""JSON Lines: ``pages.jsonl`` (one ``PageRecord.to_dict()`` a line) and atomic writing."""

from __future__ import annotations

import collections
import json
import os
from typing import Iterable, Iterator

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.inputs import count as _count
from bitextcrawl.formats.inputs import iter_lines
from bitextcrawl.pages.record import PageRecord


def iter_jsonl(path: str | os.PathLike, stats: collections.Counter | None = None
               ) -> Iterator[dict]:
    """The JSON objects of a ``.jsonl`` (or ``.jsonl.gz``); broken lines and non-objects
    are skipped and counted as ``bitext/input/skipped/broken_line``."""
    for line in iter_lines(path, stats):
        try:
            obj = json.loads(line)
        except ValueError:
            _count(stats, "skipped/broken_line")
            continue
        if not isinstance(obj, dict):
            _count(stats, "skipped/broken_line")
            continue
        yield obj


def iter_jsonl_pages(path: str | os.PathLike, stats: collections.Counter | None = None
                     ) -> Iterator[PageRecord]:
    """Page records back from a ``pages.jsonl``; lines that are not JSON objects with a
    ``url``, or do not fit :class:`PageRecord`, are skipped and counted."""
    for obj in iter_jsonl(path, stats):
        _count(stats, "records")
        url = obj.get("url")
        if not isinstance(url, str) or not url:
            _count(stats, "skipped/broken_line")
            continue
        try:
            page = PageRecord.from_dict(obj)
        except (TypeError, ValueError):
            _count(stats, "skipped/broken_line")
            continue
        _count(stats, "pages")
        yield page


class JsonlSink:
    """``append(d)`` writes ``d`` as a line of an open file, as :func:`write_jsonl` does:
    for a list too long to hold (the bitext's parallel links)."""

    def __init__(self, fh):
        self.fh = fh
        self.n = 0

    def append(self, d: dict) -> None:
        self.fh.write(json.dumps(d, ensure_ascii=False, sort_keys=False))
        self.fh.write("\n")
        self.n += 1


def write_jsonl(path: str | os.PathLike, dicts: Iterable[dict]) -> int:
    """Write one JSON object a line, atomically (temporary file in the same folder, then
    ``os.replace``): readers never see a half-written file. Returns the number of lines."""
    with atomic_open(path) as fh:
        sink = JsonlSink(fh)
        for d in dicts:
            sink.append(d)
    return sink.n
