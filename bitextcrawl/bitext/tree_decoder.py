"""Decoding of the DOM tree alignment model (seed 001 §4.3): the bottom-up DP and its traceback.

The DP is Jiang, Wang & Zhang's (1995) alignment of trees, run over all node pairs. Its
inner loops are compiled with numba (``cache=True``: compiled once per machine, then
loaded from ``__pycache__``, except from a zipped egg): in pure Python they were half of the bitext stage's CPU
(the other half the same DP run again by Viterbi EM). The compiled kernels do the same
floating-point operations in the same order as the Python code they replace, so the
costs, and the alignments, are unchanged. The traceback follows only the best
alignment's path and stays in Python.

Trees are arrays in post-order (children before parents): the children of node i are
``idx[ptr[i]:ptr[i + 1]]``. The kernels called once per node pair take a forest as an
array and a range of it, never a slice, and run without numba's reference counting
(``_nrt=False``: they allocate nothing; their callers own the scratch arrays): the
atomic increments and decrements of the arrays passed to them were half of the DP's time.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

INF = float("inf")
# Compiled code is cached beside this file; from a zipped egg (Scrapyd deploys one) numba
# has no place for it and refuses ``cache=True``: compiled once per process there.
_CACHE = os.path.isdir(os.path.dirname(os.path.abspath(__file__)))
# T1 rows decoded per call of the compiled kernel; the time limit is checked between calls.
ROWS_PER_CALL = 32


class _Timeout(Exception):
    pass


@dataclass
class _Side:
    """Arrays of one document tree (:class:`~bitextcrawl.bitext.dom.Node`), in post-order."""
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


@njit(cache=_CACHE, _nrt=False)
def _single_tree(A, D, I, X, x0, x1, Y, y0, y1, sp1, sp2):
    """Closed forms of a forest against a single tree (NaN where the full DP is needed).

    Splicing a node against a single tree is already in A (a tree's node deleted, the
    other tree aligned with one of its children), so it needs no DP here.
    """
    m, n = x1 - x0, y1 - y0
    if n == 1:
        y = Y[y0]
        if m == 1:
            x = X[x0]
            v = A[x, y]
            w = D[x] + I[y]
            return v if v < w else w
        if not sp2[y]:
            return _many_against_one(A, D, X, x0, x1, y, I[y], False)
    elif m == 1:
        x = X[x0]
        if not sp1[x]:
            return _many_against_one(A, I, Y, y0, y1, x, D[x], True)
    return np.nan


@njit(cache=_CACHE, _nrt=False)
def _many_against_one(A, C, many, lo, hi, one, best, t2):
    """A forest ``many[lo:hi]`` against a single tree ``one`` (§4.1): all of the forest's
    trees deleted or inserted (cost ``C``) but one, aligned with ``one``, or all of them
    and ``one`` too (``best`` on entry: ``one``'s own cost). The forest's trees are rows
    of ``A`` (T1's side), or its columns with ``t2`` (T2's side)."""
    total = 0.0
    for k in range(lo, hi):
        z = many[k]
        total += C[z]
        c = (A[one, z] if t2 else A[z, one]) - C[z]
        if c < best:
            best = c
    return total + best


@njit(cache=_CACHE, _nrt=False)
def _splice_x(A, D, I, idx1, g0, g1, Y, y0, n, W, p, a, b, dcost):
    """Node x deleted, its children ``idx1[g0:g1]`` aligned in its place (§4.1), from the
    forest DP's previous row ``W[p]``: the last row, in ``W[a]`` or ``W[b]`` (the index
    returned; the other is scratch)."""
    for t in range(n + 1):
        W[a, t] = W[p, t] + dcost
    for k in range(g0, g1):
        g = idx1[k]
        Dg = D[g]
        W[b, 0] = W[a, 0] + Dg
        for t in range(1, n + 1):
            y = Y[y0 + t - 1]
            v = W[a, t - 1] + A[g, y]
            w = W[a, t] + Dg
            if w < v:
                v = w
            w = W[b, t - 1] + I[y]
            if w < v:
                v = w
            W[b, t] = v
        a, b = b, a
    return a


@njit(cache=_CACHE)
def _work(width, cells, n):
    """Scratch for :func:`_forest_in`: five rows of ``width`` (two of the DP, two of a
    spliced x, one of a spliced y), ``cells`` for the spliced y's rows and the offsets of
    ``n`` of them. Made once per batch of T1 rows: a forest DP allocates nothing (nor
    makes array views, whose reference counts were half of the decoding's time)."""
    return (np.empty((5, width)), np.empty(cells), np.empty(n + 1, dtype=np.int64))


@njit(cache=_CACHE)
def _forest(A, D, I, xs, ys, ptr1, idx1, ptr2, idx2, sp1, sp2, dcost, icost):
    """Best cost of aligning forests xs (T1 nodes) and ys (T2 nodes) (§4.1, forests)."""
    n = ys.shape[0]
    width, cells = n + 1, 1
    for t in range(n):
        deg = ptr2[ys[t] + 1] - ptr2[ys[t]] + 1     # a spliced y's row
        width = max(width, deg)
        cells += deg
    W, ybuf, yoff = _work(width, cells, n)
    return _forest_in(A, D, I, xs, 0, xs.shape[0], ys, 0, n, ptr1, idx1, ptr2, idx2,
                      sp1, sp2, dcost, icost, W, ybuf, yoff)


@njit(cache=_CACHE, _nrt=False)
def _forest_in(A, D, I, X, x0, x1, Y, y0, y1, ptr1, idx1, ptr2, idx2, sp1, sp2, dcost,
               icost, W, ybuf, yoff):
    """:func:`_forest` of xs = ``X[x0:x1]`` and ys = ``Y[y0:y1]`` in the caller's
    scratch (:func:`_work`)."""
    closed = _single_tree(A, D, I, X, x0, x1, Y, y0, y1, sp1, sp2)
    if not np.isnan(closed):
        return closed
    m, n = x1 - x0, y1 - y0
    p, c = 0, 1                                 # W[p]: the previous row, W[c]: this one
    W[p, 0] = 0.0
    acc = 0.0
    for t in range(n):
        acc += I[Y[y0 + t]]
        W[p, t + 1] = acc
    # Node y inserted, its children aligned in its place (§4.1): one row per y, flat.
    size = 0
    for t in range(1, n + 1):
        y = Y[y0 + t - 1]
        if sp2[y]:
            o = size
            yoff[t] = o
            size += ptr2[y + 1] - ptr2[y] + 1
            ybuf[o] = W[p, t - 1] + icost
            for b in range(ptr2[y + 1] - ptr2[y]):
                ybuf[o + b + 1] = ybuf[o + b] + I[idx2[ptr2[y] + b]]
    for s in range(1, m + 1):
        x = X[x0 + s - 1]
        Dx = D[x]
        W[c, 0] = W[p, 0] + Dx
        spliced = sp1[x]
        sx = 2
        if spliced:
            sx = _splice_x(A, D, I, idx1, ptr1[x], ptr1[x + 1], Y, y0, n, W, p, 2, 3, dcost)
        for t in range(1, n + 1):
            y = Y[y0 + t - 1]
            v = W[p, t - 1] + A[x, y]          # trees aligned (§4.1 case (4))
            w = W[p, t] + Dx                    # tree x deleted
            if w < v:
                v = w
            w = W[c, t - 1] + I[y]              # tree y inserted
            if w < v:
                v = w
            if spliced:
                w = W[sx, t]
                if w < v:
                    v = w
            if sp2[y]:
                o = yoff[t]
                deg = ptr2[y + 1] - ptr2[y]
                W[4, 0] = W[c, t - 1] + icost
                for b in range(1, deg + 1):
                    g = idx2[ptr2[y] + b - 1]
                    u = ybuf[o + b - 1] + A[x, g]
                    w = W[4, b - 1] + I[g]
                    if w < u:
                        u = w
                    w = ybuf[o + b] + Dx
                    if w < u:
                        u = w
                    W[4, b] = u
                for b in range(deg + 1):
                    ybuf[o + b] = W[4, b]
                w = W[4, deg]
                if w < v:
                    v = w
            W[c, t] = v
        p, c = c, p
    return W[p, n]


@njit(cache=_CACHE)
def _splice_offsets(zs, sp, ptr, width):
    """Where each spliced node of a forest has its table of (children + 1) × ``width``
    cells in one flat array (−1: not spliced), and the array's size."""
    off = np.full(zs.shape[0] + 1, -1, dtype=np.int64)
    size = 0
    for s in range(1, zs.shape[0] + 1):
        z = zs[s - 1]
        if sp[z]:
            off[s] = size
            size += (ptr[z + 1] - ptr[z] + 1) * width
    return off, size


@njit(cache=_CACHE)
def _forest_tables(A, D, I, xs, ys, ptr1, idx1, ptr2, idx2, sp1, sp2, dcost, icost):
    """:func:`_forest`'s full DP with its tables kept, for the traceback.

    Returns (rows, xoff, xtab, yoff, ytab): ``rows[s, t]`` the forest DP; for a spliced
    x = xs[s-1], its children's rows ``xtab[xoff[s] + a*(n+1) + t]``; for a spliced
    y = ys[t-1], its children's row at each s, ``ytab[yoff[t] + s*(deg+1) + b]``
    (offset −1: not spliced).
    """
    m, n = xs.shape[0], ys.shape[0]
    rows = np.empty((m + 1, n + 1))
    rows[0, 0] = 0.0
    for t in range(n):
        rows[0, t + 1] = rows[0, t] + I[ys[t]]
    xoff, size = _splice_offsets(xs, sp1, ptr1, n + 1)
    xtab = np.empty(max(size, 1))
    yoff, size = _splice_offsets(ys, sp2, ptr2, m + 1)
    ytab = np.empty(max(size, 1))
    for t in range(1, n + 1):
        y = ys[t - 1]
        if sp2[y]:
            o = yoff[t]
            ytab[o] = rows[0, t - 1] + icost
            for b in range(ptr2[y + 1] - ptr2[y]):
                ytab[o + b + 1] = ytab[o + b] + I[idx2[ptr2[y] + b]]
    for s in range(1, m + 1):
        x = xs[s - 1]
        Dx = D[x]
        rows[s, 0] = rows[s - 1, 0] + Dx
        ox = xoff[s]
        if ox >= 0:
            for t in range(n + 1):
                xtab[ox + t] = rows[s - 1, t] + dcost
            for a in range(ptr1[x + 1] - ptr1[x]):
                g = idx1[ptr1[x] + a]
                lo, hi = ox + a * (n + 1), ox + (a + 1) * (n + 1)
                xtab[hi] = xtab[lo] + D[g]
                for t in range(1, n + 1):
                    xtab[hi + t] = min(xtab[lo + t - 1] + A[g, ys[t - 1]], xtab[lo + t] + D[g],
                                       xtab[hi + t - 1] + I[ys[t - 1]])
        for t in range(1, n + 1):
            y = ys[t - 1]
            v = min(rows[s - 1, t - 1] + A[x, y], rows[s - 1, t] + Dx, rows[s, t - 1] + I[y])
            if ox >= 0:
                v = min(v, xtab[ox + (ptr1[x + 1] - ptr1[x]) * (n + 1) + t])
            oy = yoff[t]
            if oy >= 0:
                w = ptr2[y + 1] - ptr2[y] + 1
                lo, hi = oy + (s - 1) * w, oy + s * w
                ytab[hi] = rows[s, t - 1] + icost
                for b in range(1, w):
                    g = idx2[ptr2[y] + b - 1]
                    ytab[hi + b] = min(ytab[lo + b - 1] + A[x, g], ytab[hi + b - 1] + I[g],
                                       ytab[lo + b] + Dx)
                v = min(v, ytab[hi + w - 1])
            rows[s, t] = v
    return rows, xoff, xtab, yoff, ytab


@njit(cache=_CACHE)
def _fill_rows(lo, hi, A, S, D, I, ptr1, idx1, ptr2, idx2, sp1, sp2, only2, self1, self2,
               dcost, icost):
    """Rows lo..hi-1 of A, bottom-up (§4.3): T1 nodes in post-order, each against all of T2."""
    n2 = S.shape[1]
    W, ybuf, yoff = _work(n2 + 1, 2 * n2 + 1, n2)   # (a forest of T2 nodes at most)
    for i in range(lo, hi):
        for j in range(n2):
            A[i, j] = S[i, j]
        Di = D[i]
        c0, c1 = ptr1[i], ptr1[i + 1]
        ni = c1 - c0
        only1 = idx1[c0] if ni == 1 else -1
        for j in range(n2):
            s = S[i, j]
            if s == INF:
                continue
            d0, d1 = ptr2[j], ptr2[j + 1]
            nj = d1 - d0
            if ni == 0:
                if nj == 0:
                    continue
                best = s + (I[j] - icost)         # aligned, children of j inserted
            elif nj == 0:
                best = s + (Di - dcost)           # aligned, children of i deleted
            else:
                d = only2[j]
                if d >= 0 and only1 >= 0:
                    f = A[only1, d]
                    w = D[only1] + I[d]
                    best = s + (f if f < w else w)
                else:
                    best = s + _forest_in(A, D, I, idx1, c0, c1, idx2, d0, d1, ptr1, idx1,
                                          ptr2, idx2, sp1, sp2, dcost, icost, W, ybuf, yoff)
            if nj:                                # j inserted, i aligned in its children
                d = only2[j]
                if d >= 0:
                    f = A[i, d]
                    w = Di + I[d]
                    c = icost + (f if f < w else w)
                else:
                    c = icost + _forest_in(A, D, I, self1, i, i + 1, idx2, d0, d1, ptr1,
                                           idx1, ptr2, idx2, sp1, sp2, dcost, icost, W,
                                           ybuf, yoff)
                if c < best:
                    best = c
            if ni:                                # i deleted, j aligned in its children
                if only1 >= 0:
                    f = A[only1, j]
                    w = D[only1] + I[j]
                    c = dcost + (f if f < w else w)
                else:
                    c = dcost + _forest_in(A, D, I, idx1, c0, c1, self2, j, j + 1, ptr1,
                                           idx1, ptr2, idx2, sp1, sp2, dcost, icost, W,
                                           ybuf, yoff)
                if c < best:
                    best = c
            A[i, j] = best


@njit(cache=_CACHE)
def node_costs(tcost, tid1, tid2, text, pos1, pos2, empty, rank1, rank2, band, pruned):
    """The node translation cost matrix (§4.1) in one pass: per node pair, its tag pair's
    cost ``tcost[tid1[i], tid2[j]]`` plus its text cost: ``text[pos1[i], pos2[j]]`` when
    both nodes have text (``pos``: the node's row of ``text``, −1 for none), ``empty``
    when one has, nothing when neither; INF outside the band (with ``pruned``). The
    sums are numpy's, one addition per cell, where the full-matrix array operations
    made five temporaries of every page pair's size."""
    n1, n2 = tid1.shape[0], tid2.shape[0]
    out = np.empty((n1, n2))
    for i in range(n1):
        p = pos1[i]
        t = tid1[i]
        for j in range(n2):
            c = tcost[t, tid2[j]]
            q = pos2[j]
            if p >= 0:
                c = c + (text[p, q] if q >= 0 else empty)
            elif q >= 0:
                c = c + empty
            if pruned and abs(rank1[i] - rank2[j]) > band:
                c = INF
            out[i, j] = c
    return out


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
        for lo in range(0, n1, ROWS_PER_CALL):
            if deadline is not None and time.monotonic() > deadline:
                raise _Timeout()
            _fill_rows(lo, min(n1, lo + ROWS_PER_CALL), self.A, self.S, self.D, self.I,
                       self.ptr1, self.idx1, self.ptr2, self.idx2, self.sp1, self.sp2,
                       only2, self1, self2, self.dcost, self.icost)

    def _cost(self, xs: list[int], ys: list[int]) -> float:
        """Best cost of aligning forests xs and ys (compiled)."""
        A, D, I, ptr1, idx1, ptr2, idx2, sp1, sp2 = self._arrays()
        return _forest(A, D, I, np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64),
                       ptr1, idx1, ptr2, idx2, sp1, sp2, self.dcost, self.icost)

    def _tables(self, xs: list[int], ys: list[int]):
        """Cost of aligning forests xs and ys, and the tables of :func:`_forest_tables`."""
        A, D, I, ptr1, idx1, ptr2, idx2, sp1, sp2 = self._arrays()
        tables = _forest_tables(A, D, I, np.array(xs, dtype=np.int64),
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
                cost, tables = self._tables(task[1], task[2])
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
        sub = S[u, v] + (self._cost(ci, cj) if ci and cj else
                         (self.D[u] - self.dcost if ci else self.I[v] - self.icost))
        if _close(sub, cost):
            pairs.append((u, v))
            if ci and cj:
                tasks.append(("forest", ci, cj))
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


def load_kernels() -> None:
    """Load (or compile) the compiled kernels now: two three-node trees costed, decoded
    and traced.

    A process pays this once (~0.7 s of CPU, most of it numba's own start-up); the bitext
    pool's fork server calls it so that its workers are forked with the kernels loaded.
    """
    side = _Side(nodes=[None] * 3, children=[[], [], [0, 1]], tags=[""] * 3, texts=[""] * 3,
                 lengths=np.zeros(3), chunk=np.zeros(3, dtype=bool), rank=np.zeros(3),
                 size=np.array([1, 1, 3], dtype=np.int64), order=[1, 2, 0])
    dec = _Decoder(side, side, np.ones((3, 3)), 2.0, 2.0, True)
    dec.run(None)
    dec.trace()
    node_costs(np.ones((1, 1)), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64),
               np.ones((1, 1)), np.array([0, -1, -1]), np.array([-1, 0, -1]), 1.0,
               np.zeros(3), np.zeros(3), 0.25, True)
