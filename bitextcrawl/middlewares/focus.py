"""Focused crawling: order links by what is known of their language before download,
and learn which links pay (fewer responses per pair found).

Evidence, strongest first: the link's ``hreflang``; a language-switch anchor text
("Français", "EN", "中文"); language tokens in the URL (``/de/``, ``lang=de``) learned
from the pages stored so far. Links known to lead to another language are dropped.
Links found on pages of other languages are followed only with evidence that they
lead to a wanted language (``BITEXT_FOCUS_OTHER_LANG_LINKS="all"``: all of them, last).

Yield learning. A language switch into another wanted language is followed first.
Every other link of a wanted-language page — same language, unknown language, or an
ordinary link into another wanted language (a site makes those where its own
translation is missing) — is a *sample* of the language it leads to. A sample yields
when its page is the first of a pair (the URL-pairing pipeline tells, by the
``pages_paired`` signal, which page of a new pair was stored first), carries a switch
into another wanted language, or is itself in another wanted language. When a language
that is not the scarcest has ``BITEXT_FOCUS_YIELD_MIN_PAGES`` samples and fewer than
``BITEXT_FOCUS_YIELD_MIN_RATE`` of them yielded, its further links are *held*: kept
here, not scheduled (and those already queued are held at download by
:class:`HeldLinksMiddleware`). When the crawl runs dry and the yield has come back
(deep page recovery paired some), they are released; deep page recovery guesses the
counterparts of held links first (``held_links`` signal) and requests a held page
whose counterpart it found. Held links and the counts survive a clean stop.

Switch absence: where most pages of language A carry a switch into B, a link to a B
page whose A counterpart (URL tokens swapped) is stored showing B's name without a link
is not followed — the site says the translation does not exist.

The judgements are pure classes of :mod:`bitextcrawl.focus` (link evidence, yield
learning, one-way translation and switch absence, the judgement of a link:
``focus/links.py``, which links wait: ``focus/holding.py``; the state section:
``focus/persist.py``) and
:mod:`bitextcrawl.sites.small_side`; this middleware hands them the crawl's pages, links
and requests, holds and releases links (through the frontier), and keeps their section
of the crawl state.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.request import request_from_dict

from bitextcrawl.config import getbool
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.context import CrawlContext
from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.focus.bars import BarAbsence, BarWatch
from bitextcrawl.focus.sections import SectionIndexes, SectionWatch
from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Priorities
from bitextcrawl.focus.links import LinkJudge
from bitextcrawl.focus.persist import focus_section, load_focus_section
from bitextcrawl.focus.queue import FocusQueue, FocusState
from bitextcrawl.focus.rules.base import FocusRule
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.sharing import FocusSharing
from bitextcrawl.focus.yields import YieldLearning

# (the downloader side; settings written before it had its own module name it here)
from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
from bitextcrawl.middlewares.focus_rules import active_rules, build_rules
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.language import LanguageIdentifier
from bitextcrawl.signals import held_links, pages_paired
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.focus.walk import SmallSideWalk
from bitextcrawl.sites.small_side import SmallSide

__all__ = ["FocusMiddleware", "HeldLinksMiddleware"]

logger = logging.getLogger(__name__)


class _WordsLang:
    """The language lid.176 reads a list item's words in, with the probability a page's
    text needs (``BITEXT_LID_MIN_PROB``), for bar absence's rule LISTED; the model is
    loaded once per process (pages.language)."""

    def __init__(self, model_file: str | None, min_prob: float):
        self.model_file, self.min_prob = model_file, min_prob
        self._identifier = None

    def __call__(self, words: str) -> str | None:
        if self._identifier is None:
            self._identifier = LanguageIdentifier(self.model_file, self.min_prob)
        lang, prob = self._identifier.predict(words)
        return lang if lang and prob >= self.min_prob else None


class FocusMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        s = crawler.settings
        self.stats = crawler.stats
        mode = (s.get("BITEXT_FOCUS_OTHER_LANG_LINKS") or "evidence").strip().lower()
        if mode not in ("evidence", "all"):
            raise ValueError(f"BITEXT_FOCUS_OTHER_LANG_LINKS must be 'evidence' or 'all', "
                             f"not {mode!r}")
        # the active rules, in their order (focus/rules/); a rule off leaves its policy off
        rule_classes = active_rules(s)
        active = {cls.name for cls in rule_classes}
        self.config = Priorities(
            bonus=s.getint("BITEXT_FOCUS_LANG_LINK_PRIORITY"),
            cross_bonus=s.getint("BITEXT_FOCUS_CROSS_LANG_PRIORITY"),
            scarce_bonus=s.getint("BITEXT_FOCUS_SCARCE_LANG_PRIORITY"),
            other_page_priority=s.getint("BITEXT_FOCUS_OTHER_PAGE_PRIORITY"),
            drop_other="drop_other_lang" in active,
            other_lang_links=mode,
            promote="promote" in active,
            yield_learning=getbool(s, "BITEXT_FOCUS_YIELD_ENABLED"),
            yield_min_pages=max(1, s.getint("BITEXT_FOCUS_YIELD_MIN_PAGES")),
            yield_min_rate=s.getfloat("BITEXT_FOCUS_YIELD_MIN_RATE"),
            hold_queued=getbool(s, "BITEXT_FOCUS_HOLD_QUEUED_ENABLED"))
        # the policies (bitextcrawl/focus/): what a link's language is, which links pay,
        # what the site's pages say of its translations
        # the crawl state's URL tokens and page counts (crawl_state.py), which the spider
        # feeds; a state of its own under a spider of another project
        state = self.context.state if self.context is not None else CrawlState(
            s.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES"),
            s.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY"))
        self.state = state
        self.evidence = LinkEvidence(self.langs, state.url_tokens.links,
                                     lambda: state.url_tokens.slots.slots())
        self.yields = YieldLearning()
        # the site's shape: one-way translation and switch absence, each on where its
        # rule is (focus/rules/one_way.py, switch_absence.py)
        self.shape = SiteShape(self.langs, one_way=False, switch_absence=False,
                               pages_by_lang=state.pages_by_lang)
        self.queue = FocusQueue()
        # the judgement of a link (focus/links.py)
        self.judge = LinkJudge(
            self.config, self.queue, self.evidence, self.yields, self.shape, self.stats,
            langs=lambda: self.langs,
            one_site=lambda: getattr(self.context, "site", None) is not None,
            start_url=lambda: getattr(self.context, "start_url", "") or "",
            small_lang=lambda: self.walk.small_lang())
        self.holding = self.judge.holding   # which languages' links wait (focus/holding.py)
        # walk the small side, guess the big side (focus/walk.py, sites/small_side.py);
        # on where its rule is
        self.walk = SmallSideWalk(
            False, lambda: self.langs,
            lambda: getattr(self.context, "site", None) is not None, self.evidence,
            self.queue.downloaded, self.stats, self._schedule,
            lambda *a, **kw: self.context.page_request(*a, **kw),
            self.config.bonus + self.config.cross_bonus + self.config.scarce_bonus)
        parts = self.judge.parts
        parts.schedule, parts.walk = self._schedule, self.walk
        # the rules, each with its thresholds, turning on the policies it judges by
        rules = build_rules(rule_classes, parts, s)
        self.judge.use_rules(rules)
        self.no_translation = self.shape.switch_absence
        # bar absence (focus/bars.py): a page's bar of declared alternates lists the
        # translations that exist
        self.bars = parts.bars or BarAbsence(lambda: self.langs, enabled=False)
        self.bar_watch = BarWatch(self.bars, self.evidence, state.original_url, lambda: self.langs,
                                  self.queue.downloaded, self.stats, self._schedule,
                                  words_lang=_WordsLang(s.get("BITEXT_LID_MODEL") or None,
                                                        s.getfloat("BITEXT_LID_MIN_PROB", 0.5)))
        # section indexes (focus/sections.py): a translated section's index names its pages
        self.sections = parts.sections or SectionIndexes(enabled=False)
        self.section_watch = SectionWatch(self.sections, self.evidence.url_lang,
                                          state.original_url, self.queue.downloaded,
                                          self.stats, self._schedule)
        # a family of links that led to an error is not tested again where the index of
        # its section leaves the link out (focus/families.py)
        self.queue.families.unlisted = self.sections.unlisted
        # ... nor before the index of its section is in, where it is on its way
        self.queue.families.index_coming = self.sections.index_coming
        self.section_watch.index_in = self._index_in
        # a link its section's index leaves out sizes no side (sites/small_side.py)
        self.walk.unlisted = self.sections.unlisted
        crawler.signals.connect(self.pages_paired, signal=pages_paired)
        crawler.signals.connect(self.response_received, signal=signals.response_received)
        crawler.signals.connect(self.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self.request_dropped, signal=signals.request_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.held_links, signal=held_links)
        context = self.context
        self.sharing: FocusSharing | None = None
        if context is not None:
            # the downloader side (HeldLinksMiddleware) reads it there
            context.state.focus = FocusState(self.queue, self.evidence, self.yields,
                                             self.shape, lambda: self.small_side,
                                             self.bars, self.sections, self.holding.waits)
            # what the other workers of a distributed crawl learn, learned here too
            self.sharing = FocusSharing(
                context.state, self.queue, self.yields, self.stats, self.learn_page,
                lambda request: request.to_dict(spider=crawler.spider),
                lambda data: request_from_dict(data, spider=crawler.spider),
                lambda: self.small_side, self._schedule, self.sections, self.bars,
                self.error_answer)
            context.state.focus.sharing = self.sharing
            context.state.focus.request_rules = [
                r for r in rules if type(r).request is not FocusRule.request]
            context.state.add_section("focus", self._state, shared=True)
            context.add_idle_task("held_links", self.release_held)
            context.frontier.add_own_keeps(self._keeps_own)
            context.frontier.add_guess_hook(self.judge.unfiltered)

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
    def small_side(self) -> SmallSide | None:
        return self.walk.side

    # (what tests and the downloader side read of the policies)
    @property
    def tokens(self):
        return self.evidence.tokens

    @property
    def pages_by_lang(self):
        return self.shape.pages_by_lang

    @property
    def into_pages(self):
        return self.shape.into_pages

    def link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        """The language a link leads to, and the evidence for it (focus/evidence.py)."""
        return self.evidence.link_language(url, link)

    def _sample(self, url: str, lang: str, yielded: bool = False) -> None:
        if self.yields.sample(url, lang, yielded):
            self.stats.inc_value(f"bitext/focus/yield/samples/{lang}")
            if self.sharing is not None:
                self.sharing.sample(url, lang, yielded)

    def held_links(self) -> dict[str, list[str]]:
        """The ``held_links`` signal's answer: the held links, by language. A big-side
        link the small side holds (sites/small_side.py) counts where the yield holds its
        language too: which of the two rules judged a link first is the order the
        requests came in (with several workers, which worker took it), not evidence."""
        held = self.queue.held_links()
        side = self.small_side
        if side is not None:
            for url, (_, lang, _) in sorted(side.held.items()):
                if lang in self.queue.holding and url not in held.get(lang, ()):
                    held.setdefault(lang, []).append(url)
        return held

    def pages_paired(self, urls):
        for url in urls:
            self.yields.yielded_page(url)

    def response_received(self, response, request, spider=None):
        self.queue.downloaded.add(request.url)
        if response.status < 400:
            return
        self.walk.error(request)
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        self.error_answer(url, response.status, self._section_link(request))
        if self.sharing is not None:
            self.sharing.error(url, response.status)
        lang = request.meta.get("bitext_chain")
        if lang:   # a broken same-language link: yielded nothing
            self._sample(url, lang)

    def error_answer(self, url: str, status: int, linked_from: str | None = None) -> None:
        """An error answer to ``url`` (here, or another worker's: ``FocusSharing``): what
        bar absence and section indexes learn from it (``linked_from``: the page whose
        link it answered, where known)."""
        self.bar_watch.error(url, status)
        self.section_watch.error(url, linked_from)

    def request_scheduled(self, request, spider=None):
        self.queue.scheduled(request)

    def request_dropped(self, request, spider=None):
        self.queue.dropped(request)

    def _schedule(self, request) -> None:
        self.context.frontier.schedule(request)

    def _index_in(self) -> list:
        """A section's index was answered or found: the sides sized again, and the
        families' tests that waited for it (focus/sections.py, focus/families.py)."""
        self.walk.recount()
        return self.queue.families.index_answered()

    def release_held(self) -> bool:
        """The idle task ``held_links``: release held links of a language whose yield has
        come back (recovery or later pages paired them) — unless ``max_pages`` is
        reached. True if some reached the scheduler's queue (a release the dupefilter
        drops brings nothing)."""
        context = self.context
        if context is None:
            return False
        left = context.budget_left()
        if left is not None and left <= 0:
            return False
        frontier = context.frontier
        enqueued = frontier.enqueued
        # (by the URL tokens at the closing alignment's standard)
        released = self.holding.rejudge_held(self.state.url_tokens.site, self._schedule)
        released += self.walk.idle()
        kept = self.bars.stalled() + self.sections.stalled()
        for request in kept:
            self._schedule(request)
        released += len(kept)
        stalled = self.queue.families.stalled()
        for request in stalled:
            self._schedule(request)
        released += len(stalled)
        released += self.holding.release_languages(self._schedule)
        if released:
            self.stats.inc_value("bitext/focus/released", released)
        return frontier.enqueued > enqueued

    def _keeps_own(self) -> bool:
        """Requests kept by this worker's rules, which only its idle pass releases: the
        links section indexes and bars keep, and a family's links waiting for its test."""
        return bool(self.sections.kept or self.bars.kept or self.queue.families.left()
                    or self.queue.families.testing)

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
        held = dict(side.held) if side is not None else {}
        # (the links of a family left untested or unbelieved: judged again on resume)
        held.update({url: (request, None, None)
                     for waiting in self.queue.families.waiting.values()
                     for url, request in waiting.items()})
        held.update({url: (request, None, None)
                     for url, (request, _) in self.sections.kept.items() if request is not None})
        return focus_section(self.queue, self.yields, self.shape, held)

    def spider_closed(self, spider=None, reason=None):
        held = sum(len(h) for h in self.queue.held.values())
        self.stats.set_value("bitext/focus/held_at_close", held)
        if self.sections.kept:
            self.stats.set_value("bitext/focus/sections/kept_at_close", len(self.sections.kept))
        if self.queue.families.left():
            self.stats.set_value("bitext/focus/family/left", self.queue.families.left())
        for lang in self.langs:
            if self.yields.samples[lang]:
                self.stats.set_value(f"bitext/focus/yield/rate/{lang}",
                                     round(self.yields.rate(lang), 3))

    # ---- items and requests ----------------------------------------------------------------

    def get_processed_item(self, item, response):
        if not isinstance(item, PageRecord):
            return item
        if self.context is None:   # (no spider of ours fed the crawl state)
            self.state.learn_page(item)
        self.learn_page(item, response)
        chain = response.meta.get("bitext_chain") if response is not None else None
        if chain:
            other_wanted = item.lang in self.langs and item.lang != chain
            self._sample(item.url, chain, yielded=other_wanted)
            if item.requested_url and item.requested_url != item.url:
                self.yields.sample_of.setdefault(item.requested_url, chain)
        return item

    def learn_page(self, item: PageRecord, response=None) -> None:
        """What a page the crawl state learned teaches the focus (a page of this worker's,
        with its ``response``, or of another worker of a distributed crawl:
        ``FocusSharing.remote_page``)."""
        if self.evidence.learned(item.url):
            for request in self.judge.rejudge_queued():
                self._schedule(request)
            self.walk.relearn()
        self.bar_watch.page(item)
        self.section_watch.page(item, self._section_link(
            response.request if response is not None else None))
        probe = response.request if response is not None \
            and response.meta.get("bitext_lang_probe") else None
        if self.context is not None:
            self.walk.page(item, self.context.in_scope, probe)
        langs = self.langs
        if item.lang in langs:
            self.judge.observe(item, page_named_unlinked(item, langs) if self.no_translation
                               else frozenset())

    def _section_link(self, request) -> str | None:
        """The page whose link ``request`` was, where the section indexes would have
        judged it (focus/rules/section_indexes.py) and its URL names the page's own
        language: its answer is that page's test. (A page's link into another language
        is no claim that its own translation has the page: an Italian download page
        links an English list of links that has no Italian version.)"""
        if request is None:
            return None
        page = request.meta.get("bitext_linked_from")
        if page is None or not self.queue.ordinary_link(request):
            return None
        url_lang = self.evidence.url_lang
        if url_lang(request.url) != url_lang(page):
            return None
        return page

    def get_processed_request(self, request, response):
        if response is None:
            return request
        request.meta.setdefault("bitext_linked_from", response.url)   # (focus/sections.py)
        return self.judge.request(request, response.meta,
                                  getattr(response.request, "url", None))
