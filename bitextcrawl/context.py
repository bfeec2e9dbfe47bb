"""The crawl context: what the components of one site crawl share.

One is made per site crawl, by the spider that knows the site (``BitextSpider.from_crawler``
from its arguments; the expand spider one more per site it opens), and kept on the crawler
as Scrapy keeps ``crawler.stats``: every middleware, pipeline and extension reaches it with
``CrawlContext.from_crawler(crawler)``, none reads crawl state off the spider.

It holds the output dir, the languages, the scope and the page budget; the pattern
database the crawl's URL-pattern learners read and a factory of those learners; the one
open page store
(:class:`~bitextcrawl.store.PageStore`, opened on first use, closed once by :meth:`close`
when the engine stops or the expand spider is done with the site); the signals the site's
components listen on (the crawler's; for an expand site, its view of the crawler's,
:class:`~bitextcrawl.signals.SiteSignals`, which hears that site's events only); and the
request factory; the crawl state (:class:`~bitextcrawl.crawl_state.CrawlState`: what
the crawl has learned, persisted once); the crawl's record workers; and the frontier (:class:`~bitextcrawl.extensions.frontier.Frontier`),
where every component schedules its requests and registers its idle-time work.
Nothing else: what the components compute stays in them and in the pure modules.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from scrapy import signals
from scrapy.exceptions import NotConfigured

from bitextcrawl.config import pattern_db_path
from bitextcrawl import defaults
from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.extensions.frontier import Frontier
from bitextcrawl.pairing.pattern_db import PatternDB
from bitextcrawl.pairing.url_patterns import UrlPatternLearner
from bitextcrawl.store import PageStore, open_store

ATTRIBUTE = "bitext_context"   # where the crawler keeps it

logger = logging.getLogger(__name__)


class CrawlContext:
    def __init__(self, settings, output_dir: str, langs: tuple[str, ...], *,
                 request_factory: Callable, scope: Callable[[str], bool],
                 site: str | None = None, start_url: str = "", max_pages: int = 0,
                 signals=None, pattern_db: str | None = None, response_budget: bool = False,
                 frontier: Frontier | None = None):
        self.settings = settings
        self.output_dir = output_dir
        self.langs = tuple(langs)
        self.site = site              # None: many sites at once (the expand spider's crawl)
        self.start_url = start_url
        self.max_pages = max_pages    # 0: no limit
        self.pages_seen = 0           # pages the spider kept (and, resumed, stored before)
        # True: max_pages is a budget of responses (the bitext spider's): requests sent to
        # the downloader count, those in flight included; False: of pages kept
        self.response_budget = response_budget
        self.requests_sent = 0
        self._budget_base: int | None = None
        # a shared database only where asked for (BITEXT_PATTERN_DB, or the caller's)
        self.pattern_db_path = pattern_db or pattern_db_path(settings, output_dir)
        self.signals = signals
        # where requests are scheduled and the idle-time work runs (the crawler's one)
        self.frontier = frontier
        # what the crawl has learned (crawl_state.py)
        self.state = CrawlState(
            settings.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES",
                            defaults.BITEXT_FOCUS_URL_TOKEN_MIN_PAGES),
            settings.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY",
                              defaults.BITEXT_FOCUS_URL_TOKEN_PURITY))
        self.record_workers = None      # the crawl's record workers (the language-ID
        #                                 middleware's), where it has them
        self._request_factory = request_factory
        self._scope = scope
        self._store: PageStore | None = None
        self._pattern_db: PatternDB | None = None
        self.closed = False

    @classmethod
    def from_crawler(cls, crawler) -> "CrawlContext":
        """The crawler's context (the spider made it); NotConfigured without one."""
        context = getattr(crawler, ATTRIBUTE, None)
        if context is None:
            raise NotConfigured("no crawl context: run a bitextcrawl spider")
        return context

    @classmethod
    def frontier_of(cls, crawler) -> Frontier:
        """The crawl's frontier; a frontier of its own for a crawler without a crawl
        context (a spider of another project in a project that enables bitextcrawl)."""
        context = getattr(crawler, ATTRIBUTE, None)
        return context.frontier if context is not None else Frontier(crawler)

    def add_idle_task(self, name: str, fn: Callable, when_idle: bool = False,
                      progress: Callable[[], object] | None = None,
                      stoppable: bool = True) -> None:
        """Idle-time work of this crawl (see :meth:`Frontier.add_idle_task`)."""
        self.frontier.add_idle_task(name, fn, key=self, when_idle=when_idle,
                                    progress=progress, stoppable=stoppable)

    def install(self, crawler) -> "CrawlContext":
        """Keep this context on ``crawler``; its store closes when the engine stops."""
        if self.signals is None:
            self.signals = crawler.signals
        if self.frontier is None:
            self.frontier = Frontier(crawler, owner=self)
        setattr(crawler, ATTRIBUTE, self)
        crawler.signals.connect(self.save_state, signal=signals.spider_closed)
        # after spider_closed, whose handlers still write to the store
        crawler.signals.connect(self.close, signal=signals.engine_stopped)
        return self

    # ---- what the components ask -----------------------------------------------------

    @property
    def store(self) -> PageStore:
        """The page store of this crawl, opened on first use."""
        if self._store is None:
            if self.closed:
                raise RuntimeError(f"the crawl context of {self.output_dir} is closed")
            self._store = open_store(self.settings, self.output_dir)
        return self._store

    @property
    def pattern_db(self) -> PatternDB:
        """The pattern database as it stood when first asked (read-only during the crawl:
        the closing alignment reads it afresh and records this site in it)."""
        if self._pattern_db is None:
            self._pattern_db = PatternDB(self.pattern_db_path)
        return self._pattern_db

    def url_pattern_learner(self, langs: tuple[str, ...] | None = None,
                            **options) -> UrlPatternLearner:
        """A URL-pattern learner for this crawl [Zhang 2013]: its languages (or ``langs``),
        the thresholds of the settings, the pattern database; ``options`` as the learner's."""
        s = self.settings
        return UrlPatternLearner(langs=tuple(langs or self.langs),
                                 local_threshold=s.getfloat("BITEXT_PATTERN_LOCAL_THRESHOLD"),
                                 rescue_threshold=s.getfloat("BITEXT_PATTERN_RESCUE_THRESHOLD"),
                                 pattern_db=self.pattern_db, **options)

    def state_section(self, name: str, default=None):
        """What the crawl state's section ``name`` held when the last run stopped."""
        return self.state.section(self.store, name, default)

    def replay_store(self) -> None:
        """A resumed crawl's stored records, read once, to every component that indexes
        them (``state.on_stored_record``)."""
        self.state.replay(self.store)

    def save_state(self) -> None:
        """The crawl state, persisted once in the store's meta (a clean stop). On a full
        disk it is not (one WARNING line): the pages stored are intact, and a crawl that
        finished needs its state only to be resumed."""
        if not self.closed and self.state.has_sections():
            try:
                self.state.save(self.store)
            except OSError as exc:
                logger.warning("The crawl state was not saved in the page store: %s",
                               exc.strerror or exc)

    def in_scope(self, url: str) -> bool:
        return self._scope(url)

    def page_request(self, url: str, discovered_by: str = "link", link: dict | None = None,
                     priority: int = 0, **meta):
        """A request for a page of this crawl (the spider's callbacks, this site's meta)."""
        return self._request_factory(url, discovered_by=discovered_by, link=link,
                                     priority=priority, **meta)

    def take_page(self) -> bool:
        """Count a page the spider keeps; False (not counted) once ``max_pages`` are."""
        if self.max_pages and self.pages_seen >= self.max_pages:
            return False
        self.pages_seen += 1
        return True

    def take_request(self) -> bool:
        """Count a request about to be downloaded; False (not counted) once the response
        budget is spent (a budget of ``max_pages`` responses only, else always True)."""
        if not (self.response_budget and self.max_pages):
            return True
        if self._budget_base is None:   # the pages a resumed crawl stored before
            self._budget_base = self.pages_seen
        if self._budget_base + self.requests_sent >= self.max_pages:
            return False
        self.requests_sent += 1
        return True

    def budget_left(self) -> int | None:
        """Pages (responses, for a response budget) ``max_pages`` still leaves room for;
        None without a limit."""
        if not self.max_pages:
            return None
        used = self.pages_seen
        if self.response_budget:
            used = max(used, (self._budget_base or 0) + self.requests_sent)
        return self.max_pages - used

    def close(self) -> None:
        """Close the page store; once (later calls do nothing)."""
        if self.closed:
            return
        self.closed = True
        if self._store is not None:
            self._store.close()
            self._store = None
