"""Enhanced Translation Similarity (ETS): pairing pages by their linked neighbours.

[Liu 2014 §3]: the translation similarity of two pages ``e`` (language 1)
and ``c`` (language 2) is their *internal* similarity (content and structure of the
pages themselves, eq. 2), combined with an *external* similarity: how well the
neighbours of ``e`` pair up with the neighbours of ``c`` (eq. 3, Algorithm 1). As the
external similarity of a pair depends on the ETS of other pairs, ETS is iterated
(Algorithm 2), and pairs are finally extracted greedily one-to-one (Algorithm 3, in
:mod:`bitextcrawl.pairing.extract`).

Everything runs over the *candidate pairs* only (the pairs earlier stages proposed):
a pair that is not a candidate has ETS 0, so it adds nothing to a neighbour sum. The
neighbour structure (which candidate pairs are neighbour pairs of which) is computed
once with sparse matrix products; each iteration is then vectorised numpy, except for
the greedy matching of Algorithm 1 inside the few neighbour sets where two candidate
pairs compete for the same page. A site of 20k pages and ~200k candidate pairs takes
seconds to a minute (``bench/bench_ets.py``).

No Scrapy import here: pure functions over page records and dicts.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import Hashable, Iterable, Mapping

import numpy as np
import scipy.sparse as sp

from bitextcrawl.pairing.extract import greedy_group_sums, one_to_one

__all__ = ["ETS", "internal_similarity", "page_weights"]

Pair = tuple[str, str]


# --------------------------------------------------------------------------------------
# Internal similarity (§3.2, eq. 2)
# --------------------------------------------------------------------------------------

def internal_similarity(candidates: Iterable[Pair], content: Mapping[Pair, float],
                        structure: Mapping[Pair, float] | None = None,
                        lengths: Mapping[str, float] | None = None, *, lam: float = 0.6,
                        evidence: Mapping[Pair, float] | Iterable[Pair] | None = None,
                        evidence_weight: float = 0.9, max_size_ratio: float | None = 3.0,
                        size_ratio_c: float | None = None) -> dict[Pair, float]:
    """Eq. 2 [Liu 2014 §3.2]: ITS = λ·content + (1 − λ)·structure, after the size-ratio filter.

    * ``content``, ``structure``: pair -> similarity; values are clipped to [0, 1]
      (an LSI ``lcos`` can be negative). A missing structure value leaves the content
      alone (ITS = content), and vice versa.
    * Size-ratio filter: the paper assumes length(E) ≈ C·length(F) with C a constant
      of the language pair and filters pairs whose lengths disagree, without giving
      the rule. Here C is ``size_ratio_c`` or, when not given, the median length
      ratio of the evidence pairs (3 or more), else 1; a pair is dropped (absent
      from the result) when ``|log(len1 / (C·len2))| > log(max_size_ratio)``. Pages
      of unknown or zero length are never filtered. ``max_size_ratio=None`` turns
      the filter off.
    * ``evidence`` (URL pattern, hreflang): pairs -> strength in [0, 1] (or an
      iterable of pairs, strength 1). They enter as strong internal similarity,
      ``ITS := max(ITS, evidence_weight·strength)``, not as a bypass: they still go
      through the filter, the iteration and the 1-1 extraction.
    """
    structure = structure or {}
    if evidence is None:
        evidence = {}
    elif not isinstance(evidence, Mapping):
        evidence = {tuple(p): 1.0 for p in evidence}
    cands = list(dict.fromkeys(tuple(p) for p in candidates))

    def clip(v):
        if v is None or isinstance(v, float) and math.isnan(v):
            return None
        return min(max(float(v), 0.0), 1.0)

    c_ratio = size_ratio_c
    if lengths is not None and max_size_ratio is not None and c_ratio is None:
        ratios = [lengths[a] / lengths[b] for a, b in evidence
                  if lengths.get(a, 0) > 0 and lengths.get(b, 0) > 0]
        c_ratio = float(np.median(ratios)) if len(ratios) >= 3 else 1.0
    limit = math.log(max_size_ratio) if max_size_ratio else None

    out: dict[Pair, float] = {}
    for pair in cands:
        a, b = pair
        if lengths is not None and limit is not None:
            la, lb = lengths.get(a, 0) or 0, lengths.get(b, 0) or 0
            if la > 0 and lb > 0 and abs(math.log(la / (c_ratio * lb))) > limit:
                continue
        cs, ss = clip(content.get(pair)), clip(structure.get(pair))
        if cs is None and ss is None:
            its = 0.0
        elif ss is None:
            its = cs
        elif cs is None:
            its = ss
        else:
            its = lam * cs + (1.0 - lam) * ss
        ev = evidence.get(pair)
        if ev:
            its = max(its, evidence_weight * min(max(float(ev), 0.0), 1.0))
        out[pair] = its
    return out


# --------------------------------------------------------------------------------------
# Page weights (eq. 6)
# --------------------------------------------------------------------------------------

def page_weights(in_links: np.ndarray, n_pages: int, delta: float = 1.0) -> np.ndarray:
    """Eq. 6 [Liu 2014 §4.2]: W(p) = log((N + δ) / (In(p) + δ)), here divided by log((N + δ)/δ).

    ``In(p)``: pages linking to p; N: all pages (of p's language). The paper's
    smoothed log-ratio is kept; the division (not in the paper) maps the weights to
    [0, 1] (1 for a page nobody links to, 0 for a page every page links to), so that
    the weighted sums of Algorithm 1 stay in [0, 1].
    """
    n = max(int(n_pages), 1)
    top = math.log((n + delta) / delta)
    w = np.log((n + delta) / (np.asarray(in_links, dtype=float) + delta)) / top
    return np.clip(w, 0.0, 1.0)


# --------------------------------------------------------------------------------------
# ETS
# --------------------------------------------------------------------------------------

class ETS:
    """Enhanced Translation Similarity over the candidate pairs of one site [Liu 2014 §3].

    Parameters (names as in the paper)
    ----------------------------------
    lam : float
        λ of eq. 2, weight of content against structure in the internal similarity
        (used by :meth:`internal_similarity`; the paper's best value 0.6).
    alpha : float
        α of eq. 1, ETS = (1 − α)·ITS + α·ExtS: the weight of the external similarity
        (the paper: "1 − α [is] assigned to the internal similarity"; best 0.6, and
        insensitive between 0.2 and 0.8).
    n_iter : int
        Iterations of Algorithm 2 (the paper: best and converged after 3).
    tol : float
        Algorithm 2 stops early ("until ETS is stable") when the mean absolute change
        of ETS over the candidate pairs falls below ``tol``.
    threshold : float
        T_min of Algorithm 3: pairs scoring below it are not extracted.
    max_pairs : int or None
        N_top of Algorithm 3 (the paper's alternative stop rule).
    weighting : {"weight1", "none"}
        "weight1": eq. 6 page weights enter line 9 of Algorithm 1 ("Weight 1" of §4.2).
    popular_fraction : float or None
        "Weight 2" of §4.2: pages linked from more than this share of the pages of
        their language (and from at least ``popular_min_links`` pages) are removed
        from all neighbour sets (home page, global menu). ``None`` keeps them.
    popular_min_links : int
        See ``popular_fraction``: on tiny sites no page is "popular".
    delta : float
        δ of eq. 6.
    evidence_weight : float
        URL-pattern / hreflang evidence lifts the internal similarity of a pair to at
        least this value (see :func:`internal_similarity`).
    max_size_ratio, size_ratio_c
        The size-ratio filter of §3.2 (see :func:`internal_similarity`).
    normalize : {"none", "max"}
        Algorithm 2's "parameters normalization" step. Eq. 1 is a convex combination
        of values in [0, 1], so ETS stays in [0, 1] without it; "max" divides by the
        largest ETS each iteration. Default "none": rescaling by the maximum would
        make the absolute T_min meaningless on a site with few, weak candidates.
    chunk_size : int
        Work budget (non-zeros of the sparse products) per chunk of candidate rows
        when the neighbour structure is built; bounds the memory, not the result.

    Fitted attributes: ``scores_`` ((u1, u2) -> ETS), ``internal_``, ``external_``
    (last iteration; pairs neither of whose pages has neighbours are absent),
    ``history_`` (one dict per iteration: ``iteration``, ``mean_change``,
    ``max_change``, ``mean_external``), ``n_iter_``, ``converged_``,
    ``neighbour_pairs_`` (number of (pair, neighbour pair) links Algorithm 1 uses).
    """

    def __init__(self, lam: float = 0.6, alpha: float = 0.6, n_iter: int = 3, *,
                 tol: float = 1e-4, threshold: float = 0.3, max_pairs: int | None = None,
                 weighting: str = "weight1", popular_fraction: float | None = 0.5,
                 popular_min_links: int = 10, delta: float = 1.0,
                 evidence_weight: float = 0.9, max_size_ratio: float | None = 3.0,
                 size_ratio_c: float | None = None, normalize: str = "none",
                 chunk_size: int = 2_000_000):
        if weighting not in ("weight1", "none"):
            raise ValueError("weighting must be 'weight1' or 'none'")
        if normalize not in ("none", "max"):
            raise ValueError("normalize must be 'none' or 'max'")
        self.lam = lam
        self.alpha = alpha
        self.n_iter = n_iter
        self.tol = tol
        self.threshold = threshold
        self.max_pairs = max_pairs
        self.weighting = weighting
        self.popular_fraction = popular_fraction
        self.popular_min_links = popular_min_links
        self.delta = delta
        self.evidence_weight = evidence_weight
        self.max_size_ratio = max_size_ratio
        self.size_ratio_c = size_ratio_c
        self.normalize = normalize
        self.chunk_size = chunk_size

    # ------------------------------------------------------------------ internal

    def internal_similarity(self, candidates: Iterable[Pair], content: Mapping[Pair, float],
                            structure: Mapping[Pair, float] | None = None,
                            lengths: Mapping[str, float] | None = None,
                            evidence=None) -> dict[Pair, float]:
        """Eq. 2 with this model's λ, evidence weight and size filter (see :func:`internal_similarity`)."""
        return internal_similarity(candidates, content, structure, lengths, lam=self.lam,
                                   evidence=evidence, evidence_weight=self.evidence_weight,
                                   max_size_ratio=self.max_size_ratio,
                                   size_ratio_c=self.size_ratio_c)

    # ------------------------------------------------------------------ fitting

    def fit(self, candidates: Iterable[Pair], internal: Mapping[Pair, float],
            graph, evidence=None) -> "ETS":
        """Algorithm 2 [Liu 2014 §3.3]: iterate eq. 1 with the external similarity of Algorithm 1.

        ``candidates``: (url_1, url_2) pairs, url_1 in language 1. ``internal``: pair
        -> ITS in [0, 1] (eq. 2; see :meth:`internal_similarity`); a candidate absent
        from it, or mapped to None, was filtered (size ratio) and is dropped.
        ``graph``: the site graph (:func:`~bitextcrawl.pairing.page_graph.build_site_graph`, or a ``networkx.DiGraph``
        with the same nodes and ``lang``); links in and out both
        make neighbours (§3), and only pages of the same language count. When nodes
        have no ``lang``, the sides of the candidate pairs decide. ``evidence``:
        optional URL/hreflang pairs, applied as in :func:`internal_similarity`.
        """
        t0 = time.perf_counter()
        if graph is None:
            # (networkx for this empty graph only: 0.3 s of import where it is not needed)
            import networkx as nx

            graph = nx.DiGraph()
        if evidence is not None and not isinstance(evidence, Mapping):
            evidence = {tuple(p): 1.0 for p in evidence}
        pairs: list[Pair] = []
        its: list[float] = []
        n_in = 0
        for pair in dict.fromkeys(tuple(p) for p in candidates):
            n_in += 1
            v = internal.get(pair)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            v = min(max(float(v), 0.0), 1.0)
            if evidence:
                ev = evidence.get(pair)
                if ev:
                    v = max(v, self.evidence_weight * min(max(float(ev), 0.0), 1.0))
            pairs.append(pair)
            its.append(v)
        self.pairs_ = pairs
        self.n_candidates_ = n_in
        self.n_filtered_ = n_in - len(pairs)
        its_arr = np.asarray(its, dtype=float)

        struct = self._neighbour_structure(pairs, graph, its_arr)
        self.neighbour_pairs_ = int(len(struct["p"]))
        self.n_popular_removed_ = struct["n_popular"]
        self.history_ = []
        ets = its_arr.copy()
        # Departure: Algorithm 2 starts from "random or small" values; we start from the
        # internal similarity, which §4.2 notes is what gives the iteration its direction
        # (a deterministic, already-informative start, one iteration saved).
        external = np.zeros(len(pairs))
        has_nb = struct["has_neighbours"]
        self.converged_ = False
        self.n_iter_ = 0
        for it in range(1, self.n_iter + 1):
            external = self._external(ets, struct)
            new = np.where(has_nb, (1.0 - self.alpha) * its_arr + self.alpha * external, its_arr)
            if self.normalize == "max" and len(new) and new.max() > 0:
                new = new / new.max()
            change = np.abs(new - ets)
            self.history_.append({
                "iteration": it,
                "mean_change": float(change.mean()) if len(change) else 0.0,
                "max_change": float(change.max()) if len(change) else 0.0,
                "mean_external": float(external[has_nb].mean()) if has_nb.any() else 0.0,
            })
            ets = new
            self.n_iter_ = it
            if self.history_[-1]["mean_change"] < self.tol:
                self.converged_ = True
                break
        self.scores_ = {p: float(s) for p, s in zip(pairs, ets)}
        self.internal_ = {p: float(s) for p, s in zip(pairs, its_arr)}
        self.external_ = {p: float(s) for p, s, h in zip(pairs, external, has_nb) if h}
        self.fit_seconds_ = time.perf_counter() - t0
        return self

    # ------------------------------------------------------- neighbour structure

    def _neighbour_structure(self, pairs: list[Pair], graph,
                             its: np.ndarray | None = None) -> dict:
        """For every candidate pair p=(e, c), the candidate pairs q=(x, y) with x ∈ PG(e), y ∈ PG(c).

        Computed once (the structure does not change across iterations) as the
        elementwise product of two sparse products, in row chunks:
        ``(NL[e_p] @ QL) ∘ (NR[c_p] @ QR)``, where NL/NR are the same-language
        neighbour matrices and QL/QR map pages to the candidate pairs they are in.
        """
        n = len(pairs)
        left_urls = list(dict.fromkeys(a for a, _ in pairs))
        right_urls = list(dict.fromkeys(b for _, b in pairs))
        langs = {u: d["lang"] for u, d in graph.nodes.items() if "lang" in d}
        lang_l = _majority(langs.get(u) for u in left_urls)
        lang_r = _majority(langs.get(u) for u in right_urls)
        by_lang = lang_l is not None and lang_r is not None and lang_l != lang_r

        # Index every page of each side: candidate pages first, then other graph pages
        # of the same language (they count in In(p) of eq. 6, not in PG(·): see below).
        left_idx = {u: i for i, u in enumerate(left_urls)}
        right_idx = {u: i for i, u in enumerate(right_urls)}
        if by_lang:
            for u, lang in langs.items():
                if lang == lang_l and u not in left_idx:
                    left_idx[u] = len(left_idx)
                elif lang == lang_r and u not in right_idx:
                    right_idx[u] = len(right_idx)

        li = np.fromiter((left_idx[a] for a, _ in pairs), dtype=np.int64, count=n)
        ri = np.fromiter((right_idx[b] for _, b in pairs), dtype=np.int64, count=n)
        # Pages that could pair: in a candidate pair whose internal similarity reaches T_min.
        likely = np.ones(n, dtype=bool) if its is None else its >= self.threshold
        pairable_l = np.zeros(len(left_idx), dtype=bool)
        pairable_r = np.zeros(len(right_idx), dtype=bool)
        pairable_l[li[likely]] = True
        pairable_r[ri[likely]] = True
        adj_l, w_l, pop_l = self._side_adjacency(graph, left_idx, pairable_l)
        adj_r, w_r, pop_r = self._side_adjacency(graph, right_idx, pairable_r)
        n_pop = pop_l + pop_r

        # Denominator of Algorithm 1, max(|PG(e)|, |PG(c)|), with each page counted at its
        # eq. 6 weight (so the weighted sum of line 9 is a weighted average).
        den = np.maximum((adj_l @ w_l)[li], (adj_r @ w_r)[ri]) if n else np.zeros(0)
        # Departure, one rule: PG(·) holds only the neighbours that could pair (in a
        # candidate pair with internal similarity ≥ T_min). Algorithm 1 counts every
        # neighbour, so on a partly translated site the untranslated neighbours (which
        # pair with nothing) drag every true pair to (1 − α)·ITS, most of them under T_min
        # where a side translates a tenth of its pages: they are no evidence against a pair.
        # Neighbours that could pair but do not pair with each other still count against,
        # and so do the neighbours of one page where the other has none: an outdated
        # translation kept beside the current one, without the links its original has,
        # is less likely the original's pair. A pair where neither page has such
        # neighbours keeps its internal similarity; a page no link leads to (found by deep
        # page recovery) and nothing rivals keeps it too (``stages.neighbours_rank``).
        has_nb = den > 0 if n else np.zeros(0, dtype=bool)
        # Weight of a neighbour pair q = (x, y): sqrt(W(x)·W(y)). The paper multiplies
        # line 9 by the weights of x and y without saying how they combine; the
        # geometric mean keeps a pair of equally weighted pages at that weight, which
        # matches the weighted denominators max(ΣW(PG(e)), ΣW(PG(c))).
        wq = np.sqrt(w_l[li] * w_r[ri]) if n else np.zeros(0)

        p, q = self._neighbour_pairs(adj_l, adj_r, li, ri)
        # Page keys of each neighbour pair inside its group: (p, x) and (p, y), compressed
        # to 0..K-1, for the greedy matching of Algorithm 1.
        kx = np.unique(p.astype(np.int64) * (len(left_idx) + 1) + li[q], return_inverse=True)[1]
        ky = np.unique(p.astype(np.int64) * (len(right_idx) + 1) + ri[q], return_inverse=True)[1]
        return {"n": n, "p": p, "q": q, "kx": kx.astype(np.int32).ravel(),
                "ky": ky.astype(np.int32).ravel(), "wq": wq, "den": den,
                "has_neighbours": has_nb, "n_popular": n_pop}

    def _neighbour_pairs(self, adj_l, adj_r, li: np.ndarray, ri: np.ndarray):
        """(p, q) index arrays: candidate pair q = (x, y) has x ∈ PG(e_p) and y ∈ PG(c_p)."""
        n = len(li)
        ps, qs = [], []
        if n:
            cols = np.arange(n)
            q_l = sp.csr_matrix((np.ones(n), (li, cols)), shape=(adj_l.shape[0], n))
            q_r = sp.csr_matrix((np.ones(n), (ri, cols)), shape=(adj_r.shape[0], n))
            # Rows are cut into chunks of bounded work (nnz of the two products), so a
            # home page whose neighbours are the whole site does not blow the memory up.
            cand_l = np.asarray(q_l.sum(axis=1)).ravel()
            cand_r = np.asarray(q_r.sum(axis=1)).ravel()
            cost = (adj_l @ cand_l)[li] + (adj_r @ cand_r)[ri] + 1.0
            budget = float(self.chunk_size)
            bounds = np.searchsorted(np.cumsum(cost), np.arange(budget, cost.sum() + budget, budget))
            start = 0
            for stop in np.unique(np.r_[np.minimum(bounds + 1, n), n]):
                stop = int(stop)
                if stop <= start:
                    continue
                rows = slice(start, stop)
                a = adj_l[li[rows]] @ q_l
                b = adj_r[ri[rows]] @ q_r
                m = a.multiply(b).tocoo()
                if m.nnz:
                    ps.append(m.row.astype(np.int32) + np.int32(start))
                    qs.append(m.col.astype(np.int32))
                del a, b, m
                start = stop
        p = np.concatenate(ps) if ps else np.zeros(0, dtype=np.int32)
        q = np.concatenate(qs) if qs else np.zeros(0, dtype=np.int32)
        return p, q

    def _side_adjacency(self, graph, index: dict[str, int], pairable: np.ndarray):
        """Symmetric same-language neighbour matrix (links in and out) restricted to the
        ``pairable`` pages of ``index``, eq. 6 weights over all pages, popular pages dropped."""
        size = len(index)
        rows, cols = [], []
        for u, i in index.items():
            if u not in graph:
                continue
            for v in graph.successors(u):
                j = index.get(v)
                if j is not None and j != i:
                    rows.append(i)
                    cols.append(j)
        r = np.asarray(rows, dtype=np.int64)
        c = np.asarray(cols, dtype=np.int64)
        # In(p): same-language pages linking to p (directed), for eq. 6.
        in_links = np.bincount(c, minlength=size) if size else np.zeros(0)
        if self.weighting == "weight1":
            w = page_weights(in_links, size, self.delta)
        else:
            w = np.ones(size)
        # Neighbours: links in and out count the same (§3), once.
        sym = sp.csr_matrix((np.ones(len(r) * 2), (np.r_[r, c], np.r_[c, r])), shape=(size, size))
        sym.data[:] = 1.0
        sym.sum_duplicates()
        sym.data[:] = 1.0
        n_pop = 0
        keep = pairable.copy()
        if self.popular_fraction is not None and size:
            popular = (in_links > self.popular_fraction * size) & (in_links >= self.popular_min_links)
            n_pop = int(popular.sum())
            keep &= ~popular
        sym = (sym @ sp.diags(keep.astype(float))).tocsr()
        sym.eliminate_zeros()
        return sym, w, n_pop

    # ------------------------------------------------------------------ Algorithm 1

    def _external(self, ets: np.ndarray, st: dict) -> np.ndarray:
        """Algorithm 1 [Liu 2014 §3.3] for all pairs at once: greedy matching of neighbour pairs, weighted sum / max(|PG(e)|, |PG(c)|)."""
        n = st["n"]
        total = np.zeros(n)
        if len(st["p"]):
            total = greedy_group_sums(st["p"], st["kx"], st["ky"], ets[st["q"]],
                                      (ets * st["wq"])[st["q"]], st["q"], n)
        den = st["den"]
        out = np.zeros(n)
        ok = den > 0
        out[ok] = total[ok] / den[ok]
        return np.clip(out, 0.0, 1.0)

    # ------------------------------------------------------------------ Algorithm 3

    def extract(self, threshold: float | None = None,
                max_pairs: int | None = None) -> list[tuple[str, str, float]]:
        """Algorithm 3 [Liu 2014 §3.4]: greedy 1-1 pairs by ETS, down to T_min (or N_top pairs)."""
        self._check()
        thr = self.threshold if threshold is None else threshold
        top = self.max_pairs if max_pairs is None else max_pairs
        pairs = one_to_one(((a, b, s) for (a, b), s in self.scores_.items()), thr, top)
        self.n_extracted_ = len(pairs)
        return pairs

    def _check(self) -> None:
        if not hasattr(self, "scores_"):
            raise RuntimeError("ETS is not fitted: call fit() first")

    def report(self) -> dict:
        """Numbers behind the run, for stats.json and the HTML report."""
        self._check()
        scores = np.fromiter(self.scores_.values(), dtype=float, count=len(self.scores_))
        q = (np.quantile(scores, [0.1, 0.5, 0.9]).round(4).tolist() if len(scores)
             else [0.0, 0.0, 0.0])
        return {
            "params": {"lam": self.lam, "alpha": self.alpha, "n_iter": self.n_iter,
                       "threshold": self.threshold, "weighting": self.weighting,
                       "popular_fraction": self.popular_fraction},
            "n_candidates": self.n_candidates_,
            "n_filtered": self.n_filtered_,
            "n_scored": len(self.scores_),
            "n_with_neighbours": len(self.external_),
            "neighbour_pairs": self.neighbour_pairs_,
            "n_popular_removed": self.n_popular_removed_,
            "n_iter": self.n_iter_,
            "converged": self.converged_,
            "history": self.history_,
            "score_quantiles_10_50_90": q,
            "n_extracted": getattr(self, "n_extracted_", None),
            "fit_seconds": round(self.fit_seconds_, 3),
        }


def _majority(values: Iterable[Hashable | None]):
    counts = Counter(v for v in values if v is not None)
    return counts.most_common(1)[0][0] if counts else None
