"""What every item pipeline of a site crawl starts from."""

from __future__ import annotations

from scrapy.exceptions import NotConfigured

from bitextcrawl import config
from bitextcrawl.context import CrawlContext


class SitePipeline:
    """The crawler, the crawl context the pipeline serves (an expand crawl's site's own,
    where given; else the crawler's), its languages and the stats; made by
    :meth:`from_crawler` only where the setting :attr:`enabled_by` is on."""

    #: the setting that enables the pipeline (NotConfigured when off)
    enabled_by = ""

    def __init__(self, crawler, context: CrawlContext | None = None):
        self.crawler = crawler
        self.context = context or CrawlContext.from_crawler(crawler)
        self.langs = self.context.langs
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler, context: CrawlContext | None = None):
        if cls.enabled_by and not config.getbool(crawler.settings, cls.enabled_by):
            raise NotConfigured
        return cls(crawler, context)
