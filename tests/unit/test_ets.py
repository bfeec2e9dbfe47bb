"""Enhanced Translation Similarity [Liu 2014 §3, Algorithms 1-3, eq. 1, 2, 6]."""

import math

import networkx as nx
import numpy as np
import pytest

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.ets import ETS, internal_similarity, page_weights
from bitextcrawl.pairing.extract import greedy_group_sums, one_to_one
from bitextcrawl.pairing.page_graph import build_site_graph

# ----------------------------------------------------------------------------- data

def make_site(n_sections=10, per_section=19, n_decoys=4, n_related=2, link_noise=0.05, seed=0):
    """A bilingual site where internal similarity alone is ambiguous.

    Home page, sections, leaves; every page links to home and all sections (global
    menu), leaves link to their prev/next siblings and to ``n_related`` random pages;
    section pages link to their leaves. The French side mirrors the links (each link
    dropped with ``link_noise`` per side) and pages link to their translation.
    Each English page has its translation and ``n_decoys`` siblings as candidates,
    all with internal similarity drawn from nearly the same range (near-identical
    pages, e.g. monthly reports), so internal similarity picks the wrong one often.
    """
    rng = np.random.default_rng(seed)
    s_count = n_sections
    leaves = [[1 + s_count + s * per_section + k for k in range(per_section)]
              for s in range(s_count)]
    n = 1 + s_count + s_count * per_section
    section_of = {leaf: s for s in range(s_count) for leaf in leaves[s]}
    edges = set()
    for s in range(s_count):
        sec = 1 + s
        for p in range(n):
            edges.add((p, 0))
            edges.add((p, sec))
        for k, leaf in enumerate(leaves[s]):
            edges.add((sec, leaf))
            if k > 0:
                edges.add((leaf, leaves[s][k - 1]))
            if k < per_section - 1:
                edges.add((leaf, leaves[s][k + 1]))
            for r in rng.choice(n, n_related, replace=False):
                edges.add((leaf, int(r)))
    graph = nx.DiGraph()
    for p in range(n):
        graph.add_node(f"en/{p}", lang="en")
        graph.add_node(f"fr/{p}", lang="fr")
    for a, b in sorted(edges):
        if a == b:
            continue
        if rng.random() > link_noise:
            graph.add_edge(f"en/{a}", f"en/{b}")
        if rng.random() > link_noise:
            graph.add_edge(f"fr/{a}", f"fr/{b}")
    for p in range(n):
        graph.add_edge(f"en/{p}", f"fr/{p}")
        graph.add_edge(f"fr/{p}", f"en/{p}")
    gold = {(f"en/{p}", f"fr/{p}") for p in range(n)}
    internal = {}
    for p in range(n):
        internal[(f"en/{p}", f"fr/{p}")] = rng.uniform(0.55, 0.75)
        pool = leaves[section_of[p]] if p in section_of else list(range(1, s_count + 1))
        pool = [d for d in pool if d != p]
        for d in rng.choice(pool, min(n_decoys, len(pool)), replace=False):
            internal[(f"en/{p}", f"fr/{int(d)}")] = rng.uniform(0.5, 0.75)
    return graph, internal, gold


def f1(pred, gold):
    pred = {(a, b) for a, b, *_ in pred}
    tp = len(pred & gold)
    return 0.0 if not tp else 2 * tp / (len(pred) + len(gold))


@pytest.fixture(scope="module")
def site():
    return make_site()


# -------------------------------------------------------------- reference (slow, plain)

