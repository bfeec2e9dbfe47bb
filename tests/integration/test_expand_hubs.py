"""Site expansion that spends its places on likely-bilingual sites, on loopback.

The web of :func:`testkit.web.generate_web` (default shape): two bilingual seeds whose
every page links two monolingual hubs ten times (hundreds of links a seed), three bilingual
sites linked a few times with evidence on the links (parallel links or language anchors), one
bilingual site linked only from those three, two monolingual sites, one site on a closed port
and one whose robots.txt forbids everything, both linked from both seeds like the best
bilingual sites. Two rounds of top 3 must add the four bilingual sites and no other, the two
failing sites reported and replaced within round 1.
"""

from __future__ import annotations

import pytest

from bitextcrawl.demo.server import serve_site
from testkit.web import WebSpec, generate_web
from tests.conftest import FAST_CRAWL
from tests.integration.test_expand import read_jsonl, scrapy

pytestmark = pytest.mark.integration
DETECT_PAGES = 8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    web = generate_web(WebSpec(seed=0))
    out = tmp_path_factory.mktemp("expand-hubs")
    seeds = out / "seeds.txt"
    seeds.write_text("".join(f"{u}\n" for u in web.seeds))
    args = ["crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,fr", "-a", "rounds=2",
            "-a", "top_k=3", "-a", "max_pages=60", "-s", f"BITEXT_OUTPUT_DIR={out}",
            "-s", f"BITEXT_PATTERN_DB={out}/patterns-db.json",
            "-s", f"BITEXT_EXPAND_DETECT_PAGES={DETECT_PAGES}", "-s", "RETRY_TIMES=0"]
    for key, value in FAST_CRAWL.items():
        args += ["-s", f"{key}={value}"]
    servers = [serve_site(s, s.port).start() for s in web.sites.values()]
    try:
        proc = scrapy(*args, timeout=400)
    finally:
        for server in servers:
            server.shutdown()
    rows = read_jsonl(out / "expansion.jsonl")
    by_round: dict = {}
    for row in rows:
        by_round.setdefault(row["round"], {})[row["site"]] = row
    return {"web": web, "rows": rows, "by_round": by_round, "log": proc.stderr,
            "sites": {r["site"]: r for r in read_jsonl(out / "sites.jsonl")}}


def test_two_rounds_of_top_3_add_every_bilingual_site_and_no_other(run):
    web = run["web"]
    added = {r["site"] for r in run["rows"] if r["added"] and not r.get("seed")}
    assert added == web.bilingual
    for round_no in (1, 2):
        crawled = [r for r in run["by_round"][round_no].values() if r["crawled"]]
        assert len(crawled) == 3, (round_no, crawled)
    # Round 1 spends all three places on bilingual sites, although the hubs have 100 times
    # more links and the failing sites rank first.
    assert all(r["bilingual"] for r in run["by_round"][1].values() if r["crawled"])
    hubs = {web.roots[n] for n in web.names("hub")}
    ranking = run["by_round"][1]
    first_bilingual = max(ranking[s]["rank"] for s in web.bilingual if s in ranking)
    assert all(ranking[h]["rank"] > first_bilingual for h in hubs)
    assert all(ranking[h]["links_in"] > 10 * ranking[s]["links_in"]
               for h in hubs for s in web.bilingual if s in ranking)


def test_failed_checks_are_reported_and_replaced_in_the_same_round(run):
    web = run["web"]
    ranking = run["by_round"][1]
    down = ranking[web.roots["down0"]]
    nobots = ranking[web.roots["nobots0"]]
    assert {down["rank"], nobots["rank"]} == {1, 2}   # the links made them look best
    assert down["failed"] == "unreachable: connection refused"
    assert nobots["failed"] == "robots.txt forbids it"
    for row in (down, nobots):
        assert not row["crawled"] and row["bilingual"] is None and not row["added"]
        assert row["reason"].startswith("check failed")
    replacing = {r["replaces"] for r in ranking.values() if r["replaces"]}
    assert replacing == {down["site"], nobots["site"]}
    assert "'bitext/expand/failed': 2" in run["log"]
    assert "'bitext/expand/replaced': 2" in run["log"]
    # Failed sites are never ranked again.
    assert down["site"] not in run["by_round"][2] and nobots["site"] not in run["by_round"][2]


def test_rows_keep_the_contract_and_report_the_evidence(run):
    fields = {"round", "site", "sum_linkout", "sum_pagerank", "sum_weighted_pagerank",
              "linked_from", "rank", "crawled", "bilingual", "added"}
    for row in run["rows"]:
        assert fields <= set(row), row
    web = run["web"]
    ranking = run["by_round"][1]
    for name in web.names("bilingual"):
        row = ranking[web.roots[name]]
        assert row["evidence_level"] == 2 and row["link_langs"] == ["en", "fr"]
        assert row["criterion"] == "sum_link_evidence"
    assert run["by_round"][2][web.roots["hop0"]]["parallel_links"] >= 3


def test_both_seeds_credibility_in_line(run):
    creds = [r["credibility"] for r in run["sites"].values() if r["seed"]]
    assert len(creds) == 2 and min(creds) > 0.5
    assert max(creds) / min(creds) < 1.5, creds
