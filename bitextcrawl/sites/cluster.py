"""Site expansion over Scrapyd nodes: the rounds of :mod:`bitextcrawl.sites.expansion`, each
site of a round crawled as a Scrapyd job [Zhang 2013 §2.3].

A site's job is the ``expand`` spider given that one site as its seed list and no round
after it (``rounds=0``): it goes through the same check, crawl and close as a site of a
single-process ``scrapy crawl expand``, into a job dir under the shared root,
``<root>/jobs/<site>/`` (its pages in ``sites/<site>/``, its verdict in ``sites.jsonl``).
A site of round 1 and later is checked whatever ``BITEXT_EXPAND_CHECK_SEEDS_ENABLED`` says
for the seeds. The orchestrator (:class:`ClusterExpansion`) schedules each job on the least
busy node (``daemonstatus.json``: pending + running jobs), follows them (``listjobs.json``),
opens the next site of the round's ranking in place of a site whose check failed, and, the
round over, records every site as the spider's ``finish_round`` does — in site order, with
outlinks and link evidence from the site's page store and ``pairs.jsonl`` — so that
:class:`~bitextcrawl.sites.expansion.Expansion` ranks the next round with the same criteria
and writes the same ``expansion.jsonl`` and ``sites.jsonl``.

The pattern database: each job gets a copy of the shared one (``<root>/patterns-db.json``)
as it was when its round started; when the round ends, the entries the jobs recorded are
copied into the shared one. A site sees the patterns of the sites of earlier rounds, not
those of the sites of its own round (they run at the same time); the single-process spider
aligns a round's sites one after the other, each seeing those before it.

Resumable: the state file ``<root>/scrapyd-expand.json`` lists every job — its site,
round, node and job id — and is written before each ``schedule.json`` call (the job id is
chosen here, and Scrapyd takes it), so an orchestrator killed at any point and started again
with the same arguments replays the finished rounds from the jobs' outputs, follows the
jobs of the current round where it left them, and schedules no site a second time. A job
its node no longer knows (a restarted Scrapyd, or a schedule call that never arrived) and
that left no verdict is scheduled again with the same id.

No Scrapy import: the nodes are :class:`~bitextcrawl.sites.scrapyd.ScrapydNode` objects (or
anything with ``url``, ``load()``, ``schedule()`` and ``jobs()``).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.jsonl import iter_jsonl, write_jsonl
from bitextcrawl.pages.urls import site_name, site_of
from bitextcrawl.pairing.pattern_db import PatternDB
from bitextcrawl.sites.expansion import (
    Expansion,
    SiteResult,
    count_landing,
    outlink_counts,
    site_link_evidence,
    site_root,
    site_start_urls,
)
from bitextcrawl.sites.scrapyd import ScrapydError
from bitextcrawl.store.sqlite import SQLitePageStore

logger = logging.getLogger(__name__)

STATE_FILE = "scrapyd-expand.json"
PLANNED, SCHEDULED, DONE = "planned", "scheduled", "done"
#: polls in a row a node must not know a job before it is scheduled again
LOST_AFTER_POLLS = 3
NO_RESULT = "job ended without a result (see its log on the node)"


@dataclass
class ClusterConfig:
    """What an expansion is run with; a restart must give the same."""

    seeds: list[str]
    langs: list[str]
    rounds: int = 1
    top_k: int = 10
    criterion: str = "link_evidence"
    max_pages: int = 500
    check_seeds: bool = True
    replace_failed: bool = True
    spider: str = "expand"
    settings: dict = field(default_factory=dict)   # passed to every job (setting=NAME=VALUE)

    #: the fields a restart must repeat (the others may change between runs)
    IDENTITY = ("seeds", "langs", "rounds", "top_k", "criterion", "max_pages", "check_seeds")

    def identity(self) -> dict:
        return {name: getattr(self, name) for name in self.IDENTITY}


@dataclass
class Job:
    """One site of one round, crawled as one Scrapyd job."""

    site: str
    round: int
    start_urls: list[str]
    seed: bool = False
    replaces: str = ""
    jobid: str = ""
    node: str = ""
    status: str = PLANNED
    scheduled: int = 0            # schedule.json calls made for it
    result: dict | None = None    # the job's SiteResult, once done

    @property
    def name(self) -> str:
        return site_name(self.site)


def least_busy(loads: dict[str, int], assigned: Counter, order: list[str]) -> str:
    """The node with the fewest pending + running jobs; on a tie, the one this expansion gave
    the fewest jobs, then the first listed."""
    return min(loads, key=lambda url: (loads[url], assigned[url], order.index(url)))


def seed_sites(seeds: list[str]) -> dict[str, list[str]]:
    """Seed URLs grouped by site, as the ``expand`` spider's ``start()`` groups them."""
    by_site: dict[str, list[str]] = {}
    for url in seeds:
        by_site.setdefault(site_of(url), []).append(url)
    return by_site


