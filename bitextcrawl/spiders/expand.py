"""The ``expand`` spider: crawl a seed list of sites, then the sites they link to, in rounds
[Zhang 2013 §2.3].

    scrapy crawl expand -a seeds=FILE -a langs=en,fr [-a rounds=R] [-a top_k=K]
                        [-a max_pages=N] [-a criterion=weighted_pagerank]

Every site of a round is crawled in parallel with the others, as a ``bitext`` crawl of its
own would crawl it: the same downloader and spider middlewares (language ID, focus), and its
own instances of the per-site item pipelines (``BITEXT_EXPAND_SITE_PIPELINES``: page store,
online URL patterns with deep page recovery) writing to ``<output>/sites/<site>/``. A site
goes through three phases, each ended by the crawl running dry (``spider_idle``):

1. **check**: its root page and the pages linked from it (``BITEXT_EXPAND_DETECT_PAGES``,
   language switches first) are downloaded; every other link found is held back
   (:class:`HoldMiddleware`, after the focus middleware has ordered or dropped it). Then
   :func:`~bitextcrawl.sites.detect.detect_bilingual` decides: a site that fails is dropped
   (``bitext/expand/dropped``) and reported in ``expansion.jsonl``. A site that could not be
   checked at all (no response: connection refused, DNS failure, timeouts, robots.txt
   forbidding the check pages) is reported as ``failed`` (``bitext/expand/failed``) and the
   next site of the round's ranking takes its place (``BITEXT_EXPAND_REPLACE_FAILED_ENABLED``);
2. **crawl**: the held links are released and the site is crawled up to ``max_pages`` pages,
   with deep page recovery;
3. **close**: the round over, the spider runs the closing alignment of each site into its own
   output dir (:func:`~bitextcrawl.outputs.run_closing`; the single-site
   ``ClosingPipeline`` is not used), which records its patterns in the shared pattern
   database (``BITEXT_PATTERN_DB``), so C(w) is known and later sites can rescue weak keys.

Then :class:`~bitextcrawl.sites.expansion.Expansion` ranks the sites linked from the set
(default ΣLinkEvidence, :mod:`bitextcrawl.sites.evidence`; or the paper's ΣWeightedPageRank,
ΣPageRank, ΣLinkout), and the top K start the next round. ``expansion.jsonl`` and
``sites.jsonl`` in the output dir are rewritten after each round. Round state lives in
memory: an expand crawl is not resumable with ``JOBDIR``.
"""

from __future__ import annotations

import logging
import os
from collections import Counter

from scrapy import signals
from scrapy.exceptions import (CannotResolveHostError, DontCloseSpider,
                               DownloadConnectionRefusedError, DownloadTimeoutError, DropItem,
                               IgnoreRequest, NotConfigured)
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.error import (ConnectionRefusedError, DNSLookupError, TCPTimedOutError,
                                    TimeoutError)

from bitextcrawl import config
from bitextcrawl.context import CrawlContext
from bitextcrawl.formats.jsonl import iter_jsonl, write_jsonl
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.urls import site_name, site_of
from bitextcrawl.pages.site import canonical_pages
from bitextcrawl.pairing.url_patterns import PatternDB, UrlPatternLearner
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.sites.detect import detect_bilingual, detection_order
from bitextcrawl.sites.expansion import (Expansion, SiteResult, count_landing, outlink_counts,
                                         read_seeds, site_link_evidence, site_root,
                                         site_start_urls)
from bitextcrawl.signals import SiteSignals
from bitextcrawl.sites.graph import CRITERION_NAMES
from bitextcrawl.spiders.bitext import BitextSpider, settings_langs, whole_number

logger = logging.getLogger(__name__)

CHECK, CRAWL, DROPPED, FAILED, CLOSED = "check", "crawl", "dropped", "failed", "closed"
NO_SEEDS = ("the expand spider needs a seed list: pass -a seeds=FILE (one site URL a line), "
            "e.g. scrapy crawl expand -a seeds=seeds.txt -a langs=en,fr")


