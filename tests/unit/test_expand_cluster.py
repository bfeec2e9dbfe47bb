"""Expansion over Scrapyd nodes (``sites/cluster.py``) with fake nodes: a job "runs" when the
node is next asked about it, writing the verdict and the page store a real job writes."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.urls import site_name
from bitextcrawl.sites.cluster import (
    NO_RESULT,
    ClusterConfig,
    ClusterExpansion,
    least_busy,
    seed_sites,
)
from bitextcrawl.sites.expansion import SiteResult, load_runs, read_seeds
from bitextcrawl.sites.scrapyd import ScrapydError, ScrapydNode
from bitextcrawl.store.sqlite import SQLitePageStore

A, B = "http://a.org", "http://b.org"              # seeds
C, D, E, F = "http://c.org", "http://d.org", "http://e.org", "http://f.org"
M, X = "http://m.org", "http://x.org"              # monolingual, unreachable

# site -> (bilingual, failure, the sites its pages link to, with how many links)
WEB = {
    A: (True, "", {B: 1, C: 3, D: 2, M: 1, X: 4}),
    B: (True, "", {A: 1, C: 2, D: 1, M: 1, X: 4}),
    C: (True, "", {E: 2}),
    D: (False, "", {F: 5}),
    E: (True, "", {}),
    M: (False, "", {}),
    X: (False, "unreachable: connection refused", {}),
}


class Stop(Exception):
    """The orchestrator killed."""


class FakeNode:
    def __init__(self, url: str):
        self.url = url
        self.states: dict[str, str] = {}
        self.calls: list[tuple[str, dict, dict]] = []
        self.forget: set[str] = set()       # jobs a "restarted" node no longer knows
        self.silent: set[str] = set()       # jobs that end without a verdict

    def load(self) -> int:
        return sum(state != "finished" for state in self.states.values())

    def schedule(self, spider, args, settings, jobid):
        assert spider == "expand" and args["rounds"] == "0"
        self.calls.append((jobid, args, settings))
        self.states[jobid] = "pending"
        return jobid

    def jobs(self) -> dict[str, str]:
        """A job is pending when scheduled, running at the next call, finished after."""
        for jobid, args, settings in self.calls:
            if self.states.get(jobid) == "running":
                if jobid not in self.silent:
                    run_job(args, settings)
                self.states[jobid] = "finished"
            elif self.states.get(jobid) == "pending":
                self.states[jobid] = "running"
        for jobid in self.forget:
            self.states.pop(jobid, None)
        return dict(self.states)


def run_job(args: dict, settings: dict) -> None:
    """What the ``expand`` spider writes for one site: its page store and sites.jsonl."""
    (site,) = seed_sites(read_seeds(args["seeds"]))
    bilingual, failed, links = WEB[site]
    out = settings["BITEXT_OUTPUT_DIR"]
    site_dir = f"{out}/sites/{site_name(site)}"
    if not failed:
        store = SQLitePageStore(site_dir)
        for i, (target, n) in enumerate(sorted(links.items())):
            store.add(PageRecord(url=f"{site}/p{i}", site=site,
                                 links=[{"url": f"{target}/x{j}", "text": "", "hreflang": None}
                                        for j in range(n)]))
        store.add(PageRecord(url=f"{site}/", site=site))
        write_jsonl(f"{site_dir}/pages.jsonl", (p.to_dict() for p in store))
        store.close()
    result = SiteResult(site, 0, bilingual and not failed, seed=True,
                        credibility=0.9 if bilingual else 0.0, reason=failed or "fake",
                        output_dir=site_dir, failed=failed)
    write_jsonl(f"{out}/sites.jsonl", [result.to_dict()])


def config(**kw) -> ClusterConfig:
    return ClusterConfig(**{"seeds": [A + "/en/", B + "/"], "langs": ["en", "fr"], "rounds": 2,
                            "top_k": 2, "criterion": "linkout", "max_pages": 10, **kw})


def rows(root) -> list[dict]:
    with open(root / "expansion.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def sites_of(nodes) -> list[str]:
    return [seed_sites(read_seeds(args["seeds"])).popitem()[0]
            for node in nodes for _, args, _ in node.calls]


def test_least_busy_node_then_fewest_jobs_given_then_first():
    order = ["n1", "n2", "n3"]
    assert least_busy({"n1": 2, "n2": 0, "n3": 1}, Counter(), order) == "n2"
    assert least_busy({"n1": 0, "n2": 0, "n3": 0}, Counter({"n1": 2, "n2": 1}), order) == "n3"
    assert least_busy({"n1": 1, "n3": 1}, Counter(), order) == "n1"


def test_rounds_on_two_nodes(tmp_path):
    nodes = [FakeNode("http://n1"), FakeNode("http://n2")]
    run = ClusterExpansion(tmp_path, config(), nodes, poll=0, sleep=lambda s: None)
    run.run()
    crawled = sites_of(nodes)
    assert sorted(crawled) == sorted(set(crawled))          # no site twice
    assert all(node.calls for node in nodes)                # both nodes got jobs
    by_round = {}
    for row in rows(tmp_path):
        by_round.setdefault(row["round"], {})[row["site"]] = row
    # Round 1 (top 2 by links): X fails and D, third, takes its place (checked, dropped).
    assert by_round[1][X]["failed"] == "unreachable: connection refused"
    assert by_round[1][X]["rank"] == 1 and not by_round[1][X]["crawled"]
    assert by_round[1][C]["added"] and not by_round[1][C]["replaces"]
    assert by_round[1][D]["replaces"] == X and by_round[1][D]["crawled"]
    assert not by_round[1][D]["added"]
    # Round 2: E, linked from C only; F, linked from the dropped D, is never ranked. Then
    # the last ranking (round 3), not crawled.
    assert by_round[2][E]["added"] and by_round[2][M]["crawled"]
    assert F not in by_round[2]
    assert set(run.expansion.members) == {A, B, C, E}
    assert max(by_round) == 2 and run.expansion.rankings[3] == []   # nothing left outside
    # Each job had its own dir, seed list and pattern database.
    settings = [s for node in nodes for _, _, s in node.calls]
    assert len({s["BITEXT_OUTPUT_DIR"] for s in settings}) == len(settings)
    assert all(s["BITEXT_EXPAND_CHECK_SEEDS_ENABLED"] == "True" for s in settings)
    sites = {json.loads(line)["site"] for line in (tmp_path / "sites.jsonl").open()}
    assert sites == set(crawled)


def test_scrapy_expand_ranks_a_finished_expansion_on_nodes_as_its_last_round(tmp_path):
    run = ClusterExpansion(tmp_path, config(rounds=0), [FakeNode("http://n1")], poll=0,
                           sleep=lambda s: None)
    run.run()
    again = load_runs([str(tmp_path)], criterion="linkout", top_k=2, langs=["en", "fr"])
    assert again.rank(1) == run.expansion.rankings[1]
    assert [r["site"] for r in again.rank(1)] == [X, C, D, M]


def test_killed_at_each_wait_and_started_again_crawls_no_site_twice(tmp_path):
    whole = tmp_path / "whole"
    waits = Counter()
    ClusterExpansion(whole, config(), [FakeNode("http://n1"), FakeNode("http://n2")],
                     poll=0, sleep=lambda s: waits.update(["n"])).run()
    expected = (whole / "expansion.jsonl").read_text().replace(str(whole), "")
    assert waits["n"] >= 4
    for stop_at in range(1, waits["n"] + 1):
        nodes = [FakeNode("http://n1"), FakeNode("http://n2")]
        root = tmp_path / f"killed-{stop_at}"
        polls = Counter()

        def dies(_):
            polls["n"] += 1
            if polls["n"] == stop_at:
                raise Stop

        with pytest.raises(Stop):
            ClusterExpansion(root, config(), nodes, poll=0, sleep=dies).run()
        ClusterExpansion(root, config(), nodes, poll=0, sleep=lambda s: None).run()
        crawled = sites_of(nodes)
        assert sorted(crawled) == sorted(set(crawled)), stop_at
        assert (root / "expansion.jsonl").read_text().replace(str(root), "") == expected


def test_a_finished_expansion_started_again_schedules_nothing(tmp_path):
    nodes = [FakeNode("http://n1")]
    ClusterExpansion(tmp_path, config(), nodes, poll=0, sleep=lambda s: None).run()
    before = len(nodes[0].calls)
    expected = (tmp_path / "expansion.jsonl").read_text()
    ClusterExpansion(tmp_path, config(), nodes, poll=0, sleep=lambda s: None).run()
    assert len(nodes[0].calls) == before
    assert (tmp_path / "expansion.jsonl").read_text() == expected


def test_other_arguments_than_the_state_are_refused(tmp_path):
    ClusterExpansion(tmp_path, config(rounds=0), [FakeNode("http://n1")], poll=0,
                     sleep=lambda s: None).run()
    other = ClusterExpansion(tmp_path, config(rounds=0, top_k=5), [FakeNode("http://n1")])
    with pytest.raises(ValueError, match="other arguments.*top_k=2"):
        other.load_state()


def test_a_job_its_node_forgot_is_scheduled_again_with_the_same_id(tmp_path):
    node = FakeNode("http://n1")
    original = node.schedule

    def schedule_and_lose_first(spider, args, settings, jobid):
        if not node.calls:   # the first call never reaches the node
            node.calls.append((jobid, args, {**settings, "lost": True}))
            return jobid
        return original(spider, args, settings, jobid)

    node.schedule = schedule_and_lose_first
    run = ClusterExpansion(tmp_path, config(rounds=0), [node], poll=0, sleep=lambda s: None)
    run.run()
    lost = node.calls[0][0]
    assert [j for j, _, _ in node.calls].count(lost) == 2
    assert {job.site for job in run.jobs} == {A, B}
    assert all(job.result and not job.result["failed"] for job in run.jobs)


def test_a_job_that_ends_without_a_verdict_is_a_failed_site(tmp_path):
    node = FakeNode("http://n1")
    original = node.schedule

    def silent_d(spider, args, settings, jobid):
        if D in read_seeds(args["seeds"])[0]:
            node.silent.add(jobid)
        return original(spider, args, settings, jobid)

    node.schedule = silent_d
    run = ClusterExpansion(tmp_path, config(rounds=1), [node], poll=0, sleep=lambda s: None)
    run.run()
    d = next(r for r in rows(tmp_path) if r["site"] == D and r["round"] == 1)
    assert d["failed"] == NO_RESULT and not d["crawled"]
    assert any(r["replaces"] == D for r in rows(tmp_path) if r["round"] == 1)


def test_no_node_answering_is_one_error(tmp_path):
    dead = ScrapydNode("http://127.0.0.1:9", project="bitextcrawl", timeout=2)
    run = ClusterExpansion(tmp_path, config(rounds=0), [dead], poll=0, sleep=lambda s: None)
    with pytest.raises(ScrapydError, match="no Scrapyd node answers: http://127.0.0.1:9"):
        run.run()


def test_scrapyd_node_url_is_checked():
    with pytest.raises(ValueError, match="not a Scrapyd URL"):
        ScrapydNode("127.0.0.1:6800")
