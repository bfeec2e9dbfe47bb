"""The page records of an offline input (``scrapy align``, ``read_pages``): the reader
picked by the file name. A crawl's own page store (``pages.sqlite``) is named here too,
and read by :mod:`bitextcrawl.store.inputs` (the store is above this layer)."""

from __future__ import annotations

import collections
import os
from typing import Iterator

from bitextcrawl.formats.jsonl import iter_jsonl_pages
from bitextcrawl.formats.lett import iter_lett_pages
from bitextcrawl.formats.warc import iter_warc_pages

# Suffix -> reader name, longest suffixes first.
INPUT_KINDS = (
    (".jsonl.gz", "jsonl"),
    (".jsonl", "jsonl"),
    (".lett.gz", "lett"),
    (".lett", "lett"),
    (".warc.gz", "warc"),
    (".warc", "warc"),
    ("pages.sqlite", "store"),
)


def input_kind(path: str | os.PathLike) -> str:
    """``jsonl``, ``lett``, ``warc`` or ``store`` from the file name; ValueError for
    anything else."""
    name = os.path.basename(os.fspath(path)).lower()
    for suffix, kind in INPUT_KINDS:
        if name.endswith(suffix):
            return kind
    raise ValueError(
        f"unknown input kind: {os.fspath(path)!r} (expected a name ending in "
        + ", ".join(s for s, _ in INPUT_KINDS) + ")")


def check_readable(path: str) -> None:
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise type(exc)(exc.errno, f"cannot read input file {path}: "
                        f"{exc.strerror or exc}", path) from exc


def iter_pages(path: str | os.PathLike, identify=None,
               stats: collections.Counter | None = None) -> Iterator:
    """Page records from a ``pages.jsonl``, a WMT16 ``.lett``/``.lett.gz`` or a
    ``.warc``/``.warc.gz``, by file name.

    Raises ValueError for an unknown kind and OSError (naming the path) for a file that
    cannot be read, at call time; junk inside a readable file is skipped and counted in
    ``stats``. ``identify`` is unused for ``pages.jsonl`` (its records are decided).
    """
    path = os.fspath(path)
    kind = input_kind(path)
    check_readable(path)
    if kind == "jsonl":
        return iter_jsonl_pages(path, stats=stats)
    if kind == "lett":
        return iter_lett_pages(path, identify=identify, stats=stats)
    if kind == "store":
        raise ValueError(f"{path}: a crawl's page store is read by "
                         "bitextcrawl.store.inputs.read_input")
    return iter_warc_pages(path, identify=identify, stats=stats)


__all__ = ["INPUT_KINDS", "input_kind", "iter_pages"]
