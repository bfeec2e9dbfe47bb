"""One-to-one extraction of page pairs from scored candidates.

:func:`one_to_one` is Algorithm 3 of [Liu 2014 §3.4] ("Finding parallel page pairs"):
repeatedly take the pair with the highest score, output it, and remove both of
its pages, until the score falls below a threshold (``T_min``) or enough pairs have been
taken (``N_top``). :func:`assignment` is the global decision the pairing pipeline makes
instead: the 1-1 pairs of highest total score (Kuhn-Munkres), each kept only where it
beats the rivals still free to take its pages. Greedy extraction cascades: one wrong
pair taken first pushes the right pair of each of its pages out, and their pages' next
best in turn. Both keep the "each URL in at most one pair" contract.

:func:`greedy_group_sums` is the greedy matching inside the neighbour sets of ETS
([Liu 2014] Algorithm 1, :mod:`bitextcrawl.pairing.ets`), group by group.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable

import numpy as np


def one_to_one(scored: Iterable[tuple[str, str, float]], threshold: float = 0.0,
               max_pairs: int | None = None) -> list[tuple[str, str, float]]:
    """Algorithm 3 [Liu 2014 §3.4]: greedy 1-1 pairs, best score first, down to ``threshold``.

    ``scored`` yields ``(url_1, url_2, score)``. A pair is kept when its score is
    ``>= threshold`` and neither URL is already used (one set of used URLs for both
    sides, so a URL never appears twice in the output, whichever side it is on).
    ``max_pairs`` is the paper's alternative stop rule ``N_top``. NaN scores are
    ignored. Ties are broken by ``(url_1, url_2)`` in string order, so the result
    does not depend on the input order. Duplicate ``(url_1, url_2)`` entries count
    once (with their highest score).
    """
    best: dict[tuple[str, str], float] = {}
    for u1, u2, score in scored:
        score = float(score)
        if math.isnan(score) or score < threshold:
            continue
        key = (u1, u2)
        if score > best.get(key, -math.inf):
            best[key] = score
    ordered = sorted(best.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    used: set[str] = set()
    out: list[tuple[str, str, float]] = []
    limit = math.inf if max_pairs is None else max_pairs
    for (u1, u2), score in ordered:
        if len(out) >= limit:
            break
        if u1 in used or u2 in used:
            continue
        used.add(u1)
        used.add(u2)
        out.append((u1, u2, score))
    return out


# Above this many cells a connected group of candidates is decided greedily: the dense
# assignment of a 10,000 x 10,000 group would hold 800 MB.
ASSIGNMENT_MAX_CELLS = 25_000_000


def _groups(pairs: list) -> list[list]:
    """The candidate pairs in connected groups (pages joined by a candidate pair)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(("1", a))] = find(("2", b))
    groups: dict = defaultdict(list)
    for a, b in pairs:
        groups[find(("1", a))].append((a, b))
    return list(groups.values())


def _ambiguous(pair, partner: dict, rivals: dict, best: dict, margin: float) -> bool:
    """Whether another way of pairing ``pair``'s pages scores within ``margin`` of it: one
    of its pages with a page left free, or the two pages of ``pair`` and of a chosen rival
    swapped. ``partner``: page -> (its chosen mate, score); ``rivals``: page -> its
    candidate pairs."""
    a, b, s = pair
    for x, y in (*rivals[a], *rivals[b]):
        if (x, y) == (a, b):
            continue
        t = best[(x, y)]
        other = y if x == a else x          # the rival page
        if other not in partner:
            if t >= s - margin:
                return True
            continue
        mate, t2 = partner[other]           # the rival page's own pair, and its score
        swapped = best.get((mate, b) if x == a else (a, mate), 0.0)
        if t + swapped >= s + t2 - margin:
            return True
    return False


def assignment(scored: Iterable[tuple[str, str, float]], threshold: float = 0.0,
               margin: float | None = 0.0) -> list[tuple[str, str, float]]:
    """1-1 pairs of the highest total score among those ``>= threshold`` (Kuhn-Munkres,
    per connected group of candidates), each kept where no other way of pairing its pages
    comes within ``margin`` of it (with a page left free, or by swapping with a chosen
    rival): two look-alike pages nothing tells apart give no pair, as a coin toss is no
    pair. ``margin=None`` keeps every pair of the assignment. Sorted by score, then URLs;
    NaN ignored; duplicate pairs count with their highest score.
    """
    from scipy.optimize import linear_sum_assignment

    best: dict[tuple[str, str], float] = {}
    for u1, u2, score in scored:
        score = float(score)
        if not math.isnan(score) and score >= threshold and score > best.get((u1, u2), -math.inf):
            best[(u1, u2)] = score
    chosen: list = []
    for group in _groups(sorted(best)):
        rows = sorted({a for a, _ in group})
        cols = sorted({b for _, b in group})
        if len(rows) * len(cols) > ASSIGNMENT_MAX_CELLS:
            chosen.extend(one_to_one(((a, b, best[(a, b)]) for a, b in group), threshold))
            continue
        ri = {u: i for i, u in enumerate(rows)}
        ci = {u: j for j, u in enumerate(cols)}
        # Non-candidates weigh 0: a page matched to one is a page left unpaired.
        m = np.zeros((len(rows), len(cols)))
        for a, b in group:
            m[ri[a], ci[b]] = best[(a, b)]
        r, c = linear_sum_assignment(m, maximize=True)
        chosen.extend((rows[i], cols[j], best[(rows[i], cols[j])])
                      for i, j in zip(r, c) if (rows[i], cols[j]) in best)
    if margin is None:
        out = chosen
    else:
        partner = {}
        for x, y, t in chosen:
            partner[x], partner[y] = (y, t), (x, t)
        rivals: dict = defaultdict(list)
        for x, y in best:
            rivals[x].append((x, y))
            rivals[y].append((x, y))
        out = [p for p in chosen if not _ambiguous(p, partner, rivals, best, margin)]
    out.sort(key=lambda t: (-t[2], t[0], t[1]))
    return out


