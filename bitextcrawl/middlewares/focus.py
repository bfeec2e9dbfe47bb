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
learning, one-way translation and switch absence) and :mod:`bitextcrawl.sites.small_side`;
this middleware applies them to the crawl's links and requests, holds and releases links
(through the frontier), and keeps their section of the crawl state.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from bitextcrawl.config import getbool
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.context import CrawlContext
from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.queue import FocusQueue, FocusState
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning

# (the downloader side; settings written before it had its own module name it here)
from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.site import TOKEN_MIN_PROB, site_url_tokens
from bitextcrawl.signals import held_links, pages_paired
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.sites.small_side import SmallSide

__all__ = ["FocusMiddleware", "HeldLinksMiddleware"]

logger = logging.getLogger(__name__)


UNJUDGED_MAX = 10_000   # queued links of unknown language kept for judging again


class FocusMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        s = crawler.settings
        self.stats = crawler.stats
        self.bonus = s.getint("BITEXT_FOCUS_LANG_LINK_PRIORITY")
        self.cross_bonus = s.getint("BITEXT_FOCUS_CROSS_LANG_PRIORITY")
        self.scarce_bonus = s.getint("BITEXT_FOCUS_SCARCE_LANG_PRIORITY")
        self.other_page_priority = s.getint("BITEXT_FOCUS_OTHER_PAGE_PRIORITY")
        self.drop_other = getbool(s, "BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED")
        mode = (s.get("BITEXT_FOCUS_OTHER_LANG_LINKS") or "evidence").strip().lower()
        if mode not in ("evidence", "all"):
            raise ValueError(f"BITEXT_FOCUS_OTHER_LANG_LINKS must be 'evidence' or 'all', "
                             f"not {mode!r}")
        self.other_lang_links = mode
        # the policies (bitextcrawl/focus/): what a link's language is, which links pay,
        # what the site's pages say of its translations
        self.evidence = LinkEvidence(self.langs, s.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES"),
                                     s.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY"))
        self.yields = YieldLearning()
        self.yield_learning = getbool(s, "BITEXT_FOCUS_YIELD_ENABLED")
        self.yield_min_pages = max(1, s.getint("BITEXT_FOCUS_YIELD_MIN_PAGES"))
        self.yield_min_rate = s.getfloat("BITEXT_FOCUS_YIELD_MIN_RATE")
        self.no_translation = getbool(s, "BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED")
        self.shape = SiteShape(self.langs, one_way=getbool(s, "BITEXT_FOCUS_ONE_WAY_ENABLED"),
                               switch_absence=self.no_translation)
        self.promote = getbool(s, "BITEXT_FOCUS_PROMOTE_ENABLED")
        self.queue = FocusQueue()
        # URL tokens as the closing alignment learns them (pages/site.py): to re-judge held links
        self.site_tokens = site_url_tokens()
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
                                             self.shape, lambda: self.small_side)
            context.state.add_section("focus", self._state)
            context.add_idle_task("held_links", self.release_held)
            context.frontier.add_guess_hook(self.unfiltered)

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

    def _release_small_side(self, requests, stat: str) -> int:
        for request in requests:
            if request.url not in self.queue.downloaded:
                request.meta["bitext_released"] = True
                self._schedule(request)
        if requests:
            self.stats.inc_value(f"bitext/focus/small_side/{stat}", len(requests))
        return len(requests)

    def link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        """The language a link leads to, and the evidence for it (focus/evidence.py)."""
        return self.evidence.link_language(url, link)

    def _sample(self, url: str, lang: str, yielded: bool = False) -> None:
        if self.yields.sample(url, lang, yielded):
            self.stats.inc_value(f"bitext/focus/yield/samples/{lang}")

    def _should_hold(self, lang: str) -> bool:
        """Hold same-language links of ``lang``: enough of them followed, too few yielded,
        and ``lang`` is not the scarcest wanted language (its pages are the ones to pair)."""
        if getattr(self.context, "site", None) is None:
            # (the expand spider crawls many sites at once: one site's links say
            # nothing of another's)
            return False
        if self._one_way(lang):
            return True
        if not self.yield_learning or not self.yields.low(
                lang, self.langs, self.yield_min_pages, self.yield_min_rate):
            return False
        others = [self.pages_by_lang[x] for x in self.langs if x != lang]
        return bool(others) and self.pages_by_lang[lang] > min(others)

    def _one_way(self, lang: str) -> bool:
        """The site translates one way only, into ``lang`` (focus/shape.py)."""
        return self.shape.one_way(lang, self._small_lang)

    def _one_way_so_far(self, lang: str) -> bool:
        return self.shape.one_way_so_far(lang, self._small_lang)

    def _in_start_section(self, url: str) -> bool:
        """Is ``url`` under the folder of the start URL (not the site's root)?"""
        start = getattr(self.context, "start_url", "") or ""
        rest = start.partition("://")[2]
        folder = rest[:rest.rfind("/") + 1] if "/" in rest else ""
        if folder.count("/") < 2:   # the root: says nothing
            return False
        return url.partition("://")[2].startswith(folder)

    def _untranslated_link(self, page, lang: str | None, evidence: str) -> bool:
        """An ordinary link (no switch) from a page of one wanted language into another:
        a site links another language's page where its own translation is missing, so
        the page it leads to most likely has no counterpart."""
        return (page is not None and page.lang in self.langs and lang in self.langs
                and lang != page.lang and evidence == "url_token")

    def _scarcest(self) -> str | None:
        """The wanted language with the fewest pages stored or on their way as switch
        targets (None while there is a tie): crawled from /cn/, English is not scarce
        while the Chinese pages' switches into it wait in the queue."""
        counts = sorted((self.pages_by_lang[x] + self.queue.pending_by_lang[x], x) for x in self.langs)
        if len(counts) < 2 or counts[0][0] == counts[1][0]:
            return None
        return counts[0][1]

    def _update_holding(self, lang: str) -> bool:
        """Is ``lang`` held? Once held, a language stays held until the crawl runs dry
        (``spider_idle`` judges again): the yield of the requests still in flight when
        holding began would otherwise make it flicker."""
        if lang in self.queue.holding:
            return True
        if self._should_hold(lang):
            self.queue.holding.add(lang)
            if self._one_way(lang):
                logger.info("Focus: holding links between %s pages: other languages' pages "
                            "switch into %s, almost none of its %d pages links back", lang, lang,
                            self.pages_by_lang[lang])
                self.stats.set_value(f"bitext/focus/one_way/{lang}", 1)
            else:
                logger.info("Focus: holding links into %s pages: %d of %d requests made "
                            "for them yielded a counterpart (below %.0f%%)", lang,
                            self.yields.sample_yield[lang], self.yields.samples[lang],
                            100 * self.yield_min_rate)
            return True
        return False

    def held_links(self) -> dict[str, list[str]]:
        """The ``held_links`` signal's answer: the held links, by language."""
        return self.queue.held_links()

    def hold(self, request, lang: str) -> None:
        if self.queue.hold(request.url, request, lang):
            self.stats.inc_value("bitext/focus/held")

    def _no_translation(self, url: str, lang: str) -> bool:
        """Switch absence: the site says ``url`` (in ``lang``) has no translation
        (focus/shape.py)."""
        return self.shape.no_translation(url, lang, self.tokens.swap)

    def _counterpart_will_tell(self, url: str, lang: str) -> bool:
        return self.shape.counterpart_will_tell(url, lang, self.tokens.swap)

    def pages_paired(self, urls):
        for url in urls:
            self.yields.yielded_page(url)

    def response_received(self, response, request, spider=None):
        self.queue.downloaded.add(request.url)
        lang = request.meta.get("bitext_chain")
        if lang and response.status >= 400:   # a broken same-language link: yielded nothing
            self._sample((request.meta.get("redirect_urls") or [request.url])[0], lang)

    def request_scheduled(self, request, spider=None):
        if request.meta.get("bitext_promoted"):
            self.queue.promoted.add(request.url)   # (a copy replayed after a crash, too)
            self.queue.queued[request.url] = (request.priority, id(request))
        else:
            self.queue.queued.setdefault(request.url, (request.priority, id(request)))
        # (sent before the dupefilter: a request it will drop — its URL was held at
        # download, and this copy did not come through ``unfiltered`` — replaces nothing)
        if request.url in self.queue.filtered and not request.dont_filter:
            return
        for held in self.queue.held.values():
            held.pop(request.url, None)
        self.queue.filtered.discard(request.url)

    def request_dropped(self, request, spider=None):
        # (the dupefilter had seen it: downloaded by an earlier run of a resumed crawl)
        if self.queue.queued.get(request.url, (0, None))[1] == id(request):
            del self.queue.queued[request.url]

    def unfiltered(self, request):
        """``request`` made to pass the dupefilter if an earlier request for its URL was
        held back at download (the filter saw that one, nobody downloaded it)."""
        url = request.url
        if url in self.queue.filtered and url not in self.queue.downloaded:
            return request.replace(dont_filter=True)
        queued = self.queue.queued.get(url, (None,))[0]
        if self.promote and queued is not None and not request.dont_filter and url not in self.queue.requested \
                and url not in self.queue.promoted and request.priority >= queued + self.cross_bonus:
            self.queue.promoted.add(url)
            self.stats.inc_value("bitext/focus/promoted")
            return request.replace(dont_filter=True,
                                   meta={**request.meta, "bitext_promoted": True})
        return request

    def _rejudge_held(self) -> int:
        """Held links whose URL now names another wanted language, by the URL tokens learned
        since they were held, go with that language: a page fastText was unsure of
        (nginx.org's /tr/docs/faq.html, "English" at p = 0.76) had its links held as links
        of English pages, among them the only link to a Turkish page."""
        released = 0
        for lang, held in self.queue.held.items():
            for url, request in list(held.items()):
                now, _ = self.site_tokens.most_specific(url)
                if now in self.langs and now != lang and not self._should_hold(now):
                    del held[url]
                    if url not in self.queue.downloaded:
                        request.meta["bitext_released"] = True
                        self._schedule(request)
                        released += 1
        if released:
            self.stats.inc_value("bitext/focus/released_by_url_token", released)
            logger.info("Focus: %d held links lead into another wanted language by their URL "
                        "tokens: released", released)
        return released

    def _schedule(self, request) -> None:
        self.context.frontier.schedule(request)

    def release_held(self) -> bool:
        """The idle task ``held_links``: release held links of a language whose yield has
        come back (recovery or later pages paired them) — unless ``max_pages`` is
        reached. True if some were."""
        left = self.context.budget_left() if self.context is not None else None
        if left is not None and left <= 0:
            return False
        released = self._rejudge_held()
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
        for lang, held in self.queue.held.items():
            if not held or self._should_hold(lang):
                continue
            self.queue.holding.discard(lang)
            before = released
            for request in list(held.values()):
                if request.url in self.queue.downloaded:
                    continue
                request.meta["bitext_released"] = True
                self._schedule(request)
                released += 1
            held.clear()
            logger.info("Focus: links into %s pages yield again (%d of %d): %d held links "
                        "released", lang, self.yields.sample_yield[lang], self.yields.samples[lang],
                        released - before)
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
        state = context.state_section("focus", {})
        self.yields.load(state.get("yield", {}))
        # what the one-way and switch-absence judgements rest on, as the last run left it
        self.shape.load(state)
        self.queue.switch_targets.update(state.get("switch_targets", []))
        for url, requested in state.get("promoted", []):
            self.queue.promoted.add(url)
            if requested:
                self.queue.requested.add(url)
        for lang, url, priority, depth in state.get("held", []):
            request = context.page_request(url, priority=priority, depth=depth,
                                           bitext_chain=lang).replace(dont_filter=True)
            self.queue.held[lang][url] = request
        if state.get("held"):
            logger.info("Focus: %d held links back from the last run", len(state["held"]))
        self.resumed_small_side = [
            context.page_request(url, priority=priority, depth=depth).replace(dont_filter=True)
            for url, priority, depth in state.get("small_side_held", [])]

    def _state(self) -> dict:
        """The focus's section of the crawl state (persisted at a clean stop)."""
        return {
            "yield": self.yields.to_state(),
            **self.shape.to_state(),
            "switch_targets": sorted(self.queue.switch_targets),
            # two copies of a promoted URL may both wait in the JOBDIR queue
            "promoted": [[url, url in self.queue.requested] for url in sorted(self.queue.promoted)],
            "held": [[lang, url, r.priority, r.meta.get("depth", 0)]
                     for lang, held in sorted(self.queue.held.items())
                     for url, r in sorted(held.items())],
            # the small side's held requests: judged again by the next run
            "small_side_held": [[url, r.priority, r.meta.get("depth", 0)]
                                for url, (r, _, _) in sorted(self._small_side.held.items())]
            if self._small_side is not None else []}

    def spider_closed(self, spider=None, reason=None):
        held = sum(len(h) for h in self.queue.held.values())
        self.stats.set_value("bitext/focus/held_at_close", held)
        for lang in self.langs:
            if self.yields.samples[lang]:
                self.stats.set_value(f"bitext/focus/yield/rate/{lang}",
                                     round(self.yields.rate(lang), 3))

    # ---- items and requests ----------------------------------------------------------------

    def get_processed_item(self, item, response):
        if not isinstance(item, PageRecord):
            return item
        changed = self.evidence.learn(item.url, item.lang)
        side = self.small_side
        if changed:
            self._rejudge_queued()
            if side is not None:
                self._release_small_side(side.relearn(), "released_by_counterpart")
        if side is not None and item.lang in self.langs:
            # the held requests this page is the counterpart of can pair; its links size
            # the sides
            released = side.found(item.url, item.lang)
            if item.requested_url and item.requested_url != item.url:
                released += side.found(item.requested_url, item.lang)
            for link in item.links:
                side.see(link["url"])
            self._release_small_side(released, "released_by_counterpart")
        if item.lang_prob >= TOKEN_MIN_PROB:
            self.site_tokens.learn(item.url, item.lang)
        langs = self.langs
        self.pages_by_lang[item.lang] += 1
        if item.lang in langs:
            # evidence of a counterpart on the page itself: a declared alternate, a switch
            # anchor or a URL token leading into another wanted language
            switches = {lang for lang in (item.hreflang or {}) if lang in langs}
            into = set(switches)
            for link in item.links:
                lang, evidence = self.link_language(link["url"], link)
                if lang in langs:
                    into.add(lang)
                    if evidence != "url_token":
                        switches.add(lang)
            switches.discard(item.lang)
            into.discard(item.lang)
            if into:
                self.yields.yielded_page(item.url)
            self.shape.observe(item.url, item.lang, switches, into,
                               page_named_unlinked(item, langs) if self.no_translation
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
        lang, evidence = self.link_language(request.url, request.meta.get("bitext_link"))
        page = response.meta.get("bitext_page")
        request = self._judge(request, response, page, lang, evidence)
        if request is not None and lang is None and page is not None \
                and page.lang in self.langs and len(self.queue.unjudged) < UNJUDGED_MAX:
            self.queue.unjudged.setdefault(request.url, (request, page.lang))
        return request

    def _rejudge_queued(self) -> None:
        """Queued links whose language a newly learned URL token names: into an unwanted
        language, dropped at download; into a wanted one, a copy jumps the queue with the
        bonus they would have had (nginx.org's /cn/ links every Chinese page before /cn/
        is known to name Chinese, and these waited behind English links found later)."""
        promoted = 0
        for url, (request, page_lang) in list(self.queue.unjudged.items()):
            if url in self.queue.requested or url not in self.queue.queued:
                # (gone out, or dropped by the dupefilter: seen by an earlier run)
                del self.queue.unjudged[url]
                continue
            lang, _ = self.link_language(url, None)
            if lang is None:
                continue
            del self.queue.unjudged[url]
            if lang not in self.langs:
                if self.drop_other:
                    self.queue.unwanted.add(url)
                    self.stats.inc_value(f"bitext/links/other_lang/{lang}")
                continue
            if lang != page_lang:
                # an ordinary link into another wanted language: no bonus, and held at
                # download like the links of that language
                self.queue.untranslated[url] = lang
                continue
            if url in self.queue.promoted or url in self.queue.untranslated or not self.promote \
                    or request.meta.get("bitext_same_page"):
                # (a link of its page's language had that language's bonus already)
                continue
            meta = {**request.meta, "bitext_promoted": True, "bitext_chain": lang,
                    "bitext_same_lang": lang}
            self.queue.promoted.add(url)
            self._schedule(request.replace(
                priority=request.priority + self.bonus, dont_filter=True, meta=meta))
            promoted += 1
        if promoted:
            self.stats.inc_value("bitext/focus/promoted_by_url_token", promoted)

    def _judge(self, request, response, page, lang: str | None, evidence: str):
        langs = self.langs
        if lang and lang not in langs and self.drop_other:
            self.stats.inc_value(f"bitext/focus/dropped_other_lang/{evidence}")
            self.stats.inc_value(f"bitext/links/other_lang/{lang}")
            return None
        if page is None or response.meta.get("bitext_discovered_by") == "start":
            if self._untranslated_link(page, lang, evidence):
                request.meta["bitext_untranslated"] = True
                self.queue.untranslated[request.url] = lang
                self.stats.inc_value("bitext/focus/untranslated_link")
            elif lang in langs:
                request.priority += self.bonus
                self.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            elif lang is None and self._in_start_section(request.url):
                # no URL token is known yet; the folder the user started in is where
                # the start page's language is (nginx.org's /cn/)
                request.priority += self.bonus
                self.stats.inc_value("bitext/focus/lang_link/start_section")
            return self.unfiltered(request)
        if page.lang not in langs:
            if lang in langs:
                request.priority += self.bonus
                self.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
                return self.unfiltered(request)
            if self.other_lang_links == "evidence" and page.lang != "und":
                # a page in a language nobody wants: its links lead on into that language
                self.stats.inc_value("bitext/focus/dropped_from_other_lang")
                return None
            request.priority += self.other_page_priority
            self.stats.inc_value("bitext/focus/deferred")
            return self.unfiltered(request)
        if lang in langs and lang != page.lang and evidence != "url_token":
            # a language switch into another wanted language: most likely the counterpart
            if request.url not in self.queue.switch_targets and request.url not in self.queue.requested:
                self.queue.switches_pending[request.url] = lang
                self.queue.pending_by_lang[lang] += 1
            self.queue.switch_targets.add(request.url)
            for held in self.queue.held.values():   # held as an ordinary link before: not now
                held.pop(request.url, None)
            request.priority += self.bonus + self.cross_bonus
            self.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            self.stats.inc_value("bitext/focus/cross_lang_link")
            return self.unfiltered(request)
        if lang == page.lang:
            if self._no_translation(request.url, lang):
                self.stats.inc_value("bitext/focus/dropped_no_translation")
                return None
            request.meta["bitext_same_lang"] = lang  # checked again before download
        self._prioritise(request, response, page, lang, evidence)
        # Yield learning, by the language the link leads to: a same-language link (or one
        # of unknown language), or an ordinary link into another wanted language — which
        # a site makes where its own translation is missing, so it is worth no more.
        chain = lang if lang in langs else page.lang
        request.meta["bitext_chain"] = chain
        if self._update_holding(chain) and request.url not in self.queue.switch_targets:
            self.hold(request, chain)
            return None
        return self.unfiltered(request)

    def _prioritise(self, request, response, page, lang: str | None, evidence: str) -> None:
        """The priority of a link from a wanted-language page that is no switch."""
        if lang is None:
            # nothing known of the link yet (no URL token learned): most links of a page
            # lead to pages of its language (a translation's home links its own pages,
            # which would otherwise wait behind every link of the language learned first)
            lang, evidence = page.lang, "same_page"
            request.meta["bitext_same_page"] = True
        if self._untranslated_link(page, lang, evidence):
            self.queue.untranslated[request.url] = lang
        if request.url in self.queue.untranslated or (
                lang in (None, page.lang) and (response.meta.get("bitext_untranslated")
                                               or response.request.url in self.queue.untranslated)):
            # no bonus: see _untranslated_link; and the pages such a page links in its own
            # language are of its kind (nginx.org's /cn/ links the English njs manual)
            request.meta["bitext_untranslated"] = True
            self.stats.inc_value("bitext/focus/untranslated_link")
        elif lang == page.lang and self._one_way_so_far(lang):
            # no bonus while the site looks translated one way into ``lang``: these links
            # wait behind the other language's, and are held if the judgement confirms it
            # (nginx.org from /cn/: English FAQ pages went out before ten English pages
            # had come to judge by)
            self.stats.inc_value("bitext/focus/one_way_so_far")
        elif lang in self.langs:
            request.priority += self.bonus
            self.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            if lang == page.lang and self._counterpart_will_tell(request.url, lang):
                # its counterpart, not stored yet, will say whether it exists: after it
                request.priority -= self.scarce_bonus
                self.stats.inc_value("bitext/focus/deferred_for_counterpart")
            elif lang == self._scarcest():
                # its pages bound the number of pairs: they go first
                request.priority += self.scarce_bonus
                self.stats.inc_value("bitext/focus/scarce_lang_link")
