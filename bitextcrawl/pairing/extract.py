"""Greedy one-to-one extraction of page pairs from scored candidates.

This is Algorithm 3 of Liu et al. (seed 004, §3.4, "Finding parallel page pairs"):
repeatedly take the pair with the highest score, output it, and remove both of its
pages, until the score falls below a threshold (``T_min``) or enough pairs have been
taken (``N_top``). Every stage that turns scores into pairs uses it (ETS, structural
EM, LSI), so that the output keeps the "each URL in at most one pair" contract.
"""

from __future__ import annotations

import math
from typing import Iterable


def one_to_one(scored: Iterable[tuple[str, str, float]], threshold: float = 0.0,
               max_pairs: int | None = None) -> list[tuple[str, str, float]]:
    """Algorithm 3 (seed 004 §3.4): greedy 1-1 pairs, best score first, down to ``threshold``.

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


def one_to_one_with_evidence(scored: Iterable[tuple[str, str, float]],
                             proven: dict[tuple[str, str], float], threshold: float = 0.0,
                             max_pairs: int | None = None) -> list[tuple[str, str, float]]:
    """Algorithm 3 after the proven pairs: what earlier stages proved is not undone by scores.

    ``proven``: (url_1, url_2) -> strength of known evidence (a credible URL pattern,
    mutual hreflang). They are taken first, strongest evidence first (then best score),
    one-to-one among themselves: a proven pair is removed only when a rival for one of
    its pages has stronger evidence. Then the other pairs follow by score, down to
    ``threshold``, among the pages still free. Departure from seed 004, which has no
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
    rest = one_to_one(((a, b, s) for (a, b), s in scores.items()
                       if a not in used and b not in used), threshold)
    out.extend(rest)
    out.sort(key=lambda t: (-t[2], t[0], t[1]))
    return out if max_pairs is None else out[:max_pairs]
