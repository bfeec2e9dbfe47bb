"""A Redis client that waits for its server: every command of a distributed crawl's
clients is retried on a connection error (the server restarted, a network blip) with a
growing pause, for up to ``BITEXT_REDIS_RETRY_SECONDS``, then the error is raised.

:class:`PatientRetry` is redis-py's ``Retry`` bounded by time instead of a count; redis-py
calls it around each command, pipeline and connection attempt. Every client of one process
shares one :class:`RedisWatch` (``WATCH``), which says in the log when the server became
unreachable (once, when a reconnection also failed: a connection the server closed while
it was up comes back at the first try and is no outage) and when it came back, and calls
its listeners with the seconds the server was away (the scheduler counts
``bitext/redis/reconnects``).

A command retried after a connection error may have run already: the server can execute
a command and stop before it sends the reply. The scripts that must not run twice
(a queue pop, a dupefilter or claim ``SADD``, a page store ``add``) are made safe for
that where they are defined (:func:`once_per_token` here; ``store/redis.py``,
``scheduler/redis.py``). No Scrapy here.
"""

from __future__ import annotations

import logging
import threading
import time

from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError, TimeoutError
from redis.retry import Retry

logger = logging.getLogger(__name__)

DEFAULT_SECONDS = 120.0


class RedisWatch:
    """The Redis outages one process saw: logged once each, counted, told to listeners."""

    def __init__(self):
        self._lock = threading.Lock()
        self.down_since: float | None = None   # monotonic time of the outage's first error
        self.reconnects = 0
        self.seconds_down = 0.0
        self.listeners: list = []              # called with the seconds the server was away

    def failed(self, error: Exception, failures: int, seconds: float, since: float) -> None:
        """A call's ``failures``-th attempt failed with a connection error; its first
        failed at ``since`` (monotonic time)."""
        if failures < 2:
            return   # a connection the server closed: the retry reconnects at once
        with self._lock:
            if self.down_since is not None:
                return
            self.down_since = since
        logger.warning("Redis unreachable (%s): waiting for it, retrying for up to %g s",
                       error, seconds)

    def succeeded(self) -> None:
        """A command that had failed went through."""
        with self._lock:
            since, self.down_since = self.down_since, None
            if since is None:
                return
            away = time.monotonic() - since
            self.reconnects += 1
            self.seconds_down += away
            listeners = list(self.listeners)
        logger.warning("Redis reachable again after %.1f s: reconnected, the crawl goes on",
                       away)
        for listener in listeners:
            try:
                listener(away)
            except Exception:  # noqa: BLE001 - a listener never breaks a Redis command
                logger.exception("Redis reconnect listener failed")

    def gave_up(self, error: Exception, seconds: float) -> None:
        logger.error("Redis unreachable for %g s (%s): giving up", seconds, error)


WATCH = RedisWatch()


class PatientRetry(Retry):
    """Retry a Redis call on a connection error for up to ``seconds``, pausing
    ``base * 2**n`` seconds (at most ``cap``) between attempts; ``watch`` hears of it.
    redis-py deep-copies a client's retry into each connection: the copies share the watch."""

    def __init__(self, seconds: float = DEFAULT_SECONDS, base: float = 0.05, cap: float = 2.0,
                 watch: RedisWatch | None = None):
        super().__init__(NoBackoff(), -1, (ConnectionError, TimeoutError, OSError))
        self.seconds, self.base, self.cap = seconds, base, cap
        self.watch = WATCH if watch is None else watch

    def __deepcopy__(self, memo):
        return PatientRetry(self.seconds, self.base, self.cap, self.watch)

    def __eq__(self, other):
        return isinstance(other, PatientRetry) and (self.seconds, self.base, self.cap) == (
            other.seconds, other.base, other.cap)

    __hash__ = Retry.__hash__

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count=False):
        failures = 0
        deadline = first = 0.0
        while True:
            try:
                result = do()
            except self._supported_errors as error:
                if is_retryable and not is_retryable(error):
                    raise
                failures += 1
                if with_failure_count:
                    fail(error, failures)
                else:
                    fail(error)
                now = time.monotonic()
                if failures == 1:
                    first, deadline = now, now + self.seconds
                if now >= deadline:
                    self.watch.gave_up(error, self.seconds)
                    raise
                self.watch.failed(error, failures, self.seconds, first)
                time.sleep(min(self.cap, self.base * 2 ** (failures - 1), deadline - now))
                continue
            if failures:
                self.watch.succeeded()
            return result


def retry_params(seconds: float) -> dict:
    """The redis-py client arguments of a patient client (``seconds`` <= 0: redis-py's own
    retry policy)."""
    if seconds <= 0:
        return {}
    return {"retry": PatientRetry(seconds),
            "retry_on_error": [ConnectionError, TimeoutError, OSError]}


def once_per_token(body: str) -> str:
    """A Lua script that runs ``body`` at most once per token: the caller passes a token
    new for each call (the same on redis-py's retries of that call) as ``ARGV[1]`` and a
    key of its own (its memo) as ``KEYS[1]``; a call whose token is the memo's gets the
    result of the first run back, not a second run. ``body`` is a Lua function body that
    reads ``KEYS[2..]`` and ``ARGV[2..]`` and returns a string, a number or nil."""
    return f"""
local memo = redis.call('HMGET', KEYS[1], 'token', 'kind', 'value')
if memo[1] == ARGV[1] then
    if memo[2] == 'n' then return tonumber(memo[3]) end
    if memo[2] == 's' then return memo[3] end
    return false
end
local result = (function() {body} end)()
if type(result) == 'number' then
    redis.call('HSET', KEYS[1], 'token', ARGV[1], 'kind', 'n', 'value', result)
elseif type(result) == 'string' then
    redis.call('HSET', KEYS[1], 'token', ARGV[1], 'kind', 's', 'value', result)
else
    redis.call('DEL', KEYS[1])
    redis.call('HSET', KEYS[1], 'token', ARGV[1], 'kind', '-')
    result = false
end
return result
"""


class Tokens:
    """Tokens for :func:`once_per_token` calls: ``<name>:<n>``, new at each call."""

    def __init__(self, name: str):
        self.name = name
        self._n = 0
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            self._n += 1
            return f"{self.name}:{self._n}"
