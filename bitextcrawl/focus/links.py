"""The judgement of a link the crawl finds, pure (no Scrapy): dropped, followed at a
priority, or held (see ``middlewares/focus.py`` for the evidence and the yield
learning). :class:`LinkJudge` reads the focus's queue and policies (``focus/queue.py``,
``evidence.py``, ``yields.py``, ``shape.py``) and changes a request as the judgement says;
the middleware hands it the crawl's links and schedules what it returns.

A request here is anything with ``url``, ``priority``, ``meta``, ``dont_filter`` and
``replace()`` (a Scrapy request); ``stats`` anything with ``inc_value``/``set_value``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Holding, Priorities
from bitextcrawl.focus.queue import FocusQueue
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

    def in_start_section(self, url: str) -> bool:
        """Is ``url`` under the folder of the start URL (not the site's root)?"""
        start = self._start_url() or ""
        rest = start.partition("://")[2]
        folder = rest[:rest.rfind("/") + 1] if "/" in rest else ""
        if folder.count("/") < 2:   # the root: says nothing
            return False
        return url.partition("://")[2].startswith(folder)

    def untranslated_link(self, page, lang: str | None, evidence: str) -> bool:
        """An ordinary link (no switch) from a page of one wanted language into another:
        a site links another language's page where its own translation is missing, so
        the page it leads to most likely has no counterpart."""
        return (page is not None and page.lang in self.langs and lang in self.langs
                and lang != page.lang and evidence == "url_token")

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

    def unfiltered(self, request):
        """``request`` made to pass the dupefilter if an earlier request for its URL was
        held back at download (the filter saw that one, nobody downloaded it)."""
        url, queue = request.url, self.queue
        if url in queue.filtered and url not in queue.downloaded:
            return request.replace(dont_filter=True)
        queued = queue.queued.get(url, (None,))[0]
        if self.config.promote and queued is not None and not request.dont_filter \
                and url not in queue.requested and url not in queue.promoted \
                and request.priority >= queued + self.config.cross_bonus:
            queue.promoted.add(url)
            self.stats.inc_value("bitext/focus/promoted")
            return request.replace(dont_filter=True,
                                   meta={**request.meta, "bitext_promoted": True})
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
                    or request.meta.get("bitext_same_page"):
                # (a link of its page's language had that language's bonus already)
                continue
            meta = {**request.meta, "bitext_promoted": True, "bitext_chain": lang,
                    "bitext_same_lang": lang}
            queue.promoted.add(url)
            out.append(request.replace(
                priority=request.priority + self.config.bonus, dont_filter=True, meta=meta))
        if out:
            self.stats.inc_value("bitext/focus/promoted_by_url_token", len(out))
        return out

    def judge(self, request, response_meta: dict, response_url: str | None, page,
              lang: str | None, evidence: str):
        langs, c, stats, queue = self.langs, self.config, self.stats, self.queue
        if lang and lang not in langs and c.drop_other:
            stats.inc_value(f"bitext/focus/dropped_other_lang/{evidence}")
            stats.inc_value(f"bitext/links/other_lang/{lang}")
            return None
        if page is None or response_meta.get("bitext_discovered_by") == "start":
            if self.untranslated_link(page, lang, evidence):
                request.meta["bitext_untranslated"] = True
                queue.untranslated[request.url] = lang
                stats.inc_value("bitext/focus/untranslated_link")
            elif lang in langs:
                request.priority += c.bonus
                stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            elif lang is None and self.in_start_section(request.url):
                # no URL token is known yet; the folder the user started in is where
                # the start page's language is (nginx.org's /cn/)
                request.priority += c.bonus
                stats.inc_value("bitext/focus/lang_link/start_section")
            return self.unfiltered(request)
        if page.lang not in langs:
            if lang in langs:
                request.priority += c.bonus
                stats.inc_value(f"bitext/focus/lang_link/{evidence}")
                return self.unfiltered(request)
            if c.other_lang_links == "evidence" and page.lang != "und":
                # a page in a language nobody wants: its links lead on into that language
                stats.inc_value("bitext/focus/dropped_from_other_lang")
                return None
            request.priority += c.other_page_priority
            stats.inc_value("bitext/focus/deferred")
            return self.unfiltered(request)
        if lang in langs and lang != page.lang and evidence != "url_token":
            # a language switch into another wanted language: most likely the counterpart
            if request.url not in queue.switch_targets and request.url not in queue.requested:
                queue.switches_pending[request.url] = lang
                queue.pending_by_lang[lang] += 1
            queue.add_switch_target(request.url)
            for held in queue.held.values():   # held as an ordinary link before: not now
                held.pop(request.url, None)
            request.priority += c.bonus + c.cross_bonus
            stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            stats.inc_value("bitext/focus/cross_lang_link")
            return self.unfiltered(request)
        if lang == page.lang:
            if self.shape.no_translation(request.url, lang, self.evidence.tokens.swap):
                stats.inc_value("bitext/focus/dropped_no_translation")
                return None
            request.meta["bitext_same_lang"] = lang  # checked again before download
        self.prioritise(request, response_meta, response_url, page, lang, evidence)
        # Yield learning, by the language the link leads to: a same-language link (or one
        # of unknown language), or an ordinary link into another wanted language — which
        # a site makes where its own translation is missing, so it is worth no more.
        chain = lang if lang in langs else page.lang
        request.meta["bitext_chain"] = chain
        if self.holding.update(chain) and request.url not in queue.switch_targets:
            self.holding.hold(request, chain)
            return None
        return self.unfiltered(request)

    def prioritise(self, request, response_meta: dict, response_url: str | None, page,
                   lang: str | None, evidence: str) -> None:
        """The priority of a link from a wanted-language page that is no switch."""
        c, stats, queue = self.config, self.stats, self.queue
        if lang is None:
            # nothing known of the link yet (no URL token learned): most links of a page
            # lead to pages of its language (a translation's home links its own pages,
            # which would otherwise wait behind every link of the language learned first)
            lang, evidence = page.lang, "same_page"
            request.meta["bitext_same_page"] = True
        if self.untranslated_link(page, lang, evidence):
            queue.untranslated[request.url] = lang
        if request.url in queue.untranslated or (
                lang in (None, page.lang) and (response_meta.get("bitext_untranslated")
                                               or response_url in queue.untranslated)):
            # no bonus: see untranslated_link; and the pages such a page links in its own
            # language are of its kind (nginx.org's /cn/ links the English njs manual)
            request.meta["bitext_untranslated"] = True
            stats.inc_value("bitext/focus/untranslated_link")
        elif lang == page.lang and self.shape.one_way_so_far(lang, self._small_lang):
            # no bonus while the site looks translated one way into ``lang``: these links
            # wait behind the other language's, and are held if the judgement confirms it
            # (nginx.org from /cn/: English FAQ pages went out before ten English pages
            # had come to judge by)
            stats.inc_value("bitext/focus/one_way_so_far")
        elif lang in self.langs:
            request.priority += c.bonus
            stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            if lang == page.lang and self.shape.counterpart_will_tell(
                    request.url, lang, self.evidence.tokens.swap):
                # its counterpart, not stored yet, will say whether it exists: after it
                request.priority -= c.scarce_bonus
                stats.inc_value("bitext/focus/deferred_for_counterpart")
            elif lang == self._scarcest_for(page):
                # its pages bound the number of pairs: they go first
                request.priority += c.scarce_bonus
                stats.inc_value("bitext/focus/scarce_lang_link")