def reference_ets(pairs, internal, graph, alpha=0.6, n_iter=3, weighting=True,
                  popular_fraction=0.5, popular_min_links=10, delta=1.0, threshold=0.3):
    """Algorithms 1 and 2 written out literally over dicts, to check the vectorised code."""
    lang = nx.get_node_attributes(graph, "lang")
    left = {u for u in graph if lang.get(u) == "en"} | {a for a, _ in pairs}
    right = {u for u in graph if lang.get(u) == "fr"} | {b for _, b in pairs}

    def side_info(side):
        n = len(side)
        in_links = {u: sum(1 for v in graph.predecessors(u) if v in side and v != u)
                    if u in graph else 0 for u in side}
        weight = {u: (math.log((n + delta) / (in_links[u] + delta)) / math.log((n + delta) / delta)
                      if weighting else 1.0) for u in side}
        popular = {u for u in side if popular_fraction is not None
                   and in_links[u] > popular_fraction * n and in_links[u] >= popular_min_links}
        neigh = {}
        for u in side:
            nb = (set(graph.predecessors(u)) | set(graph.successors(u))) if u in graph else set()
            neigh[u] = {v for v in nb if v in side and v != u and v not in popular}
        return neigh, weight

    pg_l, w_l = side_info(left)
    pg_r, w_r = side_info(right)
    # PG(·) keeps the neighbours in a candidate pair with ITS >= T_min (ETS._neighbour_structure)
    pairable_l = {a for a, b in pairs if internal[(a, b)] >= threshold}
    pairable_r = {b for a, b in pairs if internal[(a, b)] >= threshold}
    pg_l = {u: nb & pairable_l for u, nb in pg_l.items()}
    pg_r = {u: nb & pairable_r for u, nb in pg_r.items()}
    index = {p: k for k, p in enumerate(pairs)}
    ets = {p: internal[p] for p in pairs}
    for _ in range(n_iter):
        new = {}
        for e, c in pairs:
            its = internal[(e, c)]
            if not pg_l[e] or not pg_r[c]:    # no external evidence either way
                new[(e, c)] = its
                continue
            items = sorted(((ets[(x, y)], index[(x, y)], x, y) for (x, y) in pairs
                            if x in pg_l[e] and y in pg_r[c]), key=lambda t: (-t[0], t[1]))
            used_x, used_y, total = set(), set(), 0.0
            for s, _, x, y in items:
                if x in used_x or y in used_y:
                    continue
                used_x.add(x)
                used_y.add(y)
                total += s * math.sqrt(w_l[x] * w_r[y])
            den = max(sum(w_l[x] for x in pg_l[e]), sum(w_r[y] for y in pg_r[c]))
            ext = min(max(total / den, 0.0), 1.0) if den > 0 else 0.0
            new[(e, c)] = (1 - alpha) * its + alpha * ext
        ets = new
    return ets


@pytest.mark.parametrize("seed,weighting,popular", [(0, "weight1", 0.5), (1, "none", None),
                                                    (2, "weight1", 0.3), (3, "none", 0.5)])
def test_matches_literal_algorithms_1_and_2(seed, weighting, popular):
    rng = np.random.default_rng(seed)
    n = 30
    graph = nx.DiGraph()
    for i in range(n):
        graph.add_node(f"e{i}", lang="en")
        graph.add_node(f"c{i}", lang="fr")
    for _ in range(120):
        a, b = rng.integers(0, n, 2)
        graph.add_edge(f"e{a}", f"e{b}")
        a, b = rng.integers(0, n, 2)
        graph.add_edge(f"c{a}", f"c{b}")
    for i in range(n):                                # a few popular pages
        graph.add_edge(f"e{i}", "e0")
        graph.add_edge(f"c{i}", "c0")
    graph.remove_edges_from([(u, u) for u in list(graph) if graph.has_edge(u, u)])
    pairs = sorted({(f"e{a}", f"c{b}") for a, b in rng.integers(0, n, (150, 2))})
    pairs.append(("e_orphan", "c_orphan"))            # pages outside the graph
    internal = {p: float(v) for p, v in zip(pairs, rng.choice([0.2, 0.4, 0.6, 0.8], len(pairs)))}
    model = ETS(alpha=0.6, n_iter=3, tol=0.0, weighting=weighting, popular_fraction=popular,
                popular_min_links=5).fit(pairs, internal, graph)
    ref = reference_ets(pairs, internal, graph, weighting=weighting == "weight1",
                        popular_fraction=popular, popular_min_links=5)
    assert model.n_iter_ == 3
    for p in pairs:
        assert model.scores_[p] == pytest.approx(ref[p], abs=1e-9)
    assert model.scores_[("e_orphan", "c_orphan")] == internal[("e_orphan", "c_orphan")]


