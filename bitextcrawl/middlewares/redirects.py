"""Spider middleware: links rewritten the way the site has been redirecting them.

Learning (:class:`~bitextcrawl.pages.redirect_rules.RedirectRules`) listens to
``response_downloaded``, which sees every raw response: a 3xx teaches a rewrite, any
other answer contradicts a rule whose shape it matches. A link whose URL a learned rule
rewrites leaves the spider under the new URL — before the focus middleware judges it and
before the dupefilter, which drops it where that page was fetched already — and carries
the old URL in ``redirect_urls``, as if the site had redirected it. The ``url_rewritten``
signal tells the page store, which keeps the rewrite as a redirect: links written to the
old URL still resolve. A rewritten request that fails kills its rule and goes out again
under the URL the page wrote.

Stats: ``bitext/redirects/rewritten`` (responses saved: one 3xx each, or the whole
request where the target was fetched already), ``bitext/redirects/rules`` (rules in use
at close), ``bitext/redirects/rules_dropped``, ``bitext/redirects/rewrite_failed``.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from bitextcrawl import config
from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE, CrawlContext
from bitextcrawl.pages.redirect_rules import RedirectRules
from bitextcrawl.signals import url_rewritten

logger = logging.getLogger(__name__)

# The meta of a request a learned rule rewrote: the URL it was rewritten from; "" for a
# link sent again as the page wrote it, once its rewrite failed. Either is not rewritten.
REWRITTEN_FROM = "bitext_rewritten_from"


class RedirectRewriteMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler, min_seen: int):
        super().__init__(crawler)
        self.stats = crawler.stats
        self.rules = RedirectRules(min_seen=min_seen)
        context = getattr(crawler, CONTEXT_ATTRIBUTE, None)
        self.state = context.state if context is not None else None
        if context is not None:   # the rules are the crawl state's: QueuedRewriteMiddleware's too
            context.state.redirect_rules = self.rules
            # what the other workers of a distributed crawl see, learned here too
            context.state.on_fact("redirect", lambda seen: self.rules.observe(*seen))
            context.state.on_fact("redirect_contradicted", self.rules.contradict)
        crawler.signals.connect(self.response_downloaded, signal=signals.response_downloaded)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        if not config.getbool(s, "BITEXT_REDIRECT_LEARNING_ENABLED"):
            raise NotConfigured
        return cls(crawler, s.getint("BITEXT_REDIRECT_LEARN_MIN"))

    def response_downloaded(self, response, request, spider=None):
        source = request.meta.get(REWRITTEN_FROM)
        if source and response.status >= 400 and request.url == self._first_hop(request):
            self._failed(request, source)
        elif source:
            return  # our own guess, and it held
        elif 300 <= response.status < 400 and b"Location" in response.headers:
            try:
                target = response.urljoin(
                    response.headers[b"Location"].decode("latin-1").strip())
            except ValueError:
                return
            before = self.rules.live_rules()
            self.rules.observe(request.url, target)
            self._publish("redirect", (request.url, target))
            if self.rules.live_rules() > before:
                logger.info("Redirects: the site answers URLs like %s with %s: such links "
                            "are rewritten before they are requested", request.url, target)
        elif self.rules.contradict(request.url):
            self.stats.inc_value("bitext/redirects/rules_dropped")
            self._publish("redirect_contradicted", request.url)

    def _publish(self, kind: str, value) -> None:
        if self.state is not None:
            self.state.publish(kind, value)

    @staticmethod
    def _first_hop(request) -> str:
        """The URL the rewritten request was sent to (before any redirect of its own)."""
        chain = request.meta.get("redirect_urls") or []
        return chain[1] if len(chain) > 1 else request.url

    def _failed(self, request, source: str) -> None:
        """A wrong guess: no more guesses of that kind, and the link as the page wrote it."""
        self.stats.inc_value("bitext/redirects/rewrite_failed")
        if self.rules.contradict(source):
            self.stats.inc_value("bitext/redirects/rules_dropped")
            self._publish("redirect_contradicted", source)
        meta = {k: v for k, v in request.meta.items()
                if k not in (REWRITTEN_FROM, "redirect_urls", "redirect_times",
                             "redirect_ttl", "redirect_reasons")}
        CrawlContext.frontier_of(self.crawler).schedule(request.replace(
            url=source, dont_filter=True, meta={**meta, REWRITTEN_FROM: ""}))

    def get_processed_request(self, request, response):
        return rewritten(self.crawler, self.rules, request)

    def spider_closed(self, spider=None, reason=None):
        self.stats.set_value("bitext/redirects/rules", self.rules.live_rules())


def rewritable(request) -> bool:
    """A GET the site may redirect: not rewritten already, nor sent back as written."""
    return request.method == "GET" and REWRITTEN_FROM not in request.meta


def rewritten(crawler, rules: RedirectRules, request):
    """``request`` under the URL a learned rule rewrites it to (else itself), carrying the
    old URL as a redirect would; the page store told (``url_rewritten``)."""
    if not rewritable(request):
        return request
    new = rules.rewrite(request.url)
    if new is None:
        return request
    crawler.stats.inc_value("bitext/redirects/rewritten")
    crawler.signals.send_catch_log(url_rewritten, source=request.url, target=new)
    return request.replace(url=new, meta={**request.meta, "redirect_urls": [request.url],
                                          REWRITTEN_FROM: request.url})


class QueuedRewriteMiddleware:
    """Downloader middleware: a request queued before its rule was learned is rewritten
    at download, by the rules of :class:`RedirectRewriteMiddleware`, and goes back to the
    scheduler under the new URL (the dupefilter drops it if that page was fetched).

    While a rule is being learned (a URL of its shape redirected, fewer than
    ``BITEXT_REDIRECT_LEARN_MIN`` so far), only as many requests of its shape go out as
    the rule still needs; the others wait (``bitext/redirects/waited``) until it is in use
    — then they go rewritten, each a 3xx saved — or dropped, or for ``WAIT_S`` at most.
    On a site whose every page links its translations through a redirect, a crawl's
    first pages would otherwise send a dozen of them at once, before three came back.
    So for a rule in use and a URL of its shape but for a new value where the rule's
    values vary (``RedirectRules.near``: the switches of the other language's pages): one
    such URL goes out, the others wait until it is answered."""

    WAIT_S = 10.0

    def __init__(self, crawler):
        self.crawler = crawler
        self.out: dict[int, set[str]] = {}          # id(rule) -> its URLs out, deciding it
        self.near_out: dict[tuple, str] = {}        # a rule's new values -> the URL out
        self.near_done: set[tuple] = set()          # ... whose URL was answered
        self.waiting: list[Deferred] = []
        crawler.signals.connect(self.request_left, signal=signals.request_left_downloader)

    @classmethod
    def from_crawler(cls, crawler):
        if not config.getbool(crawler.settings, "BITEXT_REDIRECT_LEARNING_ENABLED"):
            raise NotConfigured
        return cls(crawler)

    def _rules(self) -> RedirectRules | None:
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        return context.state.redirect_rules if context is not None else None

    def process_request(self, request, spider=None):
        rules = self._rules()
        if rules is None:
            return None
        new = rewritten(self.crawler, rules, request)
        if new is not request:
            return new
        if self._goes(rules, request):
            return None
        return self._wait(rules, request)

    def _goes(self, rules: RedirectRules, request) -> bool:
        """May ``request`` go out now (no rule of its shape is being learned, or the rule
        needs it to decide)?"""
        if not rewritable(request):
            return True
        rule = rules.learning(request.url)
        if rule is None:
            return self._near_goes(rules, request.url)
        out = self.out.setdefault(id(rule), set())
        if request.url in out or len(rule.sources) + len(out) < rules.min_seen:
            out.add(request.url)
            return True
        return False

    def _near_goes(self, rules: RedirectRules, url: str) -> bool:
        """May ``url`` go out, where it is near a rule in use (the first of its new
        values goes; the others once it is answered)?"""
        key = rules.near(url)
        if key is None or key in self.near_done:
            return True
        out = self.near_out.setdefault(key, url)
        return out == url

    async def _wait(self, rules: RedirectRules, request):
        from twisted.internet import reactor   # (the crawl's, installed by then)
        self.crawler.stats.inc_value("bitext/redirects/waited")
        deadline = reactor.seconds() + self.WAIT_S
        while reactor.seconds() < deadline:
            woken: Deferred = Deferred()
            self.waiting.append(woken)
            timer = reactor.callLater(deadline - reactor.seconds(), self._wake)
            await maybe_deferred_to_future(woken)
            if timer.active():
                timer.cancel()
            new = rewritten(self.crawler, rules, request)
            if new is not request:
                return new
            if self._goes(rules, request):
                return None
        return None

    def request_left(self, request, spider=None):
        """A request left the downloader: where it was deciding a rule, the waiting ones
        look again (after the 3xx it got was learned)."""
        answered = {request.url, *(request.meta.get("redirect_urls") or ())}
        for out in self.out.values():
            out.difference_update(answered)
        for key, url in list(self.near_out.items()):
            if url in answered:
                del self.near_out[key]
                self.near_done.add(key)
        if self.waiting:
            from twisted.internet import reactor
            reactor.callLater(0, self._wake)

    def _wake(self) -> None:
        waiting, self.waiting = self.waiting, []
        for woken in waiting:
            if not woken.called:
                woken.callback(None)
