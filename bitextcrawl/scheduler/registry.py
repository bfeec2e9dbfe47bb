"""The worker registry of a distributed crawl: which workers are alive, which are busy,
and whether the whole crawl is done, kept in Redis by Lua scripts (atomic, on Redis's
clock). Used by :class:`bitextcrawl.scheduler.redis.RedisFrontierScheduler` and the last
worker's closing step (:mod:`bitextcrawl.pipelines.distributed`).

Two things the workers do as one crawl, also kept here:

* **The warm-up** (:class:`WarmUp`): until the crawl has had its first responses, the
  requests in flight across all workers are capped at one worker's, so the judgements
  the first pages bring are made before more requests go out than one crawl would send.
* **The idle turn** (:class:`IdleTurn`): when the whole crawl has run dry, one worker at
  a time does the crawl's idle-time work (held links released, deep recovery's guesses,
  parallel links), as a single crawl does it once; the next one to take the turn decides
  on the outcomes of the requests the last pass made.
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


# ---- the warm-up ---------------------------------------------------------------------

# Take one request slot of the crawl's warm-up. KEYS: in-flight hash (worker -> requests
# in its downloader), workers hash (the live ones), responses counter. ARGV: worker
# name, its requests in flight, the crawl's cap, the warm-up's responses.
# Returns {status, in flight}: 0 the warm-up is over; 1 a slot is taken (counted against
# this worker until its next call sets its count); 2 the cap is reached.
_WARMUP_TAKE = """
if tonumber(redis.call('GET', KEYS[3]) or '0') >= tonumber(ARGV[4]) then return {0, 0} end
local mine = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], mine)
local total = mine
local live = redis.call('HKEYS', KEYS[2])
for i = 1, #live do
    if live[i] ~= ARGV[1] then
        total = total + tonumber(redis.call('HGET', KEYS[1], live[i]) or '0')
    end
end
if total >= tonumber(ARGV[3]) then return {2, total} end
redis.call('HSET', KEYS[1], ARGV[1], mine + 1)
return {1, total + 1}
"""


class WarmUp:
    """The crawl's first ``responses`` responses with at most ``cap`` requests in flight
    across all workers (each worker's count kept in ``<key>:warmup:in_flight``, summed
    over the live workers of the registry, so a dead worker's count does not hold the
    others back; responses counted in ``<key>:warmup:responses``)."""

    def __init__(self, server, key: str, workers_key: str, name: str, responses: int,
                 cap: int):
        self.server, self.name = server, name
        self.responses, self.cap = responses, cap
        self.in_flight_key = f"{key}:warmup:in_flight"
        self.responses_key = f"{key}:warmup:responses"
        self.workers_key = workers_key
        self._take = server.register_script(_WARMUP_TAKE)
        self.over = responses <= 0 or cap <= 0

    def take(self, in_flight: int) -> tuple[int, int]:
        """Ask for a request slot, with ``in_flight`` requests in this worker's downloader:
        ``(status, requests in flight in the crawl)``, status 1 taken, 2 wait, 0 over."""
        if self.over:
            return 0, 0
        status, total = self._take(
            keys=[self.in_flight_key, self.workers_key, self.responses_key],
            args=[self.name, in_flight, self.cap, self.responses])
        if status == 0:
            self.finish()
        return int(status), int(total)

    def set_in_flight(self, in_flight: int) -> None:
        """This worker's requests in flight (a slot taken, then no request to take)."""
        if not self.over:
            self.server.hset(self.in_flight_key, self.name, in_flight)

    def response(self) -> None:
        """A response this worker got, counted toward the crawl's warm-up."""
        if not self.over and self.server.incr(self.responses_key) >= self.responses:
            self.finish()

    def finish(self) -> None:
        """The warm-up is over (for this worker): no more counting."""
        if not self.over:
            self.over = True
            self.server.hdel(self.in_flight_key, self.name)


# ---- the idle turn -------------------------------------------------------------------

# KEYS: turn; ARGV: worker name, time to live (ms). 1 if this worker holds the turn.
_TAKE_TURN = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: turn, settled mark, the shared queue's push counter, this worker's own settled
# mark; ARGV: worker name, "1" if the pass found nothing to do, "0" if it did something,
# "" if no pass ran.
_RELEASE_TURN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if ARGV[2] == '1' then
    local seq = redis.call('GET', KEYS[3]) or '0'
    redis.call('SET', KEYS[2], seq)
    redis.call('SET', KEYS[4], seq)
elseif ARGV[2] == '0' then
    redis.call('DEL', KEYS[2])
end
return 1
"""

# 1 if the last idle pass (KEYS[2]: of the crawl; or this worker's last one) found
# nothing to do and no request was queued since.
_SETTLED = """
local mark = redis.call('GET', KEYS[2])
if not mark then return 0 end
if mark == (redis.call('GET', KEYS[3]) or '0') then return 1 end
return 0
"""


class IdleTurn:
    """One worker at a time does the crawl's idle-time work (``<key>:idle_turn``, a
    Redis key holding the worker's name, expiring ``timeout`` seconds after its last
    renewal, so a dead worker's turn passes on). A pass that found nothing to do marks
    the crawl settled with the shared queue's push counter (``<queue>:seq``): a worker
    taking the turn after it, nothing queued since, has nothing to do either and closes,
    as a single crawl closes after its last idle pass — unless it keeps requests of its
    own that only its pass releases: it closes once a pass of its own found nothing
    (``<key>:idle_settled:<worker>``), else what it keeps is lost."""

    def __init__(self, server, key: str, seq_key: str | None, name: str, timeout: float):
        self.server, self.name = server, name
        self.ttl_ms = max(1000, int(timeout * 1000))
        self.keys = [f"{key}:idle_turn", f"{key}:idle_settled", seq_key or f"{key}:idle_seq",
                     f"{key}:idle_settled:{name}"]
        self.track_settled = seq_key is not None
        self._take = server.register_script(_TAKE_TURN)
        self._release = server.register_script(_RELEASE_TURN)
        self._settled = server.register_script(_SETTLED)
        self.held = False

    def take(self) -> bool:
        """Take the turn (or keep it, renewed); False while another worker holds it."""
        self.held = self._take(keys=self.keys[:1], args=[self.name, self.ttl_ms]) == 1
        return self.held

    def renew(self) -> None:
        """Keep the turn alive while this worker's idle work runs (the heartbeat)."""
        if self.held:
            self.take()

    def settled(self, own: bool = False) -> bool:
        """Did the last idle pass of the crawl (``own``: this worker's last pass) find
        nothing to do, with nothing queued since?"""
        keys = [self.keys[0], self.keys[3], self.keys[2]] if own else self.keys[:3]
        return self.track_settled and self._settled(keys=keys) == 1

    def release(self, settled: bool | None = None) -> None:
        """Give the turn up; ``settled``: the pass run found nothing to do (True) or
        did something (False); None: no pass ran, the mark is left as it is."""
        if self.held:
            self.held = False
            mark = "" if settled is None else "1" if settled and self.track_settled else "0"
            self._release(keys=self.keys, args=[self.name, mark])
