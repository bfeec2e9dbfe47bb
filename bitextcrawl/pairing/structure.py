"""STRAND alignment features of two linearised pages [Assylbekov 2015 §2].

Two STRAND token sequences (see :mod:`bitextcrawl.pages.strand`) are aligned by
their longest common subsequence, where every ``[Chunk:*]`` token matches every
other ``[Chunk:*]`` token whatever its length, and tags match when they are equal
(Resnik & Smith 2003; the paper's example in §2). From the alignment:

* **W** — the alignment cost: tokens in one sequence and not the other,
  ``W = M + N - 2·LCS``, which is exactly the Indel distance;
* **M**, **N** — the number of tokens of each sequence;
* **L1**, **L2** — the total text length of the chunks of each page (§3.1);
* the aligned chunk index pairs ``(i, j)``: chunk ``i`` of page 1 (its position
  among the page's chunks, i.e. the index into ``PageRecord.chunks``) sits in the
  same LCS slot as chunk ``j`` of page 2.

The alignment runs in C++ (``rapidfuzz.distance.Indel``, bit-parallel LCS). To get
there without a Python-level DP, each page is *encoded* once into a ``str`` with
one code point per token (all chunks share one code point); encodings can be
cached per page and reused for every candidate pair the page is in. Code points are
given by a :class:`Vocabulary`, one per batch of pages compared with each other: no
table outlives the pages it was made for.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
from rapidfuzz.distance import Indel

from bitextcrawl.pages.strand import chunk_length, is_chunk

COLUMNS = ("w", "m", "n", "l1", "l2")

# Site template ([Assylbekov 2015 §4] removes boilerplate before STRAND): a run of TEMPLATE_K
# consecutive tokens found on more than TEMPLATE_SHARE of a language's pages.
TEMPLATE_K = 5
TEMPLATE_SHARE = 0.8
TEMPLATE_MIN_PAGES = 5

# One code point for every chunk token; tags get their own code points from 2 up.
# Code points below 256 take rapidfuzz's fastest path (an array, not a hash map);
# a site rarely uses more than ~250 distinct tag tokens, and beyond that it stays
# correct, only a little slower.
_CHUNK_CODE = "\x01"
_CHUNK_RE = re.compile(_CHUNK_CODE)


class Vocabulary:
    """Token -> code point for the pages of one comparison batch, and chunk token -> its
    length (one entry per distinct length): encoding is one dict lookup per token. Two
    pages compare only under the same vocabulary."""

    def __init__(self):
        self.codes: dict[str, str] = {}
        self.chunk_lengths: dict[str, int] = {}
        self.n_tags = 0

    def code(self, token: str) -> str:
        code = self.codes.get(token)
        if code is not None:
            return code
        if is_chunk(token):
            try:
                self.chunk_lengths[token] = max(chunk_length(token), 0)
            except ValueError:  # a malformed length counts as an empty chunk
                self.chunk_lengths[token] = 0
            code = _CHUNK_CODE
        else:
            cp = self.n_tags + 2
            if cp >= 0xD800:  # skip the surrogate block: not valid in a str for rapidfuzz
                cp += 0x800
            self.n_tags += 1
            code = chr(cp)
        self.codes[token] = code
        return code

    def encode(self, tokens: Sequence[str] | EncodedTokens) -> EncodedTokens:
        """Encode STRAND tokens (all ``[Chunk:*]`` map to one symbol); a page encoded
        under another vocabulary is encoded again from its tokens."""
        if isinstance(tokens, EncodedTokens):
            if tokens.vocabulary is self:
                return tokens
            tokens = tokens.tokens
        get, code = self.codes.get, self.code
        codes = "".join([get(t) or code(t) for t in tokens])
        positions = tuple([m.start() for m in _CHUNK_RE.finditer(codes)])
        length = self.chunk_lengths.__getitem__
        return EncodedTokens(codes, positions, sum([length(tokens[i]) for i in positions]),
                             self, tokens)


@dataclass(frozen=True)
class EncodedTokens:
    """A linearised page as rapidfuzz sees it (one code point per token)."""

    codes: str                       # one character per STRAND token
    chunk_positions: tuple[int, ...]  # token positions of the chunk tokens, increasing
    text_length: int                 # L: sum of the [Chunk:LEN] lengths
    vocabulary: Vocabulary = field(repr=False, compare=False)
    tokens: Sequence[str] = field(repr=False, compare=False)   # (the page's own list)

    def __len__(self) -> int:
        return len(self.codes)


def encode(tokens: Sequence[str] | EncodedTokens,
           vocabulary: Vocabulary | None = None) -> EncodedTokens:
    """Encode STRAND tokens for alignment (all ``[Chunk:*]`` map to one symbol), under
    ``vocabulary`` (pages to compare share one), else under a new one."""
    if vocabulary is None:
        if isinstance(tokens, EncodedTokens):
            return tokens
        vocabulary = Vocabulary()
    return vocabulary.encode(tokens)


@dataclass
class StrandFeatures:
    """Alignment features of a candidate pair ([Assylbekov 2015 §2] and §3.1)."""

    w: int
    m: int
    n: int
    l1: int
    l2: int
    aligned_chunks: list[tuple[int, int]] = field(default_factory=list)

    @property
    def lcs(self) -> int:
        return (self.m + self.n - self.w) // 2

    def as_row(self) -> tuple[int, int, int, int, int]:
        return (self.w, self.m, self.n, self.l1, self.l2)

    def to_dict(self) -> dict:
        return {"w": self.w, "m": self.m, "n": self.n, "l1": self.l1, "l2": self.l2,
                "aligned_chunks": [list(p) for p in self.aligned_chunks]}


def strand_features(tokens1: Sequence[str] | EncodedTokens,
                    tokens2: Sequence[str] | EncodedTokens,
                    *, align_chunks: bool = True) -> StrandFeatures:
    """W, M, N, L1, L2 of two STRAND sequences, W = M + N − 2·LCS [Assylbekov 2015 §2]."""
    e1 = encode(tokens1)
    e2 = encode(tokens2, e1.vocabulary)
    m, n = len(e1.codes), len(e2.codes)
    if not align_chunks:
        w = Indel.distance(e1.codes, e2.codes)
        return StrandFeatures(int(w), m, n, e1.text_length, e2.text_length, [])
    lcs = 0
    pairs: list[tuple[int, int]] = []
    pos1, pos2 = e1.chunk_positions, e2.chunk_positions
    for tag, i1, i2, j1, _ in Indel.opcodes(e1.codes, e2.codes).as_list():
        if tag != "equal":
            continue
        lcs += i2 - i1
        # chunk indices are ranks in chunk_positions
        a = bisect_left(pos1, i1)
        b = bisect_left(pos1, i2, a)
        if a == b:
            continue
        # Inside an equal block the chunks of page 1 face, in order, the chunks of
        # page 2 at the same offsets: the first one sits at pos1[a] + (j1 - i1).
        c = bisect_left(pos2, pos1[a] + j1 - i1)
        pairs.extend(zip(range(a, b), range(c, c + b - a)))
    w = m + n - 2 * lcs
    return StrandFeatures(w, m, n, e1.text_length, e2.text_length, pairs)


def features_matrix(features: Iterable[StrandFeatures]) -> np.ndarray:
    """Stack features into the s×5 matrix X = (w, m, n, l1, l2) used by the EM [Assylbekov 2015 §3.3]."""
    rows = [f.as_row() for f in features]
    if not rows:
        return np.zeros((0, 5), dtype=np.float64)
    return np.asarray(rows, dtype=np.float64)


def pair_features_matrix(pages1: Mapping[str, Sequence[str] | EncodedTokens],
                         pages2: Mapping[str, Sequence[str] | EncodedTokens],
                         pairs: Iterable[tuple[str, str]],
                         vocabulary: Vocabulary | None = None) -> np.ndarray:
    """X = (w, m, n, l1, l2) for many candidate pairs, encoding each page once [Assylbekov 2015 §2].

    ``pages1``/``pages2`` map a key (e.g. URL) to STRAND tokens, or to pages encoded
    under ``vocabulary``; ``pairs`` holds (key1, key2). Only W needs the alignment
    here, so no chunk pairs are made.
    """
    vocabulary = vocabulary or Vocabulary()
    cache1: dict[str, EncodedTokens] = {}
    cache2: dict[str, EncodedTokens] = {}
    rows: list[tuple[int, int, int, int, int]] = []
    dist = Indel.distance
    for k1, k2 in pairs:
        e1 = cache1.get(k1)
        if e1 is None:
            e1 = cache1[k1] = vocabulary.encode(pages1[k1])
        e2 = cache2.get(k2)
        if e2 is None:
            e2 = cache2[k2] = vocabulary.encode(pages2[k2])
        rows.append((dist(e1.codes, e2.codes), len(e1.codes), len(e2.codes),
                     e1.text_length, e2.text_length))
    if not rows:
        return np.zeros((0, 5), dtype=np.float64)
    return np.asarray(rows, dtype=np.float64)


def site_template_mask(strand_by_url: Mapping[str, Sequence[str]], *, k: int = TEMPLATE_K,
                       share: float = TEMPLATE_SHARE,
                       min_pages: int = TEMPLATE_MIN_PAGES) -> dict[str, list[bool]]:
    """Per page, True at each STRAND token of the site's template (boilerplate removal, [Assylbekov 2015 §4]).

    ``strand_by_url`` holds the pages of ONE language of one site. A token is template
    when it lies in a run of ``k`` consecutive tokens (tags and ``[Chunk:LEN]`` alike,
    so a menu entry is its tag and its text length) that occurs on more than
    ``share`` of the pages. One pass to count k-grams per page, one to mark: linear in
    the total number of tokens. Fewer than ``min_pages`` pages: nothing is template.

    DEPARTURE: the paper removed boilerplate with site-specific scripts; this is a
    site-independent equivalent. ``share`` is high (0.8) because the test is per
    language: a content pattern frequent on one side only (e.g. a directive table on
    most Russian pages, fewer English ones) must not be stripped on that side alone,
    which would add to W what the template had hidden.
    """
    pages = {u: list(t) for u, t in strand_by_url.items()}
    masks = {u: [False] * len(t) for u, t in pages.items()}
    if len(pages) < max(min_pages, 1) or k <= 0:
        return masks
    grams: dict[str, list[int]] = {}
    df: Counter = Counter()
    for u, t in pages.items():
        g = [hash(tuple(t[i:i + k])) for i in range(len(t) - k + 1)]
        grams[u] = g
        df.update(set(g))
    limit = share * len(pages)
    for u, g in grams.items():
        mask = masks[u]
        run_end = -1  # tokens up to run_end are already marked
        for i, h in enumerate(g):
            if df[h] > limit:
                for j in range(max(i, run_end + 1), i + k):
                    mask[j] = True
                run_end = i + k - 1
    return masks


def strip_site_template(strand_by_url: Mapping[str, Sequence[str]], *, k: int = TEMPLATE_K,
                        share: float = TEMPLATE_SHARE,
                        min_pages: int = TEMPLATE_MIN_PAGES) -> dict[str, list[str]]:
    """STRAND tokens of each page without the site's template ([Assylbekov 2015 §4]; see :func:`site_template_mask`).

    Call it once per language of a site and give the results to
    :func:`pair_features_matrix` in place of the whole pages.
    """
    masks = site_template_mask(strand_by_url, k=k, share=share, min_pages=min_pages)
    return {u: [tok for tok, m in zip(t, masks[u]) if not m] for u, t in strand_by_url.items()}
