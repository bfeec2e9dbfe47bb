"""Downloader side of focused crawling (``middlewares/focus.py``): a request already
queued when its language started to be held waits with the held links; the later copy
of a promoted request, any request for a URL that went out already, and links into
unwanted languages learned since are dropped."""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest, NotConfigured

from bitextcrawl.config import getbool
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.signals import request_discarded


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
        request.meta["bitext_held"] = True   # (not an error)
        raise IgnoreRequest(reason)

    def process_request(self, request, spider=None):
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        focus = context.state.focus if context is not None else None
        if focus is None:
            return None
        queue, url = focus.queue, request.url
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
        same = request.meta.get("bitext_same_lang")
        if same and focus.no_translation(url, same):
            # its counterpart, stored since the link was found, has no switch back
            self._discard(request, "dropped_no_translation",
                          "no translation: the counterpart page has no switch to it")
        lang = request.meta.get("bitext_chain") or queue.untranslated.get(url)
        if self.hold_queued and lang and lang in queue.holding \
                and not request.meta.get("bitext_released") \
                and url not in queue.switch_targets:
            # (a switch target is a counterpart: the switch's own request may have been
            # dropped by the dupefilter in favour of this one)
            # a copy that the dupefilter lets through when released (this one was seen)
            if queue.hold(url, request.replace(dont_filter=True), lang):
                self.crawler.stats.inc_value("bitext/focus/held")
            queue.filtered.add(url)
            request.meta["bitext_held"] = True
            raise IgnoreRequest(f"held: links between {lang} pages yield too little")
        if self.hold_queued and self._small_side_holds(focus, request):
            request.meta["bitext_held"] = True
            raise IgnoreRequest("held: its counterpart on the small side is not known")
        sharing = focus.sharing
        if sharing is not None and request.dont_filter and not request.meta.get("retry_times") \
                and not request.meta.get("dont_obey_robotstxt") \
                and not sharing.claim_request(url):
            # a copy past the shared dupefilter (a held link released, a guess of one)
            # that another worker has sent already: the last check, so that a claim is
            # spent only by a request that goes out
            self._discard(request, "shared/requested_elsewhere",
                          "another worker requested this URL past the dupefilter")
        queue.switch_sent(url)
        if url in queue.promoted and url not in queue.requested:
            # the other copy, still queued, will be dropped: done as far as a crash goes
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
        queue.requested.add(url)
        return None

    def _small_side_holds(self, focus, request) -> bool:
        """Hold ``request``: a page of the big side of a partly translated site whose
        counterpart no fetched page has linked (sites/small_side.py)."""
        side = focus.small_side()
        if side is None or request.meta.get("bitext_released") \
                or request.meta.get("bitext_discovered_by") not in ("link", None) \
                or request.url in focus.queue.switch_targets:
            return False
        lang = focus.evidence.url_lang(request.url)
        counterpart = side.counterpart(request.url, lang)
        if counterpart is None or counterpart in side.pages:
            return False
        held = request.replace(dont_filter=True)
        side.hold(request.url, lang, held, counterpart)
        if focus.sharing is not None:   # (held by the other workers of the crawl too)
            focus.sharing.small_side_held(request.url, held, lang, counterpart)
        focus.queue.filtered.add(request.url)
        self.crawler.stats.inc_value("bitext/focus/small_side/held")
        return True
