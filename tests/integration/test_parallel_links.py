"""Parallel hyperlinks fed back to the crawl [Shi 2006 §3 steps 3 and 5], real crawls.

The scenario is the paper's own mining scheme. Its step 1 downloads the root page and the
pages it links to — a crawl with ``DEPTH_LIMIT=1`` — and from then on only parallel
hyperlinks lead to more pages. The site has opaque URLs (``/node/5318807.html``: no URL
pattern pairs anything, no deep page recovery) and no language switch on its pages, so
the one pair known after step 1 is the two home pages (their mutual language links).
Every French page but the home page is two links or more away from the start: without
parallel links the crawl stops there. With them, the home pair's aligned menus and
"latest articles" lists lead to the section indexes and articles, whose aligned article
lists, breadcrumbs and related-article lists lead to the rest — and blind link following
stays bounded by ``DEPTH_LIMIT``.

A second crawl checks the other side: on a normal full crawl the pipeline finds nothing
left to request and changes nothing.
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.store.sqlite import SQLitePageStore
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

PIPELINE = "bitextcrawl.pipelines.parallel_links.ParallelLinkPipeline"
STAT_WORKERS = "bitext/parallel_links/workers"


def pipelines_setting() -> str:
    """ITEM_PIPELINES of the project with the parallel-link pipeline in it."""
    import bitextcrawl.settings.base as base

    pipes = dict(base.ITEM_PIPELINES)
    pipes.setdefault(PIPELINE, 300)
    return json.dumps(pipes)


def crawl(site, port, out, **settings):
    with serve_site(site, port) as server:
        proc = run_crawl(site.start_url, out,
                         settings={"ITEM_PIPELINES": pipelines_setting(), **settings})
        hits = dict(server.hits)
    pages = [json.loads(line) for line in (out / "pages.jsonl").open(encoding="utf-8")]
    pairs = [json.loads(line) for line in (out / "pairs.jsonl").open(encoding="utf-8")]
    stats = json.loads((out / "stats.json").read_text())["crawl"]
    store = SQLitePageStore(str(out))
    state = (store.get_meta("crawl_state") or {}).get("parallel_links")   # aligned, verified, ...
    store.close()
    return {"pages": pages, "pairs": pairs, "stats": stats, "hits": hits, "log": proc.stderr,
            "state": state}


def summary(site, run) -> dict:
    gold = set(site.gold_pairs)
    found = {(p["url_1"], p["url_2"]) for p in run["pairs"]}
    stored = {p["url"] for p in run["pages"]}
    gold_fr = {b for _, b in gold}
    return {"pages": len(stored), "fr_gold_pages": len(gold_fr & stored),
            "pairs": len(found), "correct_pairs": len(found & gold), "gold_pairs": len(gold),
            "parallel_link_pages": sum(p["discovered_by"] == "parallel_link"
                                       for p in run["pages"])}


@pytest.fixture(scope="module")
def shallow(tmp_path_factory):
    spec = SiteSpec(scheme="opaque", language_switch=False, n_pairs=30, third_lang="de",
                    n_third=4, untranslated_fraction=0.1, seed=5)
    port = free_port()
    site = generate_site(spec, port)
    runs = {}
    for key, enabled, workers in ((False, False, 2), (True, True, 2), ("one", True, 1)):
        out = tmp_path_factory.mktemp(f"parallel_links_{key}")
        runs[key] = crawl(site, port, out, DEPTH_LIMIT="1", BITEXT_WORKERS=str(workers),
                          BITEXT_PARALLEL_LINKS_ENABLED=str(enabled))
    return site, runs


def test_parallel_links_find_pages_and_pairs(shallow):
    site, runs = shallow
    off, on = summary(site, runs[False]), summary(site, runs[True])
    print("DEPTH_LIMIT=1, without parallel links:", off)
    print("DEPTH_LIMIT=1, with parallel links:   ", on)
    n_gold = len(site.gold_pairs)
    # Without: the home pair and whatever structure pairs among depth-1 pages.
    assert off["fr_gold_pages"] <= 2
    assert off["correct_pairs"] <= 2
    assert off["parallel_link_pages"] == 0
    # With: (nearly) the whole translated site, pairs decided at close as ever.
    assert on["fr_gold_pages"] >= 0.9 * n_gold
    assert on["correct_pairs"] >= 0.9 * n_gold
    assert on["correct_pairs"] >= 0.95 * on["pairs"]


def test_parallel_link_requests_are_parallel_pages(shallow):
    site, runs = shallow
    run = runs[True]
    stats = run["stats"]
    gold_pages = {u for pair in site.gold_pairs for u in pair}
    fetched = [p for p in run["pages"] if p["discovered_by"] == "parallel_link"]
    assert fetched
    in_gold = sum(p["url"] in gold_pages for p in fetched)
    assert in_gold >= 0.95 * len(fetched), [p["url"] for p in fetched
                                             if p["url"] not in gold_pages][:5]
    # Every page requested here arrived in the language its aligned link promised.
    assert stats["bitext/parallel_links/scheduled"] == len(fetched)
    assert stats.get("bitext/parallel_links/found", 0) == len(fetched)
    assert stats.get("bitext/parallel_links/wrong_language", 0) == 0
    # Proposals whose pages link on were verified (step 2) and aligned in turn.
    assert stats["bitext/parallel_links/verified"] > 0
    assert stats["bitext/parallel_links/aligned"] >= 5
    # Blind link following stays within DEPTH_LIMIT: pages deeper than 1 all came from
    # parallel links (an untranslated article gets in only where a listing's alignment
    # put it opposite a translated one: the 5% above).
    deep = [p for p in run["pages"] if p["depth"] > 1]
    assert deep and all(p["discovered_by"] == "parallel_link" for p in deep)
    # Each page was downloaded once.
    page_hits = [v for (host, path), v in run["hits"].items() if path.endswith(".html")]
    assert max(page_hits) == 1


def test_disabled_pipeline_is_not_configured(shallow):
    _, runs = shallow
    assert not [k for k in runs[False]["stats"] if k.startswith("bitext/parallel_links/")]


def test_full_crawl_unchanged(tmp_path):
    """On an ordinary crawl every link is followed anyway: nothing is requested twice,
    nothing is added, the same pairs come out."""
    spec = SiteSpec(scheme="prefix", n_pairs=25, third_lang="de", n_third=4,
                    untranslated_fraction=0.1, seed=8)
    port = free_port()
    site = generate_site(spec, port)
    on = crawl(site, port, tmp_path / "on", BITEXT_PARALLEL_LINKS_ENABLED="True")
    off = crawl(site, port, tmp_path / "off", BITEXT_PARALLEL_LINKS_ENABLED="False")
    assert on["stats"].get("bitext/parallel_links/scheduled", 0) == 0
    assert {p["url"] for p in on["pages"]} == {p["url"] for p in off["pages"]}
    assert {(p["url_1"], p["url_2"]) for p in on["pairs"]} == \
        {(p["url_1"], p["url_2"]) for p in off["pairs"]}


def test_rounds_decide_the_same_in_a_pool_and_in_the_crawls_process(shallow):
    site, runs = shallow
    pool, one = runs[True], runs["one"]

    def decisions(run):
        return ({k: v for k, v in run["stats"].items()
                 if k.startswith("bitext/parallel_links/") and k != STAT_WORKERS},
                sorted(p["url"] for p in run["pages"]), run["state"])

    assert pool["stats"][STAT_WORKERS] == 2 and STAT_WORKERS not in one["stats"]
    assert pool["state"]["verified"] and pool["state"]["proposed"]
    assert decisions(pool) == decisions(one)
