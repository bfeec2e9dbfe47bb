"""The cyclic garbage collector of a bitext crawl's process, set for what it holds.

By the time the spider opens, the process has imported Scrapy, lxml, numpy and the pairing
models and loaded fastText: some 160,000 objects that never become garbage, and that each
full collection scanned again. They are frozen out of the collector's sight
(``gc.freeze``), and young objects are collected every ``BITEXT_GC_YOUNG_THRESHOLD``
allocations instead of Python's 700, so that the many short-lived objects of a response
(requests, links, records) mostly die before a collection sees them. On a generated
1,149-page crawl: 0.12-0.17 s of collections instead of 0.64 s, of a process that spends
6-7 s of CPU. The bitext stage sets the same threshold for its own work
(``bitext.extract``), and record workers theirs (``record_workers``).

On for the bitext spiders (and the expand spider, one of them); a crawl of another spider
of the project keeps Python's defaults. Restored when the engine stops.
Stats: ``bitext/gc/frozen_objects``; ``bitext/gc/collections/{0,1,2}`` during the crawl.
"""

from __future__ import annotations

import gc

from scrapy import signals
from scrapy.exceptions import NotConfigured

from bitextcrawl import config
from bitextcrawl.processes import tune_collector


def young_threshold(settings) -> int:
    """``BITEXT_GC_YOUNG_THRESHOLD``, or 0 with ``BITEXT_GC_TUNING_ENABLED`` off (what the
    crawl's process and its record workers are tuned with)."""
    if not config.getbool(settings, "BITEXT_GC_TUNING_ENABLED"):
        return 0
    return settings.getint("BITEXT_GC_YOUNG_THRESHOLD")


class CollectorTuning:
    def __init__(self, crawler, young_threshold: int):
        self.stats = crawler.stats
        self.young_threshold = young_threshold
        self.threshold: tuple | None = None
        self.collections: list[int] = []
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler):
        from bitextcrawl.spiders.bitext import BitextSpider

        spidercls = crawler.spidercls
        if not (isinstance(spidercls, type) and issubclass(spidercls, BitextSpider)):
            raise NotConfigured   # another spider of the project: Python's defaults
        if not config.getbool(crawler.settings, "BITEXT_GC_TUNING_ENABLED"):
            raise NotConfigured
        young = young_threshold(crawler.settings)
        if young <= 0:
            raise NotConfigured("BITEXT_GC_YOUNG_THRESHOLD must be a positive number")
        return cls(crawler, young)

    def spider_opened(self, spider=None):
        self.threshold = tune_collector(self.young_threshold)
        self.collections = [s["collections"] for s in gc.get_stats()]
        self.stats.set_value("bitext/gc/frozen_objects", gc.get_freeze_count())

    def spider_closed(self, spider=None):
        for generation, (before, now) in enumerate(zip(self.collections, gc.get_stats())):
            self.stats.set_value(f"bitext/gc/collections/{generation}",
                                 now["collections"] - before)

    def engine_stopped(self):
        if self.threshold is not None:
            gc.set_threshold(*self.threshold)
            gc.unfreeze()
            self.threshold = None
