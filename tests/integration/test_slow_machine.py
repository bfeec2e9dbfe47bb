"""A crawl on a slow or busy machine ends, with the pairs of a quiet one.

On a busy machine every idle round of the parallel links runs past its time budget
(``BITEXT_PARALLEL_LINKS_ROUND_SECONDS``). Here the budget is zero, the slowest machine
there is: every round is cut after its first batch. The rounds still converge (each one
decides a batch for good, the next resumes after it, the tree aligner is trained once per
set of known pairs), the frontier's rule ends the idle phase, and the closing step writes
the same pairs as a crawl on default settings, from the same pages.

Two generated sites, each served on loopback and crawled by ``scrapy crawl`` in a
subprocess (bounded by its timeout): one the paper's mining scheme (``DEPTH_LIMIT=1``,
opaque URLs: only parallel links lead past the home pages, many idle rounds), one an
ordinary site with URL patterns, a third language and untranslated pages (held links and
deep recovery take idle passes too). One worker process aligns a round, so a batch is
small and a zero budget cuts many rounds.
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.store.sqlite import SQLitePageStore
from tests.conftest import read_pages, read_pairs, run_crawl

pytestmark = pytest.mark.integration

SITES = {
    "parallel_links": (SiteSpec(scheme="opaque", language_switch=False, n_pairs=30,
                                third_lang="de", n_third=4, untranslated_fraction=0.1,
                                seed=5), {"DEPTH_LIMIT": "1"}),
    "patterns": (SiteSpec(scheme="prefix", n_pairs=25, third_lang="de", n_third=4,
                          untranslated_fraction=0.1, seed=8), {}),
}
# a crawl that does not end fails the test here (run_crawl's timeout)
CRAWL_TIMEOUT = 240


def crawl(site, port, out, **settings) -> dict:
    with serve_site(site, port):
        proc = run_crawl(site.start_url, out, timeout=CRAWL_TIMEOUT,
                         settings={"BITEXT_WORKERS": "1", **settings})
    store = SQLitePageStore(str(out))
    state = (store.get_meta("crawl_state") or {}).get("parallel_links") or {}
    store.close()
    return {"pairs": read_pairs(out), "pages": {p["url"] for p in read_pages(out)},
            "stats": json.loads((out / "stats.json").read_text())["crawl"],
            "log": proc.stderr, "state": state}


@pytest.fixture(scope="module", params=sorted(SITES))
def runs(request, tmp_path_factory):
    spec, settings = SITES[request.param]
    port = free_port()
    site = generate_site(spec, port)   # the same URLs in both crawls
    quiet = crawl(site, port, tmp_path_factory.mktemp(f"quiet_{request.param}"), **settings)
    slow = crawl(site, port, tmp_path_factory.mktemp(f"slow_{request.param}"),
                 BITEXT_PARALLEL_LINKS_ROUND_SECONDS="0", **settings)
    return request.param, quiet, slow


def test_a_crawl_with_no_time_for_its_rounds_ends_with_the_same_pairs(runs):
    name, quiet, slow = runs
    assert slow["pairs"] and slow["pairs"] == quiet["pairs"]
    assert slow["pages"] == quiet["pages"]
    # the closing step ran (its pairs were read above), and nothing failed on the way
    assert "Traceback" not in slow["log"]


def test_rounds_cut_by_their_budget_resume_and_decide_once(runs):
    name, quiet, slow = runs
    stat = "bitext/parallel_links/"
    q, s = quiet["stats"], slow["stats"]
    if name == "parallel_links":
        # rounds were cut after their first batch, and the cut rounds resumed: more
        # rounds (which pairs are aligned on the way may differ: pages that came in
        # between leave fewer links to follow)
        assert s[stat + "rounds_cut"] > 0
        assert s[stat + "rounds"] > q[stat + "rounds"]
    for run in (quiet, slow):
        # a proposal is decided once: as many verifications as proposals decided
        st, state = run["stats"], run["state"]
        assert st.get(stat + "verified", 0) + st.get(stat + "rejected", 0) == \
            len(state.get("verified", []))
        # and a pair aligned once: no more alignments than pairs aligned
        assert st.get(stat + "aligned", 0) <= len(state.get("aligned", []))
    # the tree aligner is not trained in every round: as the known pairs double, up to
    # CRAWL_TRAINING_PAIRS (10) trained it (1, 2, 4, 8, 10: five times at most)
    assert s.get(stat + "trainings", 0) <= 5
    if name == "parallel_links":
        assert s[stat + "trainings"] < s[stat + "rounds"]
    # each cut round takes a pass of its own, no more
    assert s["bitext/idle/passes"] <= q["bitext/idle/passes"] + s.get(stat + "rounds_cut", 0)
