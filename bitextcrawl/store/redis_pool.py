"""The shared closing step of a distributed crawl: the bitext stage's page pairs go through a
reliable Redis queue that every worker still alive drains.

The last worker (the *closer*) decides the pairs as a local crawl does; its bitext stage
(:func:`bitextcrawl.bitext.extract.write_bitext`) then gets :class:`RedisTaskPool` as its
executor. Each task (a chunk of page pairs, or one pair of the aligner's training) is
pickled under an id in ``<key>:closing:tasks`` and the id pushed on ``<key>:closing:todo``.
A worker takes an id with ``BLMOVE`` onto its own list ``<key>:closing:processing:<worker>``,
runs the task, writes the result to ``<key>:closing:results`` and removes the id from its
list (the acknowledgement). The workers that finished crawling before the closer
(:func:`drain`) and the closer itself, while it waits for a result, take tasks the same way.
Every taker beats in ``<key>:closing:alive`` (Redis time, from a thread); when the closer
sees a worker silent for longer than the timeout, it moves that worker's unacknowledged ids
back to the queue, so a worker that dies loses no pair. Results are read in the order the
closer submitted the tasks: the files are those of a local crawl.

``<key>:closing:state`` is ``deciding`` while the closer decides the pairs, ``open`` once
its executor is in use, ``done`` at the end of its bitext stage (the drainers leave then).
No Scrapy here.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections import Counter
from contextlib import contextmanager

logger = logging.getLogger(__name__)

DECIDING, OPEN, DONE = "deciding", "open", "done"


def _now(server) -> float:
    seconds, micro = server.time()
    return seconds + micro / 1e6


class ClosingKeys:
    """The Redis keys of one crawl's shared closing step."""

    def __init__(self, key: str):
        base = f"{key}:closing"
        self.todo = f"{base}:todo"
        self.tasks = f"{base}:tasks"
        self.results = f"{base}:results"
        self.alive = f"{base}:alive"
        self.state = f"{base}:state"
        self.closer = f"{base}:closer"
        self.finished = f"{base}:finished"
        self.seq = f"{base}:seq"
        self.base = base

    def processing(self, worker: str) -> str:
        return f"{self.base}:processing:{worker}"


