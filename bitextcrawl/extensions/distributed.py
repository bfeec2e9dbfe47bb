"""Distributed crawling: several ``scrapy crawl bitext`` processes share one site's frontier.

The distributed profile (``SCRAPY_PROJECT=distributed``, ``settings/distributed.py``)
wires these components; every worker is started with the same arguments and the same
``REDIS_URL``:

:class:`RedisFrontierScheduler` (``SCHEDULER``)
    scrapy-redis's scheduler (priority queue and request dupefilter in Redis) with its
    keys under the crawl key (:func:`~bitextcrawl.store.redis.crawl_key`), so each
    request is downloaded by one worker only. Every worker's ``start()`` yields the start
    URL; the shared dupefilter lets the first one through. It also keeps the *worker
    registry*: an idle worker stays open (``DontCloseSpider``) while the shared queue has
    requests or another live worker is busy, so workers stop together when the site is
    done; while it waits it looks at the shared queue and the registry twice a second
    (the engine itself only asks its scheduler again at its 5 s heartbeat).
:class:`DistributedUrlPairingPipeline`
    deep page recovery over the pages of *all* workers: the URLs per language are re-read
    from the shared store when the crawl runs dry.
:class:`DistributedPageStorePipeline`
    the page store pipeline with a WARC file per worker (``pages-<host>-<pid>.warc.gz``).
:class:`DistributedClosingPipeline`
    the closing pipeline, run by the *last* worker to leave the registry (checked
    atomically in Redis, with the shared queue empty): it aligns the whole shared store
    once. The others log that they left the alignment to the last worker.

scrapy-redis 0.9.1 predates Scrapy's async ``start()``: only its scheduler, queue and
dupefilter are used here (not ``RedisSpider``).
"""

from __future__ import annotations

import logging
import os
import socket

from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import create_looping_call
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler

from bitextcrawl.formats.warc import WarcPageWriter
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.store import open_store
from bitextcrawl.store.redis import crawl_key

logger = logging.getLogger(__name__)


def worker_name() -> str:
    """This process's name among the workers of a crawl: ``<host>-<pid>``."""
    return f"{socket.gethostname()}-{os.getpid()}"


# Workers are two hashes under the crawl key: name -> "busy"/"idle", name -> last beat
# (Redis server time, so the workers' clocks do not matter). A worker silent for longer
# than the timeout is dead: it is dropped and no longer holds the others open.
# KEYS: workers, heartbeats, shared queue; ARGV: timeout, worker name.
_PRUNE_DEAD = """
local now = tonumber(redis.call('TIME')[1])
local beats = redis.call('HGETALL', KEYS[2])
for i = 1, #beats, 2 do
    if now - tonumber(beats[i + 1]) > tonumber(ARGV[1]) then
        redis.call('HDEL', KEYS[1], beats[i])
        redis.call('HDEL', KEYS[2], beats[i])
    end
end
"""

_SET_STATE = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], redis.call('TIME')[1])
return 1
"""

# 1 if the crawl is done: shared queue empty, no live worker busy.
_CRAWL_DONE = """
if redis.call('ZCARD', KEYS[3]) > 0 then return 0 end
local states = redis.call('HVALS', KEYS[1])
for i = 1, #states do
    if states[i] == 'busy' then return 0 end
