"""Bitext rows kept on disk while a language pair is aligned, not in memory.

The bitext stage checks a language pair's rows together (``extract.checked_rows``: the
sentence scripts and the interface strings are taken from all of them) and writes
``bitext.tmx`` and ``bitext.tsv`` in language-pair order once every pair is aligned; a
100,000-page site gives 745,000 rows. :class:`RowSpill` is the list they go to: rows
appended are pickled a batch at a time to an unnamed temporary file and read back, in
the same order and equal to what went in, as often as wanted. Pure Python: no Scrapy.
"""

from __future__ import annotations

import pickle
import tempfile

# Rows pickled together (one pickle memo: the URLs and keys of a batch stored once).
SPILL_BATCH = 512


class RowSpill:
    """An append-only sequence of picklable rows in a temporary file (in ``dir``, else
    the system's temporary folder; the file has no name and goes when the object does).

    ``append`` and ``len`` as a list; iterating reads the rows back in order, and an
    iteration may run beside another or beside appends.
    """

    def __init__(self, dir: str | None = None, batch: int = SPILL_BATCH):
        self._fh = tempfile.TemporaryFile(dir=dir)
        self._batch: list = []
        self._size = batch
        self._n = 0

    def append(self, row) -> None:
        self._batch.append(row)
        self._n += 1
        if len(self._batch) >= self._size:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._fh.seek(0, 2)
            pickle.dump(self._batch, self._fh, protocol=pickle.HIGHEST_PROTOCOL)
            self._batch = []

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def __iter__(self):
        self._flush()
        end = self._fh.seek(0, 2)
        pos = 0
        while pos < end:
            self._fh.seek(pos)
            batch = pickle.load(self._fh)
            pos = self._fh.tell()
            yield from batch

    def close(self) -> None:
        self._fh.close()


__all__ = ["RowSpill", "SPILL_BATCH"]
