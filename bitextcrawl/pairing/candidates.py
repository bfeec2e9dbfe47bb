"""Candidate page pairs for a site without URL evidence (input of the structural EM, [Assylbekov 2015 §3.3]).

The structural model scores *candidate* pairs; on a site where URL patterns and
hreflang do not pair every page, all N1×N2 pairs would be far too many (and the
EM's p∥ would collapse towards 0). This module proposes, for each page, at most
``top_k`` counterparts, with work and output growing ~linearly with the site:
it never builds the N1×N2 matrix.

How a pair is proposed
----------------------
1. **Shared rare evidence** (inverted index): each page has a set of
   language-independent features —

   * ``num``: numbers in its title and main text (digits only, so ``1,000.5`` ==
     ``1 000,5``; leading zeros dropped; at least 2 digits — single digits are noise);
   * ``img``: file names (basename, lower case) of ``<img src>`` in its HTML;
   * ``out``: outlink targets (exact canonical URL);
   * ``anc``: what else translation leaves alone (``anchors.py``): title words, code
     tokens, identifiers in the text, outside links;
   * ``sw``: *language-switch links*: a page links to a page of the other language
     (the feature is the target URL; the target page carries its own URL), so
     "p1 links to p2" or "p2 links to p1" is a shared feature.

   A feature found on more than ``max_df`` pages of either language (templates,
   menus, the year in the footer) is dropped: it says nothing about *which* page is
   the counterpart, and skipping it bounds the index work to
   N·(features per page)·max_df. The others weigh idf(f) = log(1 + (N1+N2)/df(f))
   (× ``switch_weight`` for ``sw``); a pair's evidence is the sum over shared features.
2. **Length neighbours**: pages of the other language whose text length is closest
   to â·l (â the site's length ratio, see below) fill the list when shared
   evidence gives fewer than ``top_k``: the other side is sorted by length once and
   each page looks at most 4·top_k neighbours (bisect), so this is O(N log N).

Cheap filters (both routes; a pair failing one is never proposed)
-----------------------------------------------------------------
* **text length ratio**: with L the main-text length (``text_length``, else the
  STRAND chunk lengths), keep the pair iff
  L2 ∈ [â·L1 / r − slack, â·L1 · r + slack], r = ``max_length_ratio`` (2.0) and
  slack = ``length_slack`` (50 characters, for short pages where ratios are noise).
  â is the median L2/L1 over the known pairs, with the pairs that are each other's best
  by shared rare evidence, when there are ≥ 5 of them, else
  median(L2)/median(L1) over the site, clipped to [0.2, 5] (Chinese vs English
  text is ~0.3 in characters, so â cannot be assumed 1; cf. Gale–Church's c).
* **chunk count ratio**: with C the number of ``[Chunk:*]`` tokens, keep iff
  C2 ∈ [C1 / rc − cs, C1 · rc + cs], rc = ``max_chunk_ratio`` (2.0), cs =
  ``chunk_slack`` (3). A translation keeps its block template [Assylbekov 2015 §2].

Selecting at most ``top_k`` per page
------------------------------------
Each page of either language proposes its ``top_k`` best pairs by score = shared
evidence + length similarity (1 − |log(L2/(â·L1))| / log r, in [0, 1]) + chunk
similarity (same form), the last two only breaking ties between pages without
evidence. The union is then taken greedily by decreasing score, accepting a pair
only while both its pages have fewer than ``top_k`` pairs: so **every page ends in at
most top_k pairs** (a page in more than ``top_k`` known pairs excepted: known pairs
are always kept, and they count towards the cap). Pages already in a known pair
get no further candidates unless ``exclude_known_pages=False``.
"""

from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_left
from collections import defaultdict
from typing import Iterable, Sequence

import numpy as np

from bitextcrawl.pages.urls import canonical
from bitextcrawl.pairing.page_features import (
    page_chunk_count,
    page_features,
    page_field,
    page_text_length,
)

__all__ = ["candidate_pairs", "page_features", "length_ratio", "passes_cheap_filters"]

