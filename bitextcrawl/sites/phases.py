"""An expand crawl's sites through their phases, round after round [Zhang 2013 §2.3],
pure (no Scrapy): each time the crawl runs dry, the sites being crawled run their own
idle work (deep page recovery); then the sites being checked get their verdict
[Shi 2006 §3 step 1] (a site no check request reached gives its place to the next of the
ranking); then, the round over, every site is closed (its alignment, C(w), the sites it
links to) and the next round's top K are opened. The ``expand`` spider
(``spiders/expand.py``) crawls the sites and hands :class:`SitePhases` what only a crawl
can do, as callables; a site is the spider's ``SiteCrawl`` (``phase``, ``responses``,
``errors``, ``seed``, ``pages()``, ``crawl()``, ``end()``, ``fail()``, ``finish()``, and
what ``sites/rounds.py`` reads).

``stats``: anything with ``inc_value``/``set_value``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.sites.detect import detect_bilingual
from bitextcrawl.sites.expansion import SiteResult
from bitextcrawl.sites.rounds import RoundPlanner, align_site, site_pairs

logger = logging.getLogger("bitextcrawl.spiders.expand")

# A site's phases: checked, crawled, dropped (not bilingual), failed (its check reached
# nothing), closed (its round over).
CHECK, CRAWL, DROPPED, FAILED, CLOSED = "check", "crawl", "dropped", "failed", "closed"


class SitePhases:
    def __init__(self, planner: RoundPlanner, rounds: int, check_seeds: bool,
                 replace_failed: bool, output_dir: str, pattern_db_path: str,
                 align_config, align_enabled: bool, stats=None):
        self.planner, self.expansion, self.stats = planner, planner.expansion, stats
        self.rounds, self.check_seeds, self.replace_failed = rounds, check_seeds, replace_failed
        self.output_dir, self.pattern_db_path = output_dir, pattern_db_path
        self.align_config, self.align_enabled = align_config, align_enabled
        self.sites: dict = {}   # site -> its SiteCrawl, this round's and the closed ones
        self.round = 0
        # what the crawl does (the spider's): open a site (``replaces``: the failed site
        # it takes the place of), its check requests to schedule; schedule a request; run
        # a site's idle work (True: it goes on); close a site's item pipelines
        self.open_site: Callable[[str, list[str], str], list] = \
            lambda site, urls, replaces: []
        self.schedule: Callable = lambda request: None
        self.site_idle: Callable[[object], bool] = lambda site: False
        self.close_pipelines: Callable[[object], None] = lambda site: None

    def of_phase(self, *phases) -> list:
        return [s for s in self.sites.values() if s.phase in phases]

    def idle(self) -> bool:
        """The crawl ran dry: recovery, check, close, next round. True if it goes on."""
        busy = False
        for site in self.of_phase(CRAWL):
            busy = self.site_idle(site) or busy
        if busy or (self.of_phase(CHECK) and self.check_sites()):
            return True
        if not self.of_phase(CRAWL, DROPPED, FAILED):
            return False  # nothing left of the last round: the crawl ends
        self.finish_round()
        if self.round < self.rounds:
            if self.next_round():
                return True
        else:
            self.round += 1
            ranking = self.expansion.rank(self.round)  # the next ranking, not crawled
            self.stats.set_value("bitext/expand/ranked", len(ranking))
        self.write_outputs()
        return False

    def check_sites(self) -> int:
        """Bilingual-site check of every site still being checked [Shi 2006 §3 step 1];
        returns how many sites passed (their held links are released) or were opened in
        place of a site that could not be checked."""
        stats = self.stats
        passed = 0
        for site in self.of_phase(CHECK):
            if not site.responses and site.errors:
                passed += self.check_failed(site)
                continue
            site.detection = detect_bilingual(site.pages(), self.planner.langs, site=site.site)
            stats.inc_value("bitext/expand/checked")
            if site.detection.bilingual or (site.seed and not self.check_seeds):
                stats.inc_value("bitext/expand/bilingual")
                passed += 1
                for request in site.crawl():
                    self.schedule(request)
                logger.info("Round %d: %s is bilingual (%s); crawling it", self.round,
                            site.site, site.detection.evidence["reason"])
            else:
                stats.inc_value("bitext/expand/dropped")
                self.close_pipelines(site)
                site.end(DROPPED)
                logger.info("Round %d: %s dropped, not bilingual (%s)", self.round,
                            site.site, site.detection.evidence["reason"])
        return passed

    def check_failed(self, site) -> int:
        """A site no check request reached (connection refused, DNS, robots.txt): reported,
        and the next site of the round's ranking opened in its place (a failed
        check does not waste a place of the top K). Returns 1 if a site was opened."""
        site.fail()
        logger.info("Round %d: %s could not be checked (%s)", self.round, site.site,
                    site.failure)
        if site.seed or not self.replace_failed:
            return 0
        nxt = self.planner.replacement(self.round, list(self.sites))
        if nxt is None:
            return 0
        self.stats.inc_value("bitext/expand/replaced")
        logger.info("Round %d: %s takes the place of %s", self.round, nxt, site.site)
        for request in self.open_site(nxt, self.planner.start_urls(nxt), site.site):
            self.schedule(request)
        return 1

    def finish_round(self) -> None:
        """Close every site of the round: alignment, C(w), outlinks, verdict (§2.3 step 1)."""
        stats = self.stats
        pattern_db = PatternDB(self.pattern_db_path)
        for site in sorted(self.of_phase(CRAWL, DROPPED, FAILED), key=lambda s: s.site):
            if site.phase == FAILED:
                site.phase = CLOSED
                self.planner.close_failed(site)
                continue
            bilingual = site.phase == CRAWL
            if bilingual:
                self.close_pipelines(site)
            pages = site.finish()

            def align(result: SiteResult, site=site, pages=pages) -> None:
                align_site(site, pages, self.align_config, self.align_enabled, pattern_db,
                           result)
                stats.inc_value("bitext/expand/added")

            self.planner.close_site(site, pages, bilingual, align,
                                    lambda site=site: site_pairs(site.output_dir,
                                                                 self.align_enabled))
            site.phase = CLOSED
        stats.set_value("bitext/expand/rounds", self.round)
        stats.set_value("bitext/expand/members", len(self.expansion.members))
        self.write_outputs()

    def next_round(self) -> bool:
        """Rank the sites linked from the set and start crawling the top K (§2.3 step 2)."""
        self.round += 1
        ranking, chosen = self.planner.next_sites(self.round)
        self.stats.set_value("bitext/expand/ranked", len(ranking))
        if not chosen:
            logger.info("Round %d: no site left to explore", self.round)
            return False
        logger.info("Round %d: crawling %d of %d ranked sites: %s", self.round, len(chosen),
                    len(ranking), ", ".join(chosen))
        for site in chosen:
            for request in self.open_site(site, self.planner.start_urls(site), ""):
                self.schedule(request)
        return True

    def write_outputs(self) -> None:
        """``expansion.jsonl`` and ``sites.jsonl`` (sites/rounds.py)."""
        self.planner.write(self.output_dir)
