"""The distributed profile's scheduler: one site's frontier shared by several workers.

:class:`RedisFrontierScheduler` (``SCHEDULER``) is scrapy-redis's scheduler (priority
queue and request dupefilter in Redis) with its keys under the crawl key
(:func:`~bitextcrawl.store.redis.crawl_key`), so each request is downloaded by one worker
only. Every worker's ``start()`` yields the start URL; the shared dupefilter lets the first
one through. It also keeps the worker registry (:mod:`.registry`): an idle worker stays
open (``DontCloseSpider``) while the shared queue has requests or another live worker is
busy, so workers stop together when the site is done; while it waits it looks at the
shared queue and the registry twice a second (the engine itself only asks its scheduler
again at its 5 s heartbeat). It has the crawl state read what the other workers learned
(``CrawlState.sync``) as it opens, before it takes each request from the shared queue, and
twice a second. It takes a request only when its downloader can send it
at once (``CONCURRENT_REQUESTS_PER_DOMAIN`` in flight at most, the site's): a request that
would wait in a downloader slot stays in the shared queue, for whichever worker is free,
judged when it goes. :class:`FifoPriorityQueue` (``SCHEDULER_QUEUE_CLASS``) keeps
first-in-first-out order within a priority.

During the crawl's warm-up (its first ``BITEXT_DISTRIBUTED_WARMUP_RESPONSES`` responses,
all workers counted: :class:`~.registry.WarmUp`) the workers together have at most one
worker's ``CONCURRENT_REQUESTS_PER_DOMAIN`` requests in flight: the focus judges a site on
its first pages (the one-way judgement, switch absence, the yield of a language's links:
ten-odd pages of a language, twenty samples), and N workers at full concurrency would
send N times the requests of a single crawl on what is known before those pages are in.
A worker the cap holds back looks again twice a second. It also gives the frontier the
crawl's idle turn (``BITEXT_DISTRIBUTED_IDLE_TURN_ENABLED``: :class:`~.registry.IdleTurn`).

scrapy-redis 0.9.1 predates Scrapy's async ``start()``: only its scheduler, queue and
dupefilter are used here (not ``RedisSpider``).
"""

from __future__ import annotations

import logging

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import create_looping_call
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler

from bitextcrawl.context import CrawlContext
from bitextcrawl.config import getbool
from bitextcrawl.scheduler.registry import IdleTurn, WarmUp, WorkerRegistry, worker_name
from bitextcrawl.store.redis import crawl_key, redis_from_settings
from bitextcrawl.store.redis_retry import WATCH, Tokens, once_per_token

logger = logging.getLogger(__name__)


# KEYS: memo, queue; ARGV: token. The first request of the queue, taken out of it.
_POP = once_per_token("""
local first = redis.call('ZRANGE', KEYS[2], 0, 0)
if #first == 0 then return nil end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, 0)
return first[1]
""")

# KEYS: memo, set; ARGV: token, member. 1 if the member is new.
_SADD = once_per_token("return redis.call('SADD', KEYS[2], ARGV[2])")


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
        name = worker_name()
        self.memo_key = f"{self.key}:pop_memo:{name}"
        self._tokens = Tokens(name)
        self._pop = self.server.register_script(_POP)

    def pop(self, timeout=0):
        """The first request, taken out of the queue by one script that runs once per
        call (``redis_retry.once_per_token``): when Redis runs the pop and loses its reply
        (a restart), the retry gets that request, not the next one (the first would be
        lost: out of the queue, downloaded by no worker)."""
        data = self._pop(keys=[self.memo_key, self.key], args=[self._tokens()])
        return self._decode_request(data) if data else None

    def push(self, request):
        data = self._encode_request(request)
        n = self.server.incr(self.seq_key)
        score = -request.priority + min(n, 999_999_999) * 1e-9
        self.server.execute_command("ZADD", self.key, repr(score), data)

    def clear(self):
        super().clear()
        self.server.delete(self.seq_key, *self.server.scan_iter(f"{self.key}:pop_memo:*"))

    def forget(self) -> None:
        """This worker's memo of its last pop goes (the worker leaves)."""
        self.server.delete(self.memo_key)