# ------------------------------------------------------------------- behaviour

def test_ets_beats_internal_only(site):
    graph, internal, gold = site
    base = one_to_one(((a, b, s) for (a, b), s in internal.items()), 0.3)
    model = ETS().fit(list(internal), internal, graph)
    pairs = model.extract()
    assert f1(pairs, gold) > f1(base, gold) + 0.4
    assert f1(pairs, gold) > 0.9
    used = [u for a, b, _ in pairs for u in (a, b)]
    assert len(used) == len(set(used))                 # Algorithm 3: 1-1
    assert all(s >= model.threshold for *_, s in pairs)
    # the popular pages (home + global menu) were removed from neighbour sets
    assert model.n_popular_removed_ == 2 * 11


def test_alpha_zero_is_internal_only(site):
    graph, internal, _ = site
    model = ETS(alpha=0.0).fit(list(internal), internal, graph)
    assert all(model.scores_[p] == pytest.approx(v) for p, v in internal.items())


def test_history_and_convergence(site):
    graph, internal, _ = site
    model = ETS(n_iter=3, tol=0.0).fit(list(internal), internal, graph)
    assert [h["iteration"] for h in model.history_] == [1, 2, 3]
    changes = [h["mean_change"] for h in model.history_]
    assert changes[0] > changes[1] > changes[2] >= 0        # converging
    assert all(np.isfinite(h["max_change"]) and 0 <= h["mean_external"] <= 1
               for h in model.history_)
    long = ETS(n_iter=50, tol=1e-3).fit(list(internal), internal, graph)
    assert long.converged_ and long.n_iter_ < 50
    rep = model.report()
    assert rep["n_iter"] == 3 and rep["history"] == model.history_
    assert rep["n_candidates"] == len(internal) and rep["neighbour_pairs"] > 0
    assert all(0.0 <= s <= 1.0 for s in model.scores_.values())


def test_max_pairs_and_threshold(site):
    graph, internal, _ = site
    model = ETS().fit(list(internal), internal, graph)
    assert len(model.extract(max_pairs=5)) == 5
    assert model.extract(threshold=1.01) == []


def test_degenerate_inputs():
    empty = ETS().fit([], {}, nx.DiGraph())
    assert empty.scores_ == {} and empty.extract() == [] and empty.history_
    assert all(h["mean_change"] == 0.0 for h in empty.history_)
    assert empty.report()["n_scored"] == 0
    # no links at all: ETS = ITS (no external evidence is not evidence against)
    internal = {("a", "x"): 0.8, ("a", "y"): 0.4, ("b", "y"): 0.5}
    no_links = ETS().fit(list(internal), internal, None)
    assert no_links.scores_ == pytest.approx(internal)
    assert no_links.extract(threshold=0.3) == [("a", "x", 0.8), ("b", "y", 0.5)]
    # candidates missing from the internal map (filtered) are dropped; NaN is filtered too
    partial = ETS().fit([("a", "x"), ("b", "y"), ("c", "z")],
                        {("a", "x"): 0.9, ("c", "z"): float("nan")}, nx.DiGraph())
    assert set(partial.scores_) == {("a", "x")} and partial.n_filtered_ == 2
    # graph without lang attributes: the candidate sides decide
    g = nx.DiGraph([("a", "b"), ("x", "y")])
    internal = {("a", "x"): 0.9, ("b", "y"): 0.9, ("a", "y"): 0.9, ("b", "x"): 0.2}
    m = ETS(alpha=0.5).fit(list(internal), internal, g)
    assert m.scores_[("a", "x")] > m.scores_[("a", "y")]
    assert all(math.isfinite(v) for v in m.scores_.values())
    with pytest.raises(RuntimeError):
        ETS().extract()