def failure_kind(failure) -> str:
    """Why a request got no response, as ``expansion.jsonl`` reports a failed check."""
    if failure.check(IgnoreRequest) and "robots" in str(failure.value).lower():
        return "robots.txt forbids it"
    # Scrapy 2.19 wraps Twisted's errors in its own; both are checked.
    if failure.check(ConnectionRefusedError, DownloadConnectionRefusedError):
        return "unreachable: connection refused"
    if failure.check(DNSLookupError, CannotResolveHostError):
        return "unreachable: DNS lookup failed"
    if failure.check(TimeoutError, TCPTimedOutError, DownloadTimeoutError):
        return "unreachable: timeout"
    if failure.check(HttpError):
        return f"HTTP {failure.value.response.status}"
    return "unreachable: " + (failure.type.__name__ if failure.type else "error")


def seed_list(seeds: str | None) -> list[str]:
    """The seed URLs of ``-a seeds=FILE``; ValueError, one line, when there are none."""
    if not seeds:
        raise ValueError(NO_SEEDS)
    try:
        urls = read_seeds(seeds)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ValueError(f"cannot read the seed list {seeds}: {reason}") from exc
    if not urls:
        raise ValueError(f"no seed URL in {seeds}: write one site URL a line "
                         "(# starts a comment)")
    return urls


#: Item pipelines an expand crawl does not run per site (it runs their work itself).
ROUND_END_PIPELINES = (ClosingPipeline,)


class SiteCrawl:
    """One site of an expand crawl: its round state, and the crawl context its pipelines
    share (its own output dir, scope, page budget, store and signals)."""

    def __init__(self, spider: "ExpandSpider", site: str, start_urls: list[str], round_no: int,
                 seed: bool = False, replaces: str = ""):
        self.spider = spider
        self.site = site
        self.start_urls = start_urls
        self.start_url = start_urls[0]
        self.round = round_no
        self.seed = seed
        self.replaces = replaces
        self.responses = 0              # responses of any kind (an answer, even 404)
        self.errors: Counter = Counter()  # failure_kind -> requests that got no response
        self.failure = ""               # why the check failed (no response at all)
        self.name = site_name(site)
        self.context = CrawlContext(
            spider.crawler.settings, os.path.join(spider.output_dir, "sites", self.name),
            spider.langs, site=site, start_url=self.start_url, max_pages=spider.max_pages,
            request_factory=self.page_request, scope=self.in_scope,
            # the crawler's bus, this site's events only
            signals=SiteSignals(spider.crawler.signals, site),
            frontier=spider.context.frontier,
            pattern_db=spider.pattern_db_path)  # one database for the sites of the rounds
        self.check_budget = spider.detect_pages
        self.check_urls: set[str] = set(start_urls)  # requested for the check
        self.phase = CHECK
        self.held: dict[str, object] = {}   # URL -> request held back while checking
        self.detection = None
        self.pipelines: list = []

    @property
    def output_dir(self) -> str:
        return self.context.output_dir

    @property
    def is_open(self) -> bool:
        return self.phase in (CHECK, CRAWL)

    def in_scope(self, url: str) -> bool:
        return site_of(url) == self.site

    def page_request(self, url: str, discovered_by: str = "link", link: dict | None = None,
                     priority: int = 0, **meta):
        return self.spider.page_request(url, discovered_by=discovered_by, link=link,
                                        priority=priority, bitext_expand_site=self.site, **meta)

    def hold(self, request) -> bool:
        """Keep a request until the verdict; False if its URL is already held."""
        if request.url in self.held:
            return False
        self.held[request.url] = request
        return True

    def release(self) -> list:
        held, self.held = list(self.held.values()), {}
        return held


