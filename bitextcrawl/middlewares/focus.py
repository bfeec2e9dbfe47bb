"""Focused crawling: links ordered, held and dropped by what is known of their language
before download, so that fewer responses are spent per pair found.

The judgement is the focus's rules (``focus/rules/``), in the order of
``BITEXT_FOCUS_RULES``, over the pure policies of :mod:`bitextcrawl.focus` (the evidence
of a link's language, yield learning, the site's shape, which links wait) and
:mod:`bitextcrawl.sites.small_side`. This spider middleware builds them once, hands the
rules the crawl's links, pages, error answers and idle rounds through their hooks, and
schedules what they release (through the frontier); it keeps the focus's section of the
crawl state. Before download, :class:`HeldLinksMiddleware` hands them each request.
"""

from __future__ import annotations

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.request import request_from_dict

from bitextcrawl.focus.marks import mark, marks
from bitextcrawl.config import getbool
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.context import CrawlContext
from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.focus.bars import BarAbsence, WordsLang
from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Priorities
from bitextcrawl.focus.links import LinkJudge
from bitextcrawl.focus.persist import kept_section, load_focus_section
from bitextcrawl.focus.queue import FocusQueue, FocusState
from bitextcrawl.focus.rules.base import defining
from bitextcrawl.focus.sections import SectionIndexes
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.sharing import FocusSharing
from bitextcrawl.focus.walk import SmallSideWalk, held_by_lang
from bitextcrawl.focus.yields import YieldLearning

# (the downloader side; settings written before it had its own module name it here)
from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
from bitextcrawl.middlewares.focus_rules import active_rules, build_rules
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.signals import held_links, pages_paired

__all__ = ["FocusMiddleware", "HeldLinksMiddleware"]


def priorities(s, active: set) -> Priorities:
    """The focus's settings, read once (``active``: the names of the active rules)."""
    mode = (s.get("BITEXT_FOCUS_OTHER_LANG_LINKS") or "evidence").strip().lower()
    if mode not in ("evidence", "all"):
        raise ValueError(f"BITEXT_FOCUS_OTHER_LANG_LINKS must be 'evidence' or 'all', "
                         f"not {mode!r}")
    return Priorities(
        bonus=s.getint("BITEXT_FOCUS_LANG_LINK_PRIORITY"),
        cross_bonus=s.getint("BITEXT_FOCUS_CROSS_LANG_PRIORITY"),
        scarce_bonus=s.getint("BITEXT_FOCUS_SCARCE_LANG_PRIORITY"),
        other_page_priority=s.getint("BITEXT_FOCUS_OTHER_PAGE_PRIORITY"),
        drop_other="drop_other_lang" in active, other_lang_links=mode,
        promote="promote" in active,
        yield_learning=getbool(s, "BITEXT_FOCUS_YIELD_ENABLED"),
        yield_min_pages=max(1, s.getint("BITEXT_FOCUS_YIELD_MIN_PAGES")),
        yield_min_rate=s.getfloat("BITEXT_FOCUS_YIELD_MIN_RATE"),
        hold_queued=getbool(s, "BITEXT_FOCUS_HOLD_QUEUED_ENABLED"))


class FocusMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        s, context = crawler.settings, self.context
        self.stats = crawler.stats
        rule_classes = active_rules(s)   # (focus/rules/, in their order)
        self.config = priorities(s, {cls.name for cls in rule_classes})
        # the crawl state's URL tokens and page counts (crawl_state.py), which the spider
        # feeds; a state of its own under a spider of another project
        self.state = state = context.state if context is not None else CrawlState(
            s.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES"),
            s.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY"))
        self.evidence = LinkEvidence(self.langs, state.url_tokens.links,
                                     lambda: state.url_tokens.slots.slots())
        self.yields, self.queue = YieldLearning(), FocusQueue()
        # one-way translation and switch absence: on where their rules are
        self.shape = SiteShape(self.langs, one_way=False, switch_absence=False,
                               pages_by_lang=state.pages_by_lang)
        one_site = lambda: getattr(self.context, "site", None) is not None  # noqa: E731
        self.judge = LinkJudge(
            self.config, self.queue, self.evidence, self.yields, self.shape, self.stats,
            langs=lambda: self.langs, one_site=one_site,
            start_url=lambda: getattr(self.context, "start_url", "") or "",
            small_lang=lambda: self.walk.small_lang())
        self.holding = self.judge.holding
        # the small side's walk (focus/walk.py): on where its rule is
        self.walk = SmallSideWalk(
            False, lambda: self.langs, one_site, self.evidence, self.queue.downloaded,
            self.stats, self._schedule, lambda *a, **kw: self.context.page_request(*a, **kw),
            self.config.bonus + self.config.cross_bonus + self.config.scarce_bonus)
        parts = self.judge.parts
        parts.schedule, parts.walk, parts.original_url = \
            self._schedule, self.walk, state.original_url
        parts.site_tokens = lambda: state.url_tokens.site
        parts.in_scope = context.in_scope if context is not None else None
        parts.words_lang = WordsLang(s.get("BITEXT_LID_MODEL") or None,
                                     s.getfloat("BITEXT_LID_MIN_PROB", 0.5))
        # the rules, each turning on the policy it judges by with its thresholds
        rules = build_rules(rule_classes, parts, s)
        self.judge.use_rules(rules)
        # hooks on what comes back and on the crawl running dry, in the reverse order (as
        # Scrapy's process_response)
        self.page_rules = defining(rules, "page")[::-1]
        self.error_rules = defining(rules, "error")[::-1]
        self.idle_rules = defining(rules, "idle")[::-1]
        self.bars = parts.bars or BarAbsence(lambda: self.langs, enabled=False)
        self.sections = parts.sections or SectionIndexes(enabled=False)
        for signal, handler in ((pages_paired, self.pages_paired),
                                (signals.response_received, self.response_received),
                                (signals.request_scheduled, self.request_scheduled),
                                (signals.request_dropped, self.request_dropped),
                                (signals.spider_closed, self.spider_closed),
                                (signals.spider_opened, self.spider_opened),
                                (held_links, self.held_links)):
            crawler.signals.connect(handler, signal=signal)
        self.sharing: FocusSharing | None = None
        if context is not None:
            self._share(context, rules)

    def _share(self, context, rules: list) -> None:
        """The focus's state in the crawl state: read by the downloader side
        (``HeldLinksMiddleware``) and, in a distributed crawl, shared with the other
        workers (``focus/sharing.py``)."""
        spider = self.crawler.spider
        focus = context.state.focus = FocusState(
            self.queue, self.evidence, self.yields, self.shape, lambda: self.small_side,
            self.bars, self.sections, self.holding.waits)
        self.sharing = focus.sharing = FocusSharing(
            context.state, self.queue, self.yields, self.stats, self.learn_page,
            lambda request: request.to_dict(spider=spider),
            lambda data: request_from_dict(data, spider=spider),
            lambda: self.small_side, self._schedule, self.sections, self.bars,
            self.error_answer)
        focus.request_rules = defining(rules, "request")
        focus.answer_rules = defining(rules, "answered")
        context.state.add_section("focus", self._state, shared=True)
        context.add_idle_task("held_links", self.release_held)
        context.frontier.add_own_keeps(self._keeps_own)
        context.frontier.judge = self.judge.scheduled

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("BITEXT_FOCUS_ENABLED"):
            raise NotConfigured
        return cls(crawler)

    @property
    def context(self) -> CrawlContext | None:
        """The crawl's context; None under a spider of another project (``scrapy shell``)."""
        return getattr(self.crawler, CONTEXT_ATTRIBUTE, None)

    @property
    def langs(self) -> tuple:
        context = self.context
        return context.langs if context is not None else ()

    @property
    def small_side(self):
        return self.walk.side

    # (what tests read of the policies)
    @property
    def tokens(self):
        return self.evidence.tokens

    @property
    def pages_by_lang(self):
        return self.shape.pages_by_lang

    def _sample(self, url: str, lang: str, yielded: bool = False) -> None:
        if self.yields.sample(url, lang, yielded):
            self.stats.inc_value(f"bitext/focus/yield/samples/{lang}")
            if self.sharing is not None:
                self.sharing.sample(url, lang, yielded)

    def held_links(self) -> dict[str, list[str]]:
        return held_by_lang(self.queue, self.small_side)

    def pages_paired(self, urls):
        for url in urls:
            self.yields.yielded_page(url)

    def response_received(self, response, request, spider=None):
        self.queue.downloaded.add(request.url)
        if response.status < 400:
            return
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        self.error_answer(url, response.status, request)
        if self.sharing is not None:
            self.sharing.error(url, response.status)
        lang = marks(request.meta).chain
        if lang:   # a broken same-language link: yielded nothing
            self._sample(url, lang)

    def error_answer(self, url: str, status: int, request=None) -> None:
        """An error answer to ``url``, here (``request``) or another worker's
        (``FocusSharing``): to the rules."""
        for rule in self.error_rules:
            rule.error(url, status, request)

    def request_scheduled(self, request, spider=None):
        self.queue.scheduled(request)

    def request_dropped(self, request, spider=None):
        self.queue.dropped(request)

    def _schedule(self, request) -> None:
        self.context.frontier.schedule(request)

    def release_held(self) -> bool:
        """The idle task ``held_links``: what the rules release when the crawl runs dry,
        unless ``max_pages`` is reached. True if some reached the scheduler's queue (a
        release the dupefilter drops brings nothing)."""
        context = self.context
        left = context.budget_left() if context is not None else 0
        if context is None or (left is not None and left <= 0):
            return False
        enqueued, released = context.frontier.enqueued, 0
        for rule in self.idle_rules:
            requests = rule.idle()
            for request in requests:
                self._schedule(request)
            released += len(requests)
        if released:
            self.stats.inc_value("bitext/focus/released", released)
        return context.frontier.enqueued > enqueued

    def _keeps_own(self) -> bool:
        """Requests kept by this worker's rules, which only its idle pass releases: the
        links section indexes and bars keep, and a family's links waiting for its test."""
        families = self.queue.families
        return bool(self.sections.kept or self.bars.kept or families.left()
                    or families.testing)

    def spider_opened(self, spider=None):
        """A resumed crawl (JOBDIR) gets back the links held when it stopped cleanly, and
        the counts its holding decisions rest on (with the page count alone, a resumed
        crawl judged a two-way site one-way and held its links)."""
        context = self.context
        if context is None:
            return
        context.replay_store()   # the stored pages' URL tokens and counts (crawl_state.py)
        self.walk.resumed = load_focus_section(
            context.state_section("focus", {}), self.queue, self.yields, self.shape,
            context.page_request)

    def _state(self) -> dict:
        """The focus's section of the crawl state (persisted at a clean stop)."""
        side = self.walk._side
        return kept_section(self.queue, self.yields, self.shape,
                            side.held if side is not None else {}, self.sections.kept)

    def spider_closed(self, spider=None, reason=None):
        stats, families = self.stats, self.queue.families
        stats.set_value("bitext/focus/held_at_close",
                        sum(len(h) for h in self.queue.held.values()))
        if self.sections.kept:
            stats.set_value("bitext/focus/sections/kept_at_close", len(self.sections.kept))
        if families.left():
            stats.set_value("bitext/focus/family/left", families.left())
        for lang in self.langs:
            if self.yields.samples[lang]:
                stats.set_value(f"bitext/focus/yield/rate/{lang}",
                                round(self.yields.rate(lang), 3))

    # ---- items and requests ----------------------------------------------------------------

    def get_processed_item(self, item, response):
        if not isinstance(item, PageRecord):
            return item
        if self.context is None:   # (no spider of ours fed the crawl state)
            self.state.learn_page(item)
        self.learn_page(item, response)
        chain = marks(response.meta).chain if response is not None else None
        if chain:
            other_wanted = item.lang in self.langs and item.lang != chain
            self._sample(item.url, chain, yielded=other_wanted)
            if item.requested_url and item.requested_url != item.url:
                self.yields.sample_of.setdefault(item.requested_url, chain)
        return item

    def learn_page(self, item: PageRecord, response=None) -> None:
        """What a page the crawl state learned teaches the focus (a page of this worker's,
        with its ``response``, or of another worker of a distributed crawl:
        ``FocusSharing.remote_page``): queued links judged again where it taught a URL
        token, the rules' ``page`` hooks, and what the page says of its translations."""
        if self.evidence.learned(item.url):
            for request in self.judge.rejudge_queued():
                self._schedule(request)
            self.walk.relearn()
        request = response.request if response is not None else None
        for rule in self.page_rules:
            rule.page(item, request)
        langs = self.langs
        if item.lang in langs:
            self.judge.observe(item, page_named_unlinked(item, langs)
                               if self.shape.switch_absence else frozenset())

    def get_processed_request(self, request, response):
        if response is None:
            return request
        if marks(request.meta).linked_from is None:   # (focus/sections.py)
            mark(request.meta, linked_from=response.url)
        return self.judge.request(request, response.meta,
                                  getattr(response.request, "url", None))