def test_evidence_is_strong_internal_not_bypass():
    internal = {("a", "x"): 0.2, ("b", "y"): 0.2}
    m = ETS(evidence_weight=0.9).fit(list(internal), internal, nx.DiGraph(),
                                      evidence=[("a", "x")])
    assert m.scores_[("a", "x")] == pytest.approx(0.9)
    assert m.extract(threshold=0.3) == [("a", "x", pytest.approx(0.9))]


# ------------------------------------------------------------------- eq. 2, eq. 6

def test_internal_similarity_eq2_size_filter_and_evidence():
    cands = [("a", "x"), ("a", "y"), ("b", "y"), ("c", "z")]
    content = {("a", "x"): 0.5, ("a", "y"): -0.3, ("b", "y"): 0.9, ("c", "z"): 0.1}
    structure = {("a", "x"): 1.0, ("a", "y"): 0.5, ("c", "z"): 0.1}
    lengths = {"a": 1000, "x": 900, "y": 100, "b": 200, "c": 0, "z": 500}
    its = internal_similarity(cands, content, structure, lengths, lam=0.6,
                              evidence={("c", "z"): 1.0}, evidence_weight=0.8)
    assert its[("a", "x")] == pytest.approx(0.6 * 0.5 + 0.4 * 1.0)
    assert ("a", "y") not in its                     # 1000 vs 100: filtered by size ratio
    assert its[("b", "y")] == pytest.approx(0.9)     # no structure: content alone
    assert its[("c", "z")] == pytest.approx(0.8)     # evidence; unknown length never filters
    no_filter = internal_similarity(cands, content, structure, lengths, max_size_ratio=None)
    assert no_filter[("a", "y")] == pytest.approx(0.6 * 0.0 + 0.4 * 0.5)   # lcos < 0 clipped
    # C estimated from the evidence pairs: a language pair whose pages are 3x shorter
    lengths2 = {"e1": 300, "c1": 100, "e2": 600, "c2": 200, "e3": 900, "c3": 300,
                "e4": 1000, "c4": 1000}
    ev = [("e1", "c1"), ("e2", "c2"), ("e3", "c3")]
    cands2 = ev + [("e4", "c4")]
    its2 = internal_similarity(cands2, {p: 0.5 for p in cands2}, None, lengths2,
                               evidence=ev, max_size_ratio=2.0)
    assert ("e4", "c4") not in its2 and all(p in its2 for p in ev)
    model = ETS(lam=0.2)
    assert model.internal_similarity([("a", "x")], content, structure)[("a", "x")] == \
        pytest.approx(0.2 * 0.5 + 0.8 * 1.0)


def test_page_weights_eq6():
    w = page_weights(np.array([0, 1, 10, 100]), 100)
    assert w[0] == pytest.approx(1.0) and w[-1] == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.diff(w) < 0) and np.all((w >= 0) & (w <= 1))


def test_greedy_group_sums_matches_sequential():
    rng = np.random.default_rng(0)
    for trial in range(100):
        m = int(rng.integers(1, 200))
        key = np.unique(rng.integers(0, 4, m) * 100 + rng.integers(0, 8, m) * 10 + rng.integers(0, 8, m))
        grp, x, y = key // 100, (key // 10) % 10, key % 10
        score = rng.integers(0, 5, len(key)) / 4
        val = score * rng.random(len(key))
        tie = rng.permutation(len(key))
        kx = np.unique(grp * 10 + x, return_inverse=True)[1]
        ky = np.unique(grp * 10 + y, return_inverse=True)[1]
        got = greedy_group_sums(grp, kx, ky, score, val, tie, 4,
                                max_rounds=1 if trial % 3 == 0 else 10_000)
        exp = np.zeros(4)
        for g in range(4):
            used_x, used_y = set(), set()
            for i in sorted(np.flatnonzero(grp == g), key=lambda i: (-score[i], tie[i])):
                if x[i] not in used_x and y[i] not in used_y:
                    used_x.add(x[i])
                    used_y.add(y[i])
                    exp[g] += val[i]
        assert np.allclose(got, exp)


# --------------------------------------------------------------------- site graph