class SitePipelines:
    """The item pipeline of an expand crawl: each page record goes through the pipelines of
    its own site (``BITEXT_EXPAND_SITE_PIPELINES``), opened and closed per site.

    Scrapy makes one instance of each item pipeline per crawler; a site needs its own (their
    state is the site's), so they are built here with the crawler and the site's context
    (``Pipeline.from_crawler(crawler, context=...)``), which gives them the site's output dir,
    scope, store and signals. Their ``open_spider``/``process_item``/``close_spider`` must be
    synchronous (the project's are).
    """

    def __init__(self, crawler):
        self.crawler = crawler
        paths = build_component_list(crawler.settings.getwithbase("BITEXT_EXPAND_SITE_PIPELINES"))
        self.classes = [load_object(p) for p in paths]
        self.sites: dict[str, SiteCrawl] = {}

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def open_spider(self):
        spider = self.crawler.spider
        if not isinstance(spider, ExpandSpider):
            raise NotConfigured("SitePipelines is the item pipeline of the expand spider")
        spider.site_pipelines = self

    def open_site(self, site: SiteCrawl) -> None:
        site.pipelines = []
        for cls in self.classes:
            try:
                site.pipelines.append(build_from_crawler(cls, self.crawler,
                                                         context=site.context))
            except NotConfigured:
                continue
        for pipe in site.pipelines:
            if hasattr(pipe, "open_spider"):
                pipe.open_spider()
        self.sites[site.site] = site

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        site = self.sites.get(item.site)
        if site is None or not site.is_open:
            raise DropItem(f"no open site for {item.url}", log_level="DEBUG")
        for pipe in site.pipelines:
            if hasattr(pipe, "process_item"):
                item = pipe.process_item(item)
        return item

    def site_idle(self, site: SiteCrawl) -> bool:
        """Run a site's idle tasks (the crawl ran dry); True if its crawl goes on."""
        return site.context.frontier.run_idle(site.context)

    def close_site(self, site: SiteCrawl) -> None:
        """Close the site's pipelines (its store stays open for the round's end)."""
        for pipe in reversed(site.pipelines):  # Scrapy closes pipelines last-first, too
            if hasattr(pipe, "close_spider"):
                pipe.close_spider()
        site.context.save_state()
        site.context.signals.close()
        site.context.frontier.remove_idle_tasks(site.context)
        site.pipelines = []
        self.sites.pop(site.site, None)

    def close_spider(self):
        # An interrupted crawl: flush what each open site stored (no alignment).
        for site in list(self.sites.values()):
            self.close_site(site)
            site.context.close()
            site.phase = CLOSED


class HoldMiddleware(BaseSpiderMiddleware):
    """Holds back the links of a site still being checked (after the focus middleware has
    ordered or dropped them); the spider releases them if the site proves bilingual."""

    def get_processed_request(self, request, response):
        if response is None or not request.meta.get("bitext_expand_hold"):
            return request
        sites = getattr(self.crawler.spider, "sites", {})
        site = sites.get(request.meta.get("bitext_expand_site"))
        if site is not None and site.phase == CHECK:
            if site.hold(request):
                self.crawler.stats.inc_value("bitext/expand/held")
            return None
        return request


