"""Downloader side of focused crawling (``middlewares/focus.py``): a request already
queued when its language started to be held waits with the held links; the later copy
of a promoted request, any request for a URL that went out already, and links into
unwanted languages learned since are dropped."""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest, NotConfigured

from bitextcrawl.config import getbool
from bitextcrawl.signals import request_discarded


class HeldLinksMiddleware:
    """Downloader middleware: a request already queued when its language started to be
    held waits with the held links instead of being downloaded; a same-language request
    whose counterpart has been stored since without a switch back is dropped."""

    def __init__(self, crawler):
        self.crawler = crawler
        # A request held here has passed the dupefilter: where that filter is shared by
        # several workers (the distributed profile), no other worker may fetch it, and a
        # worker that holds it never sees the switch that makes it a counterpart.
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
        focus = getattr(self.crawler, "bitext_focus", None)
        if focus is None:
            return None
        if request.url in focus.unwanted and request.url not in focus.switch_targets:
            self._discard(request, "dropped_other_lang/url_token_queued",
                          "its URL names a language not wanted")
        if focus.second_copy(request):
            self._discard(request, "promoted_copy_dropped",
                          "the other copy of a promoted request went out first",
                          counted_done=True)
        if request.url in focus.requested and not request.meta.get("retry_times"):
            # Two mechanisms asked for one URL at once (a promoted link, which skips the
            # dupefilter, and a counterpart guess, which the filter then lets through):
            # nginx.org /en/docs/dirindex.html was downloaded twice.
            self._discard(request, "requested_twice_dropped",
                          "another request for this URL went out already")
        same = request.meta.get("bitext_same_lang")
        if same and focus._no_translation(request.url, same):
            # its counterpart, stored since the link was found, has no switch back
            self._discard(request, "dropped_no_translation",
                          "no translation: the counterpart page has no switch to it")
        lang = request.meta.get("bitext_chain") or focus.untranslated.get(request.url)
        if self.hold_queued and lang and lang in focus.holding \
                and not request.meta.get("bitext_released") \
                and request.url not in focus.switch_targets:
            # (a switch target is a counterpart: the switch's own request may have been
            # dropped by the dupefilter in favour of this one)
            # a copy that the dupefilter lets through when released (this one was seen)
            focus.hold(request.replace(dont_filter=True), lang)
            focus.filtered.add(request.url)
            request.meta["bitext_held"] = True
            raise IgnoreRequest(f"held: links between {lang} pages yield too little")
        if self.hold_queued and focus.small_side_holds(request):
            request.meta["bitext_held"] = True
            raise IgnoreRequest("held: its counterpart on the small side is not known")
        focus.switch_sent(request.url)
        if request.url in focus.promoted and request.url not in focus.requested:
            # the other copy, still queued, will be dropped: done as far as a crash goes
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
        focus.requested.add(request.url)
        return None
