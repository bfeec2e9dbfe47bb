"""The time limits the unit tests used to assert, measured here instead.

    python bench/bench_time_limits.py [--repeat 3]

Each case prints its best time of ``--repeat`` runs beside its limit (the bounds the tests
had, generous against a busy machine) and the script exits 1 if one is over. What each case
computes is still checked by the unit test named beside it; only its time moved here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.pairing.candidates import candidate_pairs  # noqa: E402
from bitextcrawl.pairing.url_pairs import pair_urls  # noqa: E402
from bitextcrawl.pairing.url_patterns import UrlPatternLearner  # noqa: E402
from bitextcrawl.trees.domtree import TreeAligner, build_tree  # noqa: E402
from testkit.records import EN_URL, FR_URL, big_page, make_site  # noqa: E402
from testkit.url_lists import id_marker_urls, lines_of_200_sites, scheme_urls  # noqa: E402


def fit_10k():
    one, two = scheme_urls("prefix", 5000)
    UrlPatternLearner().fit({"en": one[:10], "fr": two[:10]})  # warm the public-suffix list
    return lambda: UrlPatternLearner().fit({"en": one, "fr": two})


def fit_id_marker_10k():
    en, de = id_marker_urls()
    UrlPatternLearner(langs=("en", "de")).fit({"en": en[:10], "de": de[:10]})
    return lambda: UrlPatternLearner(langs=("en", "de")).fit({"en": en, "de": de})


def pair_urls_200_sites():
    lines = lines_of_200_sites()
    return lambda: pair_urls(lines, langs=("en", "fr"))


def candidates_2000():
    pages1, pages2, _ = make_site(2000)
    return lambda: candidate_pairs(pages1, pages2, top_k=10)


def huge_trees():
    t1 = build_tree(big_page(1200, "en"), EN_URL)
    t2 = build_tree(big_page(1200, "fr"), FR_URL)
    return lambda: TreeAligner(max_nodes=1500).align(t1, t2)


def generate(n_pairs):
    spec = SiteSpec(scheme="mixed", n_pairs=n_pairs, hidden_fraction=0.1, seed=1)
    return lambda: generate_site(spec, 8000)


# name, setup (returns the timed call), limit in seconds (None: printed only), unit test
CASES = [
    ("URL pattern fit, 10,000 URLs", fit_10k, 5.0, "test_url_patterns::test_fit_of_10k_urls"),
    ("id_marker fit, 10,000 URLs", fit_id_marker_10k, 5.0,
     "test_url_patterns::test_id_marker_fit_of_10k_urls"),
    ("pair_urls, 5,000 URLs of 200 sites", pair_urls_200_sites, 20.0,
     "test_url_patterns::test_pair_urls_5000_urls_200_sites"),
    ("candidate pairs, 2,000 + 2,000 pages", candidates_2000, 20.0,
     "test_candidates::test_large_site_is_bounded_and_finds_true_pairs"),
    ("DOM tree alignment, 1,200 links (linear fallback)", huge_trees, 10.0,
     "test_domtree::test_huge_trees_fall_back_to_linear_alignment"),
    ("demo site, 2,000 pairs", lambda: generate(2000), None,
     "test_generator::test_generation_of_2k_pairs"),
    ("demo site, 20,000 pairs", lambda: generate(20000), None, "-"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    over = 0
    print(f"{'case':52} {'best s':>8} {'limit s':>8}  unit test")
    for name, setup, limit, test in CASES:
        call = setup()
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - t0)
        flag = ""
        if limit is not None and best > limit:
            flag, over = "  OVER", over + 1
        shown = f"{limit:8.1f}" if limit is not None else f"{'-':>8}"
        print(f"{name:52} {best:8.2f} {shown}  {test}{flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
