"""Time STRAND features + structural EM [Assylbekov 2015] for 10k and 100k candidate pairs.

Synthetic site: every page is a shared header/footer template around a body of
random blocks (~100–400 STRAND tokens a page). A translation keeps the template and
most body blocks (a few tokens inserted/deleted, chunk lengths ×1.15 with
Gale–Church noise); the other candidates of a page are other pages of the site
(same template, different body) — the hard case for structure. Each English page
has 10 candidates, one of them its translation.

Run:  python bench/bench_structural_em.py [n_pairs ...]     (default: 10000 100000)
Prints figures; asserts nothing.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bitextcrawl.pairing.structural_em import StructuralEM  # noqa: E402
from bitextcrawl.pairing.structure import Vocabulary, encode, pair_features_matrix, strand_features  # noqa: E402

BLOCKS = ["P", "DIV", "LI", "H2", "H3", "TD", "BLOCKQUOTE", "FIGURE"]
CANDIDATES_PER_PAGE = 10


def _block(rng):
    tag = rng.choice(BLOCKS)
    toks = [f"[START:{tag}]"]
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        toks.append(f"[Chunk:{int(math.exp(rng.gauss(4.0, 1.0))) + 1}]")
        if rng.random() < 0.2:
            toks.append("[START:BR]")
    toks.append(f"[END:{tag}]")
    return toks


def _translate(tokens, rng):
    out = []
    for t in tokens:
        r = rng.random()
        if r < 0.01:
            continue  # dropped token
        if t.startswith("[Chunk:"):
            n = int(t[7:-1])
            t = f"[Chunk:{max(1, int(1.15 * n + rng.gauss(0, 2.6 * math.sqrt(n))))}]"
        out.append(t)
        if r > 0.99:
            out.append("[START:BR]")  # inserted token
    return out


def make_site(n_pages, seed=0):
    rng = random.Random(seed)
    header = ["[START:HTML]", "[START:TITLE]", "[Chunk:30]", "[END:TITLE]", "[START:BODY]"]
    for _ in range(12):
        header += _block(rng)
    footer = []
    for _ in range(8):
        footer += _block(rng)
    footer += ["[END:BODY]", "[END:HTML]"]
    en, fr = {}, {}
    for i in range(n_pages):
        body = []
        target = rng.randint(100, 400) - len(header) - len(footer)
        while len(body) < max(target, 5):
            body += _block(rng)
        en[i] = header + body + footer
        fr[i] = _translate(en[i], rng)
    pairs, truth = [], []
    for i in range(n_pages):
        others = rng.sample(range(n_pages), CANDIDATES_PER_PAGE)
        cands = [i] + [j for j in others if j != i][:CANDIDATES_PER_PAGE - 1]
        for j in cands:
            pairs.append((i, j))
            truth.append(i == j)
    return en, fr, pairs, np.array(truth)


class _Timer:
    """Wall and CPU (process) time: on a shared machine the CPU figure is the stable one."""

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu = time.process_time() - self.c0

    def fmt(self, n=None):
        out = f"{self.wall:8.3f} s wall {self.cpu:8.3f} s cpu"
        if n:
            out += f"   {1e6 * self.cpu / n:6.1f} µs/pair (cpu)"
        return out


def bench(n_pairs):
    n_pages = n_pairs // CANDIDATES_PER_PAGE
    en, fr, pairs, truth = make_site(n_pages)
    sizes = [len(t) for t in en.values()]
    print(f"\n== {len(pairs):,} candidate pairs ({n_pages:,} pages a side, "
          f"{np.mean(sizes):.0f} tokens/page on average, min {min(sizes)}, max {max(sizes)})")

    with _Timer() as t_enc:
        vocabulary = Vocabulary()
        enc_en = {k: encode(v, vocabulary) for k, v in en.items()}
        enc_fr = {k: encode(v, vocabulary) for k, v in fr.items()}
    with _Timer() as t_feat:
        X = pair_features_matrix(enc_en, enc_fr, pairs, vocabulary)
    n_aligned = 0
    with _Timer() as t_align:
        for i, j in pairs:
            n_aligned += len(strand_features(enc_en[i], enc_fr[j]).aligned_chunks)
    with _Timer() as t_em:
        em = StructuralEM().fit(X)
    with _Timer() as t_pred:
        proba = em.predict_proba(X)

    pred = proba > 0.5
    tp = int(np.sum(pred & truth))
    prec = tp / max(1, int(pred.sum()))
    rec = tp / max(1, int(truth.sum()))
    print(f"encode pages (once per page)       {t_enc.fmt()}")
    print(f"W,M,N,L1,L2 (Indel.distance)       {t_feat.fmt(len(pairs))}")
    print(f"  or with aligned chunk pairs      {t_align.fmt(len(pairs))}"
          f"   ({n_aligned / len(pairs):.1f} chunk pairs/pair)")
    print(f"EM fit                             {t_em.fmt()}   n_iter={em.n_iter_} "
          f"converged={em.converged_}")
    print(f"predict_proba                      {t_pred.fmt()}")
    r = em.report()
    print(f"fit: q_par={r['q_par']:.4f} q_npar={r['q_npar']:.4f} k={r['k']:.3f} b={r['b']:.2f} "
          f"a={r['a']:.3f} c={r['c']:.1f} sigma={r['sigma']:.2f} p_par={r['p_par']:.3f}")
    print(f"vs synthetic truth: precision={prec:.3f} recall={rec:.3f}")


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [10_000, 100_000]:
        bench(n)
