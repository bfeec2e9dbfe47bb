"""Downloader side of focused crawling (``middlewares/focus.py``): each request about to
go out is handed to the active focus rules with a hook before download, in their order
(``focus/rules/``, ``BITEXT_FOCUS_RULES``), and dropped, kept or rewritten as the first
that decides says; then claimed for this worker in a distributed crawl. Each answer is
handed to the rules' ``answered`` hooks as it comes in (a family's test,
``focus/rules/family_tests.py``)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http.request import NO_CALLBACK

from bitextcrawl.focus.rules.base import Discard, Rewrite
from bitextcrawl.focus.rules.index_aliases import IndexAliases, request_aliases
from bitextcrawl.pages.text import body_rejection
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.signals import request_discarded

logger = logging.getLogger(__name__)


class HeldLinksMiddleware:
    """Downloader middleware: the focus rules' judgement of a request before download."""

    def __init__(self, crawler):
        self.crawler = crawler
        # A request held here has passed the dupefilter: where that filter is shared by
        # several workers (the distributed profile), the held link is shared with them
        # (focus/sharing.py), and any copy that skips the filter goes out from the first
        # worker to claim its URL.
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
        # the active rules with a hook before download, in their order (focus/rules/)
        for rule in focus.request_rules:
            verdict = rule.request(request, focus)
            if verdict is None:
                continue
            if isinstance(verdict, Discard):
                self._discard(request, verdict.stat, verdict.reason, verdict.counted_done)
            if isinstance(verdict, Rewrite):
                self.crawler.stats.inc_value(verdict.stat)
                self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
                return verdict.request
            self._refuse(request, verdict.reason)
        self._claim(focus, request)
        queue.switch_sent(url)
        if url in queue.promoted and url not in queue.requested:
            # the other copy, still queued, will be dropped: done as far as a crash goes
            self.crawler.signals.send_catch_log(signal=request_discarded, request=request)
        queue.requested.add(url)
        if focus.sections is not None:
            focus.sections.index_requested(url)   # (a family's next test waits for it)
        return None

    def _claim(self, focus, request) -> None:
        """A distributed crawl's last checks, once every rule let ``request`` go, so that
        a claim is spent only by a request that goes out: a copy past the shared
        dupefilter (a held link released, a guess of one) that another worker has sent
        already is dropped; and so is a directory index another worker sent under either
        spelling (each worker's own record of what went out sees only its own)."""
        sharing, url, meta = focus.sharing, request.url, request.meta
        if sharing is None or meta.get("retry_times"):
            return
        if request.dont_filter and not meta.get("dont_obey_robotstxt") \
                and not sharing.claim_request(url):
            self._discard(request, "shared/requested_elsewhere",
                          "another worker requested this URL past the dupefilter")
        aliases = request_aliases(request) if any(
            isinstance(rule, IndexAliases) for rule in focus.request_rules) else []
        if aliases and not sharing.claim_index(url if url.endswith("/") else aliases[0]):
            self._discard(request, "index_alias_dropped",
                          "the same directory index went out under its other URL")

    def response_received(self, response, request, spider=None):
        """An answer (a page, or not) to the rules' ``answered`` hooks: the requests they
        let go, scheduled."""
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        focus = context.state.focus if context is not None else None
        if focus is None or not focus.answer_rules:
            return
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        # a page is found where the answer is an HTML page: a family of links to plain
        # text, images or archives leads to no page either
        mime = response.headers.get(b"Content-Type", b"").decode("latin-1")
        found = response.status < 400 and body_rejection(
            response.body[:4096], mime.split(";", 1)[0].strip().lower(), url) is None
        for rule in focus.answer_rules:
            for waiting in rule.answered(url, found):
                context.frontier.schedule(waiting)