class Heartbeat:
    """A thread that writes ``worker``'s Redis time into the alive hash every ``interval``
    seconds while the closing step runs (pair decisions and long tasks included)."""

    def __init__(self, server, keys: ClosingKeys, worker: str, interval: float = 1.0):
        self.server, self.keys, self.worker, self.interval = server, keys, worker, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="closing-heartbeat",
                                        daemon=True)

    def beat(self) -> None:
        self.server.hset(self.keys.alive, self.worker, repr(_now(self.server)))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.beat()
            except Exception as exc:  # noqa: BLE001 - a lost beat is retried; never raise
                logger.debug("closing heartbeat: %s", exc)

    def __enter__(self):
        self.beat()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def run_one(server, keys: ClosingKeys, worker: str, timeout: float, weigh) -> int | None:
    """Take one task (waiting up to ``timeout`` seconds, 0: not at all), run it, store its
    result, acknowledge it. Returns its weight (pairs), or None if the queue was empty.

    A worker runs one task at a time, so its own list is empty here, but for a task whose
    move Redis made and whose reply it lost (a restart: the client's retry then took
    another): such a task goes back to the queue first."""
    processing = keys.processing(worker)
    while server.lmove(processing, keys.todo, "RIGHT", "RIGHT") is not None:
        logger.warning("Closing step: a task taken by %s while Redis went away goes back "
                       "to the queue", worker)
    if timeout > 0:
        raw = server.blmove(keys.todo, processing, timeout, "RIGHT", "LEFT")
    else:
        raw = server.lmove(keys.todo, processing, "RIGHT", "LEFT")
    if raw is None:
        return None
    task_id = raw.decode() if isinstance(raw, bytes) else raw
    blob = server.hget(keys.tasks, task_id)
    weight = 0
    if blob is not None:   # None: done already by a worker taken for dead
        fn, args, kwargs = pickle.loads(blob)
        weight = weigh(fn, args)
        try:
            outcome = (True, fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - handed to the closer, which raises it
            outcome = (False, exc)
        server.hset(keys.results, task_id, pickle.dumps((worker, weight, outcome),
                                                        protocol=pickle.HIGHEST_PROTOCOL))
    server.lrem(processing, 1, task_id)
    return weight


def requeue_dead(server, keys: ClosingKeys, me: str, timeout: float) -> list[str]:
    """Move the unacknowledged tasks of every worker silent for ``timeout`` seconds back to
    the queue, and forget it; the workers so handled."""
    now = _now(server)
    dead = []
    for name, beat in server.hgetall(keys.alive).items():
        name = name.decode() if isinstance(name, bytes) else name
        if name == me or now - float(beat) <= timeout:
            continue
        while server.lmove(keys.processing(name), keys.todo, "RIGHT", "RIGHT") is not None:
            pass
        server.hdel(keys.alive, name)
        dead.append(name)
    if dead:
        logger.warning("Closing step: %s silent for more than %g s; their pairs go back to "
                       "the queue", ", ".join(dead), timeout)
    return dead


def _one(fn, args) -> int:
    return 1


class RedisFuture:
    def __init__(self, pool: "RedisTaskPool", task_id: str):
        self.pool, self.task_id = pool, task_id

    def result(self, timeout: float | None = None):
        return self.pool.wait(self.task_id)


class RedisTaskPool:
    """The closer's executor (``submit``, ``map``): tasks through the shared queue, run by
    whichever live worker takes them, the closer included (see the module docstring)."""

    tasks_inline = 0

    def __init__(self, server, key: str, worker: str, timeout: float, weigh=_one,
                 poll: float = 0.2):
        self.server = server
        self.keys = ClosingKeys(key)
        self.worker = worker
        self.timeout = timeout
        self.weigh = weigh
        self.poll = poll
        self.shares: Counter = Counter()    # worker -> pairs it aligned
        self._checked = 0.0

    # ------------------------------------------------------------------ the closer's side
    def reset(self) -> None:
        """A closing step starts: the keys of an earlier one (a closer that died) go."""
        names = [k for k in self.server.scan_iter(match=f"{self.keys.base}:processing:*")]
        self.server.delete(self.keys.todo, self.keys.tasks, self.keys.results, *names)
        self.server.set(self.keys.closer, self.worker)
        self.server.set(self.keys.state, DECIDING)

    def others(self) -> list[str]:
        """The other workers waiting to take tasks (alive within the timeout)."""
        now = _now(self.server)
        return sorted(n.decode() for n, beat in self.server.hgetall(self.keys.alive).items()
                      if n.decode() != self.worker and now - float(beat) <= self.timeout)

    @contextmanager
    def open(self, fallback):
        """This pool if another worker is there to share the work, else ``fallback`` (a
        context manager: the local process pool)."""
        if not self.others():
            with fallback as pool:
                yield pool
            return
        self.server.set(self.keys.state, OPEN)
        yield self

    def finish(self) -> None:
        """The bitext stage is over: the drainers leave; the queue's keys go."""
        self.server.set(self.keys.finished, repr(_now(self.server)))
        self.server.set(self.keys.state, DONE)
        self.server.delete(self.keys.todo, self.keys.tasks, self.keys.results,
                           self.keys.processing(self.worker))

    def submit(self, fn, /, *args, **kwargs) -> RedisFuture:
        task_id = str(self.server.incr(self.keys.seq))
        blob = pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        pipe = self.server.pipeline()
        pipe.hset(self.keys.tasks, task_id, blob)
        pipe.lpush(self.keys.todo, task_id)
        pipe.execute()
        return RedisFuture(self, task_id)

    def map(self, fn, iterable) -> list:
        futures = [self.submit(fn, item) for item in iterable]
        return [f.result() for f in futures]

    def wait(self, task_id: str):
        """A task's result; meanwhile this process takes tasks of the queue itself."""
        while True:
            blob = self.server.hget(self.keys.results, task_id)
            if blob is not None:
                pipe = self.server.pipeline()
                pipe.hdel(self.keys.results, task_id)
                pipe.hdel(self.keys.tasks, task_id)
                pipe.execute()
                worker, weight, (ok, value) = pickle.loads(blob)
                self.shares[worker] += weight
                if not ok:
                    raise value
                return value
            if time.monotonic() - self._checked > 1.0:
                self._checked = time.monotonic()
                requeue_dead(self.server, self.keys, self.worker, self.timeout)
            if run_one(self.server, self.keys, self.worker, 0, self.weigh) is None:
                time.sleep(self.poll)   # every task is taken: another worker runs ours

    def shutdown(self, wait: bool = True, **_) -> None:
        pass


def drain(server, key: str, worker: str, timeout: float, weigh=_one,
          wait_for_closer: float | None = None, stop=None) -> int:
    """A worker done crawling before the last one: take tasks of the shared closing step
    until the closer says it is done, or is silent for ``timeout`` seconds, or has not
    started within ``wait_for_closer`` seconds (default ``timeout``), or ``stop()`` is
    true (asked between tasks: Ctrl-C). Returns the pairs this worker aligned."""
    keys = ClosingKeys(key)
    wait_for_closer = timeout if wait_for_closer is None else wait_for_closer
    done = 0
    since = time.monotonic()
    joined = _now(server)
    with Heartbeat(server, keys, worker):
        while not (stop is not None and stop()):
            state = server.get(keys.state)
            state = state.decode() if isinstance(state, bytes) else state
            closer = server.get(keys.closer)
            closer = closer.decode() if isinstance(closer, bytes) else closer
            if state == DONE:
                finished = float(server.get(keys.finished) or 0)
                if finished >= joined - 10:
                    break   # this crawl's closing step is over (an older one's is not)
            if state in (DECIDING, OPEN) and closer:
                beat = server.hget(keys.alive, closer)
                if beat is not None and _now(server) - float(beat) > timeout:
                    logger.warning("Closing step: the closer %s is silent; leaving", closer)
                    break
            elif time.monotonic() - since > wait_for_closer:
                logger.info("Closing step: no closer started within %g s; leaving",
                            wait_for_closer)
                break
            weight = run_one(server, keys, worker, 1, weigh) if state == OPEN else None
            if weight is None:
                time.sleep(0.2)
            else:
                done += weight
        server.hdel(keys.alive, worker)
    return done
