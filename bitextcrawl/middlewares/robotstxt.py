"""Scrapy's robots.txt middleware, with a site's rules given to every request that waits.

In Scrapy 2.19 (since the ``async def`` rewrite of ``RobotsTxtMiddleware``), the requests
that arrive while a site's ``robots.txt`` is being downloaded all await the same Deferred
through ``maybe_deferred_to_future()``. ``Deferred.asFuture()`` hands the Deferred's
result to its future and passes ``None`` down the chain, so only the *first* waiter gets
the parsed rules: the second and later ones get ``None`` and are let through as if the
site had no robots.txt. A crawl that starts with one request never shows it; one that
starts with many requests for a site does: a resumed crawl (JOBDIR), a distributed worker
taking a batch of requests from the shared queue, a spider with several start URLs.

This subclass gives each waiter its own Deferred, fired with the rules by a callback that
passes them on.

Where several workers crawl one site (the crawl state has a backing: the distributed
profile), a site's ``robots.txt`` is downloaded once for all of them, as one crawl would:
the first worker to claim it downloads it and keeps its answer in the crawl state
(``put``); the others wait for that answer (up to ``SHARED_WAIT_S``, then download it
themselves) and parse it as their own (``bitext/robotstxt/shared``).

Use it in place of Scrapy's::

    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware": 100,
    }
"""

from __future__ import annotations

import time

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as _RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet import reactor
from twisted.internet.defer import Deferred
from twisted.internet.task import deferLater

from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE

# How long a worker waits for the robots.txt another worker claimed (its download timeout
# at most), and how often it looks.
SHARED_WAIT_S = 30.0
SHARED_POLL_S = 0.05
KIND = "robots_txt"


class RobotsTxtMiddleware(_RobotsTxtMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        self._claimed: set[str] = set()   # sites whose robots.txt this worker fetches for all

    async def robot_parser(self, request):
        netloc = urlparse_cached(request).netloc
        parser = self._parsers.get(netloc)
        if parser is None and netloc not in self._parsers:
            state = self._shared_state()
            if state is not None:
                return await self._shared_parser(state, request, netloc)
        if not isinstance(parser, Deferred):  # not asked for yet, or known: Scrapy's way
            return await super().robot_parser(request)
        return await maybe_deferred_to_future(_relay(parser))

    def _shared_state(self):
        """The crawl state, where it is shared by several workers; else None."""
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        state = getattr(context, "state", None)
        return state if getattr(state, "backing", None) is not None else None

    async def _shared_parser(self, state, request, netloc: str):
        """The rules of ``netloc``'s robots.txt, downloaded by one worker of the crawl."""
        if state.claim(KIND, netloc):
            self._claimed.add(netloc)   # (its answer is put for the others)
            return await super().robot_parser(request)
        pending: Deferred = Deferred()
        self._parsers[netloc] = pending   # (later requests wait on it)
        waiter = _relay(pending)
        wait = min(SHARED_WAIT_S, self.crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 180))
        deadline = time.monotonic() + wait
        answer = state.get(KIND, netloc)
        while answer is None and time.monotonic() < deadline:
            await maybe_deferred_to_future(deferLater(reactor, SHARED_POLL_S, lambda: None))
            answer = state.get(KIND, netloc)
        if answer is None:   # (the worker that claimed it is gone): downloaded here
            del self._parsers[netloc]
            self._claimed.add(netloc)
            pending.callback(await super().robot_parser(request))
        elif answer[0] is None:   # its download failed: no rules, as a failure here gives
            self.crawler.stats.inc_value("bitext/robotstxt/shared")
            self._robots_error(IgnoreRequest(), netloc)
        else:
            self.crawler.stats.inc_value("bitext/robotstxt/shared")
            status, body = answer
            robots_url = f"{urlparse_cached(request).scheme}://{netloc}/robots.txt"
            await self._parse_robots(Response(robots_url, status=status, body=body),
                                     netloc, request)
        return await maybe_deferred_to_future(waiter)

    async def _parse_robots(self, response, netloc, request):
        if netloc in self._claimed:
            self._shared_state().put(KIND, netloc, (response.status, response.body))
        await super()._parse_robots(response, netloc, request)

    def _robots_error(self, exc, netloc):
        if netloc in self._claimed:
            self._shared_state().put(KIND, netloc, (None, b""))
        super()._robots_error(exc, netloc)


def _relay(parser: Deferred) -> Deferred:
    """A Deferred of its own, fired with ``parser``'s result (see the module)."""
    waiter: Deferred = Deferred()

    def relay(result):
        waiter.callback(result)
        return result  # for the next waiter

    parser.addCallback(relay)
    return waiter