class OncePerCallDupeFilter(RFPDupeFilter):
    """scrapy-redis's dupefilter whose ``SADD`` runs once per call: a retry after Redis
    lost the reply (a restart) answers "new" as the first run did, where a second
    ``SADD`` would answer "seen" and the request would go nowhere."""

    def __init__(self, server, key, debug=False, name: str = ""):
        super().__init__(server, key, debug)
        self.memo_key = f"{key}:memo:{name or worker_name()}"
        self._tokens = Tokens(name or worker_name())
        self._sadd = server.register_script(_SADD)

    def request_seen(self, request) -> bool:
        fp = self.request_fingerprint(request)
        return self._sadd(keys=[self.memo_key, self.key], args=[self._tokens(), fp]) == 0

    def forget(self) -> None:
        self.server.delete(self.memo_key)

    def clear(self):
        super().clear()
        self.server.delete(*self.server.scan_iter(f"{self.key}:memo:*"))


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
        self.max_taken = 0
        self.warmup_responses = 0
        self.idle_turn_enabled = False
        self.warmup: WarmUp | None = None
        self.idle_turn: IdleTurn | None = None
        self.held_back = False   # the warm-up's cap left a request in the queue

    @classmethod
    def from_settings(cls, settings):
        """scrapy-redis's, with this project's Redis client: one that waits for a server
        it lost (``BITEXT_REDIS_RETRY_SECONDS``, ``store/redis_retry.py``)."""
        instance = super().from_settings(settings)
        instance.server.close()
        instance.server = redis_from_settings(settings)
        return instance

    @classmethod
    def from_crawler(cls, crawler):
        instance = super().from_crawler(crawler)
        instance.crawler = crawler
        # the outages of this process's Redis clients, counted in its stats
        WATCH.listeners.append(instance.redis_reconnected)
        instance.worker_timeout = crawler.settings.getfloat("BITEXT_WORKER_TIMEOUT")
        # requests a worker has in its downloader at most: those it can send at once
        instance.max_taken = crawler.settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
        instance.warmup_responses = crawler.settings.getint(
            "BITEXT_DISTRIBUTED_WARMUP_RESPONSES")
        instance.idle_turn_enabled = getbool(crawler.settings,
                                             "BITEXT_DISTRIBUTED_IDLE_TURN_ENABLED")
        crawler.signals.connect(instance.response_received, signal=signals.response_received)
        # Connected after the pipelines' handlers: deep page recovery (spider_idle of the
        # pairing pipeline) has pushed its requests by the time this one looks at the queue.
        crawler.signals.connect(instance.spider_idle, signal=signals.spider_idle)
        # what the workers already running learned, before the first request goes out
        crawler.signals.connect(instance.sync_state, signal=signals.spider_opened)
        return instance

    def open(self, spider):
        output_dir = CrawlContext.from_crawler(self.crawler).output_dir
        key = crawl_key(self.crawler.settings, output_dir)
        self.queue_key = f"{key}:requests"
        if self.df is None:
            self.df = OncePerCallDupeFilter(
                self.server, key=f"{key}:dupefilter",
                debug=self.crawler.settings.getbool("DUPEFILTER_DEBUG"))
        super().open(spider)
        self.registry = WorkerRegistry(self.server, key, self.queue.key, worker_name(),
                                       self.worker_timeout)
        self.registry.join()
        # the idle-time work (deep recovery, held links released, parallel links) runs
        # once every worker has run dry, in one worker at a time, as in a single crawl
        frontier = CrawlContext.from_crawler(self.crawler).frontier
        frontier.crawl_dry = self.registry.idle
        if self.idle_turn_enabled:
            seq_key = getattr(self.queue, "seq_key", None)   # (FifoPriorityQueue's)
            self.idle_turn = IdleTurn(self.server, key, seq_key, self.registry.name,
                                      self.worker_timeout)
            frontier.idle_turn = self.idle_turn
        focus = CrawlContext.from_crawler(self.crawler).state.focus
        if focus is not None:   # a URL any worker scheduled (the directory index spellings)
            focus.queue.scheduled_anywhere = self.scheduled_anywhere
        self.warmup = WarmUp(self.server, key, self.registry.keys[0], self.registry.name,
                             self.warmup_responses, self.max_taken)
        n = len(self.registry.workers())
        self.stats.max_value("bitext/distributed/workers", n)
        logger.info("Distributed crawl %s: worker %s joined (%d live workers, %d requests "
                    "queued)", key, self.registry.name, n, len(self.queue))
        for func, interval in ((self.beat, max(1.0, self.worker_timeout / 4)),
                               (self.poll, self.poll_interval),
                               (self.sync_state, self.poll_interval)):
            loop = create_looping_call(func)
            loop.start(interval, now=False)
            self._loops.append(loop)

    def redis_reconnected(self, seconds: float) -> None:
        self.stats.inc_value("bitext/redis/reconnects")
        self.stats.inc_value("bitext/redis/seconds_away", round(seconds, 1))

    def scheduled_anywhere(self, url: str) -> bool:
        """Did a worker of the crawl schedule ``url`` (the shared dupefilter saw it)?"""
        return bool(self.df.server.sismember(self.df.key,
                                             self.df.request_fingerprint(Request(url))))

    def enqueue_request(self, request):
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            return False
        self.stats.inc_value("scheduler/enqueued/redis")
        self.queue.push(request)
        return True

    def next_request(self):
        engine = getattr(self.crawler, "engine", None)
        downloader = getattr(engine, "downloader", None)
        if self.max_taken and downloader is not None \
                and len(downloader.active) >= self.max_taken:
            # A request taken at this point would wait in the downloader's slot (Scrapy
            # takes up to CONCURRENT_REQUESTS for one site's CONCURRENT_REQUESTS_PER_DOMAIN):
            # judged on what is known at this point, where no other worker can take it.
            # Left in the shared queue, it is judged when it can go, on what every worker
            # has learned.
            return None
        in_flight = len(downloader.active) if downloader is not None else 0
        warmup = self.warmup
        if warmup is not None and not warmup.over:
            status, total = warmup.take(in_flight)
            if status == 2:
                # the crawl has one worker's requests in flight: the pages they bring
                # judge the next ones (the warm-up, see the module's docstring)
                self.held_back = True
                self.stats.inc_value("bitext/distributed/warmup/waits")
                return None
            self.held_back = False
            if status == 1:
                self.stats.max_value("bitext/distributed/warmup/max_in_flight", total)
            else:
                self.stats.set_value("bitext/distributed/warmup/over", 1)
        # the request about to go out is judged (held, dropped) on what every worker has
        # learned (two Redis round trips when nothing is new)
        self.sync_state()
        request = self.queue.pop(self.idle_before_close)
        if request is None and warmup is not None:
            warmup.set_in_flight(in_flight)   # (the slot taken is not used)
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

    def response_received(self, response, request, spider=None) -> None:
        warmup = self.warmup
        if warmup is not None and not warmup.over:
            warmup.response()
            self.stats.inc_value("bitext/distributed/warmup/responses")
            if warmup.over:
                self.stats.set_value("bitext/distributed/warmup/over", 1)

    def beat(self) -> None:
        """The heartbeat: this worker is alive, and keeps the idle turn it holds."""
        self.registry.beat()
        if self.idle_turn is not None:
            self.idle_turn.renew()

    def poll(self) -> None:
        """While idle, wake the engine as soon as another worker has queued requests, or
        the crawl is done (so that the workers close now, not at their next heartbeat);
        while the warm-up's cap holds requests back, as soon as it may take one."""
        if self.held_back:
            self.held_back = False
            slot = getattr(self.crawler.engine, "_slot", None)
            if slot is not None:
                slot.nextcall.schedule()
            return
        if self.is_idle and (len(self.queue) or self.registry.done()):
            # Scrapy 2.19 has no public call for "ask the scheduler now"; without this the
            # engine asks at its next heartbeat, up to 5 s later.
            slot = getattr(self.crawler.engine, "_slot", None)
            if slot is not None:
                slot.nextcall.schedule()

    def sync_state(self, spider=None) -> None:
        """What the other workers learned since the last look, learned here
        (``CrawlState.sync``; the crawl state's Redis backing, where it has one)."""
        try:
            n = CrawlContext.from_crawler(self.crawler).state.sync()
        except Exception:   # (a LoopingCall stops at its first error)
            logger.exception("Distributed crawl: reading what the other workers learned "
                             "failed")
            return
        if n:
            self.stats.inc_value("bitext/distributed/shared_read", n)

    def leave(self) -> bool | None:
        """Leave the registry (once); True if this worker is the last one."""
        while self._loops:
            loop = self._loops.pop()
            if loop.running:
                loop.stop()
        if self.warmup is not None:
            self.warmup.finish()
        if self.idle_turn is not None:
            self.idle_turn.release()
        return self.registry.leave() if self.registry is not None else None

    def close(self, reason):
        self.leave()
        if self.redis_reconnected in WATCH.listeners:
            WATCH.listeners.remove(self.redis_reconnected)
        for part in (getattr(self, "queue", None), self.df):
            forget = getattr(part, "forget", None)
            if forget is not None:
                forget()
        super().close(reason)
