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
ΣPageRank, ΣLinkout), and the top K start the next round. The phases and rounds are
:class:`~bitextcrawl.sites.phases.SitePhases` (pure), run when the crawl runs dry (the
frontier's idle task ``expand_rounds``); this spider crawls the sites. ``expansion.jsonl`` and
``sites.jsonl`` in the output dir are rewritten after each round. Round state lives in
memory: an expand crawl is not resumable with ``JOBDIR``.
"""

from __future__ import annotations

import logging
import os

from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import build_from_crawler, load_object

from bitextcrawl import config
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.urls import site_of
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.sites.detect import detection_order
from bitextcrawl.sites.expansion import Expansion, read_seeds, site_root
from bitextcrawl.sites.graph import CRITERION_NAMES
from bitextcrawl.sites.rounds import RoundPlanner
from bitextcrawl.signals import site_mark
from bitextcrawl.spiders.bitext import BitextSpider, settings_langs, whole_number

# (the sites' side and their phases; names this module had before they had their own)
from bitextcrawl.sites.phases import CHECK, CLOSED, CRAWL, DROPPED, FAILED, SitePhases
from bitextcrawl.spiders.expand_sites import HoldMiddleware, SiteCrawl, failure_kind

__all__ = ["CHECK", "CLOSED", "CRAWL", "DROPPED", "FAILED", "ExpandSpider", "HoldMiddleware",
           "SiteCrawl", "SitePipelines", "failure_kind", "seed_list"]

logger = logging.getLogger(__name__)

NO_SEEDS = ("the expand spider needs a seed list: pass -a seeds=FILE (one site URL a line), "
            "e.g. scrapy crawl expand -a seeds=seeds.txt -a langs=en,fr")


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


def check_arguments(cls, settings, seeds=None, langs=None, rounds=None, top_k=None,
                    max_pages=None, criterion=None, **_) -> None:
    """As :meth:`BitextSpider.check_arguments`, for the expand spider's arguments (its
    classmethod ``check_arguments``)."""
    seed_list(seeds)
    settings_langs(langs, settings)
    for name, value, example in (("rounds", rounds, 2), ("top_k", top_k, 10),
                                 ("max_pages", max_pages, 200)):
        whole_number(name, value, example)
    if criterion and criterion not in CRITERION_NAMES:
        raise ValueError(f"unknown criterion {criterion!r}: pass -a criterion= one of "
                         + ", ".join(CRITERION_NAMES))


#: Item pipelines an expand crawl does not run per site (it runs their work itself).
ROUND_END_PIPELINES = (ClosingPipeline,)


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

    @classmethod
    def configure(cls, settings) -> None:
        """The expand crawl's item pipelines: this one, and per site those of
        ``BITEXT_EXPAND_SITE_PIPELINES`` (by default the crawl's, but the round-end ones)."""
        if not settings.getdict("BITEXT_EXPAND_SITE_PIPELINES"):
            skip = set(ROUND_END_PIPELINES) | {cls}
            per_site = {path: order for path, order
                        in settings.getwithbase("ITEM_PIPELINES").items()
                        if order is not None and load_object(path) not in skip}
            settings.set("BITEXT_EXPAND_SITE_PIPELINES", per_site, priority="spider")
        settings.set("ITEM_PIPELINES", {cls: 100}, priority="spider")

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

    check_arguments = classmethod(check_arguments)

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        SitePipelines.configure(settings)
        middlewares = dict(settings.getdict("SPIDER_MIDDLEWARES"))
        middlewares.setdefault(HoldMiddleware, 700)  # after focus (800) on the way out
        settings.set("SPIDER_MIDDLEWARES", middlewares, priority="spider")

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # the rounds advance as the frontier's last idle task (extensions/frontier.py);
        # not stoppable by the frontier's rule: each site's tasks have a rule of their
        # own, and the rounds are bounded (BITEXT_EXPAND_ROUNDS)
        phases, frontier = spider.phases, spider.context.frontier
        phases.schedule = frontier.schedule
        phases.open_site = lambda site, urls, replaces: spider.open_site(
            site, urls, replaces=replaces)
        phases.site_idle = lambda site: spider.site_pipelines.site_idle(site)
        phases.close_pipelines = lambda site: spider.site_pipelines.close_site(site)
        spider.context.add_idle_task("expand_rounds", phases.idle, stoppable=False)
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
        self.expansion = Expansion(
            criterion=self._criterion_arg or s.get("BITEXT_EXPAND_CRITERION"),
            top_k=int(self._top_k_arg if self._top_k_arg is not None
                      else s.getint("BITEXT_EXPAND_TOP_K")))
        self.pattern_db_path = config.pattern_db_path(s)
        # imported here: Scrapy's spider loader imports this module for every crawl, and
        # the pairing models' imports (scipy, networkx) would delay them all
        from bitextcrawl.pairing.align import AlignConfig

        # the sites' phases and the rounds (sites/phases.py)
        self.phases = SitePhases(
            RoundPlanner(self.expansion, self.langs), self.rounds,
            config.getbool(s, "BITEXT_EXPAND_CHECK_SEEDS_ENABLED"),
            config.getbool(s, "BITEXT_EXPAND_REPLACE_FAILED_ENABLED"), self.output_dir,
            self.pattern_db_path, AlignConfig.from_settings(s, self.langs),
            s.getbool("BITEXT_ALIGN_ENABLED"))
        self.phases.sites = self.sites

    # ------------------------------------------------------------------ requests
    async def start(self):
        self.phases.stats = self.crawler.stats   # (set once the crawl starts)
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
        crawl = SiteCrawl(self, site, list(dict.fromkeys(start_urls)), self.phases.round,
                          seed=seed, replaces=replaces)
        if seed and not self.phases.check_seeds:
            crawl.phase = CRAWL
        self.sites[site] = crawl
        self.site_pipelines.open_site(crawl)
        self.crawler.stats.inc_value("bitext/expand/sites")
        return [crawl.page_request(url, discovered_by="start", check="root")
                for url in crawl.start_urls]

    def in_scope(self, url: str) -> bool:
        site = self.sites.get(site_of(url))
        return site is not None and site.is_open

    def on_error(self, failure):
        """As the ``bitext`` spider counts it; and the site keeps why (a failed check)."""
        super().on_error(failure)
        request = getattr(failure, "request", None)
        site = self._site_of(request.meta) if request is not None else None
        if site is not None and not (request.meta.get("bitext_held")):
            site.no_response(failure_kind(failure))

    def _site_of(self, meta) -> SiteCrawl | None:
        """The site a request (its ``meta``) was made for."""
        mark = site_mark(meta)
        return self.sites.get(mark.site) if mark is not None else None

    def _answered(self, request) -> None:
        """The crawl's and the request's site's crawl state both keep the answered URLs."""
        super()._answered(request)
        site = self._site_of(request.meta)
        if site is not None:
            site.context.state.answer(request.url, request.meta.get("redirect_urls", ()))

    def parse(self, response):
        asked = self._site_of(response.meta)
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
        site.learn(page)
        yield page
        checking = site.phase == CHECK
        mark = site_mark(response.meta)
        from_root = checking and mark is not None and mark.check == "root"
        if from_root:
            site.check_urls.add(page.url)
        links = detection_order(page.links, self.langs) if from_root else page.links
        yield from site.link_requests(
            (link for link in links if self.followable(link["url"], site.in_scope)),
            from_root, checking)

    # ------------------------------------------------------------------ rounds
    def closed(self, reason):
        """Every site's store closed (an interrupted crawl leaves some open)."""
        for site in self.sites.values():
            site.context.close()