def one_to_one_with_evidence(scored: Iterable[tuple[str, str, float]],
                             proven: dict[tuple[str, str], float], threshold: float = 0.0,
                             max_pairs: int | None = None,
                             margin: float | None = None) -> list[tuple[str, str, float]]:
    """Algorithm 3 after the proven pairs: what earlier stages proved is not undone by scores.

    ``proven``: (url_1, url_2) -> strength of known evidence (a credible URL pattern,
    mutual hreflang). They are taken first, strongest evidence first (then best score),
    one-to-one among themselves: a proven pair is removed only when a rival for one of
    its pages has stronger evidence. Then the other pairs follow by score, down to
    ``threshold``, among the pages still free: greedily (Algorithm 3), or, with
    ``margin``, by :func:`assignment`. Departure from [Liu 2014], which has no
    such tier: on real multilingual sites ETS's external similarity dropped 14% of the
    pairs a credible URL pattern had found (see ``ets.py``), and nothing the paper's
    scores add can prove a URL-pattern pair wrong when no rival pattern claims its pages.
    """
    scores: dict[tuple[str, str], float] = {}
    for u1, u2, score in scored:
        score = float(score)
        if not math.isnan(score) and score > scores.get((u1, u2), -math.inf):
            scores[(u1, u2)] = score
    first = sorted((k for k in proven if k in scores),
                   key=lambda k: (-proven[k], -scores[k], k[0], k[1]))
    used: set[str] = set()
    out: list[tuple[str, str, float]] = []
    for u1, u2 in first:
        if u1 not in used and u2 not in used:
            used.update((u1, u2))
            out.append((u1, u2, scores[(u1, u2)]))
    free = ((a, b, s) for (a, b), s in scores.items() if a not in used and b not in used)
    rest = one_to_one(free, threshold) if margin is None else assignment(free, threshold, margin)
    out.extend(rest)
    out.sort(key=lambda t: (-t[2], t[0], t[1]))
    return out if max_pairs is None else out[:max_pairs]


def greedy_group_sums(group: np.ndarray, kx: np.ndarray, ky: np.ndarray, score: np.ndarray,
                      value: np.ndarray, tie: np.ndarray, n_groups: int,
                      max_rounds: int = 10_000) -> np.ndarray:
    """The While loop of Algorithm 1 [Liu 2014 §3.3] in every group at once: greedy matching, sum of values.

    Item i belongs to ``group[i]`` and uses the two pages with keys ``kx[i]`` and
    ``ky[i]`` (keys are unique per group and side). Within a group, repeatedly take
    the item of highest ``score`` (ties: lowest ``tie``) whose pages are both unused,
    and add its ``value``. Returns the per-group sums.

    Vectorised by *locally dominant* rounds: an item that is the best alive item of
    both its x-key and its y-key is taken by the sequential greedy too (Preis 1999:
    under a strict total order the two give the same matching), so each round takes
    all of them at once and drops the items whose pages got used. The best alive
    item of every group is dominant, so each round makes progress; in practice a
    handful of rounds suffice. After ``max_rounds`` the rest runs sequentially.
    """
    total = np.zeros(n_groups)
    m = len(group)
    if not m:
        return total
    order = np.lexsort((tie, -score))           # global priority: rank = position
    kx, ky = kx[order], ky[order]
    grp, val = group[order], value[order]
    used_x = np.zeros(int(kx.max()) + 1, dtype=bool)
    used_y = np.zeros(int(ky.max()) + 1, dtype=bool)
    live = np.arange(m)
    rounds = 0
    while len(live) and rounds < max_rounds:
        rounds += 1
        lx, ly = kx[live], ky[live]
        best_x = np.full(len(used_x), m, dtype=np.int64)
        best_y = np.full(len(used_y), m, dtype=np.int64)
        np.minimum.at(best_x, lx, live)
        np.minimum.at(best_y, ly, live)
        take = (best_x[lx] == live) & (best_y[ly] == live)
        sel = live[take]
        total += np.bincount(grp[sel], weights=val[sel], minlength=n_groups)
        used_x[kx[sel]] = True
        used_y[ky[sel]] = True
        live = live[~(used_x[lx] | used_y[ly])]
    for i in live.tolist():                      # sequential tail (rarely reached)
        if not used_x[kx[i]] and not used_y[ky[i]]:
            used_x[kx[i]] = used_y[ky[i]] = True
            total[grp[i]] += val[i]
    return total
