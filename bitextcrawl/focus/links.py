"""The judgement of a link the crawl finds, pure (no Scrapy): dropped, followed at a
priority, or held (the evidence: ``focus/evidence.py``; the yield learning:
``focus/yields.py``). :class:`LinkJudge` hands each link to the active rules in their order
(``focus/rules/``, ``BITEXT_FOCUS_RULES``), which read and change the focus's queue and
policies (``focus/queue.py``, ``evidence.py``, ``yields.py``, ``shape.py``); it keeps what
a page says of its links (scarcity, the yield, the site's shape) and judges queued links
again once their URL's language is learned. The middleware hands it the crawl's links
and schedules what it returns.

A request here is anything with ``url``, ``priority``, ``meta``, ``dont_filter`` and
``replace()`` (a Scrapy request); ``stats`` anything with ``inc_value``/``set_value``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Holding, Priorities
from bitextcrawl.focus.marks import mark, marked, marks
from bitextcrawl.focus.queue import FocusQueue
from bitextcrawl.focus.rules.base import DROP, FOLLOW, FocusParts, FocusRule, LinkCase
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning

logger = logging.getLogger("bitextcrawl.middlewares.focus")

UNJUDGED_MAX = 10_000   # queued links of unknown language kept for judging again


class LinkJudge:
    def __init__(self, config: Priorities, queue: FocusQueue, evidence: LinkEvidence,
                 yields: YieldLearning, shape: SiteShape, stats,
                 langs: Callable[[], tuple], one_site: Callable[[], bool],
                 start_url: Callable[[], str], small_lang: Callable[[], str | None]):
        self.config, self.stats = config, stats
        self.queue, self.evidence, self.yields, self.shape = queue, evidence, yields, shape
        self._langs, self._start_url, self._small_lang = langs, start_url, small_lang
        # which languages' links wait (focus/holding.py)
        self.holding = Holding(config, queue, yields, shape, stats, langs, one_site,
                               small_lang)
        # (page URL, the scarcest language for its links): see observe
        self._page_scarcest: tuple[str, str | None] | None = None
        # what the rules read and change (focus/rules/); the middleware sets ``schedule``
        self.parts = FocusParts(config, queue, evidence, shape, self.holding, stats, langs,
                                start_url, small_lang, self._scarcest_for)
        self.link_rules: list = []
        self.followed_rules: list = []

    @property
    def langs(self) -> tuple:
        return self._langs()

    # ---- what a page and a link are ----------------------------------------------------

    def observe(self, page, named_unlinked: frozenset) -> None:
        """A stored page of a wanted language: the evidence of a counterpart on the page
        itself (a declared alternate, a switch anchor or a URL token leading into another
        wanted language), for the yield and the site's shape."""
        langs, queue = self.langs, self.queue
        switches = {lang for lang in (page.hreflang or {}) if lang in langs}
        into = set(switches)
        coming: Counter = Counter()   # switch targets of this page not on their way yet
        for link in page.links:
            lang, evidence = self.evidence.link_language(link["url"], link)
            if lang in langs:
                into.add(lang)
                if evidence != "url_token":
                    switches.add(lang)
                    url = link["url"]
                    if lang != page.lang and url not in queue.switch_targets \
                            and url not in queue.requested:
                        coming[lang] += 1
        # The page's links are judged one by one, and each switch among them counts
        # for scarcity as it is judged: the links before a switch and after it would
        # differ by its bonus. They are judged on the page as a whole: its switches
        # counted from the start.
        self._page_scarcest = (page.url, self.scarcest(coming))
        switches.discard(page.lang)
        into.discard(page.lang)
        if into:
            self.yields.yielded_page(page.url)
        self.shape.observe(page.url, page.lang, switches, into, named_unlinked)

    def _scarcest_for(self, page) -> str | None:
        """The scarcest language, for a link of ``page``: as when the page was observed."""
        if self._page_scarcest is not None and self._page_scarcest[0] == page.url:
            return self._page_scarcest[1]
        return self.scarcest()

    def scarcest(self, coming: Counter | None = None) -> str | None:
        """The wanted language with the fewest pages stored or on their way as switch
        targets (None while there is a tie): crawled from /cn/, English is not scarce
        while the Chinese pages' switches into it wait in the queue. ``coming``: switch
        targets per language not counted yet."""
        coming = coming or Counter()
        counts = sorted((self.shape.pages_by_lang[x] + self.queue.pending_by_lang[x]
                         + coming[x], x) for x in self.langs)
        if len(counts) < 2 or counts[0][0] == counts[1][0]:
            return None
        return counts[0][1]

    # ---- requests ----------------------------------------------------------------------

    def use_rules(self, rules: list) -> None:
        """The active rules, in their order (``focus/rules/``): those that judge a link
        found, and those that see every request the focus schedules."""
        self.link_rules = [r for r in rules if type(r).link is not FocusRule.link]
        self.followed_rules = [r for r in rules if type(r).followed is not FocusRule.followed]

    def scheduled(self, request):
        """A request handed to the frontier (``Frontier.schedule``), on its way to the
        scheduler: judged as a link found is once its ``link`` hooks are through
        (:meth:`unfiltered`), unless the rules judged it already (a link found, kept by
        a rule and released, or sent again once a rewrite failed; a request the focus
        made itself). Every request is judged once, whichever way it comes."""
        if marks(request.meta).judged:
            return request
        request = self.unfiltered(request)
        mark(request.meta, judged=True)
        return request

    def unfiltered(self, request, case: LinkCase | None = None):
        """``request`` on its way to the scheduler (a link followed, ``case``, or a
        request the frontier schedules, a counterpart guessed from a stored page or a
        parallel link among them): made to pass the dupefilter if an earlier request for
        its URL was held back at download (the filter saw that one, nobody downloaded
        it); then as the rules that see it make it."""
        queue = self.queue
        if request.url in queue.filtered and request.url not in queue.downloaded:
            request = request.replace(dont_filter=True)
        for rule in self.followed_rules:
            request = rule.followed(request, case)
        return request

    def request(self, request, response_meta: dict, response_url: str | None):
        """A link found on the page of a response (``response_meta``, the URL it was
        requested by): the request to schedule, or None."""
        lang, evidence = self.evidence.link_language(request.url, request.meta.get("bitext_link"))
        page = response_meta.get("bitext_page")
        self.queue.families.linked(request.url, response_url)
        request = self.judge(request, response_meta, response_url, page, lang, evidence)
        if request is not None and lang is None and page is not None \
                and page.lang in self.langs and len(self.queue.unjudged) < UNJUDGED_MAX:
            self.queue.unjudged.setdefault(request.url, (request, page.lang))
        return request

    def rejudge_queued(self) -> list:
        """Queued links whose language a newly learned URL token names: into an unwanted
        language, dropped at download; into a wanted one, a copy jumps the queue with the
        bonus they would have had (nginx.org's /cn/ links every Chinese page before /cn/
        is known to name Chinese, and these waited behind English links found later).
        The copies to schedule."""
        queue, out = self.queue, []
        for url, (request, page_lang) in list(queue.unjudged.items()):
            if url in queue.requested or url not in queue.queued:
                # (gone out, or dropped by the dupefilter: seen by an earlier run)
                del queue.unjudged[url]
                continue
            lang, _ = self.evidence.link_language(url, None)
            if lang is None:
                continue
            del queue.unjudged[url]
            if lang not in self.langs:
                if self.config.drop_other:
                    queue.unwanted.add(url)
                    self.stats.inc_value(f"bitext/links/other_lang/{lang}")
                continue
            if lang != page_lang:
                # an ordinary link into another wanted language: no bonus, and held at
                # download like the links of that language
                queue.untranslated[url] = lang
                continue
            if url in queue.promoted or url in queue.untranslated or not self.config.promote \
                    or marks(request.meta).same_page:
                # (a link of its page's language had that language's bonus already)
                continue
            meta = marked(request.meta, promoted=True, chain=lang, same_lang=lang)
            queue.promoted.add(url)
            out.append(request.replace(
                priority=request.priority + self.config.bonus, dont_filter=True, meta=meta))
        if out:
            self.stats.inc_value("bitext/focus/promoted_by_url_token", len(out))
        return out

    def judge(self, request, response_meta: dict, response_url: str | None, page,
              lang: str | None, evidence: str):
        """The request to schedule for a link found, or None: judged by the active rules
        in their order, each handing it on, settling it or dropping it."""
        case = LinkCase(request, response_meta, response_url, page, lang, evidence,
                        self.langs)
        if case.ordinary:
            # what the rules before download and yield learning read of an ordinary link
            mark(request.meta, judged=True, chain=case.chain,
                 same_lang=lang if lang == page.lang else marks(request.meta).same_lang,
                 same_page=lang is None or marks(request.meta).same_page)
        else:
            mark(request.meta, judged=True)
        for rule in self.link_rules:
            verdict = rule.link(case)
            if verdict == DROP:
                return None
            if verdict == FOLLOW:
                break
        return self.unfiltered(request, case)
