"""Which links of the crawl wait, pure (no Scrapy): a language whose same-language links
pay too little, or into which the site translates one way only, is *held* (its links
kept by the focus, not scheduled; the rule ``focus/rules/held_languages.py``), and
released when the crawl runs dry and its yield has come back (deep page recovery guesses
the counterparts of held links first: the ``held_links`` signal). :class:`Holding` reads
the focus's queue and policies; the middleware schedules what the rule releases. Also the focus's settings (:class:`Priorities`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bitextcrawl.focus.marks import mark, marks
from bitextcrawl.focus.queue import FocusQueue
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning

logger = logging.getLogger("bitextcrawl.middlewares.focus")

def mark_released(request) -> None:
    """A held request goes out: past the focus's holding rules where it was held by one
    of them (``Marks.released``); where it only waited for the one-way judgement
    (``Holding.waits``), the other rules judge it again (the small side's holding among
    them), all but that one."""
    if marks(request.meta).one_way_wait:
        mark(request.meta, one_way_wait=False, one_way_waited=True)
    else:
        mark(request.meta, released=True)


@dataclass
class Priorities:
    """The focus's settings: bonuses and switches (``BITEXT_FOCUS_*``; a rule's switch is
    on where the rule is active, ``BITEXT_FOCUS_RULES``)."""
    bonus: int = 0                 # LANG_LINK_PRIORITY
    cross_bonus: int = 0           # CROSS_LANG_PRIORITY
    scarce_bonus: int = 0          # SCARCE_LANG_PRIORITY
    other_page_priority: int = 0   # OTHER_PAGE_PRIORITY
    drop_other: bool = True        # DROP_OTHER_LANG_ENABLED
    other_lang_links: str = "evidence"   # OTHER_LANG_LINKS
    promote: bool = True           # PROMOTE_ENABLED
    yield_learning: bool = True    # YIELD_ENABLED
    yield_min_pages: int = 1       # YIELD_MIN_PAGES
    yield_min_rate: float = 0.0    # YIELD_MIN_RATE
    hold_queued: bool = True       # HOLD_QUEUED_ENABLED


class Holding:
    def __init__(self, config: Priorities, queue: FocusQueue, yields: YieldLearning,
                 shape: SiteShape, stats, langs: Callable[[], tuple],
                 one_site: Callable[[], bool], small_lang: Callable[[], str | None]):
        self.config, self.queue, self.yields, self.shape, self.stats = \
            config, queue, yields, shape, stats
        self._langs, self._one_site, self._small_lang = langs, one_site, small_lang

    @property
    def langs(self) -> tuple:
        return self._langs()

    def should_hold(self, lang: str) -> bool:
        """Hold same-language links of ``lang``: enough of them followed, too few yielded,
        and ``lang`` is not the scarcest wanted language (its pages are the ones to pair)."""
        if not self._one_site():
            # (the expand spider crawls many sites at once: one site's links say
            # nothing of another's)
            return False
        if self.one_way(lang):
            return True
        c = self.config
        if not c.yield_learning or not self.yields.low(
                lang, self.langs, c.yield_min_pages, c.yield_min_rate):
            return False
        pages_by_lang = self.shape.pages_by_lang
        others = [pages_by_lang[x] for x in self.langs if x != lang]
        return bool(others) and pages_by_lang[lang] > min(others)

    def one_way(self, lang: str) -> bool:
        """The site translates one way only, into ``lang`` (focus/shape.py)."""
        return self.shape.one_way(lang, self._small_lang)

    def update(self, lang: str) -> bool:
        """Is ``lang`` held? Once held, a language stays held until the crawl runs dry
        (``spider_idle`` judges again): the yield of the requests still in flight when
        holding began would otherwise make it flicker."""
        if lang in self.queue.holding:
            return True
        if self.should_hold(lang):
            self.queue.holding.add(lang)
            if self.one_way(lang):
                logger.info("Focus: holding links between %s pages: other languages' pages "
                            "switch into %s, almost none of its %d pages links back", lang, lang,
                            self.shape.pages_by_lang[lang])
                self.stats.set_value(f"bitext/focus/one_way/{lang}", 1)
            else:
                logger.info("Focus: holding links into %s pages: %d of %d requests made "
                            "for them yielded a counterpart (below %.0f%%)", lang,
                            self.yields.sample_yield[lang], self.yields.samples[lang],
                            100 * self.config.yield_min_rate)
            return True
        return False

    def waits(self, lang: str, between_pages: bool = True) -> bool:
        """Do links into ``lang`` wait at download? Where it is held (:meth:`update`), and,
        for links between pages of ``lang`` (``between_pages``; a link from another
        language's page may be a counterpart's), where the site looks translated one way
        into ``lang`` with too few of its pages in to judge
        (``SiteShape.one_way_so_far``): their low priority keeps them behind
        the other language's links only while the queue has those to give, and a crawl
        with many connections (several workers) reaches them before the judgement. Those
        held while the judgement comes out two-way go when the crawl runs dry
        (:meth:`release_languages`), to be judged by the other rules (``mark_released``)."""
        return self.update(lang) or (between_pages and self._one_site()
                                     and self.shape.one_way_so_far(lang, self._small_lang))

    def hold(self, request, lang: str) -> None:
        if self.queue.hold(request.url, request, lang):
            self.stats.inc_value("bitext/focus/held")

    def rejudge_held(self, site_tokens, schedule: Callable) -> int:
        """Held links whose URL now names another wanted language, by the URL tokens learned
        since they were held (``site_tokens``, pages/site.py), go with that language: a page
        fastText was unsure of (nginx.org's /tr/docs/faq.html, "English" at p = 0.76) had
        its links held as links of English pages, among them the only link to a Turkish
        page. Each is passed to ``schedule``; how many were."""
        released = 0
        for lang, held in self.queue.held.items():
            for url, request in list(held.items()):
                now, _ = site_tokens.most_specific(url)
                if now in self.langs and now != lang and not self.should_hold(now):
                    del held[url]
                    if url not in self.queue.downloaded:
                        mark_released(request)
                        schedule(request)
                        released += 1
        if released:
            self.stats.inc_value("bitext/focus/released_by_url_token", released)
            logger.info("Focus: %d held links lead into another wanted language by their URL "
                        "tokens: released", released)
        return released

    def release_languages(self, schedule: Callable) -> int:
        """The held links of each language no longer held (its yield has come back), each
        passed to ``schedule``; how many were."""
        released = 0
        for lang, held in self.queue.held.items():
            if not held or self.should_hold(lang):
                continue
            self.queue.holding.discard(lang)
            before = released
            for request in list(held.values()):
                if request.url in self.queue.downloaded:
                    continue
                mark_released(request)
                schedule(request)
                released += 1
            held.clear()
            logger.info("Focus: links into %s pages yield again (%d of %d): %d held links "
                        "released", lang, self.yields.sample_yield[lang],
                        self.yields.samples[lang], released - before)
        return released
