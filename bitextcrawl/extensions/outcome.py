"""How a bitext crawl ended, said in WARNING lines and kept as its exit status.

At spider close (after the closing pipeline, which sets ``bitext/pairs``), the
:func:`bitextcrawl.outcome.judge` of the crawl's stats: a wanted language without a page
or no page pair found is a WARNING saying what the crawl saw instead (for a worker of a
distributed crawl, the pages per language are those of every worker, in the shared
store). The exit status goes to the ``bitext/exit_status`` stat, which ``scrapy crawl``
exits with (:mod:`bitextcrawl.commands.crawl`).
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.exceptions import NotConfigured

from bitextcrawl.context import CrawlContext
from bitextcrawl.outcome import judge

logger = logging.getLogger(__name__)

STAT = "bitext/exit_status"
PAGES = "bitext/pages/stored/"


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
            context = CrawlContext.from_crawler(self.crawler)
        except NotConfigured:
            return
        stats = self.crawler.stats
        aligned = self.aligned and stats.get_value("bitext/align/skipped") is None
        seen = stats.get_stats()
        if context.state.backing is not None and not context.closed:
            # one worker of several: the pages of the whole crawl say whether a language
            # was found (this worker may have stored pages of one language only)
            seen = {k: v for k, v in seen.items() if not k.startswith(PAGES)}
            seen.update({PAGES + lang: len(urls)
                         for lang, urls in context.store.urls_by_lang().items()})
        warnings, status = judge(seen, context.langs, aligned, reason)
        for warning in warnings:
            logger.warning("%s", warning)
        stats.set_value(STAT, status)
