"""The item pipelines of the distributed profile (``SCRAPY_PROJECT=distributed``,
``bitextcrawl/settings/distributed.py``); its scheduler is :mod:`bitextcrawl.scheduler.redis`.

:class:`DistributedUrlPairingPipeline`
    deep page recovery over the pages of *all* workers: the URLs per language are re-read
    from the shared store when the crawl runs dry.
:class:`DistributedPageStorePipeline`
    the page store pipeline with a WARC file per worker (``pages-<host>-<pid>.warc.gz``),
    which gives the crawl state its Redis backing: each worker learns from the pages and
    facts of all (``context.state.sync``: ``scheduler/redis.py`` says when).
:class:`DistributedClosingPipeline`
    the closing pipeline, run by the *last* worker to leave the registry (checked
    atomically in Redis, with the shared queue empty): it decides the pairs of the whole
    shared store once. With ``BITEXT_CLOSING_SHARED_ENABLED`` the other workers stay and
    take page pairs of its bitext stage from a Redis queue (:mod:`bitextcrawl.store.redis_pool`)
    until it is over; otherwise they log that they left the alignment to the last worker.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from contextlib import contextmanager

from bitextcrawl import config
from bitextcrawl.formats.warc import WarcPageWriter
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.scheduler.registry import worker_name
from bitextcrawl.store.redis_state import RedisStateBacking
from bitextcrawl.store.redis_pool import Heartbeat, RedisTaskPool, drain

logger = logging.getLogger(__name__)


class DistributedPageStorePipeline(PageStorePipeline):
    """Page records to the shared store; raw responses to this worker's own WARC file;
    the crawl state backed by Redis (``store/redis_state.py``: what each worker learns
    reaches the others)."""

    def open_spider(self):
        warc_enabled, self.warc_enabled = self.warc_enabled, False
        try:
            super().open_spider()
        finally:
            self.warc_enabled = warc_enabled
        if hasattr(self.store, "server"):   # a Redis page store
            self.context.state.backing = RedisStateBacking(self.store, worker_name())
        if warc_enabled:
            name = f"pages-{worker_name()}.warc.gz"
            self.warc = WarcPageWriter(os.path.join(self.output_dir, name))


class DistributedUrlPairingPipeline(UrlPairingPipeline):
    """Deep page recovery over every worker's pages, not only this worker's."""

    def spider_idle(self) -> bool:
        if self.recovery and self.learner is not None:
            self.pairs.urls_by_lang = {lang: urls for lang, urls
                                       in self.context.store.urls_by_lang().items()
                                       if lang in self.langs}
        return super().spider_idle()


@contextmanager
def stop_signals():
    """An event set by SIGINT or SIGTERM while the block runs (Scrapy's own handlers are
    called too, and put back after): a worker blocked in the shared closing step stops
    between two tasks."""
    stopped = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        stopped.set()
        before = previous.get(signum)
        if callable(before):
            before(signum, frame)

    for sig in previous:
        signal.signal(sig, handler)
    try:
        yield stopped
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


class DistributedClosingPipeline(ClosingPipeline):
    """The closing pipeline, run once per crawl: by the last worker to finish; the others
    take part in its bitext stage (``BITEXT_CLOSING_SHARED_ENABLED``)."""

    def __init__(self, crawler, context=None):
        super().__init__(crawler, context)
        settings = crawler.settings
        self.shared = config.getbool(settings, "BITEXT_CLOSING_SHARED_ENABLED")
        self.timeout = settings.getfloat("BITEXT_WORKER_TIMEOUT")

    def close_spider(self):
        engine = self.crawler.engine
        scheduler = getattr(engine, "scheduler", None)
        leave = getattr(scheduler, "leave", None)
        last = leave() if leave is not None else True
        if engine is not None and not engine.running:
            return super().close_spider()  # interrupted: logs it, aligns nothing
        stats = self.crawler.stats
        store = self.context.store
        shared = self.shared and hasattr(store, "server")   # a Redis page store
        if not last:
            stats.set_value("bitext/align/skipped", "not_last_worker")
            if not shared:
                logger.info("Worker done; other workers are still crawling: the last one to "
                            "finish aligns the shared store.")
                return
            from bitextcrawl.bitext.extract import pairs_in

            logger.info("Worker done; the last one to finish aligns the shared store: this "
                        "one takes page pairs of its bitext stage meanwhile.")
            with stop_signals() as stopped:
                aligned = drain(store.server, store.key, worker_name(), self.timeout,
                                pairs_in, stop=stopped.is_set)
            stats.set_value("bitext/closing/pairs_aligned", aligned)
            logger.info("Closing step: this worker aligned %d page pairs", aligned)
            return
        stats.set_value("bitext/distributed/aligned", 1)
        if not shared:
            return super().close_spider()
        from bitextcrawl.bitext.extract import pairs_in

        pool = RedisTaskPool(store.server, store.key, worker_name(), self.timeout, pairs_in)
        pool.reset()
        try:
            with Heartbeat(store.server, pool.keys, pool.worker):
                super().close_spider(shared_pool=pool)
        finally:
            pool.finish()
        if pool.shares:   # (empty: no other worker waited, the local pool aligned)
            stats.set_value("bitext/closing/pairs_aligned", pool.shares.get(pool.worker, 0))
            logger.info("Closing step: page pairs aligned per worker: %s",
                        ", ".join(f"{w} {n}" for w, n in sorted(pool.shares.items())))
