"""The item pipelines of the distributed profile (``SCRAPY_PROJECT=distributed``,
``bitextcrawl/settings/distributed.py``); its scheduler is :mod:`bitextcrawl.scheduler.redis`.

:class:`DistributedUrlPairingPipeline`
    deep page recovery over the pages of *all* workers: the URLs per language are re-read
    from the shared store when the crawl runs dry.
:class:`DistributedPageStorePipeline`
    the page store pipeline with a WARC file per worker (``pages-<host>-<pid>.warc.gz``).
:class:`DistributedClosingPipeline`
    the closing pipeline, run by the *last* worker to leave the registry (checked
    atomically in Redis, with the shared queue empty): it aligns the whole shared store
    once. The others log that they left the alignment to the last worker.
"""

from __future__ import annotations

import logging
import os

from bitextcrawl.formats.warc import WarcPageWriter
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.scheduler.registry import worker_name

logger = logging.getLogger(__name__)


class DistributedPageStorePipeline(PageStorePipeline):
    """Page records to the shared store; raw responses to this worker's own WARC file."""

    def open_spider(self):
        warc_enabled, self.warc_enabled = self.warc_enabled, False
        try:
            super().open_spider()
        finally:
            self.warc_enabled = warc_enabled
        if warc_enabled:
            name = f"pages-{worker_name()}.warc.gz"
            self.warc = WarcPageWriter(os.path.join(self.output_dir, name))


class DistributedUrlPairingPipeline(UrlPairingPipeline):
    """Deep page recovery over every worker's pages, not only this worker's."""

    def spider_idle(self) -> bool:
        if self.recovery and self.learner is not None:
            self.urls_by_lang = {lang: urls for lang, urls
                                 in self.context.store.urls_by_lang().items()
                                 if lang in self.langs}
        return super().spider_idle()


class DistributedClosingPipeline(ClosingPipeline):
    """The closing pipeline, run once per crawl: by the last worker to finish."""

    def close_spider(self):
        engine = self.crawler.engine
        scheduler = getattr(engine, "scheduler", None)
        leave = getattr(scheduler, "leave", None)
        last = leave() if leave is not None else True
        if engine is not None and not engine.running:
            return super().close_spider()  # interrupted: logs it, aligns nothing
        if not last:
            logger.info("Worker done; other workers are still crawling: the last one to "
                        "finish aligns the shared store.")
            self.crawler.stats.set_value("bitext/align/skipped", "not_last_worker")
            return
        self.crawler.stats.set_value("bitext/distributed/aligned", 1)
        super().close_spider()
