"""``max_pages`` as a budget of responses: once that many requests have gone to the
downloader (their responses received or in flight), no further request is sent.

A downloader middleware placed after those that drop requests on their own (held links,
robots.txt), so that only requests that will be downloaded count; a redirect or a retry
is one more response. ``robots.txt`` requests do not count. A request over the budget is
dropped (``bitext/budget/not_scheduled``) and the crawl runs out of requests, so it ends
as a finished crawl: the closing step runs. The idle-time work (deep recovery, released
links) asks the crawl context's ``budget_left`` and schedules nothing once it is spent.
"""

from __future__ import annotations

import logging

from scrapy.exceptions import IgnoreRequest, NotConfigured

from bitextcrawl.context import CrawlContext

logger = logging.getLogger(__name__)


class ResponseBudgetMiddleware:
    def __init__(self, crawler, context: CrawlContext):
        self.crawler = crawler
        self.context = context
        self.spent_logged = False

    @classmethod
    def from_crawler(cls, crawler):
        context = CrawlContext.from_crawler(crawler)   # (made by the spider, built first)
        if not (context.response_budget and context.max_pages):
            raise NotConfigured   # (no message: Scrapy would log it as a WARNING)
        return cls(crawler, context)

    def process_request(self, request, spider=None):
        if request.meta.get("dont_obey_robotstxt"):
            return None   # a robots.txt request
        if self.context.take_request():
            return None
        self.crawler.stats.inc_value("bitext/budget/not_scheduled")
        if not self.spent_logged:
            self.spent_logged = True
            logger.info("max_pages=%d responses reached: no further request is sent; the "
                        "crawl ends when the responses in flight are in",
                        self.context.max_pages)
        request.meta["bitext_held"] = True   # (not an error: the spider's errback skips it)
        raise IgnoreRequest("max_pages reached")
