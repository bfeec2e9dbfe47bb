"""Downloader side of focused crawling (``middlewares/focus.py``): a request already
queued when its language started to be held waits with the held links; the later copy
of a promoted request, any request for a URL that went out already (or for the other
spelling of a directory index that did), and links into unwanted languages learned
since are dropped; a link of a family of URLs being tested waits (``focus/families.py``)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http.request import NO_CALLBACK

from bitextcrawl.config import getbool
from bitextcrawl.focus.holding import ONE_WAY_WAIT, ONE_WAY_WAITED
from bitextcrawl.pages.text import body_rejection
from bitextcrawl.pairing.recovery import index_aliases
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.signals import request_discarded

logger = logging.getLogger(__name__)


class HeldLinksMiddleware:
    """Downloader middleware: a request already queued when its language started to be
    held waits with the held links instead of being downloaded; a same-language request
    whose counterpart has been stored since without a switch back is dropped."""

    def __init__(self, crawler):
        self.crawler = crawler
        # A request held here has passed the dupefilter: where that filter is shared by
        # several workers (the distributed profile), the held link is shared with them
        # (focus/sharing.py), and any copy that skips the filter goes out from the first
        # worker to claim its URL.
        self.hold_queued = getbool(crawler.settings, "BITEXT_FOCUS_HOLD_QUEUED_ENABLED")
        crawler.signals.connect(self.response_received, signal=signals.response_received)

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("BITEXT_FOCUS_ENABLED"):
            raise NotConfigured
        return cls(crawler)

    def _discard(self, request, stat: str, reason: str, counted_done: bool = False):
        """Drop ``request`` for good; the frontier journal counts it done (unless it was
        already: the second copy of a promoted URL, counted when the first went out)."""
        self.crawler.stats.inc_value(f"bitext/focus/{stat}")
        if not counted_done:
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
        self._refuse(request, reason)

    @staticmethod
    def _refuse(request, reason: str):
        """Not downloaded (held, kept or dropped; not an error): said in the log."""
        request.meta["bitext_held"] = True
        logger.debug("Not downloaded now, %s: %s", reason, request.url)
        raise IgnoreRequest(reason)

    def process_request(self, request, spider=None):
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        focus = context.state.focus if context is not None else None
        if focus is None or request.callback is NO_CALLBACK:
            # (NO_CALLBACK: a request that is no page of the crawl, robots.txt)
            return None
        queue, url = focus.queue, request.url
        # (a copy of a request held before carries its mark: judged afresh here, and an
        # error it gets once sent is the site's)
        request.meta.pop("bitext_held", None)
        if url in queue.unwanted and url not in queue.switch_targets:
            self._discard(request, "dropped_other_lang/url_token_queued",
                          "its URL names a language not wanted")
        if queue.second_copy(url, bool(request.meta.get("retry_times"))):
            self._discard(request, "promoted_copy_dropped",
                          "the other copy of a promoted request went out first",
                          counted_done=True)
        if url in queue.requested and not request.meta.get("retry_times"):
            # Two mechanisms asked for one URL at once (a promoted link, which skips the
            # dupefilter, and a counterpart guess, which the filter then lets through):
            # nginx.org /en/docs/dirindex.html was downloaded twice.
            self._discard(request, "requested_twice_dropped",
                          "another request for this URL went out already")
        aliases = [] if request.meta.get("redirect_urls") else index_aliases(url)
        # (a redirect from one spelling to the other is let through)
        if any(alias in queue.requested for alias in aliases):
            # ``dir/index.html`` when ``dir/`` went out (or the reverse): one page on
            # nearly every server
            self._discard(request, "index_alias_dropped",
                          "the same directory index went out under its other URL")
        if aliases and not url.endswith("/") and queue.scheduled_anywhere(aliases[0]):
            # ``dir/index.html`` where links name it ``dir/`` too: fetched as ``dir/``, the
            # spelling its counterpart's URL pairs with whichever of them a page links
            self.crawler.stats.inc_value("bitext/focus/index_alias_rewritten")
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
            return request.replace(url=aliases[0], dont_filter=True)
        same = request.meta.get("bitext_same_lang") or self._link_lang(focus, request)
        if same and focus.no_translation(url, same):
            # its counterpart, stored since the link was found, has no switch back
            self._discard(request, "dropped_no_translation",
                          "no translation: the counterpart page has no switch to it")
        lang = request.meta.get("bitext_chain") or queue.untranslated.get(url)
        if self.hold_queued and lang and not request.meta.get("bitext_released") \
                and not request.meta.get(ONE_WAY_WAITED) \
                and url not in queue.switch_targets \
                and focus.holds(lang, request.meta.get("bitext_same_lang") == lang):
            # (a switch target is a counterpart: the switch's own request may have been
            # dropped by the dupefilter in favour of this one)
            # a copy that the dupefilter lets through when released (this one was seen)
            held = request.replace(dont_filter=True, meta=dict(request.meta))
            if lang in queue.holding:
                reason = f"held: links between {lang} pages yield too little"
            else:   # (released to be judged by the other rules: focus/holding.py)
                held.meta[ONE_WAY_WAIT] = True
                reason = f"waits: the site looks translated one way into {lang} so far"
            if queue.hold(url, held, lang):
                self.crawler.stats.inc_value("bitext/focus/held")
            queue.filtered.add(url)
            self._refuse(request, reason)
        if self.hold_queued and self._small_side_holds(focus, request):
            self._refuse(request, "held: its counterpart on the small side is not known")
        if self.hold_queued and self._family_waits(focus, request):
            self._refuse(request, "waits: another link of its family is tested first")
        # (after the family: a link waiting for its family's test is no test of its page)
        if self._section_keeps(focus, request):
            self._refuse(request, "kept: the index of its section does not name it")
        if self._bar_keeps(focus, request):
            self._refuse(request, "kept: its counterpart's bar of alternates leaves it out")
        sharing = focus.sharing
        if sharing is not None and request.dont_filter and not request.meta.get("retry_times") \
                and not request.meta.get("dont_obey_robotstxt") \
                and not sharing.claim_request(url):
            # a copy past the shared dupefilter (a held link released, a guess of one)
            # that another worker has sent already: the last check, so that a claim is
            # spent only by a request that goes out
            self._discard(request, "shared/requested_elsewhere",
                          "another worker requested this URL past the dupefilter")
        if aliases and sharing is not None and not request.meta.get("retry_times") \
                and not sharing.claim_index(url if url.endswith("/") else aliases[0]):
            # another worker sent this directory index under either spelling (each
            # worker's own record of what went out sees only its own); the last check
            # with the one above, so that a claim is spent only by a request that goes out
            self._discard(request, "index_alias_dropped",
                          "the same directory index went out under its other URL")
        queue.switch_sent(url)
        if url in queue.promoted and url not in queue.requested:
            # the other copy, still queued, will be dropped: done as far as a crash goes
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
        queue.requested.add(url)
        if focus.sections is not None:
            focus.sections.index_requested(url)   # (a family's next test waits for it)
        return None

    @staticmethod
    def _link_lang(focus, request) -> str | None:
        """The language a link's URL names, where the link was judged before its token was
        learned (a copy queued then, without the mark of a same-language link); None for a
        switch's target (a switch names a page that exists), a language probe, a guess."""
        return focus.evidence.url_lang(request.url) if focus.queue.ordinary_link(request) \
            else None

    def _bar_keeps(self, focus, request) -> bool:
        """Keep ``request``: its counterpart's bar of declared alternates leaves its
        language out, or its counterpart's URL was answered by no translation, and the
        rule proved right on this site (focus/bars.py); a test of it goes out."""
        bars = focus.bars
        if bars is None or not bars.active() \
                or request.meta.get("bitext_lang_probe") or request.meta.get("retry_times"):
            return False
        stats = ("bitext/focus/bar_absence/tested", "bitext/focus/bar_absence/kept")
        if not self._keeps(focus, request, stats, lambda kept: bars.judge(
                request.url, focus.evidence.url_lang(request.url), focus.evidence.swap, kept)):
            return False
        self._not_sent(focus, request.url)
        return True

    def _section_keeps(self, focus, request) -> bool:
        """Keep ``request``: the index of its section leaves it out, and the index proved
        to name every page it has (focus/sections.py); a test of it goes out. A switch
        names a page that exists, and a counterpart guessed from a page stored (a URL
        pattern, deep recovery, a parallel link) is judged by its own evidence: they go."""
        sections = focus.sections
        meta = request.meta
        if sections is None or not sections.listed or meta.get("retry_times") \
                or not focus.queue.ordinary_link(request):
            return False
        stats = ("bitext/focus/sections/tested", "bitext/focus/sections/kept")
        return self._keeps(focus, request, stats, lambda kept: sections.judge(
            request.url, meta.get("bitext_linked_from"), kept))

    def _keeps(self, focus, request, stats: tuple[str, str], judge) -> bool:
        """``judge(copy of request)``: "test" (it goes, counted in ``stats[0]``), "keep"
        (the copy is kept by the rule, this request not fetched, ``stats[1]``) or anything
        else (it goes)."""
        verdict = judge(request.replace(dont_filter=True, meta=dict(request.meta)))
        if verdict == "test":
            self.crawler.stats.inc_value(stats[0])
            return False
        if verdict != "keep":
            return False
        focus.queue.filtered.add(request.url)
        self.crawler.stats.inc_value(stats[1])
        return True

    def _family_waits(self, focus, request) -> bool:
        """Hold ``request`` while another link of its family is tested, or for good where
        the pages linking it linked only errors of its family (focus/families.py)."""
        meta = request.meta
        if meta.get("bitext_family_admitted") or meta.get("retry_times") \
                or meta.get("redirect_urls") or not focus.queue.ordinary_link(request):
            return False
        waiting = request.replace(dont_filter=True,
                                  meta={**meta, "bitext_family_admitted": True})
        if focus.queue.families.admit(request.url, waiting):
            return False
        focus.queue.filtered.add(request.url)
        self.crawler.stats.inc_value("bitext/focus/family/waited")
        self._not_sent(focus, request.url)
        return True

    def _not_sent(self, focus, url: str) -> None:
        """``url`` does not go out for now: it sizes no side of a partly translated site
        until it proves a page, and the sizing does not wait for it (sites/small_side.py);
        the requests that releases, scheduled."""
        side = focus.small_side()
        if side is not None:
            context = getattr(self.crawler, CONTEXT_ATTRIBUTE)
            for released in side.not_sent(url):
                context.frontier.schedule(released)

    def response_received(self, response, request, spider=None):
        """An answer for a family's test: the requests it lets go, scheduled."""
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        focus = context.state.focus if context is not None else None
        if focus is None:
            return
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        # a page is found where the answer is an HTML page: a family of links to plain
        # text, images or archives leads to no page either
        mime = response.headers.get(b"Content-Type", b"").decode("latin-1")
        found = response.status < 400 and body_rejection(
            response.body[:4096], mime.split(";", 1)[0].strip().lower(), url) is None
        released = focus.queue.families.answered(url, found)
        for waiting in released:
            context.frontier.schedule(waiting)
        if released:
            self.crawler.stats.inc_value("bitext/focus/family/released", len(released))

    def _small_side_holds(self, focus, request) -> bool:
        """Hold ``request``: a page of the big side of a partly translated site whose
        counterpart no fetched page has linked, or any page while a language probe is
        out (sites/small_side.py)."""
        side = focus.small_side()
        if side is None or request.meta.get("bitext_released") \
                or request.meta.get("bitext_discovered_by") not in ("link", None) \
                or request.url in focus.queue.switch_targets:
            return False
        lang = focus.evidence.url_lang(request.url)
        hold, counterpart = side.holds(request.url, lang)
        if not hold:
            return False
        held = request.replace(dont_filter=True, meta=dict(request.meta))
        side.hold(request.url, lang, held, counterpart)
        if focus.sharing is not None:   # (held by the other workers of the crawl too)
            focus.sharing.small_side_held(request.url, held, lang, counterpart)
        focus.queue.filtered.add(request.url)
        self.crawler.stats.inc_value("bitext/focus/small_side/held")
        return True
