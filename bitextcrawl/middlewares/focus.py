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

from bitextcrawl.config import getbool
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.context import CrawlContext
from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.focus.bars import BarAbsence
from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Priorities
from bitextcrawl.focus.links import LinkJudge
from bitextcrawl.focus.persist import focus_section, load_focus_section
from bitextcrawl.focus.queue import FocusQueue, FocusState
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning

# (the downloader side; settings written before it had its own module name it here)
from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.signals import held_links, pages_paired
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.sites.small_side import SmallSide

__all__ = ["FocusMiddleware", "HeldLinksMiddleware"]

logger = logging.getLogger(__name__)


class FocusMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        s = crawler.settings
        self.stats = crawler.stats
        mode = (s.get("BITEXT_FOCUS_OTHER_LANG_LINKS") or "evidence").strip().lower()
        if mode not in ("evidence", "all"):
            raise ValueError(f"BITEXT_FOCUS_OTHER_LANG_LINKS must be 'evidence' or 'all', "
                             f"not {mode!r}")
        self.config = Priorities(
            bonus=s.getint("BITEXT_FOCUS_LANG_LINK_PRIORITY"),
            cross_bonus=s.getint("BITEXT_FOCUS_CROSS_LANG_PRIORITY"),
            scarce_bonus=s.getint("BITEXT_FOCUS_SCARCE_LANG_PRIORITY"),
            other_page_priority=s.getint("BITEXT_FOCUS_OTHER_PAGE_PRIORITY"),
            drop_other=getbool(s, "BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED"),
            other_lang_links=mode,
            promote=getbool(s, "BITEXT_FOCUS_PROMOTE_ENABLED"),
            yield_learning=getbool(s, "BITEXT_FOCUS_YIELD_ENABLED"),
            yield_min_pages=max(1, s.getint("BITEXT_FOCUS_YIELD_MIN_PAGES")),
            yield_min_rate=s.getfloat("BITEXT_FOCUS_YIELD_MIN_RATE"))
        # the policies (bitextcrawl/focus/): what a link's language is, which links pay,
        # what the site's pages say of its translations
        # the crawl state's URL tokens and page counts (crawl_state.py), which the spider
        # feeds; a state of its own under a spider of another project
        state = self.context.state if self.context is not None else CrawlState(
            s.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES"),
            s.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY"))
        self.state = state
        self.evidence = LinkEvidence(self.langs, state.url_tokens.links)
        self.yields = YieldLearning()
        self.no_translation = getbool(s, "BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED")
        self.shape = SiteShape(self.langs, one_way=getbool(s, "BITEXT_FOCUS_ONE_WAY_ENABLED"),
                               switch_absence=self.no_translation,
                               pages_by_lang=state.pages_by_lang)
        self.queue = FocusQueue()
        # bar absence (focus/bars.py): a page's bar of declared alternates lists the
        # translations that exist
        self.bars = BarAbsence(lambda: self.langs,
                               enabled=getbool(s, "BITEXT_FOCUS_BAR_ABSENCE_ENABLED"))
        # the judgement of a link (focus/links.py)
        self.judge = LinkJudge(
            self.config, self.queue, self.evidence, self.yields, self.shape, self.stats,
            langs=lambda: self.langs,
            one_site=lambda: getattr(self.context, "site", None) is not None,
            start_url=lambda: getattr(self.context, "start_url", "") or "",
            small_lang=self._small_lang)
        self.holding = self.judge.holding   # which languages' links wait (focus/holding.py)
        # Walk the small side, guess the big side (sites/small_side.py); made once the
        # crawl's languages are known
        self.small_side_enabled = getbool(s, "BITEXT_FOCUS_SMALL_SIDE_ENABLED")
        self._small_side: SmallSide | None = None
        self.resumed_small_side: list = []       # its held requests when the last run stopped
        crawler.signals.connect(self.pages_paired, signal=pages_paired)
        crawler.signals.connect(self.response_received, signal=signals.response_received)
        crawler.signals.connect(self.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self.request_dropped, signal=signals.request_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.held_links, signal=held_links)
        context = self.context
        if context is not None:
            # the downloader side (HeldLinksMiddleware) reads it there
            context.state.focus = FocusState(self.queue, self.evidence, self.yields,
                                             self.shape, lambda: self.small_side,
                                             self.bars)
            context.state.add_section("focus", self._state)
            context.add_idle_task("held_links", self.release_held)
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
        if self._small_side is None and self.small_side_enabled and len(self.langs) == 2 \
                and getattr(self.context, "site", None) is not None:
            # (two languages of one site: the expand spider crawls many sites at once)
            self._small_side = SmallSide(self.langs, self.evidence.swap,
                                         self.evidence.url_lang)
        return self._small_side

    def _small_lang(self) -> str | None:
        """The small side's language, if the site has one (never held as a one-way
        site's big side: tldr's English pages link each translation's home; the
        translation's pages do not link back)."""
        side = self.small_side
        return side.small() if side is not None else None

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

    def _release_small_side(self, requests, stat: str, rejudge: bool = False) -> int:
        """Schedule requests the small side released; ``rejudge``: judged again at
        download (released while the sides were unknown, they may be known by then)."""
        for request in requests:
            if request.url not in self.queue.downloaded:
                if not rejudge:
                    request.meta["bitext_released"] = True
                self._schedule(request)
        if requests:
            self.stats.inc_value(f"bitext/focus/small_side/{stat}", len(requests))
        return len(requests)

    def _lang_probes(self, side: SmallSide, item: PageRecord) -> None:
        """Request the page's counterparts in the wanted languages no link has named
        (sites/small_side.py: finding the other side), ahead of everything else."""
        probes = side.lang_probes_for(item.url, item.lang, {link["url"] for link in item.links})
        for url, lang in probes:
            self.stats.inc_value("bitext/focus/small_side/lang_probes")
            logger.info("Focus: no link names %s pages yet: %s requested as a language probe",
                        lang, url)
            self._schedule(self.context.page_request(
                url, priority=self.config.bonus + self.config.cross_bonus
                + self.config.scarce_bonus,
                bitext_lang_probe=lang, bitext_released=True))

    def _probe_answered(self, request, links=()) -> None:
        """A language probe came back (a page linking ``links``, or an error): once
        the sides are sized, the requests held meanwhile are judged again."""
        side = self.small_side
        if side is None or request is None:
            return
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        self._release_small_side(side.answered(url, links), "released_after_lang_probe",
                                 rejudge=True)

    def link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        """The language a link leads to, and the evidence for it (focus/evidence.py)."""
        return self.evidence.link_language(url, link)

    def _sample(self, url: str, lang: str, yielded: bool = False) -> None:
        if self.yields.sample(url, lang, yielded):
            self.stats.inc_value(f"bitext/focus/yield/samples/{lang}")

    def held_links(self) -> dict[str, list[str]]:
        """The ``held_links`` signal's answer: the held links, by language."""
        return self.queue.held_links()

    def pages_paired(self, urls):
        for url in urls:
            self.yields.yielded_page(url)

    def response_received(self, response, request, spider=None):
        self.queue.downloaded.add(request.url)
        side = self.small_side
        if side is not None and response.status >= 400:
            self._release_small_side(
                side.gone((request.meta.get("redirect_urls") or [request.url])[0]),
                "released_after_lang_probe", rejudge=True)
        if request.meta.get("bitext_lang_probe") and response.status >= 400:
            # the language is not where the URL tokens said: the sizing ends here
            self.stats.inc_value("bitext/focus/small_side/lang_probes_failed")
            self._probe_answered(request)
        if response.status >= 400 and self.bars.enabled:
            # (an error answers a BAR test; it makes no URL dead: a site's pairs need
            # not be at the swapped URL, nginx.org's en–ru lost three)
            self._bar_answered((request.meta.get("redirect_urls") or [request.url])[0], False)
        lang = request.meta.get("bitext_chain")
        if lang and response.status >= 400:   # a broken same-language link: yielded nothing
            self._sample((request.meta.get("redirect_urls") or [request.url])[0], lang)

    def _bar_answered(self, url: str, real: bool, into=frozenset()) -> None:
        """``url`` was answered (a page of its URL's language of its own: ``real``):
        what bar absence learns from it, and the requests it lets go."""
        bars = self.bars
        if not bars.active():
            return
        released = bars.answered(url, self.evidence.url_lang(url), real, into,
                                 self.evidence.swap)
        for request in released:
            if request.url not in self.queue.downloaded:
                self._schedule(request)
        if released:
            self.stats.inc_value("bitext/focus/bar_absence/released", len(released))
        if bars.refuted and not self.stats.get_value("bitext/focus/bar_absence/refuted"):
            self.stats.set_value("bitext/focus/bar_absence/refuted", 1)
            logger.info("Focus: a page's bar of alternates left out a translation that "
                        "exists (%s): bars are not believed on this site", url)

    def _bar_observe(self, item: PageRecord) -> None:
        """A page record: its bar of declared alternates, and what its URLs answer (a
        URL naming a wanted language answered by another language's page, or a copy of
        a page seen elsewhere, is no translation)."""
        if not self.bars.enabled:
            return
        duplicate = self.state.duplicate(item)
        if not duplicate:
            self.bars.observe(item.url, item.lang, item.hreflang or {})
        url_lang = self.evidence.url_lang
        into = set(item.hreflang or ()) | {url_lang(link["url"]) for link in item.links}
        for url in sorted({item.url, item.requested_url or item.url}):
            lang = url_lang(url)
            real = lang is not None and item.lang == lang and not duplicate
            if lang in self.langs and not real:
                self.bars.not_a_translation(url)
            self._bar_answered(url, real, into)

    def request_scheduled(self, request, spider=None):
        self.queue.scheduled(request)

    def request_dropped(self, request, spider=None):
        self.queue.dropped(request)

    def _schedule(self, request) -> None:
        self.context.frontier.schedule(request)

    def release_held(self) -> bool:
        """The idle task ``held_links``: release held links of a language whose yield has
        come back (recovery or later pages paired them) — unless ``max_pages`` is
        reached. True if some were."""
        left = self.context.budget_left() if self.context is not None else None
        if left is not None and left <= 0:
            return False
        # (by the URL tokens at the closing alignment's standard)
        released = self.holding.rejudge_held(self.state.url_tokens.site, self._schedule)
        if self.resumed_small_side:
            # held by the small side when the last run stopped: judged again at download
            for request in self.resumed_small_side:
                self._schedule(request)
            released += len(self.resumed_small_side)
            self.resumed_small_side = []
        side = self.small_side
        if side is not None:
            probe = side.probe()
            released += self._release_small_side(probe, "probed")
            if probe:
                logger.info("Focus: %d of the big side's pages whose counterpart no page "
                            "links fetched as a probe; %d held", len(probe), len(side.held))
            elif side.done and side.held and not self.stats.get_value(
                    "bitext/focus/small_side/left"):
                self.stats.set_value("bitext/focus/small_side/left", len(side.held))
                logger.info("Focus: %d pages of the big side not fetched: no page links "
                            "their counterpart, and the last probe revealed no new one",
                            len(side.held))
        kept = self.bars.stalled()
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
        return bool(released)

    def spider_opened(self, spider=None):
        """A resumed crawl (JOBDIR) gets back the links held when it stopped cleanly, and
        the counts its holding decisions rest on (with the page count alone, a resumed
        crawl judged a two-way site one-way and held its links)."""
        context = self.context
        if context is None:
            return
        context.replay_store()   # the stored pages' URL tokens and counts (crawl_state.py)
        self.resumed_small_side = load_focus_section(
            context.state_section("focus", {}), self.queue, self.yields, self.shape,
            context.page_request)

    def _state(self) -> dict:
        """The focus's section of the crawl state (persisted at a clean stop)."""
        side = self._small_side
        held = dict(side.held) if side is not None else {}
        # (the links of a family left untested or unbelieved: judged again on resume)
        held.update({url: (request, None, None)
                     for waiting in self.queue.families.waiting.values()
                     for url, request in waiting.items()})
        return focus_section(self.queue, self.yields, self.shape, held)

    def spider_closed(self, spider=None, reason=None):
        held = sum(len(h) for h in self.queue.held.values())
        self.stats.set_value("bitext/focus/held_at_close", held)
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
        changed = self.evidence.learned(item.url)
        side = self.small_side
        if changed:
            for request in self.judge.rejudge_queued():
                self._schedule(request)
            if side is not None:
                self._release_small_side(side.relearn(), "released_by_counterpart")
        self._bar_observe(item)
        links: list = []
        if side is not None and item.lang in self.langs:
            # the held requests this page is the counterpart of can pair; its links size
            # the sides
            released = side.found(item.url, item.lang)
            if item.requested_url and item.requested_url != item.url:
                released += side.found(item.requested_url, item.lang)
            in_scope = self.context.in_scope
            links = [link["url"] for link in item.links if in_scope(link["url"])]
            side.links(item.url, item.lang, links)
            self._release_small_side(released, "released_by_counterpart")
            self._lang_probes(side, item)
        if side is not None and response is not None \
                and response.meta.get("bitext_lang_probe"):
            self._probe_answered(response.request, links)
        langs = self.langs
        if item.lang in langs:
            self.judge.observe(item, page_named_unlinked(item, langs) if self.no_translation
                               else frozenset())
        chain = response.meta.get("bitext_chain") if response is not None else None
        if chain:
            other_wanted = item.lang in langs and item.lang != chain
            self._sample(item.url, chain, yielded=other_wanted)
            if item.requested_url and item.requested_url != item.url:
                self.yields.sample_of.setdefault(item.requested_url, chain)
        return item

    def get_processed_request(self, request, response):
        if response is None:
            return request
        return self.judge.request(request, response.meta,
                                  getattr(response.request, "url", None))
