"""Tab-separated bitext writer (``bitext.tsv``), the Moses/Bitextor convention.

One sentence pair a line: ``url_1  url_2  sentence_1  sentence_2  score``, UTF-8, with a
header line naming the columns. Fields never contain tabs or line breaks (they are
collapsed to spaces), so any TSV reader, ``cut -f3,4`` included, splits them right.
"""

from __future__ import annotations

import gzip
import os
from typing import Iterable

from bitextcrawl.formats.tmx import clean_segment, iter_clean_rows

COLUMNS = ("url_1", "url_2", "sentence_1", "sentence_2", "score")


def _open(path):
    path = os.fspath(path)
    if path.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def write_bitext_tsv(path, rows: Iterable, *, header: bool = True) -> int:
    """Write rows (dicts or tuples, see ``formats.tmx.normalise_row``); returns the count.

    Rows are deduplicated on (sentence_1, sentence_2); rows with an empty side are skipped.
    ``.gz`` paths are compressed.
    """
    n = 0
    with _open(path) as fh:
        if header:
            fh.write("\t".join(COLUMNS) + "\n")
        for r in iter_clean_rows(rows):
            score = r["score"]
            try:
                score = f"{float(score):.4f}" if score not in (None, "") else ""
            except (TypeError, ValueError):
                score = clean_segment(score)
            fh.write("\t".join((r["url_1"], r["url_2"], r["sentence_1"], r["sentence_2"],
                                score)) + "\n")
            n += 1
    return n


__all__ = ["write_bitext_tsv", "COLUMNS"]
