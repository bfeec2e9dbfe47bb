"""What the focus knows of the requests of the crawl, shared by its two sides: the spider
middleware that judges links (``middlewares/focus.py``) and the downloader middleware that
judges queued requests again before they go out (``middlewares/held_links.py``). Both
reach it in the crawl state (``context.state.focus``, a :class:`FocusState`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.families import MissingFamilies
from bitextcrawl.focus.marks import marks
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning


class FocusQueue:
    def __init__(self):
        self.downloaded: set[str] = set()
        self.filtered: set[str] = set()          # held at download: the dupefilter saw them
        self.switch_targets: set[str] = set()    # URLs some page links as a language switch
        self.switches_pending: dict[str, str] = {}  # switch targets not requested yet -> language
        self.pending_by_lang: Counter = Counter()   # ... counted per language (scarcity)
        # A URL queued at a low priority and found again worth a switch bonus more (the
        # English link of an English page, then a Chinese page's switch to it) jumps the
        # queue: a copy is scheduled past the dupefilter; whichever copy reaches the
        # downloader second is dropped there (HeldLinksMiddleware).
        # URL -> (priority it was first scheduled at, id of that request)
        self.queued: dict[str, tuple[int, int]] = {}
        self.promoted: set[str] = set()
        self.requested: set[str] = set()         # URLs that reached the downloader
        # (url) -> did any worker of the crawl schedule it (the shared dupefilter, in a
        # distributed crawl; this queue's own record otherwise)
        self.scheduled_anywhere: Callable[[str], bool] = lambda url: url in self.queued
        # Links queued before the URL tokens that name their language were learned (the
        # start page's, first of all) are judged again once they are: URL -> (request,
        # language of the page that links it); bounded.
        self.unjudged: dict[str, tuple[Any, str]] = {}   # (a request)
        self.unwanted: set[str] = set()          # queued, since known to lead elsewhere
        # URL -> its language, for pages that a page of another wanted language links by
        # an ordinary link (focus/rules/untranslated.py), found at link time or
        # judged later
        self.untranslated: dict[str, str] = {}
        self.holding: set[str] = set()           # languages whose same-language links wait
        # families of links tested one request at a time (focus/families.py)
        self.families = MissingFamilies()
        self.held: dict[str, dict[str, Any]] = defaultdict(dict)  # lang -> URL -> request
        # on_hold(url, request, lang) for each link held here (the workers of a
        # distributed crawl hold it too: focus/sharing.py)
        self.on_hold: Callable | None = None
        self.on_switch_target: Callable | None = None   # on_switch_target(url), as on_hold

    def hold(self, url: str, request, lang: str) -> bool:
        """Keep ``request`` with the held links of ``lang``; False if it is held already."""
        held = self.held[lang]
        if url in held:
            return False
        held[url] = request
        if self.on_hold is not None:
            self.on_hold(url, request, lang)
        return True

    def add_switch_target(self, url: str) -> None:
        """Some page links ``url`` as a language switch (its counterpart: never held)."""
        if url not in self.switch_targets:
            self.switch_targets.add(url)
            if self.on_switch_target is not None:
                self.on_switch_target(url)

    def ordinary_link(self, request) -> bool:
        """Is ``request`` a page's ordinary link, which the focus's rules judge? Not a
        switch's target (a switch names a page that exists), a language probe, or a
        counterpart guessed from a stored page (judged by its own evidence)."""
        meta = request.meta
        return meta.get("bitext_discovered_by") in ("link", None) \
            and not marks(meta).lang_probe and request.url not in self.switch_targets

    def held_links(self) -> dict[str, list[str]]:
        return {lang: list(held) for lang, held in self.held.items() if held}

    def switch_sent(self, url: str) -> None:
        """A switch target went out: no longer on its way."""
        lang = self.switches_pending.pop(url, None)
        if lang is not None:
            self.pending_by_lang[lang] -= 1

    def second_copy(self, url: str, retried: bool = False) -> bool:
        """Is a request for ``url`` the later of two copies of a promoted URL?"""
        return url in self.promoted and url in self.requested and not retried


    def scheduled(self, request) -> None:
        """A request went to the scheduler (the dupefilter has not judged it yet)."""
        if marks(request.meta).promoted:
            self.promoted.add(request.url)   # (a copy replayed after a crash, too)
            self.queued[request.url] = (request.priority, id(request))
        else:
            self.queued.setdefault(request.url, (request.priority, id(request)))
        # a copy the dupefilter will drop (its URL was held at download, and this copy
        # did not come through ``unfiltered``) replaces nothing
        if request.url in self.filtered and not request.dont_filter:
            return
        for held in self.held.values():
            held.pop(request.url, None)
        self.filtered.discard(request.url)

    def dropped(self, request) -> None:
        """The scheduler refused a request (the dupefilter had seen it: downloaded by an
        earlier run of a resumed crawl)."""
        if self.queued.get(request.url, (0, None))[1] == id(request):
            del self.queued[request.url]


class FocusState:
    """The focus's part of the crawl state: its queue and its policies; the small side
    of a partly translated site, once known (``small_side()``)."""

    def __init__(self, queue: FocusQueue, evidence: LinkEvidence, yields: YieldLearning,
                 shape: SiteShape, small_side: Callable[[], object], bars=None,
                 sections=None, holds: Callable[[str, bool], bool] | None = None):
        self.queue, self.evidence, self.yields, self.shape = queue, evidence, yields, shape
        # holds(lang, between_pages): do links into ``lang`` (from a page of ``lang``, or
        # not) wait? (``focus/holding.py``, judged on the pages of every worker: a worker
        # that parsed none of that language's links has judged nothing yet)
        self.holds = holds or (lambda lang, between_pages: lang in queue.holding)
        self.small_side = small_side
        self.sharing = None   # FocusSharing (focus/sharing.py): the workers' shared learning
        self.bars = bars   # BarAbsence (focus/bars.py), where on
        self.sections = sections   # SectionIndexes (focus/sections.py), where on
        # the active rules with a hook before download, and with one for each answer,
        # in order (focus/rules/)
        self.request_rules: list = []
        self.answer_rules: list = []

    def no_translation(self, url: str, lang: str) -> bool:
        """Switch absence: the site says ``url`` (in ``lang``) has no translation."""
        return self.shape.no_translation(url, lang, self.evidence.tokens.swap)
