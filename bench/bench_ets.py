"""Time and peak memory of LSI + ETS on synthetic bilingual sites (prints figures, asserts nothing).

    python bench/bench_ets.py            # 2k and 20k pages, ~10 candidates per page
    python bench/bench_ets.py 2000 50000 --cands 20

A synthetic site has N/2 pages per language: a home page, sections of 50 pages,
a global menu (home + 10 sections) on every page, breadcrumbs, prev/next links and 3
"related" links per page; the second language mirrors the links (5% dropped on each
side). Page texts come from two disjoint random vocabularies with a hidden word-to-word
mapping (parallel pages render the same concept sequence, with 10% noise). Each page
of language 1 gets its counterpart and (cands - 1) decoys (half siblings, half random)
as candidates. LSI is trained on 200 known pairs, then gives the content similarity of
every candidate; the internal similarity (eq. 2) mixes it with a noisy structural
score; ETS runs 3 iterations and extracts 1-1 pairs.

Time: wall clock per stage (perf_counter). Memory: tracemalloc peak per stage (numpy
reports its buffers to tracemalloc), measured in a second pass so the timings are not
slowed by tracing, and the process's peak RSS (ru_maxrss) at the end.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
import tracemalloc

import networkx as nx
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bitextcrawl.pairing.ets import ETS  # noqa: E402
from bitextcrawl.pairing.lsi import LSIModel  # noqa: E402


def make_site(n_pages: int, cands: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = n_pages // 2
    section_size = 50
    n_sections = max(1, (n - 1) // section_size)
    section_of = np.zeros(n, dtype=np.int64)
    section_of[1:] = np.minimum((np.arange(1, n) - 1) // section_size, n_sections - 1)
    heads = {}
    for p in range(1, n):
        heads.setdefault(int(section_of[p]), p)
    menu = [0] + [heads[s] for s in sorted(heads)[:10]]
    edges = set()
    for p in range(n):
        for m in menu:
            edges.add((p, m))
        if p:
            head = heads[int(section_of[p])]
            edges.add((p, head))
            edges.add((head, p))
            if p + 1 < n and section_of[p + 1] == section_of[p]:
                edges.add((p, p + 1))
                edges.add((p + 1, p))
            for r in rng.integers(1, n, 3):
                edges.add((p, int(r)))
    edges = [(a, b) for a, b in edges if a != b]

    g = nx.DiGraph()
    for p in range(n):
        g.add_node(f"https://s.test/en/{p}", lang="en")
        g.add_node(f"https://s.test/fr/{p}", lang="fr")
    keep1 = rng.random(len(edges)) > 0.05
    keep2 = rng.random(len(edges)) > 0.05
    g.add_edges_from((f"https://s.test/en/{a}", f"https://s.test/en/{b}")
                     for (a, b), k in zip(edges, keep1) if k)
    g.add_edges_from((f"https://s.test/fr/{a}", f"https://s.test/fr/{b}")
                     for (a, b), k in zip(edges, keep2) if k)

    # texts
    n_concepts, n_topics = 3000, 40
    letters1, letters2 = np.array(list("abcdefghijklm")), np.array(list("nopqrstuvwxyz"))

    def vocab(letters):
        words = set()
        while len(words) < n_concepts:
            words.add("".join(rng.choice(letters, rng.integers(3, 9))))
        return np.array(sorted(words))

    v1, v2 = vocab(letters1), vocab(letters2)[rng.permutation(n_concepts)]
    topics = rng.integers(0, n_concepts, (n_topics, 150))
    zipf = 1.0 / np.arange(1, 151) ** 0.8
    zipf /= zipf.sum()
    texts1, texts2 = [], []
    for p in range(n):
        t = topics[section_of[p] % n_topics]
        length = int(rng.integers(60, 160))
        concepts = t[rng.choice(150, length, p=zipf)]
        noise = rng.random(length) < 0.15
        concepts[noise] = rng.integers(0, n_concepts, int(noise.sum()))
        drop1, drop2 = rng.random(length) < 0.1, rng.random(length) < 0.1
        num = f" {p} {rng.integers(1990, 2025)}" if rng.random() < 0.3 else ""
        texts1.append(" ".join(v1[concepts[~drop1]]) + num + " home about contact")
        texts2.append(" ".join(v2[concepts[~drop2]]) + num + " accueil propos contact")

    pairs_idx = []
    for p in range(n):
        pairs_idx.append((p, p))
        sec = int(section_of[p])
        lo = 1 + sec * section_size
        sib = rng.integers(lo, min(lo + section_size, n), (cands - 1) // 2 + 1)
        rnd = rng.integers(0, n, cands - 1 - (cands - 1) // 2)
        for d in np.unique(np.r_[sib, rnd]):
            if d != p:
                pairs_idx.append((p, int(d)))
    return g, texts1, texts2, np.array(pairs_idx)


def run(n_pages: int, cands: int, trace: bool) -> dict:
    out: dict = {}

    def stage(name, fn):
        gc.collect()
        if trace:
            tracemalloc.start()
        t = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t
        if trace:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            out[name] = peak / 2**20
        else:
            out[name] = dt
        return result

    g, t1, t2, idx = stage("generate", lambda: make_site(n_pages, cands))
    n = len(t1)
    train = [(t1[i], t2[i]) for i in range(0, n, max(1, n // 200))][:200]
    lsi = stage("lsi_fit", lambda: LSIModel().fit(train, t1 + t2))
    sims = stage("lsi_pairs", lambda: lsi.pair_similarities(t1, t2, idx, centred=True))
    rng = np.random.default_rng(1)
    struct = np.clip(0.7 + 0.15 * rng.standard_normal(len(idx)), 0, 1)
    cand = [(f"https://s.test/en/{a}", f"https://s.test/fr/{b}") for a, b in idx]
    content = dict(zip(cand, sims))
    structure = dict(zip(cand, struct))
    model = ETS()
    internal = stage("internal", lambda: model.internal_similarity(cand, content, structure))
    stage("ets_fit", lambda: model.fit(cand, internal, g))
    pairs = stage("extract", lambda: model.extract())
    if not trace:
        gold = {(f"https://s.test/en/{p}", f"https://s.test/fr/{p}") for p in range(n)}
        from bitextcrawl.pairing.extract import one_to_one
        base = one_to_one([(a, b, s) for (a, b), s in internal.items()], model.threshold)

        def f1(pred):
            tp = sum((a, b) in gold for a, b, _ in pred)
            return 0.0 if not tp else 2 * tp / (len(pred) + len(gold))

        out.update(n_candidates=len(cand), rank=lsi.rank_, f1_internal=f1(base),
                   f1_ets=f1(pairs), neighbour_pairs=model.neighbour_pairs_,
                   history=[round(h["mean_change"], 4) for h in model.history_],
                   edges=g.number_of_edges())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[2000, 20000])
    ap.add_argument("--cands", type=int, default=10, help="candidates per page of language 1")
    args = ap.parse_args()
    stages = ("generate", "lsi_fit", "lsi_pairs", "internal", "ets_fit", "extract")
    for size in args.sizes:
        times = run(size, args.cands, trace=False)
        mem = run(size, args.cands, trace=True)
        print(f"== {size} pages, {times['n_candidates']} candidate pairs, "
              f"{times['edges']} links, {times['neighbour_pairs']} neighbour-pair links, "
              f"LSI rank {times['rank']}")
        for s in stages:
            print(f"  {s:10s} {times[s]:8.2f} s   peak {mem[s]:8.1f} MiB (tracemalloc)")
        total = sum(times[s] for s in stages if s != "generate")
        print(f"  total (LSI + ETS, without generation) {total:.2f} s")
        print(f"  F1 internal-only {times['f1_internal']:.3f}   F1 ETS {times['f1_ets']:.3f}   "
              f"mean change per iteration {times['history']}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
