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
passes them on. Use it in place of Scrapy's::

    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware": 100,
    }
"""

from __future__ import annotations

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as _RobotsTxtMiddleware
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred


class RobotsTxtMiddleware(_RobotsTxtMiddleware):
    async def robot_parser(self, request):
        parser = self._parsers.get(urlparse_cached(request).netloc)
        if not isinstance(parser, Deferred):  # not asked for yet, or known: Scrapy's way
            return await super().robot_parser(request)
        waiter: Deferred = Deferred()

        def relay(result):
            waiter.callback(result)
            return result  # for the next waiter

        parser.addCallback(relay)
        return await maybe_deferred_to_future(waiter)
