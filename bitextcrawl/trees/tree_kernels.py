"""The compiled kernels of the DOM tree aligner's DP [Shi 2006 §4.3]: see
:mod:`bitextcrawl.trees.tree_decoder`, which calls them.

A module of their own so that numba (0.3 s to import, and each kernel's cache to load) is
imported only by a process that decodes: with a pool, the crawl's process never does.
Compiled with ``cache=True``: once per machine, then loaded from ``__pycache__`` (except
from a zipped egg, where numba has no place for it and refuses ``cache=True``: compiled
once per process there). They take a forest as an array and a range of it, never a
slice, and those called once per node pair run without numba's reference counting
(``_nrt=False``: they allocate nothing; their callers own the scratch arrays).
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

INF = float("inf")
# Scrapyd deploys a zipped egg: no folder beside this file to cache in (see the docstring)
_CACHE = os.path.isdir(os.path.dirname(os.path.abspath(__file__)))


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
