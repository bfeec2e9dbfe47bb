"""Site expansion over two real Scrapyd nodes on loopback (``scrapy expand --scrapyd``),
against the single-process ``scrapy crawl expand`` on the same generated web.

The web of ``test_expand_hubs.py`` (:func:`bitextcrawl.demo.web.generate_web`, 12 sites:
two seeds, four bilingual sites, two hubs, two monolingual sites, one on a closed port, one
robots.txt-forbidden), two rounds of top 3. The orchestrator is killed (SIGKILL) once the
first round-1 job is scheduled and started again with the same command; it must finish the
expansion with every site crawled by one job, the jobs spread over both nodes, and the
same sites crawled, added and failed, round by round, as the single-process spider.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest

from bitextcrawl.demo.server import serve_site
from testkit.scrapyd_nodes import (
    MISSING,
    api,
    build_egg,
    deploy_egg,
    running_scrapyd,
    scrapyd_available,
)
from testkit.web import WebSpec, generate_web
from tests.conftest import FAST_CRAWL, PROJECT_ROOT, read_jsonl
from tests.integration.test_expand import scrapy

pytestmark = [pytest.mark.integration, pytest.mark.slow,
              pytest.mark.skipif(not scrapyd_available(), reason=MISSING)]
ROUNDS, TOP_K, MAX_PAGES, DETECT_PAGES = 2, 3, 60, 8
SETTINGS = {**FAST_CRAWL, "BITEXT_EXPAND_DETECT_PAGES": str(DETECT_PAGES), "RETRY_TIMES": "0"}


def expand_command(nodes: list[str], root, seeds) -> list[str]:
    cmd = [sys.executable, "-m", "scrapy", "expand", "--scrapyd", ",".join(nodes),
           "--shared-root", str(root), "--seeds", str(seeds), "--langs", "en,fr",
           "--rounds", str(ROUNDS), "--top-k", str(TOP_K), "--max-pages", str(MAX_PAGES),
           "--poll", "0.5"]
    for key, value in SETTINGS.items():
        cmd += ["-s", f"{key}={value}"]
    return cmd


def state_of(root) -> dict:
    try:
        with open(root / "scrapyd-expand.json", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def outcome(rows: list[dict]) -> dict:
    """(round, site) -> what became of the site, as both ways of running write it. (Which
    failed site a replacement stands for depends on which check failed first; the set of
    replacements does not.)"""
    out = {(r["round"], r["site"]): (r["crawled"], r["bilingual"], r["added"], r["failed"],
                                     bool(r.get("replaces")))
           for r in rows if r["crawled"] or r["failed"] or r.get("seed")}
    for round_no in {r["round"] for r in rows}:
        out[round_no, "replaced"] = sorted(r["replaces"] for r in rows
                                           if r["round"] == round_no and r.get("replaces"))
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    web = generate_web(WebSpec(seed=0))
    base = tmp_path_factory.mktemp("expand-scrapyd")
    seeds = base / "seeds.txt"
    seeds.write_text("".join(f"{u}\n" for u in web.seeds))
    with ExitStack() as stack:
        homes = [base / "node-a", base / "node-b"]
        nodes = []
        for home in homes:
            home.mkdir()
            nodes.append(stack.enter_context(running_scrapyd(home, max_proc=2)))
        egg = build_egg(tmp_path_factory.mktemp("src"))
        for node in nodes:
            deploy_egg(egg, node)
        for site in web.sites.values():
            stack.callback(serve_site(site, site.port).start().shutdown)

        # The single-process spider, for the sites it adds.
        local = base / "local"
        args = ["crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,fr",
                "-a", f"rounds={ROUNDS}", "-a", f"top_k={TOP_K}", "-a", f"max_pages={MAX_PAGES}",
                "-s", f"BITEXT_OUTPUT_DIR={local}",
                "-s", f"BITEXT_PATTERN_DB={local}/patterns-db.json"]
        for key, value in SETTINGS.items():
            args += ["-s", f"{key}={value}"]
        scrapy(*args, timeout=400)

        # On Scrapyd: killed once round 1 has a job scheduled, then started again.
        root = base / "shared"
        cmd = expand_command(nodes, root, seeds)
        first = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 300
        try:
            while not any(j["round"] == 1 and j["status"] != "planned"
                          for j in state_of(root).get("jobs", ())):
                assert first.poll() is None, first.stderr.read()[-5000:]
                assert time.time() < deadline, "round 1 never scheduled"
                time.sleep(0.2)
        finally:
            first.kill()    # the orchestrator this test started, by its pid
            first.wait()
        killed_state = state_of(root)
        second = subprocess.run(cmd, cwd=PROJECT_ROOT, env=env, capture_output=True,
                                text=True, timeout=400)
        assert second.returncode == 0, second.stderr[-5000:]
        jobs = {node: api(node, "listjobs.json?project=bitextcrawl") for node in nodes}
    logs = {}
    for home in homes:
        for path in (home / "logs" / "bitextcrawl" / "expand").glob("*.log"):
            logs[path.stem] = path.read_text()
    return {"web": web, "root": root, "local": local, "nodes": nodes, "jobs": jobs,
            "killed_state": killed_state, "state": state_of(root), "logs": logs,
            "log": second.stderr, "rows": read_jsonl(root / "expansion.jsonl"),
            "local_rows": read_jsonl(local / "expansion.jsonl")}


def test_the_same_sites_are_crawled_and_added_as_by_the_single_process_spider(run):
    rows, local_rows = run["rows"], run["local_rows"]
    assert outcome(rows) == outcome(local_rows)
    added = {r["site"] for r in rows if r["added"] and not r.get("seed")}
    assert added == run["web"].bilingual
    for round_no in (1, 2):
        assert sum(r["crawled"] for r in rows if r["round"] == round_no) == TOP_K
    # The ranking that chose round 1 is the spider's, rank for rank.
    ranks = {(r["round"], r["site"]): r["rank"] for r in rows if r["round"] == 1}
    assert ranks == {(r["round"], r["site"]): r["rank"] for r in local_rows
                     if r["round"] == 1}
    sites = {r["site"]: r for r in read_jsonl(run["root"] / "sites.jsonl")}
    assert {s for s, r in sites.items() if r["bilingual"]} == \
        {r["site"] for r in rows if r["added"]}


def test_each_site_is_one_job_spread_over_both_nodes_across_the_kill(run):
    state = run["state"]
    assert state["finished"] and state["done_rounds"] == ROUNDS + 1
    jobs = state["jobs"]
    sites = [j["site"] for j in jobs]
    assert len(sites) == len(set(sites))
    # Every job either node ran is one of the state's, and each ran once.
    finished = [j["id"] for reply in run["jobs"].values() for j in reply["finished"]]
    assert sorted(finished) == sorted(j["jobid"] for j in jobs)
    assert not any(reply["running"] or reply["pending"] for reply in run["jobs"].values())
    per_node = {node: len(reply["finished"]) for node, reply in run["jobs"].items()}
    assert all(n >= 1 for n in per_node.values()), per_node
    # Each job's log crawled its own site, and no site has two logs.
    assert set(run["logs"]) == {j["jobid"] for j in jobs}
    crawled = [re.findall(r"Round 0: (\S+) (?:is bilingual|dropped|could not be checked)",
                          log) for log in run["logs"].values()]
    assert sorted(site for found in crawled for site in found) == sorted(sites)
    for log in run["logs"].values():
        assert "Spider closed (finished)" in log
    # The restart resumed: the jobs scheduled before the kill were followed, not redone.
    before = {j["site"]: j["jobid"] for j in run["killed_state"]["jobs"] if j["jobid"]}
    assert before and all(j["jobid"] == before[j["site"]] for j in jobs if j["site"] in before)
    assert all(j["scheduled"] == 1 for j in jobs)
    assert "Resuming the expansion" in run["log"]
    print("jobs per node:", per_node)


def test_failed_checks_are_replaced_by_jobs_of_the_same_round(run):
    web = run["web"]
    by_site = {r["site"]: r for r in run["rows"] if r["round"] == 1}
    down, nobots = by_site[web.roots["down0"]], by_site[web.roots["nobots0"]]
    assert down["failed"] == "unreachable: connection refused"
    assert nobots["failed"] == "robots.txt forbids it"
    replaced = {j["replaces"] for j in run["state"]["jobs"] if j["replaces"]}
    assert replaced == {down["site"], nobots["site"]}
