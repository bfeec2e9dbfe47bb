"""How far each model source can be trusted on one site, without labels.

Each model source (structure, content, rare shared evidence) picks, for a page, the
candidate it scores best; where two pages pick each other, the source *claims* that
pair. On one site a source can be right about most pages (structure on pages whose
translations keep their blocks) or about almost none (structure where every page is
one template with a line of text in it; content across scripts with few shared
words). Its weight must come from the site.

Sources that are right independently agree on the right pair; wrong claims scatter
over a page's many rivals and rarely coincide. So, as in the agreement-rate
estimators of classifier accuracy from unlabelled data (Platanios, Blum & Mitchell
2014; the triplet identity of Dawid & Skene 1979's moment methods): with ``q_s`` the
share of a site's pages on which source ``s`` claims the right pair, the share on
which ``s`` and ``t`` claim the same pair is about ``q_s · q_t``, and three sources
give ``q_s = sqrt(a_st · a_su / a_tu)``. The pairs the site proves (URL rules,
declared alternates, the entrance, confirmed parallel links) are one more source,
right by definition where it speaks: its agreement with ``s`` over the pages it
covers is ``q_s`` directly. Estimates are averaged over the triplets and references
available and clipped to [0, 1].

Not in the seeds: Liu et al. weigh content and structure by one λ for every site,
and Assylbekov et al. and Germann each trust their own model. A source the site shows
to be uninformative here counts for little here, and for as much as before where it
agrees with the others.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

# A source claims a pair only where it tells it from the rivals by this much (relative).
TIE = 1e-9
# Fewer proven pairs among the candidates than this: they are no estimate alone.
MIN_REFERENCE = 5


def claims(cands: list, values) -> set:
    """Pairs that are the strict best of both their pages' candidates by ``values``."""
    best1: dict = {}
    best2: dict = {}
    for (a, b), v in zip(cands, values):
        v = float(v)
        for best, u, w in ((best1, a, b), (best2, b, a)):
            got = best.get(u)
            if got is None or v > got[0] + TIE:
                best[u] = (v, w, False)
            elif abs(v - got[0]) <= TIE:
                best[u] = (got[0], got[1], True)   # a tie: no claim
    return {(a, b) for a, (v, b, tie) in best1.items()
            if not tie and v > 0 and best2.get(b, (0, "", True))[1] == a
            and not best2[b][2]}


class SourceTrust:
    """Per-site accuracy of each model source from the agreement of their claims.

    ``fit(cands, sources, reference)``: ``sources`` name -> scores aligned with
    ``cands``; ``reference`` the pairs the site proves. Fitted: ``claims_`` (how many
    pairs each source claims), ``accuracy_`` (q: share of the pages a source claims
    rightly), ``weights_`` (q over the best q: 1 for the most trusted source).
    """

    def __init__(self, min_reference: int = MIN_REFERENCE):
        self.min_reference = min_reference

    def fit(self, cands: list, sources: dict, reference=()) -> "SourceTrust":
        pages = min(len({a for a, _ in cands}), len({b for _, b in cands})) or 1
        claimed = {name: claims(cands, values) for name, values in sources.items()}
        self.claims_ = {name: len(c) for name, c in claimed.items()}
        agree = {(s, t): len(claimed[s] & claimed[t]) / pages
                 for s, t in combinations(sorted(claimed), 2)}
        agree.update({(t, s): v for (s, t), v in list(agree.items())})
        estimates: dict = {name: [] for name in claimed}
        for s in claimed:
            others = [t for t in claimed if t != s]
            for t, u in combinations(others, 2):
                if agree[(t, u)] > 0:
                    estimates[s].append(math.sqrt(agree[(s, t)] * agree[(s, u)] / agree[(t, u)]))
        ref = set(reference) & set(cands)
        if len(ref) >= self.min_reference:
            covered = {a for a, _ in ref}
            for s, c in claimed.items():
                mine = {(a, b) for a, b in c if a in covered}
                estimates[s].append(len(mine & ref) / len(ref))
        self.accuracy_ = {s: (min(1.0, float(np.mean(v))) if v else None)
                          for s, v in estimates.items()}
        known = [q for q in self.accuracy_.values() if q is not None]
        top = max(known) if known else 0.0
        self.weights_ = {s: (1.0 if q is None or top <= 0 else q / top)
                         for s, q in self.accuracy_.items()}
        return self

    def report(self) -> dict:
        return {"claims": self.claims_,
                "accuracy": {s: None if q is None else round(q, 4)
                             for s, q in self.accuracy_.items()},
                "weights": {s: round(w, 4) for s, w in self.weights_.items()}}
