"""The worker registry of a distributed crawl: which workers are alive, which are busy,
and whether the whole crawl is done, kept in Redis by Lua scripts (atomic, on Redis's
clock). Used by :class:`bitextcrawl.scheduler.redis.RedisFrontierScheduler` and the last
worker's closing step (:mod:`bitextcrawl.pipelines.distributed`).
"""

from __future__ import annotations

import os
import socket


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
