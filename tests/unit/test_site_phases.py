"""An expand crawl's sites through their phases (``sites/phases.py``), without a crawl:
what the check decides and what it asks of the crawl (requests scheduled, pipelines
closed, a failed site's place taken), and when the crawl goes on."""

from __future__ import annotations

from collections import Counter

from bitextcrawl.sites.expansion import Expansion
from bitextcrawl.sites.phases import CHECK, CRAWL, DROPPED, FAILED, SitePhases
from bitextcrawl.sites.rounds import RoundPlanner


class Stats:
    def __init__(self):
        self.values: Counter = Counter()

    def inc_value(self, key, n=1):
        self.values[key] += n

    def set_value(self, key, value):
        self.values[key] = value


class Site:
    """What the phases read of the spider's ``SiteCrawl``."""

    def __init__(self, site: str, seed=False, responses=1, errors=()):
        self.site, self.seed, self.responses = site, seed, responses
        self.errors = Counter(errors)
        self.phase, self.detection, self.failure, self.round, self.replaces = \
            CHECK, None, "", 0, ""
        self.held = [f"{site}/held"]

    def pages(self):
        return []

    def crawl(self):
        self.phase = CRAWL
        return self.held

    def end(self, phase):
        self.phase = phase

    def fail(self):
        self.failure = self.errors.most_common(1)[0][0]
        self.end(FAILED)


def phases(check_seeds=False, replace_failed=True):
    out = SitePhases(RoundPlanner(Expansion(top_k=2), ("en", "fr")), 1, check_seeds,
                     replace_failed, "out", "db.json", None, False, stats=Stats())
    out.scheduled, out.opened, out.closed = [], [], []
    out.schedule = out.scheduled.append
    out.open_site = lambda site, urls, replaces: out.opened.append((site, replaces)) \
        or [f"{site}/"]
    out.close_pipelines = out.closed.append
    return out


def test_the_check_crawls_a_seed_drops_a_site_and_replaces_one_that_failed():
    run = phases()
    seed, plain = Site("http://a.org", seed=True), Site("http://b.org")
    failed = Site("http://c.org", responses=0, errors=["unreachable: timeout"])
    run.sites.update({s.site: s for s in (seed, plain, failed)})
    run.expansion.rankings[0] = [{"site": "http://c.org"}, {"site": "http://d.org"}]
    # a seed goes unchecked; a page-less site is no bilingual one; the failed site's
    # place goes to the next of the ranking, whose start page is requested
    assert run.check_sites() == 2
    assert (seed.phase, plain.phase, failed.phase) == (CRAWL, DROPPED, FAILED)
    assert run.scheduled == ["http://a.org/held", "http://d.org/"]
    assert run.closed == [plain] and run.opened == [("http://d.org", "http://c.org")]
    assert run.stats.values["bitext/expand/replaced"] == 1


def test_a_failed_seed_keeps_its_place_and_a_busy_site_keeps_the_crawl_open():
    run = phases(check_seeds=True)
    seed = Site("http://a.org", seed=True, responses=0, errors=["robots.txt forbids it"])
    run.sites[seed.site] = seed
    assert run.check_sites() == 0 and seed.phase == FAILED and not run.opened
    crawling = Site("http://b.org")
    crawling.phase = CRAWL
    run.sites = {crawling.site: crawling}
    run.site_idle = lambda site: True   # its deep recovery asked for more
    assert run.idle() is True
