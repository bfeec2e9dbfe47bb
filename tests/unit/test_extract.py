"""Greedy 1-1 extraction (Algorithm 3 of [Liu 2014])."""

import math
import random

import pytest

from bitextcrawl.pairing.extract import one_to_one


def test_highest_first_each_url_once():
    scored = [("a1", "b1", 0.9), ("a1", "b2", 0.8), ("a2", "b1", 0.85), ("a2", "b2", 0.7)]
    assert one_to_one(scored, 0.0) == [("a1", "b1", 0.9), ("a2", "b2", 0.7)]


def test_threshold_is_inclusive_and_stops():
    scored = [("a1", "b1", 0.5), ("a2", "b2", 0.49)]
    assert one_to_one(scored, 0.5) == [("a1", "b1", 0.5)]
    assert one_to_one(scored, 0.6) == []


def test_max_pairs_is_n_top():
    scored = [(f"a{i}", f"b{i}", 1.0 - i / 10) for i in range(5)]
    assert [p[0] for p in one_to_one(scored, 0.0, max_pairs=2)] == ["a0", "a1"]


def test_deterministic_tie_break_and_input_order():
    scored = [("a2", "b1", 0.7), ("a1", "b1", 0.7), ("a1", "b2", 0.7)]
    out = one_to_one(scored, 0.0)
    assert out == [("a1", "b1", 0.7)]          # (a1, b1) < (a1, b2) < (a2, b1)
    assert out == one_to_one(list(reversed(scored)), 0.0)


def test_nan_duplicates_and_empty():
    assert one_to_one([], 0.5) == []
    scored = [("a", "b", float("nan")), ("a", "b", 0.2), ("a", "b", 0.6), ("c", "d", math.nan)]
    assert one_to_one(scored, 0.0) == [("a", "b", 0.6)]


def test_generator_input():
    out = one_to_one(((f"a{i}", f"b{i % 3}", i / 10) for i in range(10)), 0.0)
    assert len(out) == 3
    assert [s for *_, s in out] == sorted([s for *_, s in out], reverse=True)


def _check_greedy(scored, threshold):
    out = one_to_one(scored, threshold)
    used = [u for a, b, _ in out for u in (a, b)]
    assert len(used) == len(set(used))                       # 1-1
    assert all(s >= threshold for *_, s in out)
    assert [s for *_, s in out] == sorted((s for *_, s in out), reverse=True)
    kept = {(a, b): s for a, b, s in out}
    by_url = {}
    for a, b, s in out:
        by_url[a] = by_url[b] = s
    for a, b, s in scored:                                    # maximal and greedy
        if s >= threshold and (a, b) not in kept:
            blockers = [by_url[u] for u in (a, b) if u in by_url]
            assert blockers and max(blockers) >= s
    shuffled = list(scored)
    random.Random(0).shuffle(shuffled)
    assert one_to_one(shuffled, threshold) == out              # order-independent


def test_random_property_without_hypothesis():
    rng = random.Random(1)
    for _ in range(200):
        scored = {(f"a{rng.randrange(6)}", f"b{rng.randrange(6)}"): rng.choice([0.1, 0.3, 0.5, 0.7, 0.9])
                  for _ in range(rng.randrange(0, 25))}
        _check_greedy([(a, b, s) for (a, b), s in scored.items()], rng.choice([0.0, 0.4]))


def test_hypothesis_property():
    hyp = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    @hyp.settings(max_examples=150, deadline=None)
    @hyp.given(st.dictionaries(st.tuples(st.integers(0, 6), st.integers(0, 6)),
                               st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), max_size=30),
               st.sampled_from([0.0, 0.3, 0.6]))
    def check(d, threshold):
        _check_greedy([(f"a{i}", f"b{j}", s) for (i, j), s in d.items()], threshold)

    check()


def test_proven_pairs_leave_only_to_a_stronger_rival():
    from bitextcrawl.pairing.extract import one_to_one_with_evidence

    scored = [("e1", "f1", 0.3), ("e1", "f2", 0.95), ("e2", "f2", 0.4), ("e3", "f3", 0.9),
              ("e4", "f4", 0.2), ("e4", "f5", 0.1)]
    proven = {("e1", "f1"): 0.8, ("e2", "f2"): 0.6, ("e4", "f4"): 0.6, ("e4", "f5"): 0.9}
    out = one_to_one_with_evidence(scored, proven, threshold=0.5)
    kept = {(a, b) for a, b, _ in out}
    # (e1, f1) scores low but is proven: the better-scoring unproven rival does not undo it
    assert ("e1", "f1") in kept and ("e1", "f2") not in kept
    assert ("e2", "f2") in kept
    # between two proven rivals the stronger evidence wins
    assert ("e4", "f5") in kept and ("e4", "f4") not in kept
    assert ("e3", "f3") in kept
    urls = [u for a, b, _ in out for u in (a, b)]
    assert len(urls) == len(set(urls))
    # output is best score first
    assert [s for *_, s in out] == sorted((s for *_, s in out), reverse=True)


def test_assignment_does_not_cascade():
    """Greedy takes a1-b2 (0.9) first and pushes both right pairs out; the assignment
    keeps the pairs of the highest total, a1-b1 and a2-b2."""
    from bitextcrawl.pairing.extract import assignment

    scored = [("a1", "b1", 0.85), ("a1", "b2", 0.9), ("a2", "b2", 0.88), ("a2", "b3", 0.5)]
    assert [(a, b) for a, b, _ in one_to_one(scored, 0.5)] == [("a1", "b2"), ("a2", "b3")]
    assert [(a, b) for a, b, _ in assignment(scored, 0.5)] == [("a2", "b2"), ("a1", "b1")]


def test_assignment_leaves_ties_unpaired_and_keeps_the_threshold():
    """Two look-alike pages nothing tells apart: no pair, rather than a coin toss. A rival
    that the assignment gave a better pair does not count against."""
    from bitextcrawl.pairing.extract import assignment

    tie = [("a1", "b1", 0.8), ("a1", "b2", 0.8), ("a2", "b1", 0.8), ("a2", "b2", 0.8)]
    assert assignment(tie, 0.5, margin=1e-3) == []
    taken = [("a1", "b1", 0.9), ("a2", "b1", 0.95), ("a2", "b2", 0.96)]
    assert assignment(taken, 0.5, margin=1e-3) == [("a2", "b2", 0.96), ("a1", "b1", 0.9)]
    assert assignment([("a1", "b1", 0.4)], 0.5) == []
    assert assignment([("a1", "b1", float("nan"))], 0.0) == []


def test_assignment_of_many_groups_matches_brute_force():
    from itertools import permutations

    from bitextcrawl.pairing.extract import assignment

    rng = random.Random(7)
    for _ in range(30):
        scored = [(f"a{i}", f"b{j}", round(rng.random(), 3)) for i in range(4) for j in range(4)
                  if rng.random() < 0.7]
        got = sum(s for _, _, s in assignment(scored, 0.0, margin=None))
        best = dict(((a, b), s) for a, b, s in scored)
        brute = max(sum(best.get((f"a{i}", f"b{j}"), 0.0) for i, j in enumerate(p))
                    for p in permutations(range(4)))
        assert got == pytest.approx(brute)
