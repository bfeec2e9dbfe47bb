"""What the readers of offline inputs share: the stats they count, and reading lines
from a plain or gzipped file that may be cut short."""

from __future__ import annotations

import collections
import gzip
import os
import zlib
from typing import Iterator

STAT_PREFIX = "bitext/input"


def count(stats: collections.Counter | None, key: str, n: int = 1) -> None:
    """Count ``bitext/input/<key>`` when the caller keeps stats."""
    if stats is not None:
        stats[f"{STAT_PREFIX}/{key}"] += n


def open_text(path: str | os.PathLike):
    """Open a plain or gzipped text file (by magic bytes, not by name) as UTF-8 lines."""
    path = os.fspath(path)
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
    return open(path, "rt", encoding="utf-8", errors="replace", newline="\n")


def iter_lines(path: str | os.PathLike, stats: collections.Counter | None = None
               ) -> Iterator[str]:
    """The non-blank lines of a file; a truncated ``.gz`` yields the lines before the
    damage and counts ``bitext/input/errors/truncated``."""
    with open_text(path) as fh:
        lines = iter(fh)
        while True:
            try:
                line = next(lines)
            except StopIteration:
                return
            except (EOFError, zlib.error, gzip.BadGzipFile, OSError):
                count(stats, "errors/truncated")
                return
            if line.strip():
                yield line