class ExpandSpider(BitextSpider):
    name = "expand"
    # max_pages counts the pages stored per site (each site's context), not responses
    response_budget = False
    # many sites, found as it goes, each checked when its turn comes: no check before
    preflight = None

    def __init__(self, seeds: str | None = None, langs: str | None = None,
                 rounds: str | int | None = None, top_k: str | int | None = None,
                 max_pages: str | int | None = None, criterion: str | None = None,
                 *args, **kwargs):
        seed_urls = seed_list(seeds)
        super().__init__(seed_urls[0], langs, max_pages, *args, **kwargs)
        self.seeds_file = seeds
        self.seed_urls = seed_urls
        self.site = None
        self._rounds_arg, self._top_k_arg, self._criterion_arg = rounds, top_k, criterion
        self.sites: dict[str, SiteCrawl] = {}
        self.site_pipelines: SitePipelines | None = None
        self.round = 0
        self.landing: dict[str, Counter] = {}  # outside site -> its URLs the set links to

    @classmethod
    def check_arguments(cls, settings, seeds=None, langs=None, rounds=None, top_k=None,
                        max_pages=None, criterion=None, **_):
        """As :meth:`BitextSpider.check_arguments`, for the expand spider's arguments."""
        seed_list(seeds)
        settings_langs(langs, settings)
        for name, value, example in (("rounds", rounds, 2), ("top_k", top_k, 10),
                                     ("max_pages", max_pages, 200)):
            whole_number(name, value, example)
        if criterion and criterion not in CRITERION_NAMES:
            raise ValueError(f"unknown criterion {criterion!r}: pass -a criterion= one of "
                             + ", ".join(CRITERION_NAMES))

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        if not settings.getdict("BITEXT_EXPAND_SITE_PIPELINES"):
            skip = set(ROUND_END_PIPELINES) | {SitePipelines}
            per_site = {path: order for path, order
                        in settings.getwithbase("ITEM_PIPELINES").items()
                        if order is not None and load_object(path) not in skip}
            settings.set("BITEXT_EXPAND_SITE_PIPELINES", per_site, priority="spider")
        settings.set("ITEM_PIPELINES", {SitePipelines: 100}, priority="spider")
        middlewares = dict(settings.getdict("SPIDER_MIDDLEWARES"))
        middlewares.setdefault(HoldMiddleware, 700)  # after focus (800) on the way out
        settings.set("SPIDER_MIDDLEWARES", middlewares, priority="spider")

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.spider_idle, signal=signals.spider_idle)
        if crawler.settings.get("JOBDIR"):
            logger.warning("JOBDIR: an expand crawl keeps its rounds in memory; an interrupted "
                           "one restarts from the seeds (pages already stored are kept)")
        return spider

    def configure(self, settings) -> None:
        """The bitext spider's settings, and the expand crawl's own. (Its crawl context,
        ``self.context``, is the whole crawl's: its output dir, every open site in scope;
        each site has a context of its own, :class:`SiteCrawl`.)"""
        super().configure(settings)
        s = settings
        self.max_pages = int(self._max_pages_arg if self._max_pages_arg is not None
                             else s.getint("BITEXT_EXPAND_MAX_PAGES"))
        self.output_dir = s.get("BITEXT_OUTPUT_DIR") or os.path.join("output", "expand")
        self.rounds = int(self._rounds_arg if self._rounds_arg is not None
                          else s.getint("BITEXT_EXPAND_ROUNDS"))
        self.detect_pages = s.getint("BITEXT_EXPAND_DETECT_PAGES")
        self.check_seeds = config.getbool(s, "BITEXT_EXPAND_CHECK_SEEDS_ENABLED")
        self.replace_failed = config.getbool(s, "BITEXT_EXPAND_REPLACE_FAILED_ENABLED")
        self.expansion = Expansion(
            criterion=self._criterion_arg or s.get("BITEXT_EXPAND_CRITERION"),
            top_k=int(self._top_k_arg if self._top_k_arg is not None
                      else s.getint("BITEXT_EXPAND_TOP_K")))
        self.align_enabled = s.getbool("BITEXT_ALIGN_ENABLED")
        self.pattern_db_path = config.pattern_db_path(s)
        # imported here: Scrapy's spider loader imports this module for every crawl, and
        # the pairing models' imports (scipy, networkx) would delay them all
        from bitextcrawl.pairing.align import AlignConfig

        self.align_config = AlignConfig.from_settings(s, self.langs)

    # ------------------------------------------------------------------ requests
    async def start(self):
        by_site: dict[str, list[str]] = {}
        for url in self.seed_urls:
            by_site.setdefault(site_of(url), []).append(url)
        for site, urls in by_site.items():
            roots = [site_root(url) for url in urls]
            for request in self.open_site(site, urls + roots, seed=True):
                yield request

    def open_site(self, site: str, start_urls: list[str], seed: bool = False,
                  replaces: str = "") -> list:
        """Start crawling a site in the current round: its check requests."""
        crawl = SiteCrawl(self, site, list(dict.fromkeys(start_urls)), self.round, seed=seed,
                          replaces=replaces)
        if seed and not self.check_seeds:
            crawl.phase = CRAWL
        self.sites[site] = crawl
        self.site_pipelines.open_site(crawl)
        self.crawler.stats.inc_value("bitext/expand/sites")
        return [crawl.page_request(url, discovered_by="start", bitext_expand_hop=0)
                for url in crawl.start_urls]

    def in_scope(self, url: str) -> bool:
        site = self.sites.get(site_of(url))
        return site is not None and site.is_open

    def on_error(self, failure):
        """As the ``bitext`` spider counts it; and the site keeps why (a failed check)."""
        super().on_error(failure)
        request = getattr(failure, "request", None)
        site = self.sites.get((request.meta.get("bitext_expand_site") if request else None)
                              or "")
        if site is not None and not (request.meta.get("bitext_held")):
            kind = failure_kind(failure)
            if kind.startswith("HTTP"):
                site.responses += 1  # the server answered
            else:
                site.errors[kind] += 1

    def parse(self, response):
        asked = self.sites.get(response.meta.get("bitext_expand_site") or "")
        if asked is not None:
            asked.responses += 1
        page = response.meta.get("bitext_page")
        if page is None:  # not an HTML page; the language-ID middleware counted why
            return
        stats = self.crawler.stats
        site = self.sites.get(page.site)
        if site is None or not site.is_open:  # redirected to a site this round does not crawl
            stats.inc_value("bitext/expand/offsite_page")
            return
        if not site.context.take_page():
            stats.inc_value("bitext/pages/over_max_pages")
            return
        yield page
        checking = site.phase == CHECK
        from_root = checking and response.meta.get("bitext_expand_hop") == 0
        if from_root:
            site.check_urls.add(page.url)
        links = detection_order(page.links, self.langs) if from_root else page.links
        for link in links:
            url = link["url"]
            if not self.followable(url, site.in_scope):
                continue
            if from_root and site.check_budget > 0 and url not in site.check_urls:
                site.check_budget -= 1
                site.check_urls.add(url)
                yield site.page_request(url, link=link, bitext_expand_hop=1)
            elif checking:
                yield site.page_request(url, link=link, bitext_expand_hold=True)
            else:
                yield site.page_request(url, link=link)

    # ------------------------------------------------------------------ rounds
    def spider_idle(self):
        """Advance the round when the crawl runs dry: recovery, check, close, next round."""
        busy = False
        for site in self._sites(CRAWL):
            busy = self.site_pipelines.site_idle(site) or busy
        if busy or (self._sites(CHECK) and self.check_sites()):
            raise DontCloseSpider
        if not self._sites(CRAWL, DROPPED, FAILED):
            return  # nothing left of the last round: the spider closes
        self.finish_round()
        if self.round < self.rounds:
            if self.next_round():
                raise DontCloseSpider
        else:
            self.round += 1
            ranking = self.expansion.rank(self.round)  # the next ranking, not crawled
            self.crawler.stats.set_value("bitext/expand/ranked", len(ranking))
        self.write_outputs()

    def closed(self, reason):
        """Every site's store closed (an interrupted crawl leaves some open)."""
        for site in self.sites.values():
            site.context.close()

    def _sites(self, *phases) -> list[SiteCrawl]:
        return [s for s in self.sites.values() if s.phase in phases]

    def check_sites(self) -> int:
        """Bilingual-site check of every site still being checked [Shi 2006 §3 step 1];
        returns how many sites passed (their held links are released) or were opened in
        place of a site that could not be checked."""
        stats = self.crawler.stats
        passed = 0
        for site in self._sites(CHECK):
            if not site.responses and site.errors:
                passed += self.check_failed(site)
                continue
            site.detection = detect_bilingual(self.read_pages(site), self.langs, site=site.site)
            stats.inc_value("bitext/expand/checked")
            if site.detection.bilingual or (site.seed and not self.check_seeds):
                stats.inc_value("bitext/expand/bilingual")
                site.phase = CRAWL
                passed += 1
                for request in site.release():
                    self.context.frontier.schedule(request)
                logger.info("Round %d: %s is bilingual (%s); crawling it", self.round,
                            site.site, site.detection.evidence["reason"])
            else:
                stats.inc_value("bitext/expand/dropped")
                self.site_pipelines.close_site(site)
                site.held = {}
                site.phase = DROPPED
                logger.info("Round %d: %s dropped, not bilingual (%s)", self.round,
                            site.site, site.detection.evidence["reason"])
        return passed

    def check_failed(self, site: SiteCrawl) -> int:
        """A site no check request reached (connection refused, DNS, robots.txt): reported,
        and the next site of the round's ranking opened in its place (a failed
        check does not waste a place of the top K). Returns 1 if a site was opened."""
        stats = self.crawler.stats
        site.failure = site.errors.most_common(1)[0][0]
        stats.inc_value("bitext/expand/failed")
        self.site_pipelines.close_site(site)
        site.context.close()   # nothing more is read of it
        site.held = {}
        site.phase = FAILED
        logger.info("Round %d: %s could not be checked (%s)", self.round, site.site,
                    site.failure)
        if site.seed or not self.replace_failed:
            return 0
        tried = [s for s in self.sites]
        nxt = self.expansion.next_candidate(self.round, tried)
        if nxt is None:
            return 0
        stats.inc_value("bitext/expand/replaced")
        logger.info("Round %d: %s takes the place of %s", self.round, nxt, site.site)
        for request in self.open_site(nxt, self._start_urls(nxt), replaces=site.site):
            self.context.frontier.schedule(request)
        return 1

    def read_pages(self, site: SiteCrawl) -> list[PageRecord]:
        return list(site.context.store)

    def finish_round(self) -> None:
        """Close every site of the round: alignment, C(w), outlinks, verdict (§2.3 step 1)."""
        stats = self.crawler.stats
        pattern_db = PatternDB(self.pattern_db_path)
        for site in sorted(self._sites(CRAWL, DROPPED, FAILED), key=lambda s: s.site):
            if site.phase == FAILED:
                site.phase = CLOSED
                self.expansion.record(SiteResult(
                    site.site, site.round, False, seed=site.seed, reason=site.failure,
                    output_dir=site.output_dir, failed=site.failure, replaces=site.replaces))
                continue
            bilingual = site.phase == CRAWL
            if bilingual:
                self.site_pipelines.close_site(site)
            pages = self.read_pages(site)
            site.context.close()
            detection = site.detection or detect_bilingual(pages, self.langs, site=site.site)
            result = SiteResult(site.site, site.round, bilingual, seed=site.seed,
                                pages=len(pages), reason=detection.evidence["reason"],
                                output_dir=site.output_dir, detection=detection.evidence,
                                replaces=site.replaces)
            evidence = None
            if bilingual:
                self.align_site(site, pages, pattern_db, result)
                stats.inc_value("bitext/expand/added")
                count_landing(self.landing, site.site, pages)
                evidence = site_link_evidence(pages, self.langs,
                                              self._pairs(site)).get(site.site, {})
            site.phase = CLOSED
            self.expansion.record(result, outlink_counts(pages).get(site.site, {}), evidence)
        stats.set_value("bitext/expand/rounds", self.round)
        stats.set_value("bitext/expand/members", len(self.expansion.members))
        self.write_outputs()

    def align_site(self, site: SiteCrawl, pages: list, pattern_db: PatternDB,
                   result: SiteResult) -> None:
        """The closing alignment into the site's own output dir; C(w) from the pattern DB."""
        facts = {"bitext/expand/site": site.site, "bitext/expand/round": site.round,
                 "bitext/expand/pages": len(pages)}
        if self.align_enabled:
            from bitextcrawl.outputs import run_closing

            run_closing(pages, self.align_config, site.output_dir, pattern_db=pattern_db,
                        crawl_stats=facts)
        else:  # URL patterns only, so that C(w) is still known
            learner = UrlPatternLearner(langs=self.langs,
                                        local_threshold=self.align_config.pattern_local_threshold,
                                        rescue_threshold=self.align_config.pattern_rescue_threshold,
                                        pattern_db=pattern_db)
            site_pages = canonical_pages(pages, langs=self.langs)
            urls = {}
            for page in site_pages.pages:
                if page.lang in self.langs:
                    urls.setdefault(page.lang, []).append(page.url)
            # |w| as the closing alignment counts it: distinct pages, all languages
            learner.fit(urls, site_size=site_pages.size)
            pattern_db.update(site.site, learner.patterns_, site_size=learner.site_size_)
            pattern_db.save()
        result.credibility = pattern_db.site_credibility(site.site)

    def _pairs(self, site: SiteCrawl) -> list[tuple[str, str]] | None:
        """The site's pairs from its ``pairs.jsonl`` (None without the closing alignment)."""
        path = os.path.join(site.output_dir, "pairs.jsonl")
        if not self.align_enabled or not os.path.exists(path):
            return None
        return [(d["url_1"], d["url_2"]) for d in iter_jsonl(path)]

    def next_round(self) -> bool:
        """Rank the sites linked from the set and start crawling the top K (§2.3 step 2)."""
        self.round += 1
        ranking = self.expansion.rank(self.round)
        chosen = self.expansion.select(ranking)
        self.crawler.stats.set_value("bitext/expand/ranked", len(ranking))
        if not chosen:
            logger.info("Round %d: no site left to explore", self.round)
            return False
        logger.info("Round %d: crawling %d of %d ranked sites: %s", self.round, len(chosen),
                    len(ranking), ", ".join(chosen))
        for site in chosen:
            for request in self.open_site(site, self._start_urls(site)):
                self.context.frontier.schedule(request)
        return True

    def _start_urls(self, site: str) -> list[str]:
        return site_start_urls(site, self.landing)

    def write_outputs(self) -> None:
        """``expansion.jsonl`` (every round's ranking) and ``sites.jsonl`` (every site checked)."""
        write_jsonl(os.path.join(self.output_dir, "expansion.jsonl"), self.expansion.all_rows())
        write_jsonl(os.path.join(self.output_dir, "sites.jsonl"),
                    (res.to_dict() for _, res in sorted(self.expansion.results.items())))
