"""DOM tree alignment of a verified page pair [Shi 2006 §3–§4].

A verified pair of parallel pages is turned into two *document trees* (§4) and the trees
are aligned node to node (§4.1) by bottom-up dynamic programming (§4.3). Aligned nodes
give **parallel text chunks** (sentence-aligned later by :mod:`bitextcrawl.bitext.sentences`,
§5) and **parallel hyperlinks**, whose targets are new candidate pairs (§3, step 5).

The document tree (§4) is :mod:`bitextcrawl.trees.dom`'s.

Alignment model (§4.1): the alignment A of trees T1 and T2 preserves hierarchy (children of
aligned nodes align only to children, or are deleted) and sibling order. Its probability is

    Pr(T1, T2, A) = Pr(A) · Π_{(u,v) aligned} Pr(u | v)
    Pr(A)         = (1 − p_d)^L · p_d^M         (L aligned pairs, M deleted + inserted nodes)
    Pr(u | v)     = Pr(tag_u | tag_v) · Pr(text_u | text_v)

The paper trains IBM model 1 on LDC data for Pr(text_u | text_v); bitextcrawl has no
dictionary, so text translation is estimated from a Gale–Church length model on character
lengths, shared numbers and names, and an optional caller-supplied similarity (the site's
LSI space, a user's lexicon). Tag mapping and deletion probabilities are trained on the
site's verified pairs by Viterbi EM (§4.2; the paper uses inside–outside;
:mod:`bitextcrawl.trees.training`); the tag prior is :mod:`bitextcrawl.trees.tags`'.

Decoding (§4.3) is the recursive alignment of forests of Jiang, Wang & Zhang (1995), run
bottom-up over all node pairs (:mod:`bitextcrawl.trees.tree_decoder`). Cost is bounded:
large page pairs are pruned to a band of relative document positions, and pages over
``max_nodes`` (or a decoding over ``time_limit``) fall back to an LCS alignment of the two STRAND-style linearisations
(rapidfuzz, in C++).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

# The document tree, re-exported: callers import it from here.
from bitextcrawl.trees.dom import Node, build_tree, linearise, preorder
from bitextcrawl.trees.tags import prior_tag_prob
from bitextcrawl.trees.textcost import (
    _doc_ratio,
    _length_cost_pairs,
    _shared_counts,
    _side_anchors,
    anchors,
    length_cost,
    pair_anchor_cost,
)
from bitextcrawl.trees.training import TextSimilarity, ViterbiEM, _tree_size, e_step_counts
from bitextcrawl.trees.tree_decoder import _Decoder, _Side, _Timeout, kernels, load_kernels

INF = float("inf")


# Enough pairs to estimate tag mapping and deletion rates; more only costs time.
TRAINING_PAIRS = 25
# Viterbi-EM iterations of the site's tree aligner (§4.2).
FIT_ITERATIONS = 3
# Training pairs decoded by the EM iterations before the last (which decodes them all,
# once): bench_bitext P/R unchanged (TreeAligner.fit_with).
EM_SAMPLE = 10


# --------------------------------------------------------------------------------------
# The alignment
# --------------------------------------------------------------------------------------

@dataclass
class Alignment:
    """Result of aligning two document trees.

    ``text_pairs``: (text1, text2, score) for aligned nodes whose texts are chunks of their
    own on both sides, in document order, score ≥ ``min_score``. ``score`` is the posterior
    a/(a+b) of aligning the two nodes (a = (1−p_d)·Pr(tag)·Pr(text)) against deleting one
    and inserting the other (b = p_d·p_i). ``link_pairs``: (href1, href2) of aligned
    hyperlinks, absolute, without fragments, deduplicated; pairs of identical URLs are left
    out (a link to the same page leads to no new pair). A language toggle aligned with the
    other page's toggle gives the reversed pair (url of page 2, url of page 1).
    """
    text_pairs: list = field(default_factory=list)   # (text1, text2, score), document order
    link_pairs: list = field(default_factory=list)   # (href1, href2)
    node_pairs: list = field(default_factory=list)   # (Node, Node, score), document order
    method: str = "tree"                             # "tree" (§4.3 DP) | "linear" (fallback)
    reason: str = ""                                 # why the fallback was used
    n_nodes: tuple = (0, 0)
    log_prob: float = 0.0                            # log Pr(T1, T2, A) of the Viterbi A
    pruned: bool = False                             # band pruning applied
    seconds: float = 0.0

    @property
    def n_aligned(self) -> int:
        return len(self.node_pairs)

    @property
    def n_deleted(self) -> int:
        return self.n_nodes[0] - len(self.node_pairs)

    @property
    def n_inserted(self) -> int:
        return self.n_nodes[1] - len(self.node_pairs)

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "reason": self.reason,
            "n_nodes": list(self.n_nodes),
            "n_aligned": self.n_aligned,
            "n_deleted": self.n_deleted,
            "n_inserted": self.n_inserted,
            "log_prob": round(self.log_prob, 4),
            "pruned": self.pruned,
            "seconds": round(self.seconds, 4),
            "text_pairs": [[a, b, round(s, 4)] for a, b, s in self.text_pairs],
            "link_pairs": [list(p) for p in self.link_pairs],
        }

    def report(self, max_lines: int = 10) -> str:
        lines = [
            f"DOM tree alignment ({self.method}{', pruned' if self.pruned else ''}"
            f"{': ' + self.reason if self.reason else ''})",
            f"  nodes {self.n_nodes[0]} / {self.n_nodes[1]}: {self.n_aligned} aligned, "
            f"{self.n_deleted} deleted, {self.n_inserted} inserted; "
            f"log Pr = {self.log_prob:.2f}; {self.seconds:.3f} s",
            f"  {len(self.text_pairs)} text pairs, {len(self.link_pairs)} link pairs",
        ]
        for a, b, s in self.text_pairs[:max_lines]:
            lines.append(f"  {s:.2f}  {a[:50]!r} ↔ {b[:50]!r}")
        for a, b in self.link_pairs[:max_lines]:
            lines.append(f"  link  {a} ↔ {b}")
        return "\n".join(lines)


class TreeAligner(ViterbiEM):
    """Probabilistic DOM tree aligner [Shi 2006 §4.1–§4.3], trainable on a site's pairs.

    Parameters
    ----------
    max_nodes : pages with more nodes (either side) are aligned by the linear fallback.
    n_iter : Viterbi-EM iterations of :meth:`fit`.
    delete_prob : initial p_d (§4.1), the probability of a node deletion.
    insert_prob : initial probability of a node insertion; ``None`` = ``delete_prob``.
    tie_deletion : one p_d for deletions and insertions, as in the paper (§4.1).
    length_ratio : expected chars of side 2 per char of side 1; ``None`` = estimated (by
        :meth:`fit`, else from each page pair's total text lengths).
    length_var : Gale–Church s² (variance per character), 6.8 as in G&C 1993.
    empty_text_prob : Pr(text | no text), text on one side only.
    splice : allow a node to be deleted while its children align in its siblings' place
        (Jiang et al.'s forest case; off = only whole-subtree or single-child deletions).
    band : when a pair has more than ``band_min_pairs`` node pairs, only nodes whose
        relative document positions differ by at most ``band`` can be aligned (pruning).
    time_limit : seconds of decoding before falling back to the linear alignment.
    min_score : text pairs below this posterior score are not output.
    em_sample : Viterbi-EM iterations before the last decode only this many training
        pairs (None: all); see :meth:`fit_with`.
    """

    def __init__(self, max_nodes: int = 1500, n_iter: int = 5, delete_prob: float = 0.1,
                 insert_prob: float | None = None, tie_deletion: bool = True,
                 length_ratio: float | None = None, length_var: float = 6.8,
                 empty_text_prob: float = 0.1, splice: bool = True, band: float = 0.25,
                 band_min_pairs: int = 250_000, time_limit: float = 30.0,
                 min_score: float = 0.5, em_sample: int | None = None):
        self.max_nodes = max_nodes
        self.n_iter = n_iter
        self.delete_prob = delete_prob
        self.insert_prob = insert_prob
        self.tie_deletion = tie_deletion
        self.length_ratio = length_ratio
        self.length_var = length_var
        self.empty_text_prob = empty_text_prob
        self.splice = splice
        self.band = band
        self.band_min_pairs = band_min_pairs
        self.time_limit = time_limit
        self.min_score = min_score
        self.em_sample = em_sample

    # ---- parameters ------------------------------------------------------------------

    def _delete_prob(self) -> float:
        return getattr(self, "delete_prob_", self.delete_prob)

    def _insert_prob(self) -> float:
        if hasattr(self, "insert_prob_"):
            return self.insert_prob_
        return self.delete_prob if self.insert_prob is None else self.insert_prob

    def _length_ratio(self) -> float | None:
        return getattr(self, "length_ratio_", self.length_ratio)

    def tag_prob(self, t1: str, t2: str) -> float:
        """Tag-mapping probability Pr(t2 | t1) (§4.1), smoothed (see :meth:`fit`)."""
        counts = getattr(self, "tag_counts_", None)
        if counts is None:
            return prior_tag_prob(t1, t2)
        v = self.vocab_size_
        c = counts.get(t1)
        total = sum(c.values()) if c else 0
        k = c.get(t2, 0) if c else 0
        return (k + v * prior_tag_prob(t1, t2)) / (total + v)

    def _costs(self):
        pd, pi = self._delete_prob(), self._insert_prob()
        if self.tie_deletion:
            pi = pd
            sub = -math.log1p(-pd)
        else:
            sub = -math.log1p(-pd) - math.log1p(-pi)
        return -math.log(pd), -math.log(pi), sub

    # ---- node translation cost matrix --------------------------------------------------

    def _substitution(self, s1: _Side, s2: _Side, text_similarity, pruned: bool):
        """−log[(1−p_d) Pr(tag) Pr(text)] for every node pair (§4.1), INF outside the band."""
        _, _, sub = self._costs()
        # Tag mapping.
        tags1, tags2 = sorted(set(s1.tags)), sorted(set(s2.tags))
        idx2 = {t: i for i, t in enumerate(tags2)}
        idx1 = {t: i for i, t in enumerate(tags1)}
        tid1 = np.array([idx1[t] for t in s1.tags], dtype=np.int64)
        tid2 = np.array([idx2[t] for t in s2.tags], dtype=np.int64)
        tag_costs = self.__dict__.setdefault("_tag_costs", {})   # emptied by fit()
        for a in tags1:
            for b in tags2:
                if (a, b) not in tag_costs:
                    tag_costs[a, b] = -math.log(self.tag_prob(a, b))
        tcost = np.array([[tag_costs[a, b] for b in tags2] for a in tags1])
        tcost += sub

        # Text translation: length model, anchors, caller's similarity. Scored only for
        # nodes with text on both sides (most element nodes have none).
        ratio = self._length_ratio()
        if ratio is None:
            ratio = _doc_ratio(s1.lengths[s1.chunk].sum(), s2.lengths[s2.chunk].sum())
        has1, has2 = s1.lengths > 0, s2.lengths > 0
        r1, r2 = np.flatnonzero(has1), np.flatnonzero(has2)
        (u1, at1), (u2, at2) = _distinct_lengths(s1, r1), _distinct_lengths(s2, r2)
        # Menus and titles repeat lengths: the length model once per distinct pair.
        lc_both = length_cost(u1, u2, ratio, self.length_var)[at1].take(at2, axis=1)
        text = self._anchor_cost(s1, s2)
        text += lc_both
        if text_similarity is not None:
            if pruned:
                text[np.abs(s1.rank[r1][:, None] - s2.rank[r2][None, :]) > self.band] = INF
            # Only plausible chunk pairs are scored (the callable may be costly).
            cand = ((s1.chunk[r1][:, None] & s2.chunk[r2][None, :]) & (lc_both < 12.0)
                    & np.isfinite(text))
            cache: dict = {}
            for a, b in zip(*np.nonzero(cand)):
                key = (s1.texts[r1[a]], s2.texts[r2[b]])
                sim = cache.get(key)
                if sim is None:
                    sim = float(text_similarity(*key))
                    cache[key] = sim
                text[a, b] -= math.log(min(max(sim, 0.01), 1.0))
        cost = kernels().node_costs(tcost, tid1, tid2, text, _text_rows(has1),
                                    _text_rows(has2), -math.log(self.empty_text_prob),
                                    s1.rank, s2.rank, self.band, pruned)
        return cost, ratio

    @staticmethod
    def _anchor_cost(s1: _Side, s2: _Side) -> np.ndarray:
        """−log of (shared anchors + ½) / (anchors + 1) for the texts of two trees (rows:
        nodes with text), ½ when neither text has any."""
        a1, a2 = _side_anchors(s1), _side_anchors(s2)
        shape = (len(a1[2]), len(a2[2]))
        shared_num = _shared_counts(a1[0], a2[0], shape)
        shared_names = _shared_counts(a1[1], a2[1], shape)
        # Unmatched names are not counted against a pair: names get translated.
        total = a1[2][:, None] + a2[2][None, :]
        total -= shared_num
        total += shared_names
        total += 1.0
        # −log((shared_num + shared_names + ½) / total), in place (pages' sizes squared)
        shared_num += shared_names
        shared_num += 0.5
        shared_num /= total
        return np.negative(np.log(shared_num, out=shared_num), out=shared_num)

    # ---- decoding (§4.3) ---------------------------------------------------------------

    def align(self, tree1: Node, tree2: Node,
              text_similarity: TextSimilarity | None = None) -> Alignment:
        """Viterbi alignment of two document trees (§4.1 model, §4.3 bottom-up DP)."""
        n1, n2 = _tree_size(tree1), _tree_size(tree2)
        too_big = n1 > self.max_nodes or n2 > self.max_nodes
        if not too_big:
            # before the clock starts: loading (or, the first time on a machine,
            # compiling) the kernels is not decoding, and would have a process's first
            # pair fall back to the linear alignment that later runs do not
            load_kernels()
        start = time.monotonic()
        if too_big:
            al = self._align_linear(tree1, tree2, text_similarity,
                                    f"more than {self.max_nodes} nodes ({n1}/{n2})")
        else:
            try:
                al = self._align_tree(tree1, tree2, text_similarity, start)
            except _Timeout:
                al = self._align_linear(tree1, tree2, text_similarity,
                                        f"decoding over {self.time_limit:g} s")
        al.seconds = time.monotonic() - start
        return al

    def _align_tree(self, tree1, tree2, text_similarity, start) -> Alignment:
        s1, s2 = _Side.of(tree1), _Side.of(tree2)
        n1, n2 = len(s1.nodes), len(s2.nodes)
        pruned = n1 * n2 > self.band_min_pairs
        S, _ = self._substitution(s1, s2, text_similarity, pruned)
        dec = _Decoder(s1, s2, S, *self._costs()[:2], self.splice)
        deadline = start + self.time_limit if self.time_limit else None
        dec.run(deadline)
        total, pairs = dec.trace()
        pairs.sort(key=lambda p: s1.order[p[0]])     # document order
        triples = [(s1.nodes[i], s2.nodes[j], float(dec.S[i, j])) for i, j in pairs]
        return self._result(triples, (n1, n2), total, "tree", "", pruned)

    def _posterior(self, cost: float, indel: float | None = None) -> float:
        """Pr(aligned | u, v) against deleting u and inserting v: a/(a+b) in 0..1
        (``indel``: −log p_d·p_i, the cost of deleting u and inserting v)."""
        if indel is None:
            dcost, icost, _ = self._costs()
            indel = dcost + icost
        x = cost - indel
        if x > 700:
            return 0.0
        return 1.0 / (1.0 + math.exp(x))

    def _result(self, triples, n_nodes, total, method, reason, pruned) -> Alignment:
        """Alignment from (node1, node2, substitution cost) triples in document order."""
        node_pairs, text_pairs, link_pairs, seen_links = [], [], [], set()
        dcost, icost, _ = self._costs()
        for u, v, cost in triples:
            score = self._posterior(cost, dcost + icost)
            node_pairs.append((u, v, score))
            if u.is_chunk and v.is_chunk and score >= self.min_score:
                text_pairs.append((u.text, v.text, score))
            if u.href and v.href and u.href != v.href and (method == "tree"
                                                           or score >= self.min_score):
                link = (u.href, v.href)
                if link not in seen_links:
                    seen_links.add(link)
                    link_pairs.append(link)
        return Alignment(text_pairs=text_pairs, link_pairs=link_pairs,
                         node_pairs=node_pairs, method=method, reason=reason,
                         n_nodes=n_nodes, log_prob=-total, pruned=pruned)

    def _align_linear(self, tree1, tree2, text_similarity, reason) -> Alignment:
        """Fallback: LCS of the STRAND linearisations (rapidfuzz opcodes), then scoring.

        Not in the paper: bounds the cost of very large pages (the DP is quadratic in the
        node counts). Aligned start tags give node pairs, scored with the node model of
        §4.1; chunk and link pairs below ``min_score`` are dropped.
        """
        from rapidfuzz.distance import LCSseq

        lin1, lin2 = linearise(tree1), linearise(tree2)
        codes: dict[str, int] = {}
        seq1 = [codes.setdefault(t, len(codes)) for t, _ in lin1]
        seq2 = [codes.setdefault(t, len(codes)) for t, _ in lin2]
        ratio = self._length_ratio()
        if ratio is None:
            ratio = _doc_ratio(sum(len(n.text) for n in preorder(tree1) if n.is_chunk),
                               sum(len(n.text) for n in preorder(tree2) if n.is_chunk))
        dcost, icost, _ = self._costs()
        matched = []
        for op in LCSseq.opcodes(seq1, seq2):
            if op.tag != "equal":
                continue
            for k in range(op.src_end - op.src_start):
                tok, u = lin1[op.src_start + k]
                if tok.startswith("[START:"):
                    matched.append((u, lin2[op.dest_start + k][1]))
        triples = []
        total = 0.0
        for (u, v), cost in zip(matched, self._pair_costs(matched, ratio, text_similarity)):
            total += cost
            triples.append((u, v, cost))
        n1, n2 = _tree_size(tree1), _tree_size(tree2)
        total += (n1 - len(triples)) * dcost + (n2 - len(triples)) * icost
        return self._result(triples, (n1, n2), total, "linear", reason, False)

    def _pair_costs(self, pairs: list, ratio: float, text_similarity) -> list[float]:
        """−log[(1−p_d) Pr(tag_u→tag_v) Pr(text)] of node pairs (u, v) (§4.1); the length
        model's costs in one array operation (elementwise, the same values one by one)."""
        _, _, sub = self._costs()
        tag_costs = self.__dict__.setdefault("_tag_costs", {})   # emptied by fit()
        both = [k for k, (u, v) in enumerate(pairs) if u.text and v.text]
        lc = _length_cost_pairs(np.array([len(pairs[k][0].text) for k in both], dtype=float),
                                np.array([len(pairs[k][1].text) for k in both], dtype=float),
                                ratio, self.length_var)
        lc = dict(zip(both, lc.tolist()))
        out = []
        for k, (u, v) in enumerate(pairs):
            tc = tag_costs.get((u.tag, v.tag))
            if tc is None:
                tc = tag_costs[u.tag, v.tag] = -math.log(self.tag_prob(u.tag, v.tag))
            c = sub + tc
            if k in lc:
                c += lc[k]
                c += pair_anchor_cost(u.text, v.text)
                if text_similarity is not None and u.is_chunk and v.is_chunk:
                    c -= math.log(min(max(float(text_similarity(u.text, v.text)), 0.01), 1.0))
            elif u.text or v.text:
                c -= math.log(self.empty_text_prob)
            out.append(c)
        return out

    def to_dict(self) -> dict:
        d = {"params": {k: getattr(self, k) for k in (
            "max_nodes", "n_iter", "delete_prob", "insert_prob", "tie_deletion",
            "length_ratio", "length_var", "empty_text_prob", "splice", "band",
            "band_min_pairs", "time_limit", "min_score", "em_sample")}}
        if hasattr(self, "tag_counts_"):
            d["fitted"] = {
                "tag_counts": {k: dict(v) for k, v in self.tag_counts_.items()},
                "vocab_size": self.vocab_size_,
                "delete_prob": self.delete_prob_,
                "insert_prob": self.insert_prob_,
                "length_ratio": getattr(self, "length_ratio_", None),
                "n_iter": self.n_iter_,
                "history": self.history_,
            }
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "TreeAligner":
        self = cls(**d.get("params", {}))
        f = d.get("fitted")
        if f:
            self.tag_counts_ = {k: Counter(v) for k, v in f["tag_counts"].items()}
            self.vocab_size_ = f["vocab_size"]
            self.delete_prob_ = f["delete_prob"]
            self.insert_prob_ = f["insert_prob"]
            if f.get("length_ratio") is not None:
                self.length_ratio_ = f["length_ratio"]
            self.n_iter_ = f.get("n_iter", 0)
            self.history_ = f.get("history", [])
        return self

    def report(self) -> str:
        pd, pi = self._delete_prob(), self._insert_prob()
        lines = [f"TreeAligner: p_delete={pd:.4f} p_insert={pi:.4f} "
                 f"length_ratio={self._length_ratio() or 'per pair'}"]
        if hasattr(self, "tag_counts_"):
            lines.append(f"  trained: {self.n_iter_} Viterbi-EM iterations; "
                         + "; ".join(f"it{h['iteration']}: log Pr {h['log_prob']:.1f}, "
                                     f"{h['aligned']} aligned" for h in self.history_))
            mapped = sorted(((c, a, b) for a, cs in self.tag_counts_.items()
                             for b, c in cs.items() if a != b), reverse=True)[:10]
            for c, a, b in mapped:
                lines.append(f"  {a} → {b}: {c} times, Pr = {self.tag_prob(a, b):.3f}")
        else:
            lines.append("  not trained (initial tag prior)")
        return "\n".join(lines)


def fit_aligner(tree_pairs, text_similarity=None, **params) -> TreeAligner:
    """The tree aligner of a site: Viterbi EM (§4.2) on up to ``TRAINING_PAIRS`` pairs."""
    params.setdefault("n_iter", FIT_ITERATIONS)
    params.setdefault("em_sample", EM_SAMPLE)
    return TreeAligner(**params).fit(list(tree_pairs)[:TRAINING_PAIRS], text_similarity)


def _distinct_lengths(side: _Side, rows: np.ndarray) -> tuple:
    """The distinct text lengths of a tree's ``rows`` and where each row's is among them."""
    got = side.memo.get("lengths")
    if got is None:
        got = side.memo["lengths"] = np.unique(side.lengths[rows], return_inverse=True)
    return got


def _text_rows(has: np.ndarray) -> np.ndarray:
    """Per node, its row among the nodes with text (``has``), or −1."""
    rows = np.full(has.shape[0], -1, dtype=np.int64)
    rows[has] = np.arange(int(has.sum()), dtype=np.int64)
    return rows


__all__ = ["fit_aligner", "Node", "build_tree", "linearise", "anchors", "prior_tag_prob", "length_cost",
           "Alignment", "TreeAligner", "e_step_counts"]
