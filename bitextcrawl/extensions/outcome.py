"""How a bitext crawl ended, said in WARNING lines and kept as its exit status.

At spider close (after the closing pipeline, which sets ``bitext/pairs``), the
:func:`bitextcrawl.outcome.judge` of the crawl's stats: a wanted language without a page
or no page pair found is a WARNING saying what the crawl saw instead. The exit status
goes to the ``bitext/exit_status`` stat, which ``scrapy crawl`` exits with
(:mod:`bitextcrawl.commands.crawl`).
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import NotConfigured

from bitextcrawl.context import CrawlContext
from bitextcrawl.outcome import judge

logger = logging.getLogger(__name__)

STAT = "bitext/exit_status"


class CrawlOutcome:
    def __init__(self, crawler):
        self.crawler = crawler
        self.aligned = crawler.settings.getbool("BITEXT_ALIGN_ENABLED")
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        if getattr(crawler.spidercls, "name", None) != "bitext":
            raise NotConfigured   # the bitext spider's only (a message would be a WARNING)
        return cls(crawler)

    def spider_closed(self, spider=None, reason: str = "finished"):
        try:
            langs = CrawlContext.from_crawler(self.crawler).langs
        except NotConfigured:
            return
        stats = self.crawler.stats
        aligned = self.aligned and stats.get_value("bitext/align/skipped") is None
        warnings, status = judge(stats.get_stats(), langs, aligned, reason)
        for warning in warnings:
            logger.warning("%s", warning)
        stats.set_value(STAT, status)
