"""A crawl's first requests go out a few at a time: Scrapy's scheduler with a slow start.

Before a site's first pages are in, the crawl knows nothing of its structure: which
folder's index names the pages a translation has (``focus/sections.py``), which language
its URL tokens name, which side is the small one (``sites/small_side.py``). Every request
sent then is sent blind, and at full concurrency a start page's links all go out
together: a translation's home linking module pages never translated had its section
index and a dozen of those 404s in flight at once, where the index, in first, would have
judged them. With a slow start the crawl has at most one request more in flight than
responses received, until that reaches ``CONCURRENT_REQUESTS_PER_DOMAIN``: the start
page's links go out in their priority order (a folder's index first) while the first
answers come in — a few round trips of latency, and polite to the site.

The distributed profile has its own start (the warm-up of :mod:`.registry`) and its own
scheduler (:mod:`.redis`). Off with ``BITEXT_SLOW_START_ENABLED = False``.
"""

from __future__ import annotations

from scrapy import signals
from scrapy.core.scheduler import Scheduler

from bitextcrawl.config import getbool


class SlowStartScheduler(Scheduler):
    @classmethod
    def from_crawler(cls, crawler):
        scheduler = super().from_crawler(crawler)
        settings = crawler.settings
        scheduler.slow_start = getbool(settings, "BITEXT_SLOW_START_ENABLED")
        # the cap that ends it: what the site's slot allows anyway
        scheduler.full = max(1, settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
                             or settings.getint("CONCURRENT_REQUESTS"))
        scheduler.responses = 0
        if scheduler.slow_start:
            crawler.signals.connect(scheduler._response, signal=signals.response_received)
        return scheduler

    def _response(self, response, request, spider=None) -> None:
        if not self.slow_start:
            return
        self.responses += 1
        if self.responses + 1 >= self.full:
            self.slow_start = False
            self.stats.set_value("bitext/slow_start/responses", self.responses)

    def next_request(self):
        if self.slow_start:
            engine = getattr(self.crawler, "engine", None)
            downloader = getattr(engine, "downloader", None)
            if downloader is not None and len(downloader.active) >= self.responses + 1:
                # the engine asks again when a download ends
                self.stats.inc_value("bitext/slow_start/waits")
                return None
        return super().next_request()
