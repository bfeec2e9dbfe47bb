"""Candidate pairs for a site without URL evidence: bounded per page, true pairs kept."""

from __future__ import annotations

from collections import Counter

import pytest

from bitextcrawl.pairing.candidates import candidate_pairs, length_ratio, page_features
from testkit.records import make_site
from testkit.records import strand_page as _page


def test_large_site_is_bounded_and_finds_true_pairs():
    pages1, pages2, gold = make_site(2000)
    pairs = candidate_pairs(pages1, pages2, top_k=10)  # (its time: bench/bench_time_limits.py)
    assert len(pairs) == len(set(pairs))
    per1, per2 = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    assert max(per1.values()) <= 10 and max(per2.values()) <= 10
    assert len(pairs) <= 10 * 2000
    found = set(pairs)
    recall = sum(g in found for g in gold) / len(gold)
    assert recall >= 0.85, recall


def test_candidates_grow_linearly():
    small = candidate_pairs(*make_site(250, seed=1)[:2], top_k=5)
    large = candidate_pairs(*make_site(1000, seed=1)[:2], top_k=5)
    assert len(large) <= 5 * 1000 and len(large) < 5 * len(small)


def test_known_pairs_first_deduplicated_and_their_pages_excluded():
    pages1, pages2, gold = make_site(200, seed=2)
    known = gold[:20] + gold[:5] + [("https://ex.org/en/p0#top", "https://ex.org/fr/q0")]
    pairs = candidate_pairs(pages1, pages2, known_pairs=known, top_k=5)
    assert pairs[:20] == gold[:20]
    assert len(pairs) == len(set(pairs))
    known_pages = {u for pair in gold[:20] for u in pair}
    assert not any(a in known_pages or b in known_pages for a, b in pairs[20:])
    again = candidate_pairs(pages1, pages2, known_pairs=gold[:20], top_k=5,
                            exclude_known_pages=False)
    assert any(a in known_pages for a, _ in again[20:])


def test_filters_length_ratio_and_chunk_count():
    base = [_page("https://s/en/a", "en", 1000, 20, "x 4242"),
            _page("https://s/en/b", "en", 1000, 20, "x 5353"),
            _page("https://s/en/c", "en", 1000, 20, "x 6464")]
    other = [_page("https://s/fr/a", "fr", 1100, 21, "y 4242"),   # passes
             _page("https://s/fr/b", "fr", 5000, 20, "y 5353"),   # 5× longer: rejected
             _page("https://s/fr/c", "fr", 1000, 80, "y 6464")]   # 4× the chunks: rejected
    pairs = candidate_pairs(base, other, top_k=3)
    assert ("https://s/en/a", "https://s/fr/a") in pairs
    assert ("https://s/en/b", "https://s/fr/b") not in pairs
    assert ("https://s/en/c", "https://s/fr/c") not in pairs
    # The shared number is what ranks a/a first among equally long pages.
    scored = candidate_pairs(base, other, top_k=3, with_scores=True)
    best = max(scored, key=lambda t: t[2])
    assert best[:2] == ("https://s/en/a", "https://s/fr/a")


def test_language_switch_link_is_evidence():
    p1 = [_page(f"https://s/en/{i}", "en", 500, 10) for i in range(30)]
    p2 = [_page(f"https://s/fr/{i}", "fr", 500, 10) for i in range(30)]
    p1[7].links.append({"url": "https://s/fr/23", "text": "Français", "hreflang": None})
    scored = candidate_pairs(p1, p2, top_k=2, with_scores=True)
    top = max(scored, key=lambda t: t[2])
    assert top[:2] == ("https://s/en/7", "https://s/fr/23")


def test_feature_extraction():
    page = _page("https://s/en/x", "en", 10, 1, "Total 1,000.50 in 2019, item 7, ref 007",
                 '<p><IMG alt=a SRC="/i/Chart%20One.PNG?v=2"><img src=data:xyz>',
                 ["https://other.org/report.pdf", "https://s/fr/x"])
    feats = page_features(page, other_urls={"https://s/fr/x"})
    assert ("num", "100050") in feats and ("num", "2019") in feats
    assert ("num", "7") not in feats  # single digits (and 007 → 7) are noise
    french = _page("https://s/fr/x", "fr", 10, 1, "Total 1 000,50")
    assert ("num", "100050") in page_features(french)
    assert ("img", "chart one.png") in feats
    assert ("out", "https://other.org/report.pdf") in feats
    assert ("sw", "https://s/fr/x") in feats and ("sw", "https://s/en/x") in feats


def test_length_ratio_estimate():
    assert length_ratio([100, 200, 300], [30, 60, 90]) == pytest.approx(0.3)
    assert length_ratio([100], [10_000]) == 5.0
    assert length_ratio([], [5]) == 1.0
    known = [(100, 120)] * 5
    assert length_ratio([1], [1], known) == pytest.approx(1.2)


def test_chinese_like_length_ratio_is_handled():
    pages1, pages2, gold = make_site(300, seed=3, ratio=0.3)
    found = set(candidate_pairs(pages1, pages2, top_k=10))
    assert sum(g in found for g in gold) / len(gold) >= 0.85


def test_empty_and_dict_inputs():
    assert candidate_pairs([], [], top_k=5) == []
    assert candidate_pairs([], [], known_pairs=[("a", "b")]) == [("a", "b")]
    p1 = [{"url": "https://s/en/1", "text": "12345", "text_length": 100, "strand": [],
           "chunks": ["x" * 100], "links": [], "html": ""}]
    p2 = [{"url": "https://s/fr/1", "text": "12345", "text_length": 110, "strand": [],
           "chunks": ["y" * 110], "links": [], "html": ""}]
    assert candidate_pairs(p1, p2) == [("https://s/en/1", "https://s/fr/1")]


def test_passes_cheap_filters_for_pairs_proposed_elsewhere():
    from bitextcrawl.pairing.candidates import passes_cheap_filters

    pages1 = [_page("https://ex.org/en/a", "en", 1000, 20), _page("https://ex.org/en/b", "en", 400, 8)]
    pages2 = [_page("https://ex.org/fr/a", "fr", 1100, 21), _page("https://ex.org/fr/b", "fr", 3000, 20),
              _page("https://ex.org/fr/c", "fr", 1050, 60)]
    # same length and template: kept; 3x longer: dropped; 3x the chunks: dropped
    assert passes_cheap_filters(pages1, pages2, [(0, 0), (0, 1), (0, 2)]) == [True, False, False]
    # â comes from the known pairs when given, else from the site's median lengths
    short1 = [_page(f"https://ex.org/en/k{i}", "en", 300 * (i + 1), 8) for i in range(5)]
    long2 = [_page(f"https://ex.org/fr/k{i}", "fr", 3 * 300 * (i + 1), 8) for i in range(5)]
    long2 += [_page(f"https://ex.org/fr/x{i}", "fr", 300, 8) for i in range(20)]
    assert passes_cheap_filters(short1, long2, [(4, 4)]) == [False]
    assert passes_cheap_filters(short1, long2, [(4, 4)], known_pairs=[(i, i) for i in range(5)]) == [True]
