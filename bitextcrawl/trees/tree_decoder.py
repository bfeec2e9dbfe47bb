"""Decoding of the DOM tree alignment model [Shi 2006 §4.3]: the bottom-up DP and its traceback.

The DP is Jiang, Wang & Zhang's (1995) alignment of trees, run over all node pairs. Its
inner loops are compiled with numba (:mod:`bitextcrawl.trees.tree_kernels`, imported by
the first decoding, :func:`kernels`): in pure Python they were half of the bitext stage's
CPU (the other half the same DP run again by Viterbi EM). The compiled kernels do the
same floating-point operations in the same order as the Python code they replace, so the
costs, and the alignments, are unchanged. The traceback follows only the best
alignment's path and stays in Python.

Trees are arrays in post-order (children before parents): the children of node i are
``idx[ptr[i]:ptr[i + 1]]``. The atomic reference-count updates of the arrays passed to
the kernels were half of the DP's time: those called once per node pair take a forest as
an array and a range of it, never a slice, and run without them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

INF = float("inf")
# T1 rows decoded per call of the compiled kernel; the time limit is checked between calls.
ROWS_PER_CALL = 32


class _Timeout(Exception):
    pass


def kernels():
    """:mod:`bitextcrawl.trees.tree_kernels`, imported now: numba (0.3 s) comes with the
    first decoding, so a process that builds and trains aligners whose pairs a pool
    decodes (the crawl's) never imports it."""
    from bitextcrawl.trees import tree_kernels

    return tree_kernels


@dataclass
class _Side:
    """Arrays of one document tree (:class:`~bitextcrawl.trees.dom.Node`), in post-order."""
    nodes: list
    children: list            # list[list[int]]
    tags: list
    texts: list
    lengths: np.ndarray
    chunk: np.ndarray         # bool: text is a chunk of its own
    rank: np.ndarray          # pre-order rank / n (relative document position)
    size: np.ndarray
    order: list               # pre-order rank (document order)
    memo: dict = field(default_factory=dict)   # the aligner's per-tree features

    @classmethod
    def of(cls, tree) -> "_Side":
        """The tree's arrays, made once per tree (EM aligns a tree several times)."""
        if tree.memo is None:
            tree.memo = {}
        side = tree.memo.get("side")
        if side is None:
            side, preorder = cls._of(tree)
            tree.memo["side"] = side
            tree.memo.setdefault("preorder", preorder)   # (dom.preorder's list)
        return side

    @classmethod
    def _of(cls, tree) -> tuple["_Side", list]:
        """One depth-first walk: post-order nodes, their pre-order ranks, children, sizes;
        and the nodes in pre-order."""
        nodes, ranks, children, sizes = [], [], [], []
        preorder = [tree]
        stack = [(tree, iter(tree.children), [], 0)]
        visited = 1
        while stack:
            top = stack[-1]
            child = next(top[1], None)
            if child is not None:
                stack.append((child, iter(child.children), [], visited))
                preorder.append(child)
                visited += 1
                continue
            stack.pop()
            if stack:
                stack[-1][2].append(len(nodes))
            node, _, ch, rank = top
            nodes.append(node)
            ranks.append(rank)
            children.append(ch)
            sizes.append(1 + sum([sizes[c] for c in ch]))
        n = len(nodes)
        texts = [x.text for x in nodes]
        lengths = np.array([len(t) for t in texts], dtype=float)
        inline = np.array([x.inline for x in nodes], dtype=bool)
        return cls(
            nodes=nodes, children=children, tags=[x.tag for x in nodes], texts=texts,
            lengths=lengths,
            chunk=(lengths > 0) & ~inline,          # Node.is_chunk
            rank=np.array(ranks, dtype=float) / max(n - 1, 1),
            size=np.array(sizes, dtype=np.int64), order=ranks,
        ), preorder


def _csr(children: list) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(children) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(c) for c in children])
    idx = np.fromiter((c for ch in children for c in ch), dtype=np.int64, count=int(ptr[-1]))
    return ptr, idx


