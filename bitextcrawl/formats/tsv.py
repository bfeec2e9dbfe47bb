"""Tab-separated bitext writer (``bitext.tsv``), in Bitextor's column layout.

One sentence pair a line, UTF-8, after a header line naming the columns: Bitextor's
names first (``src_url trg_url src_text trg_text aligner_score``, what Bicleaner,
Bifixer and the Bitextor pipeline read by header), then ours (``src_lang trg_lang``).
Fields never contain tabs or line breaks (they are collapsed to spaces), so any TSV
reader, ``cut -f3,4`` included, splits them right.
"""

from __future__ import annotations

import csv
from typing import Iterable

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.tmx import clean_segment, iter_clean_rows

# Header names, and the row keys (formats.tmx.normalise_row) written under them.
COLUMNS = ("src_url", "trg_url", "src_text", "trg_text", "aligner_score", "src_lang",
           "trg_lang")
ROW_KEYS = ("url_1", "url_2", "sentence_1", "sentence_2", "score", "lang_1", "lang_2")


def tsv_line(row: dict) -> str:
    """One line of ``bitext.tsv`` (newline included) of a row of ``iter_clean_rows``."""
    score = row["score"]
    try:
        score = f"{float(score):.4f}" if score not in (None, "") else ""
    except (TypeError, ValueError):
        score = clean_segment(score)
    return "\t".join((row["url_1"], row["url_2"], row["sentence_1"], row["sentence_2"], score,
                      clean_segment(row["lang_1"]), clean_segment(row["lang_2"]))) + "\n"


HEADER = "\t".join(COLUMNS) + "\n"


def read_bitext_tsv(path) -> list[dict]:
    """The rows of a ``bitext.tsv`` read by its header, under the row keys they were
    written from (``url_1``, ``sentence_1``, ``score``…; values as written, strings)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [{key: r[col] for col, key in zip(COLUMNS, ROW_KEYS) if col in r}
                for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)]


def write_bitext_tsv(path, rows: Iterable, *, header: bool = True) -> int:
    """Write rows (dicts or tuples, see ``formats.tmx.normalise_row``); returns the count.

    Rows are deduplicated on (sentence_1, sentence_2); rows with an empty side are skipped.
    ``.gz`` paths are compressed; readers never see a half-written file.
    """
    n = 0
    with atomic_open(path) as fh:
        if header:
            fh.write(HEADER)
        for r in iter_clean_rows(rows):
            fh.write(tsv_line(r))
            n += 1
    return n


__all__ = ["write_bitext_tsv", "tsv_line", "COLUMNS", "HEADER", "ROW_KEYS"]
