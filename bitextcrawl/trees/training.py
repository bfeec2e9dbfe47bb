"""Training of the tree alignment model [Shi 2006 §4.2] by Viterbi EM: what one pair's
alignment adds to the counts (:func:`e_step_counts`), the counts summed over the pairs, and
the EM loop and M-step (:class:`ViterbiEM`, the aligner's base class)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from bitextcrawl.trees.dom import Node, preorder

if TYPE_CHECKING:  # (the aligner, whose base class this module holds)
    from bitextcrawl.trees.domtree import Alignment, TreeAligner


TextSimilarity = Callable[[str, str], float]


def _tree_size(tree: Node) -> int:
    """Nodes of a tree (``Node.size``), counted once per tree."""
    return len(preorder(tree))


def _summed(decoded: list) -> tuple:
    """The M-step's counts (§4.2) summed over the E-step's pairs: tag pairs, side-2 tags,
    L, Md, Mi, chunk lengths, log-probability and the number of pairs counted."""
    counts: dict[str, Counter] = {}
    vocab2: set[str] = set()
    L = Md = Mi = used = 0
    len1 = len2 = log_prob = 0.0
    for got, _ in decoded:
        if got is None:
            continue
        used += 1
        log_prob += got["log_prob"]
        for t1, c in got["counts"].items():
            counts.setdefault(t1, Counter()).update(c)
        len1 += got["len1"]
        len2 += got["len2"]
        vocab2.update(got["tags2"])
        L, Md, Mi = L + got["L"], Md + got["Md"], Mi + got["Mi"]
    return counts, vocab2, L, Md, Mi, len1, len2, log_prob, used


def e_step_counts(al: Alignment, tree2: Node) -> dict | None:
    """What one pair's Viterbi alignment adds to the counts of the M-step (§4.2); None
    when it is no tree alignment (the linear fallback's is not counted)."""
    if al.method != "tree":
        return None
    counts: dict[str, Counter] = {}
    len1 = len2 = 0
    for u, v, _ in al.node_pairs:
        counts.setdefault(u.tag, Counter())[v.tag] += 1
        if u.is_chunk and v.is_chunk:
            len1 += len(u.text)
            len2 += len(v.text)
    return {"counts": counts, "tags2": {n.tag for n in preorder(tree2)}, "len1": len1,
            "len2": len2, "log_prob": al.log_prob, "L": al.n_aligned, "Md": al.n_deleted,
            "Mi": al.n_inserted}


class ViterbiEM:
    """Training of :class:`~bitextcrawl.trees.domtree.TreeAligner` (§4.2): its tag-mapping
    and deletion probabilities and length ratio, re-estimated from Viterbi alignments."""

    # ---- training (§4.2) -----------------------------------------------------------------

    def fit(self, tree_pairs: Iterable[tuple[Node, Node]],
            text_similarity: TextSimilarity | None = None,
            initial_alignments: dict | None = None) -> "TreeAligner":
        """Train tag-mapping and deletion probabilities on verified pairs (§4.2).

        Viterbi EM (the paper uses inside–outside; Viterbi counts are cheaper and need no
        outside pass): iterate align (§4.3, current parameters) → count aligned tag pairs,
        deleted and inserted nodes → re-estimate, until the counts stop changing or
        ``n_iter`` iterations. Estimates use add-one smoothing:

            Pr(t2 | t1) = (c(t1, t2) + V · P0(t2 | t1)) / (c(t1) + V)
            p_d         = (M + 1) / (L + M + 2)

        with V the number of side-2 tags seen plus one: V pseudo-counts (one per tag) per
        conditioning tag, spread by the initial prior P0 rather than uniformly, so that a
        tag never seen in training keeps mapping to itself. The length ratio is
        re-estimated from the aligned chunks. Pairs over ``max_nodes`` are skipped.

        When an iteration leaves the parameters as they were (converged), its alignments
        are the training pairs' decoding under the fitted model: kept in ``alignments_``
        (one per pair, None if skipped), a caller need not decode those pairs again.

        ``initial_alignments``: {index: alignment} of training pairs the caller decoded
        already under this aligner's initial parameters (to verify them): the first
        E-step takes them instead of decoding those pairs again.
        """
        given = list(tree_pairs)
        decoded = dict(initial_alignments or {})

        def e_step(aligner, limit=None) -> list:
            out: list = [(None, None)] * len(given[:limit])
            for k, (t1, t2) in enumerate(given[:limit]):
                if _tree_size(t1) <= self.max_nodes and _tree_size(t2) <= self.max_nodes:
                    al = decoded.get(k)
                    if al is None:
                        al = aligner.align(t1, t2, text_similarity)
                    out[k] = (e_step_counts(al, t2), al)
            decoded.clear()   # the initial parameters' decodings: the first E-step only
            return out

        return self.fit_with(e_step)

    def fit_with(self, e_step: Callable) -> "TreeAligner":
        """:meth:`fit` with the E-step done by ``e_step(aligner, limit)``: per training pair
        (the first ``limit``, or all when None), (:func:`e_step_counts` of its Viterbi
        alignment or None, what to keep for it in ``alignments_``). A caller runs the
        E-step where its pages are (a process pool).

        With ``em_sample``, the iterations but the last decode only that many pairs; the
        last (also after the sample's counts stop changing) decodes them all and its
        alignments are kept, each training pair decoded once (approximation, §4.2: they
        are decoded with the parameters before the last M-step; bench_bitext P/R
        unchanged)."""
        for name in ("tag_counts_", "vocab_size_", "delete_prob_", "insert_prob_",
                     "length_ratio_", "alignments_", "_tag_costs"):
            self.__dict__.pop(name, None)
        self.history_ = []
        previous = None
        self.n_iter_ = 0
        final = not self.em_sample       # without a sample, every iteration decodes all
        for it in range(self.n_iter):
            last = final or it == self.n_iter - 1
            before = self._params()
            decoded = e_step(self, None if last else self.em_sample)
            counts, vocab2, L, Md, Mi, len1, len2, log_prob, used = _summed(decoded)
            self.n_iter_ = it + 1
            self.history_.append({"iteration": it + 1, "pairs": used,
                                  "log_prob": round(log_prob, 4), "aligned": L,
                                  "deleted": Md, "inserted": Mi})
            if not used:
                break
            self._m_step(counts, len(vocab2) + 1, L, Md, Mi, len1, len2)
            if self._params() == before or (self.em_sample and last):
                self.alignments_ = [kept for _, kept in decoded]
            if self.em_sample and last:
                break
            signature = ({k: dict(v) for k, v in counts.items()}, L, Md, Mi)
            if signature == previous:
                if not self.em_sample:
                    break
                final = True             # converged on the sample: all pairs once
            previous = signature
        return self

    def _m_step(self, counts: dict, vocab_size: int, L: int, Md: int, Mi: int,
                len1: float, len2: float) -> None:
        """Re-estimate Pr(t2 | t1), p_d (p_i) and the length ratio from Viterbi counts (§4.2)."""
        self.tag_counts_ = counts
        self.vocab_size_ = vocab_size
        if self.tie_deletion:
            p = (Md + Mi + 1) / (L + Md + Mi + 2)
            self.delete_prob_ = self.insert_prob_ = float(np.clip(p, 1e-4, 0.5))
        else:
            self.delete_prob_ = float(np.clip((Md + 1) / (L + Md + 2), 1e-4, 0.5))
            self.insert_prob_ = float(np.clip((Mi + 1) / (L + Mi + 2), 1e-4, 0.5))
        if self.length_ratio is None and len1 > 0 and len2 > 0:
            self.length_ratio_ = float(np.clip(len2 / len1, 0.2, 5.0))
        self.__dict__.pop("_tag_costs", None)

    def _params(self) -> tuple:
        """The fitted parameters the decoder uses (to tell when EM has converged)."""
        counts = getattr(self, "tag_counts_", None)
        return ({k: dict(v) for k, v in counts.items()} if counts is not None else None,
                getattr(self, "vocab_size_", None), self._delete_prob(), self._insert_prob(),
                self._length_ratio())

    @property
    def tag_probs_(self) -> dict:
        """Fitted Pr(t2 | t1) for the tag pairs seen aligned in training (and identities)."""
        counts = getattr(self, "tag_counts_", None)
        if counts is None:
            raise AttributeError("tag_probs_: call fit() first")
        out = {}
        for t1, c in counts.items():
            for t2 in set(c) | {t1}:
                out[(t1, t2)] = self.tag_prob(t1, t2)
        return out