end
return 1
"""

_DONE = _PRUNE_DEAD + _CRAWL_DONE

# Mark this worker idle; then as _DONE.
_IDLE = _PRUNE_DEAD + """
redis.call('HSET', KEYS[1], ARGV[2], 'idle')
redis.call('HSET', KEYS[2], ARGV[2], now)
""" + _CRAWL_DONE

# Leave the registry; 1 if no live worker is left and the shared queue is empty.
_LEAVE = _PRUNE_DEAD + """
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
if redis.call('HLEN', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[3]) == 0 then return 1 end
return 0
"""


class WorkerRegistry:
    """The live workers of one distributed crawl, and whether the crawl is done."""

    def __init__(self, server, key: str, queue_key: str, name: str, timeout: float):
        self.server = server
        self.name = name
        self.timeout = timeout
        self.keys = [f"{key}:workers", f"{key}:heartbeat", queue_key]
        self._set_state = server.register_script(_SET_STATE)
        self._idle = server.register_script(_IDLE)
        self._done = server.register_script(_DONE)
        self._leave = server.register_script(_LEAVE)
        self.state: str | None = None  # None: not (or no longer) in the registry

    def set_state(self, state: str) -> None:
        self.state = state
        self._set_state(keys=self.keys[:2], args=[self.name, state])

    def join(self) -> None:
        self.set_state("busy")

    def beat(self) -> None:
        """Tell the others this worker is alive (re-joins if it was taken for dead)."""
        if self.state is not None:
            self.set_state(self.state)

    def idle(self) -> bool:
        """Mark this worker idle; True if the whole crawl is done."""
        self.state = "idle"
        return self._idle(keys=self.keys, args=[self.timeout, self.name]) == 1

    def done(self) -> bool:
        """True if the whole crawl looks done (this worker's state unchanged)."""
        return self._done(keys=self.keys, args=[self.timeout, self.name]) == 1

    def workers(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.server.hgetall(self.keys[0]).items()}

    def leave(self) -> bool | None:
        """Leave the crawl (once): True if no live worker is left and nothing is queued;
        None if this worker had already left."""
        if self.state is None:
            return None
        self.state = None
        return self._leave(keys=self.keys, args=[self.timeout, self.name]) == 1


class FifoPriorityQueue(PriorityQueue):
    """scrapy-redis's priority queue, first in first out within a priority, as a local
    crawl's queue is (``SCHEDULER_MEMORY_QUEUE = FifoMemoryQueue``).

    scrapy-redis scores a request ``-priority`` alone, and Redis orders the members of one
    score by their bytes: pickles, whose first differing byte is the low byte of their
    length, so requests of one priority came out in no useful order (on nginx.org from
    /cn/, the English news archive and the CHANGES files before the pages that judge the
    site one-way). Here the score is ``-priority + n * 1e-9``, ``n`` counting the pushes of
    the crawl (one Redis counter, ``<queue key>:seq``, shared by the workers): priorities
    are integers, so the order between priorities is unchanged for up to 10⁹ pushes.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seq_key = f"{self.key}:seq"

    def push(self, request):
        data = self._encode_request(request)
        n = self.server.incr(self.seq_key)
        score = -request.priority + min(n, 999_999_999) * 1e-9
        self.server.execute_command("ZADD", self.key, repr(score), data)

    def clear(self):
        super().clear()
        self.server.delete(self.seq_key)


class RedisFrontierScheduler(Scheduler):
    """scrapy-redis's scheduler with per-crawl keys and a worker registry.

    Settings: ``REDIS_URL``, ``SCHEDULER_QUEUE_CLASS``, ``SCHEDULER_PERSIST`` (keep the
    frontier when a worker stops: a restarted worker continues), ``BITEXT_REDIS_KEY``,
    ``BITEXT_WORKER_TIMEOUT``.
    """

    poll_interval = 0.5  # seconds between looks at the shared queue while idle

    def __init__(self, server, *args, **kwargs):
        super().__init__(server, *args, **kwargs)
        self.crawler = None
        self.registry: WorkerRegistry | None = None
        self.is_idle = False
        self._loops = []

    @classmethod
    def from_crawler(cls, crawler):
        instance = super().from_crawler(crawler)
        instance.crawler = crawler
        instance.worker_timeout = crawler.settings.getfloat("BITEXT_WORKER_TIMEOUT")
        # Connected after the pipelines' handlers: deep page recovery (spider_idle of the
        # pairing pipeline) has pushed its requests by the time this one looks at the queue.
        crawler.signals.connect(instance.spider_idle, signal=signals.spider_idle)
        return instance

    def open(self, spider):
        key = crawl_key(self.crawler.settings, spider.output_dir)
        self.queue_key = f"{key}:requests"
        if self.df is None:
            self.df = RFPDupeFilter(self.server, key=f"{key}:dupefilter",
                                    debug=self.crawler.settings.getbool("DUPEFILTER_DEBUG"))
        super().open(spider)
        self.registry = WorkerRegistry(self.server, key, self.queue.key, worker_name(),
                                       self.worker_timeout)
        self.registry.join()
        n = len(self.registry.workers())
        self.stats.max_value("bitext/distributed/workers", n)
        logger.info("Distributed crawl %s: worker %s joined (%d live workers, %d requests "
                    "queued)", key, self.registry.name, n, len(self.queue))
        for func, interval in ((self.registry.beat, max(1.0, self.worker_timeout / 4)),
                               (self.poll, self.poll_interval)):
            loop = create_looping_call(func)
            loop.start(interval, now=False)
            self._loops.append(loop)

    def enqueue_request(self, request):
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            return False
        self.stats.inc_value("scheduler/enqueued/redis")
        self.queue.push(request)
        return True

    def next_request(self):
        request = self.queue.pop(self.idle_before_close)
        if request is not None:
            self.stats.inc_value("scheduler/dequeued/redis")
            if self.is_idle:
                self.is_idle = False
                self.registry.set_state("busy")
        return request

    def spider_idle(self):
        self.is_idle = True
        if not self.registry.idle():
            self.stats.inc_value("bitext/distributed/idle_waits")
            raise DontCloseSpider

    def poll(self) -> None:
        """While idle, wake the engine as soon as another worker has queued requests, or
        the crawl is done (so that the workers close now, not at their next heartbeat)."""
        if self.is_idle and (len(self.queue) or self.registry.done()):
            # Scrapy 2.19 has no public call for "ask the scheduler now"; without this the
            # engine asks at its next heartbeat, up to 5 s later.
            slot = getattr(self.crawler.engine, "_slot", None)
            if slot is not None:
                slot.nextcall.schedule()

    def leave(self) -> bool | None:
        """Leave the registry (once); True if this worker is the last one."""
        while self._loops:
            loop = self._loops.pop()
            if loop.running:
                loop.stop()
        return self.registry.leave() if self.registry is not None else None

    def close(self, reason):
        self.leave()
        super().close(reason)


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

    def spider_idle(self):
        if self.recovery and self.learner is not None:
            store = open_store(self.crawler.settings, self.crawler.spider.output_dir)
            try:
                self.urls_by_lang = {lang: urls for lang, urls in store.urls_by_lang().items()
                                     if lang in self.langs}
            finally:
                store.close()
        super().spider_idle()


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