def length_ratio(lengths1: Sequence[int], lengths2: Sequence[int],
                 known: Iterable[tuple[int, int]] = ()) -> float:
    """â, the site's typical L2/L1, clipped to [0.2, 5] (see module docstring)."""
    ratios = sorted(l2 / l1 for l1, l2 in known if l1 > 0 and l2 > 0)
    if len(ratios) >= 5:
        r = ratios[len(ratios) // 2]
    else:
        pos1 = sorted(v for v in lengths1 if v > 0)
        pos2 = sorted(v for v in lengths2 if v > 0)
        if not pos1 or not pos2:
            return 1.0
        r = pos2[len(pos2) // 2] / pos1[len(pos1) // 2]
    return min(max(r, 0.2), 5.0)


def _passes(l1: int, l2: int, c1: int, c2: int, a_hat: float, max_length_ratio: float,
            length_slack: int, max_chunk_ratio: float, chunk_slack: int) -> bool:
    t = a_hat * l1
    if not (t / max_length_ratio - length_slack <= l2 <= t * max_length_ratio + length_slack):
        return False
    return c1 / max_chunk_ratio - chunk_slack <= c2 <= c1 * max_chunk_ratio + chunk_slack


def passes_cheap_filters(pages1: Sequence, pages2: Sequence, pairs: Iterable[tuple[int, int]],
                         known_pairs: Iterable[tuple[int, int]] = (), *,
                         max_length_ratio: float = 2.0, length_slack: int = 50,
                         max_chunk_ratio: float = 2.0, chunk_slack: int = 3) -> list[bool]:
    """The text length and chunk count filters of :func:`candidate_pairs`, for pairs proposed elsewhere.

    ``pairs`` and ``known_pairs`` hold indexes into ``pages1``/``pages2``; â comes
    from the known pairs as in :func:`length_ratio`.
    """
    lengths1 = [page_text_length(p) for p in pages1]
    lengths2 = [page_text_length(p) for p in pages2]
    a_hat = length_ratio(lengths1, lengths2, [(lengths1[i], lengths2[j]) for i, j in known_pairs])
    chunks1 = [page_chunk_count(p) for p in pages1]
    chunks2 = [page_chunk_count(p) for p in pages2]
    return [_passes(lengths1[i], lengths2[j], chunks1[i], chunks2[j], a_hat, max_length_ratio,
                    length_slack, max_chunk_ratio, chunk_slack) for i, j in pairs]


class _Side:
    """One language's pages, with what the filters and the index need.

    A page's features are kept as a tuple of ids (``ids``: feature -> id, shared by
    both sides, in the order the page's set gives them): a 100,000-page site has 1.5
    million (kind, URL) features, 400 MiB as sets of tuples.
    """

    def __init__(self, pages, other_urls, ids: dict):
        self.urls = [canonical(page_field(p, "url")) for p in pages]
        self.lengths = [page_text_length(p) for p in pages]
        self.chunks = [page_chunk_count(p) for p in pages]
        self.feats = [tuple(ids.setdefault(f, len(ids)) for f in page_features(p, other_urls))
                      for p in pages]
        self.df: dict[int, int] = defaultdict(int)
        for fs in self.feats:
            for f in fs:
                self.df[f] += 1
        order = sorted(range(len(pages)), key=lambda i: self.lengths[i])
        self.by_length = order
        self.sorted_lengths = [self.lengths[i] for i in order]


def candidate_pairs(pages1: Sequence, pages2: Sequence,
                    known_pairs: Iterable[tuple[str, str]] = (), top_k: int = 10, *,
                    max_length_ratio: float = 2.0, length_slack: int = 50,
                    max_chunk_ratio: float = 2.0, chunk_slack: int = 3,
                    max_df: int = 20, switch_weight: float = 2.0,
                    exclude_known_pages: bool = True,
                    with_scores: bool = False) -> list:
    """Candidate (url of lang1 page, url of lang2 page) pairs, ≤ top_k per page, deduplicated.

    ``pages1``/``pages2`` are :class:`~bitextcrawl.pages.record.PageRecord` (or dicts
    with the same fields). ``known_pairs`` (from URL patterns / hreflang) come first
    and are always included. With ``with_scores=True`` the items are
    (url1, url2, score), score ``inf`` for known pairs.
    """
    known: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for u1, u2 in known_pairs:
        pair = (canonical(u1), canonical(u2))
        if pair not in seen:
            seen.add(pair)
            known.append(pair)
    if top_k <= 0 or not pages1 or not pages2:
        return [(u1, u2, math.inf) for u1, u2 in known] if with_scores else known

    urls1 = frozenset(canonical(page_field(p, "url")) for p in pages1)
    urls2 = frozenset(canonical(page_field(p, "url")) for p in pages2)
    ids: dict[tuple[str, str], int] = {}
    s1 = _Side(pages1, urls2, ids)
    s2 = _Side(pages2, urls1, ids)
    switch = {f for (kind, _), f in ids.items() if kind == "sw"}
    del ids
    n_total = len(pages1) + len(pages2)

    idx1 = {u: i for i, u in enumerate(s1.urls)}
    idx2 = {u: i for i, u in enumerate(s2.urls)}
    known_len = [(s1.lengths[idx1[u1]], s2.lengths[idx2[u2]]) for u1, u2 in known
                 if u1 in idx1 and u2 in idx2]
    weight = _feature_weights(s1, s2, max_df, switch_weight, n_total, switch)
    post1, post2 = _postings(s1, weight), _postings(s2, weight)
    if len(known_len) < 5:
        known_len += [(s1.lengths[i], s2.lengths[j]) for i, j in
                      _mutual_best_by_evidence(s1, s2, weight, post1, post2)]
    a_hat = length_ratio(s1.lengths, s2.lengths, known_len)

    known_pages1 = {u1 for u1, _ in known} if exclude_known_pages else set()
    known_pages2 = {u2 for _, u2 in known} if exclude_known_pages else set()
    active1 = [i for i, u in enumerate(s1.urls) if u not in known_pages1]
    active2 = [j for j, u in enumerate(s2.urls) if u not in known_pages2]
    act2 = set(active2)
    act1 = set(active1)

    prop = _Proposals(s1, s2, weight, a_hat, top_k, max_length_ratio, length_slack,
                      max_chunk_ratio, chunk_slack)
    alone1 = prop.propose_from(s1, s1.feats, post2, act2, active1, lambda i, j: (i, j), s2,
                               a_hat)
    alone2 = prop.propose_from(s2, s2.feats, post1, act1, active2, lambda j, i: (i, j), s1,
                               1.0 / a_hat)
    prop.meet_all(alone1, alone2, active1, active2)

    return _ranked(known, prop, s1, s2, seen, top_k, with_scores)


# Pairs of pages that share nothing rare, compared all with all (a cost bound).
UNANCHORED_PAIRS = 250_000


class _Proposals:
    """Each page's ``top_k`` pages of the other side by shared-feature evidence, filled with
    its length neighbours where evidence gives fewer; ``keys`` and ``values``: every
    proposal, the pair (i, j) as ``i * len(s2.urls) + j`` and its score, in the order
    made (arrays: a million proposals on a 100,000-page site)."""

    def __init__(self, s1: "_Side", s2: "_Side", weight: dict, a_hat: float, top_k: int,
                 max_length_ratio: float, length_slack: int, max_chunk_ratio: float,
                 chunk_slack: int):
        self.s1, self.s2, self.weight, self.a_hat, self.top_k = s1, s2, weight, a_hat, top_k
        self.max_length_ratio, self.length_slack = max_length_ratio, length_slack
        self.max_chunk_ratio, self.chunk_slack = max_chunk_ratio, chunk_slack
        self.log_r = math.log(max_length_ratio)
        self.log_rc = math.log(max_chunk_ratio)
        self.n2 = len(s2.urls)
        self.keys = array("q")
        self.values = array("d")
        self.unanchored: set = set()       # pairs of a page that met every page: no top_k

    def passes(self, i: int, j: int) -> bool:
        """The two cheap filters: text length ratio and chunk count ratio."""
        s1, s2 = self.s1, self.s2
        return _passes(s1.lengths[i], s2.lengths[j], s1.chunks[i], s2.chunks[j], self.a_hat,
                       self.max_length_ratio, self.length_slack, self.max_chunk_ratio,
                       self.chunk_slack)

    def similarity(self, i: int, j: int) -> float:
        """Length and chunk-count closeness in [0, 2]: a tie-breaker below any evidence."""
        s1, s2 = self.s1, self.s2
        l1, l2 = s1.lengths[i], s2.lengths[j]
        dl = abs(math.log((l2 + 1.0) / (self.a_hat * l1 + 1.0)))
        c1, c2 = s1.chunks[i], s2.chunks[j]
        dc = abs(math.log((c2 + 1.0) / (c1 + 1.0)))
        return max(0.0, 1.0 - dl / self.log_r) + max(0.0, 1.0 - dc / self.log_rc)

    def propose_from(self, a_side, a_feats, b_post, b_active, a_indices, pair_of, other_side,
                     scale) -> list[int]:
        """Proposals of the pages ``a_indices`` of one side among the ``b_active`` pages of
        the other (``pair_of`` puts an (a, b) pair in (side 1, side 2) order); returns the
        pages that share nothing rare with any of them."""
        weight, top_k, passes, similarity = self.weight, self.top_k, self.passes, self.similarity
        keys, values, n2 = self.keys, self.values, self.n2
        alone: list[int] = []
        for i in a_indices:
            acc = shared_evidence(a_feats[i], weight, b_post, b_active)
            scored = []
            for j, ev in acc.items():
                p, q = pair_of(i, j)
                if passes(p, q):
                    scored.append((ev + similarity(p, q), j))
            best = heapq.nlargest(top_k, scored)
            got = {j for _, j in best}
            if not acc:
                alone.append(i)
            # Fill with length neighbours when evidence gives fewer than top_k.
            if len(best) < top_k:
                neighbours = _by_length_closeness(other_side, a_side.lengths[i] * scale)
                for looked, j in enumerate(neighbours):
                    if len(best) >= top_k or looked >= 4 * top_k:
                        break
                    if j in got or j not in b_active:
                        continue
                    p, q = pair_of(i, j)
                    if passes(p, q):
                        best.append((similarity(p, q), j))
                        got.add(j)
            for score, j in best:
                p, q = pair_of(i, j)
                keys.append(p * n2 + q)
                values.append(score)
        return alone

    def meet_all(self, alone1: list, alone2: list, active1: list, active2: list) -> None:
        """Where most pages of both sides share nothing rare with the other side (short
        pages across scripts), length is no guide: each such page meets every page of the
        other side that passes the filters, as in Germann 2016, within ``UNANCHORED_PAIRS``.
        Where most of a side shares names or code, the rest keep their length neighbours
        (pairs nothing supports would only move the structural model's fit)."""
        if 2 * len(alone1) < len(active1) or 2 * len(alone2) < len(active2):
            return
        if len(alone1) * len(active2) + len(alone2) * len(active1) > UNANCHORED_PAIRS:
            return
        for alone, others, pair_of in ((alone1, active2, lambda i, j: (i, j)),
                                       (alone2, active1, lambda j, i: (i, j))):
            for a in alone:
                for b in others:
                    p, q = pair_of(a, b)
                    if (p, q) not in self.unanchored and self.passes(p, q):
                        self.keys.append(p * self.n2 + q)
                        self.values.append(self.similarity(p, q))
                        self.unanchored.add((p, q))

    def best(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each pair proposed: its key, its best score, and when it was first proposed."""
        keys = np.frombuffer(self.keys, dtype=np.int64)
        values = np.frombuffer(self.values, dtype=np.float64)
        if not len(keys):
            return keys, values, np.zeros(0, dtype=np.int64)
        order = np.argsort(keys, kind="stable")   # by pair, then in the order made
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        return (sorted_keys[starts], np.maximum.reduceat(values[order], starts),
                order[starts])


def _feature_weights(s1: "_Side", s2: "_Side", max_df: int, switch_weight: float,
                     n_total: int, switch: set) -> dict[int, float]:
    """Feature weights: only features rare on both sides (df ≤ max_df) are indexed
    (``switch``: the ids of ``sw`` features)."""
    weight: dict[int, float] = {}
    for f, d1 in s1.df.items():
        d2 = s2.df.get(f)
        if d2 is None or d1 > max_df or d2 > max_df:
            continue
        w = math.log(1.0 + n_total / (d1 + d2))
        weight[f] = w * switch_weight if f in switch else w
    return weight


def shared_evidence(feats, weight: dict, post: dict, active=None) -> dict[int, float]:
    """Page of the other side (among ``active`` ones, all by default) -> the weight of the
    evidence features ``feats`` it shares."""
    acc: dict[int, float] = defaultdict(float)
    for f in feats:
        wf = weight.get(f)
        if wf is None:
            continue
        for j in post[f]:
            if active is None or j in active:
                acc[j] += wf
    return acc


def _best_by_evidence(feats, weight: dict, post: dict) -> list:
    """Each page's page of the other side with the most shared evidence (-1: none)."""
    out = []
    for fs in feats:
        acc = shared_evidence(fs, weight, post)
        out.append(max(acc, key=lambda j: (acc[j], -j)) if acc else -1)
    return out


def _mutual_best_by_evidence(s1: "_Side", s2: "_Side", weight: dict, post1: dict,
                             post2: dict) -> list[tuple[int, int]]:
    """Pairs of pages that are each other's best by shared rare evidence: what the
    length ratio â is measured on where URLs prove too few pairs. The medians of the two
    sides are no estimate of it on a partial translation, whose translated pages are not
    a sample of the other side's (short pages are translated first)."""
    best1 = _best_by_evidence(s1.feats, weight, post2)
    best2 = _best_by_evidence(s2.feats, weight, post1)
    return [(i, j) for i, j in enumerate(best1) if j >= 0 and best2[j] == i]


def _postings(side: "_Side", weight: dict) -> dict[int, list[int]]:
    """Weighted feature -> the indices of the side's pages that have it."""
    post: dict[int, list[int]] = defaultdict(list)
    for i, fs in enumerate(side.feats):
        for f in fs:
            if f in weight:
                post[f].append(i)
    return post


def _by_length_closeness(side: "_Side", target: float):
    """The side's page indices, the one closest to ``target`` in log length first."""
    sl = side.sorted_lengths
    pos = bisect_left(sl, target)
    lo, hi = pos - 1, pos
    while lo >= 0 or hi < len(sl):
        if hi >= len(sl) or (lo >= 0 and abs(math.log((sl[lo] + 1) / (target + 1)))
                             <= abs(math.log((sl[hi] + 1) / (target + 1)))):
            yield side.by_length[lo]
            lo -= 1
        else:
            yield side.by_length[hi]
            hi += 1


def _url_ranks(urls: list) -> np.ndarray:
    """Each URL's place among the distinct URLs in string order."""
    place = {u: k for k, u in enumerate(sorted(set(urls)))}
    return np.fromiter((place[u] for u in urls), dtype=np.int64, count=len(urls))


def _ranked(known: list, prop: _Proposals, s1: "_Side", s2: "_Side", seen: set, top_k: int,
            with_scores: bool) -> list:
    """Known pairs first, then the proposals best first (ties by URLs, then the order
    proposed), at most ``top_k`` per page."""
    count1: dict[str, int] = defaultdict(int)
    count2: dict[str, int] = defaultdict(int)
    out: list = []
    for u1, u2 in known:
        count1[u1] += 1
        count2[u2] += 1
        out.append((u1, u2, math.inf) if with_scores else (u1, u2))
    keys, scores, first = prop.best()
    del prop.keys, prop.values
    i_of, j_of = np.divmod(keys, prop.n2)
    ranked = np.lexsort((first, _url_ranks(s2.urls)[j_of], _url_ranks(s1.urls)[i_of], -scores))
    for i, j, score in zip(i_of[ranked].tolist(), j_of[ranked].tolist(),
                           scores[ranked].tolist()):
        u1, u2 = s1.urls[i], s2.urls[j]
        if u1 == u2 or (u1, u2) in seen:
            continue
        if (count1[u1] >= top_k or count2[u2] >= top_k) and (i, j) not in prop.unanchored:
            continue
        seen.add((u1, u2))
        count1[u1] += 1
        count2[u2] += 1
        out.append((u1, u2, round(score, 6)) if with_scores else (u1, u2))
    return out