def test_build_site_graph():
    pages = [
        PageRecord(url="https://s.test/en/a", requested_url="https://s.test/en/a", lang="en",
                   text_length=10,
                   links=[{"url": "https://s.test/en/b-old", "text": "b", "hreflang": None},
                          {"url": "https://s.test/fr/a", "text": "FR", "hreflang": "fr"},
                          {"url": "https://other.test/", "text": "x", "hreflang": None},
                          {"url": "https://s.test/en/a", "text": "self", "hreflang": None}]),
        PageRecord(url="https://s.test/en/b", requested_url="https://s.test/en/b-old", lang="en"),
        PageRecord(url="https://s.test/fr/a", lang="fr",
                   links=[{"url": "https://s.test/en/a", "text": "EN", "hreflang": "en"}]),
    ]
    g = build_site_graph(pages)
    assert set(g.nodes) == {"https://s.test/en/a", "https://s.test/en/b", "https://s.test/fr/a"}
    assert set(g.edges) == {("https://s.test/en/a", "https://s.test/en/b"),
                            ("https://s.test/en/a", "https://s.test/fr/a"),
                            ("https://s.test/fr/a", "https://s.test/en/a")}
    assert g.nodes["https://s.test/fr/a"]["lang"] == "fr"
    assert g.nodes["https://s.test/en/a"]["text_length"] == 10
    assert build_site_graph([]).number_of_nodes() == 0


# ------------------------------------------------------- the neighbour rule (one rule)

def _two_sided_graph(edges_l, edges_r):
    g = nx.DiGraph()
    for a, b in edges_l:
        g.add_node(a, lang="en")
        g.add_node(b, lang="en")
        g.add_edge(a, b)
    for a, b in edges_r:
        g.add_node(a, lang="fr")
        g.add_node(b, lang="fr")
        g.add_edge(a, b)
    return g


def test_pair_without_external_evidence_keeps_internal_similarity():
    # e1's neighbour e_untranslated and c1's neighbour c_lonely are in no candidate pair;
    # e2 has no neighbours at all (a recovered page); both kinds keep ITS.
    g = _two_sided_graph([("e1", "e_untranslated")], [("c1", "c_lonely"), ("c2", "c_other")])
    internal = {("e1", "c1"): 0.7, ("e2", "c2"): 0.6}
    m = ETS(alpha=0.6, n_iter=3).fit(list(internal), internal, g)
    assert m.scores_ == pytest.approx(internal)
    assert m.external_ == {}


def test_the_neighbours_of_one_page_count_against_a_pair_whose_other_page_has_none():
    # e1 links e2, and (e2, c2) could pair; c1 links nothing (an older translation kept
    # without the links of its original): (e1, c1) gets no external support
    g = _two_sided_graph([("e1", "e2")], [])
    g.add_node("c1", lang="fr")
    g.add_node("c2", lang="fr")
    internal = {("e1", "c1"): 0.8, ("e2", "c2"): 0.8}
    m = ETS(alpha=0.6, n_iter=1, weighting="none").fit(list(internal), internal, g)
    assert m.scores_[("e1", "c1")] == pytest.approx(0.4 * 0.8)
    assert m.external_[("e1", "c1")] == 0.0


def test_neighbours_that_could_pair_but_do_not_count_against():
    # e1-e2 and c1-c2 are linked; (e2, c3) and (e3, c2) are candidates, (e2, c2) is not:
    # the neighbours of (e1, c1) could pair but do not pair with each other.
    g = _two_sided_graph([("e1", "e2")], [("c1", "c2")])
    internal = {("e1", "c1"): 0.8, ("e2", "c3"): 0.8, ("e3", "c2"): 0.8}
    m = ETS(alpha=0.6, n_iter=1, weighting="none").fit(list(internal), internal, g)
    assert m.scores_[("e1", "c1")] == pytest.approx(0.4 * 0.8)
    # ...and when they do pair, the pair gains
    internal[("e2", "c2")] = 0.8
    m = ETS(alpha=0.6, n_iter=1, weighting="none").fit(list(internal), internal, g)
    assert m.scores_[("e1", "c1")] == pytest.approx(0.4 * 0.8 + 0.6 * 0.8)