class _Decoder:
    """Bottom-up DP over all node pairs (§4.3): Jiang, Wang & Zhang's alignment of trees.

    ``A[i, j]`` is the best cost (−log probability) of aligning subtree i of T1 with
    subtree j of T2 (§4.1 tree cases: roots aligned and their child forests aligned; a
    root deleted and its children aligned with the other tree; or the converse). Forests
    of children are aligned by a sequence DP over the §4.1 forest configurations: trees
    aligned, a tree deleted, a tree inserted, a node deleted with its children aligned in
    its place, a node inserted likewise. Departure: inside a spliced node's children no
    further splice is considered (one level): each forest DP then costs
    O(m·n + grandchildren·n) instead of Jiang et al.'s range tables, and the whole
    decoding about O(|T1|·|T2|) in practice rather than O(|T1||T2|(d1+d2)²). On random
    trees it finds the unrestricted optimum in ~98% of cases (tests check validity).
    """

    def __init__(self, s1, s2, S: np.ndarray, dcost: float, icost: float, splice: bool):
        self.s1, self.s2 = s1, s2
        self.S = np.ascontiguousarray(S, dtype=float)
        self.dcost, self.icost = dcost, icost
        self.ch1, self.ch2 = s1.children, s2.children
        self.ptr1, self.idx1 = _csr(self.ch1)
        self.ptr2, self.idx2 = _csr(self.ch2)
        # Splicing a node matters only when two or more of its children align to different
        # trees; with one child it is already in A (node deleted, child aligned).
        self.sp1 = np.array([splice and len(c) >= 2 for c in self.ch1], dtype=np.bool_)
        self.sp2 = np.array([splice and len(c) >= 2 for c in self.ch2], dtype=np.bool_)
        self.D = (s1.size * dcost).astype(float)     # delete whole subtree
        self.I = (s2.size * icost).astype(float)     # insert whole subtree
        self.A = np.empty_like(self.S)
        self.kernels = kernels()

    def _arrays(self):
        return (self.A, self.D, self.I, self.ptr1, self.idx1, self.ptr2, self.idx2,
                self.sp1, self.sp2)

    def run(self, deadline: float | None) -> None:
        """Fill A bottom-up, ``ROWS_PER_CALL`` T1 nodes at a time (§4.3)."""
        n1, n2 = self.S.shape
        # The only child of a T2 node, or -1: single-child chains (li > a, p > b) are
        # common, and their forest alignments have a closed form.
        only2 = np.array([c[0] if len(c) == 1 else -1 for c in self.ch2], dtype=np.int64)
        self1, self2 = np.arange(n1, dtype=np.int64), np.arange(n2, dtype=np.int64)
        fill_rows = self.kernels._fill_rows
        for lo in range(0, n1, ROWS_PER_CALL):
            if deadline is not None and time.monotonic() > deadline:
                raise _Timeout()
            fill_rows(lo, min(n1, lo + ROWS_PER_CALL), self.A, self.S, self.D, self.I,
                      self.ptr1, self.idx1, self.ptr2, self.idx2, self.sp1, self.sp2,
                      only2, self1, self2, self.dcost, self.icost)

    def _cost(self, xs: list[int], ys: list[int]) -> float:
        """Best cost of aligning forests xs and ys (compiled)."""
        A, D, I, ptr1, idx1, ptr2, idx2, sp1, sp2 = self._arrays()
        return self.kernels._forest(A, D, I, np.array(xs, dtype=np.int64),
                                    np.array(ys, dtype=np.int64), ptr1, idx1, ptr2, idx2,
                                    sp1, sp2, self.dcost, self.icost)

    def _tables(self, xs: list[int], ys: list[int]):
        """Cost of aligning forests xs and ys, and the tables of :func:`_forest_tables`."""
        A, D, I, ptr1, idx1, ptr2, idx2, sp1, sp2 = self._arrays()
        tables = self.kernels._forest_tables(A, D, I, np.array(xs, dtype=np.int64),
                                np.array(ys, dtype=np.int64), ptr1, idx1, ptr2, idx2,
                                sp1, sp2, self.dcost, self.icost)
        return tables[0][len(xs), len(ys)], tables

    def trace(self) -> tuple[float, list[tuple[int, int]]]:
        """Viterbi alignment: the node pairs of the best alignment of the two trees."""
        r1, r2 = len(self.ch1) - 1, len(self.ch2) - 1
        pairs: list[tuple[int, int]] = []
        total = None
        tasks: list[tuple] = [("forest", [r1], [r2])]
        while tasks:
            task = tasks.pop()
            if task[0] == "forest":
                # (the tables the tree's check made already, where it made them)
                cost, tables = task[3] if len(task) > 3 else self._tables(task[1], task[2])
                if total is None:
                    total = cost
                self._trace_forest(task[1], task[2], tables, tasks)
            else:
                self._trace_tree(task[1], task[2], pairs, tasks)
        return float(total), pairs

    def _trace_tree(self, u, v, pairs, tasks) -> None:
        A, S = self.A, self.S
        ci, cj = self.ch1[u], self.ch2[v]
        cost = A[u, v]
        if not ci and not cj:
            pairs.append((u, v))
            return
        tables = None
        if len(ci) >= 2 and len(cj) >= 2:
            # No closed form for these forests (``_single_tree``): the DP of the check
            # is the one the forest's traceback reads, made once with its tables (the
            # same operations as ``_forest``, so the same cost).
            tables = self._tables(ci, cj)
            forest = tables[0]
        elif ci and cj:
            forest = self._cost(ci, cj)
        else:
            forest = self.D[u] - self.dcost if ci else self.I[v] - self.icost
        sub = S[u, v] + forest
        if _close(sub, cost):
            pairs.append((u, v))
            if ci and cj:
                tasks.append(("forest", ci, cj) if tables is None else ("forest", ci, cj, tables))
            return
        if ci and _close(self.dcost + self._cost(ci, [v]), cost):
            tasks.append(("forest", ci, [v]))
            return
        if cj and _close(self.icost + self._cost([u], cj), cost):
            tasks.append(("forest", [u], cj))
            return
        raise AssertionError(f"tree traceback failed at {u},{v}")

    def _trace_forest(self, xs, ys, tables, tasks) -> None:
        rows, xoff, xtab, yoff, ytab = tables
        A, D, I = self.A, self.D, self.I
        ch1, ch2 = self.ch1, self.ch2
        s, t = len(xs), len(ys)
        n = t
        state = "C"
        a = b = 0
        while True:
            if state == "C":
                if s == 0 and t == 0:
                    return
                if s == 0:
                    t -= 1
                    continue
                if t == 0:
                    s -= 1
                    continue
                x, y = xs[s - 1], ys[t - 1]
                v = rows[s, t]
                if _close(rows[s - 1, t - 1] + A[x, y], v):
                    tasks.append(("tree", x, y))
                    s, t = s - 1, t - 1
                elif _close(rows[s - 1, t] + D[x], v):
                    s -= 1
                elif _close(rows[s, t - 1] + I[y], v):
                    t -= 1
                elif xoff[s] >= 0 and _close(xtab[xoff[s] + len(ch1[x]) * (n + 1) + t], v):
                    state, a = "X", len(ch1[x])
                elif yoff[t] >= 0 and _close(
                        ytab[yoff[t] + s * (len(ch2[y]) + 1) + len(ch2[y])], v):
                    state, b = "Y", len(ch2[y])
                else:
                    raise AssertionError("forest traceback failed")
            elif state == "X":
                if a == 0:
                    state = "C"
                    s -= 1
                    continue
                o = xoff[s]
                g = ch1[xs[s - 1]][a - 1]
                v = xtab[o + a * (n + 1) + t]
                if t > 0 and _close(xtab[o + (a - 1) * (n + 1) + t - 1] + A[g, ys[t - 1]], v):
                    tasks.append(("tree", g, ys[t - 1]))
                    a, t = a - 1, t - 1
                elif _close(xtab[o + (a - 1) * (n + 1) + t] + D[g], v):
                    a -= 1
                elif t > 0 and _close(xtab[o + a * (n + 1) + t - 1] + I[ys[t - 1]], v):
                    t -= 1
                else:
                    raise AssertionError("splice traceback failed")
            else:  # "Y"
                if b == 0:
                    state = "C"
                    t -= 1
                    continue
                o, w = yoff[t], len(ch2[ys[t - 1]]) + 1
                g = ch2[ys[t - 1]][b - 1]
                v = ytab[o + s * w + b]
                if s > 0 and _close(ytab[o + (s - 1) * w + b - 1] + A[xs[s - 1], g], v):
                    tasks.append(("tree", xs[s - 1], g))
                    s, b = s - 1, b - 1
                elif _close(ytab[o + s * w + b - 1] + I[g], v):
                    b -= 1
                elif s > 0 and _close(ytab[o + (s - 1) * w + b] + D[xs[s - 1]], v):
                    s -= 1
                else:
                    raise AssertionError("splice traceback failed")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


