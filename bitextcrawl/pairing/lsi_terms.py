"""The term side of the LSI model [Germann 2016] (:mod:`bitextcrawl.pairing.lsi`): term
frequencies, hashed buckets, a site's document frequencies, the tokens of the texts a model
reads (cached), and the row-wise cosines and blocks of its products."""

from __future__ import annotations

import sys
import zlib
from collections import Counter
from typing import Sequence

import numpy as np

from bitextcrawl.pages.tokens import tokenize, tokens_of

# Rows a product block has at least (``_row_blocks``).
MIN_BLOCK_ROWS = 64


def _row_blocks(n: int, block: int, rows: int):
    """Slices of ``range(n)``: blocks of ``block`` rows, each cut in pieces of ``rows``
    rows where ``rows`` is fewer, but none of fewer than ``MIN_BLOCK_ROWS`` rows that
    the block did not have: BLAS multiplies a single row by another routine (gemv),
    whose sums may differ from gemm's in the last bit, and very small products too,
    while gemm gives each row the same values whatever the rows beside it."""
    piece = max(rows, MIN_BLOCK_ROWS)
    for start in range(0, n, block):
        stop = min(start + block, n)
        cuts = list(range(start, stop, piece)) + [stop]
        if len(cuts) > 2 and cuts[-1] - cuts[-2] < MIN_BLOCK_ROWS:
            del cuts[-2]
        for lo, hi in zip(cuts, cuts[1:]):
            yield slice(lo, hi)


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norm, out=np.zeros_like(v, dtype=float), where=norm > 0)


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of each row of ``a`` with the same row of ``b``; 0.0 where a row is zero."""
    num = np.einsum("ij,ij->i", a, b)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    out = np.zeros(len(num), dtype=float)
    ok = den > 1e-12
    out[ok] = num[ok] / den[ok]
    return np.clip(out, -1.0, 1.0)


def _tf(counts: Counter) -> tuple[list[str], np.ndarray]:
    terms = list(counts)
    return terms, 1.0 + np.log(np.fromiter(counts.values(), dtype=float, count=len(terms)))


def _hash_bucket(token: str, dim: int) -> tuple[int, float]:
    h = zlib.crc32(token.encode("utf-8"))
    return h % dim, (1.0 if (h >> 31) & 1 else -1.0)


def site_term_stats(texts: Sequence[str], tokenize=tokenize) -> dict:
    """What LSI's idf needs of a site's pages: ``{"n_docs": N, "df": Counter}``."""
    df: Counter = Counter()
    for text in texts:
        df.update(set(tokenize(text)))
    return {"n_docs": len(texts), "df": df}


class _TokenCache:
    """Tokens of the texts a model has read, up to ``max_tokens`` in all: fit, the site
    mean and the pair similarities read the same pages again, and tokenising is most
    of their cost. Texts past the budget are tokenised each time they are read."""

    def __init__(self, max_tokens: int):
        self.max_tokens = max_tokens
        self.size = 0
        self.tokens: dict[str, tuple[str, ...]] = {}

    def __call__(self, text: str) -> tuple[str, ...]:
        text = text or ""
        got = self.tokens.get(text)
        if got is None:
            got = tokens_of(text)
            if self.size + len(got) <= self.max_tokens:
                # (interned: a site's pages share most of their words)
                got = self.tokens[text] = tuple(map(sys.intern, got))
                self.size += len(got)
        return got


class SiteTerms:
    """The tokens of a site's pages and their document frequencies, for the LSI models
    fitted on them one after the other: each content round of a language pair fits a new
    space on other training pairs over the same pages, whose tokens and idf population
    stay the same. ``tokenize``: the :class:`_TokenCache` the models share;
    :meth:`stats`: :func:`site_term_stats` of a population, counted once while the
    population is the same texts."""

    def __init__(self, max_tokens: int):
        self.tokenize = _TokenCache(max_tokens)
        self._population: tuple = ()
        self._stats: dict | None = None

    def stats(self, population: Sequence[str]) -> dict:
        key = tuple(population)
        if self._stats is None or key != self._population:
            self._population, self._stats = key, site_term_stats(key, self.tokenize)
        return self._stats