class ClusterExpansion:
    """Runs the expansion rounds on Scrapyd nodes; see the module docstring."""

    def __init__(self, root: str, config: ClusterConfig, nodes: list, poll: float = 1.0,
                 sleep=time.sleep, pattern_db: str | None = None):
        if not nodes:
            raise ValueError("no Scrapyd node given")
        self.root = os.path.abspath(root)
        self.config = config
        self.nodes = {node.url: node for node in nodes}
        self.order = [node.url for node in nodes]
        self.poll = poll
        self.sleep = sleep
        self.pattern_db_path = pattern_db or os.path.join(self.root, "patterns-db.json")
        self.state_path = os.path.join(self.root, STATE_FILE)
        self.jobs: list[Job] = []
        self.done_rounds = 0
        self.finished = False
        self.expansion = Expansion(criterion=config.criterion, top_k=config.top_k)
        self.landing: dict[str, Counter] = {}
        self.unknown: Counter = Counter()   # jobid -> polls in a row its node did not know it

    # ------------------------------------------------------------------ state file
    def load_state(self) -> bool:
        """Read the state file if there is one; ValueError if it was made with other
        arguments. True if an expansion is resumed."""
        if not os.path.exists(self.state_path):
            return False
        try:
            with open(self.state_path, encoding="utf-8") as fh:
                data = json.load(fh)
            saved = data["config"]
            jobs = [Job(**d) for d in data["jobs"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"cannot read the expansion state {self.state_path}: {exc}") \
                from exc
        mine = self.config.identity()
        differ = [k for k in mine if saved.get(k) != mine[k]]
        if differ:
            raise ValueError(
                f"{self.root} holds an expansion run with other arguments "
                f"({', '.join(f'{k}={saved.get(k)!r}' for k in differ)}): give the same ones "
                "to resume it, or another shared root")
        self.jobs = jobs
        self.done_rounds = int(data.get("done_rounds", 0))
        self.finished = bool(data.get("finished"))
        return True

    def save_state(self) -> None:
        data = {"config": asdict(self.config), "done_rounds": self.done_rounds,
                "finished": self.finished, "jobs": [asdict(job) for job in self.jobs]}
        with atomic_open(self.state_path) as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)

    # ------------------------------------------------------------------ paths
    def job_dir(self, job: Job) -> str:
        return os.path.join(self.root, "jobs", job.name)

    def site_dir(self, job: Job) -> str:
        return os.path.join(self.job_dir(job), "sites", job.name)

    # ------------------------------------------------------------------ the rounds
    def run(self) -> None:
        """Run (or resume) every round; returns when the last ranking is written."""
        os.makedirs(self.root, exist_ok=True)
        if self.load_state():
            logger.info("Resuming the expansion in %s: %d rounds done, %d jobs known",
                        self.root, self.done_rounds, len(self.jobs))
        self.replay()
        while not self.finished:
            round_no = self.done_rounds
            if not self.round_jobs(round_no) and not self.plan_round(round_no):
                self.finished = True
                break
            self.follow(round_no)
            self.close_round(round_no)
            self.done_rounds = round_no + 1
            ranking = self.expansion.rank(round_no + 1)
            if round_no >= self.config.rounds:
                self.finished = True   # the next ranking, not crawled
            logger.info("Round %d done: %d sites in the set, %d outside sites ranked",
                        round_no, len(self.expansion.members), len(ranking))
            self.write_outputs()
            self.save_state()
        self.write_outputs()
        self.save_state()

    def round_jobs(self, round_no: int) -> list[Job]:
        return [job for job in self.jobs if job.round == round_no]

    def replay(self) -> None:
        """Rebuild the rounds done from their jobs' outputs (a resumed expansion)."""
        for round_no in range(self.done_rounds):
            self.record_round(round_no)
            self.expansion.rank(round_no + 1)

    def plan_round(self, round_no: int) -> bool:
        """The jobs of a round: the seeds, or the top K of the ranking after the round
        before. False if there is none."""
        if round_no == 0:
            for site, urls in seed_sites(self.config.seeds).items():
                roots = [site_root(url) for url in urls]
                self.add_job(Job(site, 0, list(dict.fromkeys(urls + roots)), seed=True))
        else:
            chosen = self.expansion.select(self.expansion.rankings.get(round_no, []))
            if not chosen:
                logger.info("Round %d: no site left to explore", round_no)
                return False
            logger.info("Round %d: crawling %d ranked sites: %s", round_no, len(chosen),
                        ", ".join(chosen))
            for site in chosen:
                self.add_job(Job(site, round_no, site_start_urls(site, self.landing)))
        self.save_state()
        return True

    def add_job(self, job: Job) -> None:
        """Plan a job: its dir, its seed list and its copy of the shared pattern database."""
        if any(j.site == job.site for j in self.jobs):
            raise RuntimeError(f"{job.site} has a job already")
        job_dir = self.job_dir(job)
        os.makedirs(job_dir, exist_ok=True)
        with atomic_open(os.path.join(job_dir, "seeds.txt")) as fh:
            fh.writelines(url + "\n" for url in job.start_urls)
        db_copy = os.path.join(job_dir, "patterns-db.json")
        if os.path.exists(self.pattern_db_path):
            shutil.copyfile(self.pattern_db_path, db_copy)
        elif os.path.exists(db_copy):
            os.remove(db_copy)
        self.jobs.append(job)

    # ------------------------------------------------------------------ jobs
    def job_args(self, job: Job) -> tuple[dict, dict]:
        """The spider arguments and the settings of a site's job."""
        c = self.config
        job_dir = self.job_dir(job)
        args = {"seeds": os.path.join(job_dir, "seeds.txt"), "langs": ",".join(c.langs),
                "rounds": "0", "top_k": str(c.top_k), "max_pages": str(c.max_pages),
                "criterion": c.criterion}
        settings = dict(c.settings)
        settings.update({
            "BITEXT_OUTPUT_DIR": job_dir,
            "BITEXT_PATTERN_DB": os.path.join(job_dir, "patterns-db.json"),
            # a site of a later round is checked whatever the seeds are
            "BITEXT_EXPAND_CHECK_SEEDS_ENABLED": str(c.check_seeds if job.seed else True),
        })
        return args, settings

    def pick_node(self):
        loads = {}
        for url in self.order:
            try:
                loads[url] = self.nodes[url].load()
            except ScrapydError as exc:
                logger.warning("%s", exc)
        if not loads:
            raise ScrapydError("no Scrapyd node answers: " + ", ".join(self.order))
        assigned = Counter(job.node for job in self.jobs if job.status != PLANNED)
        return self.nodes[least_busy(loads, assigned, self.order)]

    def schedule(self, job: Job) -> None:
        """Schedule a job on the least busy node; the state file names it first."""
        node = self.pick_node()
        job.jobid = job.jobid or uuid.uuid4().hex
        job.node = node.url
        job.status = SCHEDULED
        job.scheduled += 1
        self.save_state()
        args, settings = self.job_args(job)
        node.schedule(self.config.spider, args, settings, job.jobid)
        logger.info("Round %d: %s scheduled on %s (job %s)", job.round, job.site, node.url,
                    job.jobid)

    def follow(self, round_no: int) -> None:
        """Schedule the round's planned jobs and wait for all of them; a failed check
        opens the next site of the ranking."""
        while True:
            for job in self.round_jobs(round_no):
                if job.status == PLANNED:
                    self.schedule(job)
            waiting = [job for job in self.round_jobs(round_no) if job.status == SCHEDULED]
            if not waiting:
                return
            known: dict[str, dict[str, str]] = {}
            for url in sorted({job.node for job in waiting}):
                try:
                    known[url] = self.nodes[url].jobs() if url in self.nodes else {}
                except ScrapydError as exc:
                    logger.warning("%s", exc)
            progressed = False
            for job in waiting:
                if job.node not in known:
                    continue   # its node does not answer: wait for it
                state = known[job.node].get(job.jobid)
                if state in ("pending", "running"):
                    self.unknown.pop(job.jobid, None)
                    continue
                if state is None and not os.path.exists(self.verdict_path(job)):
                    self.unknown[job.jobid] += 1
                    if self.unknown[job.jobid] >= LOST_AFTER_POLLS:
                        logger.warning("Round %d: %s on %s does not know job %s; scheduling "
                                       "it again", round_no, job.node, job.site, job.jobid)
                        self.unknown.pop(job.jobid, None)
                        self.schedule(job)
                    continue
                self.finish_job(job)
                progressed = True
            if not progressed:
                self.sleep(self.poll)

    def verdict_path(self, job: Job) -> str:
        return os.path.join(self.job_dir(job), "sites.jsonl")

    def finish_job(self, job: Job) -> None:
        """Read a finished job's verdict; a failed check opens the next site in its place."""
        result = None
        path = self.verdict_path(job)
        if os.path.exists(path):
            rows = list(iter_jsonl(path))
            result = next((r for r in rows if r.get("site") == job.site), None) \
                or (rows[0] if rows else None)
        if result is None:
            result = SiteResult(job.site, job.round, False, reason=NO_RESULT,
                                output_dir=self.site_dir(job), failed=NO_RESULT).to_dict()
        result.update(site=job.site, round=job.round, seed=job.seed, replaces=job.replaces)
        job.result = result
        job.status = DONE
        verdict = ("could not be checked: " + result["failed"] if result.get("failed")
                   else "bilingual" if result.get("bilingual") else "not bilingual")
        logger.info("Round %d: %s %s (job %s on %s)", job.round, job.site, verdict, job.jobid,
                    job.node)
        if result.get("failed") and not job.seed and self.config.replace_failed:
            nxt = self.expansion.next_candidate(job.round, [j.site for j in self.jobs])
            if nxt is not None:
                logger.info("Round %d: %s takes the place of %s", job.round, nxt, job.site)
                self.add_job(Job(nxt, job.round, site_start_urls(nxt, self.landing),
                                 replaces=job.site))
        self.save_state()

    # ------------------------------------------------------------------ a round's end
    def close_round(self, round_no: int) -> None:
        """Copy the patterns the round's jobs recorded into the shared database, then record
        the round's sites."""
        shared = PatternDB(self.pattern_db_path)
        before = PatternDB(self.pattern_db_path)
        for job in sorted(self.round_jobs(round_no), key=lambda j: j.site):
            path = os.path.join(self.job_dir(job), "patterns-db.json")
            if (job.result or {}).get("failed") or not os.path.exists(path):
                continue
            db = PatternDB(path)
            for site in db.sites():
                if db.entry(site) != before.entry(site):
                    shared.set_entry(site, db.entry(site))
        shared.save()
        self.record_round(round_no)

    def record_round(self, round_no: int) -> None:
        """Record a finished round's sites in site order, as the spider's ``finish_round``
        does: verdict and C(w) from the job, outlinks and link evidence from its pages."""
        for job in sorted(self.round_jobs(round_no), key=lambda j: j.site):
            res = SiteResult(**{k: v for k, v in (job.result or {}).items()
                                if k in SiteResult.__dataclass_fields__})
            if res.failed:
                self.expansion.record(res)
                continue
            store = SQLitePageStore(self.site_dir(job))
            try:
                pages = list(store)
            finally:
                store.close()
            evidence = None
            if res.bilingual:
                count_landing(self.landing, res.site, pages)
                evidence = site_link_evidence(pages, self.config.langs,
                                              self.pairs(job)).get(res.site, {})
            self.expansion.record(res, outlink_counts(pages).get(res.site, {}), evidence)

    def pairs(self, job: Job) -> list[tuple[str, str]] | None:
        path = os.path.join(self.site_dir(job), "pairs.jsonl")
        if not os.path.exists(path):
            return None
        return [(d["url_1"], d["url_2"]) for d in iter_jsonl(path)]

    def write_outputs(self) -> None:
        """``expansion.jsonl`` and ``sites.jsonl``, as the ``expand`` spider writes them."""
        write_jsonl(os.path.join(self.root, "expansion.jsonl"), self.expansion.all_rows())
        write_jsonl(os.path.join(self.root, "sites.jsonl"),
                    (res.to_dict() for _, res in sorted(self.expansion.results.items())))

    def summary(self) -> dict:
        """Jobs per node and per round, sites added."""
        return {"rounds": self.done_rounds, "jobs": len(self.jobs),
                "jobs_per_node": dict(Counter(job.node for job in self.jobs)),
                "members": self.expansion.members}