_kernels_loaded = False


def load_kernels() -> None:
    """Load (or compile) the compiled kernels now, once per process: two three-node trees
    costed, decoded and traced.

    A process pays this once (~0.9 s of CPU, most of it numba's own start-up; 7 s where
    they are compiled, the first time on a machine); the bitext pool's fork server calls
    it so that its workers are forked with the kernels loaded, and the aligner before it
    starts the clock of its time limit.
    """
    global _kernels_loaded
    if _kernels_loaded:
        return
    side = _Side(nodes=[None] * 3, children=[[], [], [0, 1]], tags=[""] * 3, texts=[""] * 3,
                 lengths=np.zeros(3), chunk=np.zeros(3, dtype=bool), rank=np.zeros(3),
                 size=np.array([1, 1, 3], dtype=np.int64), order=[1, 2, 0])
    dec = _Decoder(side, side, np.ones((3, 3)), 2.0, 2.0, True)
    dec.run(None)
    dec.trace()
    kernels().node_costs(np.ones((1, 1)), np.zeros(3, dtype=np.int64),
                         np.zeros(3, dtype=np.int64), np.ones((1, 1)), np.array([0, -1, -1]),
                         np.array([-1, 0, -1]), 1.0, np.zeros(3), np.zeros(3), 0.25, True)
    _kernels_loaded = True
