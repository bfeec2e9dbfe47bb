"""Worker processes: one fork server for the crawl's process pools.

The bitext stage's pool (``bitext.pool.worker_pool``) and the crawl's parallel-link
rounds take their processes from one fork server: a clean process that imported their
modules once (``PRELOAD``, the compiled kernels included), not a fork of the caller,
whose Twisted threads hold locks a fork would copy as they are. The crawl's record
workers (``record_workers``) are spawned: they need none of those imports.

A :class:`ProcessPool`'s processes end with the process that made the pool: killed, it
tells its workers nothing, and they would wait for tasks for ever, holding its stderr
(and the fork server, which stays while a worker holds its end of a pipe).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
import types
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import lru_cache
from typing import Callable

logger = logging.getLogger(__name__)

# What the fork server imports as it starts (1 s of CPU, most of it numba's kernels): what
# the bitext stage's and the parallel-link rounds' tasks run. The record workers are spawned
# (record_workers), and no task needs the pairing models (0.2 s more).
PRELOAD = ["bitextcrawl.bitext.extract", "bitextcrawl.bitext.pool_preload"]


def forkserver_context():
    """The multiprocessing context of the fork server, its imports set."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


@lru_cache(maxsize=16)
def shared_instance(cls, *args):
    """``cls(*args)``, made once per process and arguments: what an object a pool's tasks
    carry is unpickled as (its ``__reduce__`` returns ``shared_instance, (cls, *args)``),
    so that a worker's tasks share it (its caches, its connection)."""
    return cls(*args)


def tune_collector(young_threshold: int) -> tuple:
    """Freeze what exists now (modules, models: never garbage) out of the cyclic garbage
    collector's sight, and collect young objects every ``young_threshold`` allocations;
    the thresholds before (to restore with ``gc.set_threshold`` and ``gc.unfreeze``)."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(young_threshold, *before[1:])
    return before


def start_forkserver() -> None:
    """Start the fork server now (its imports then overlap the caller's work)."""
    from multiprocessing import forkserver

    forkserver_context()
    with bare_main(), _sigint_blocked():   # (a Ctrl-C during its imports: see ProcessPool.start)
        forkserver.ensure_running()


@contextmanager
def _sigint_blocked():
    """SIGINT blocked in this thread (the process's other threads still take it)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def bare_main():
    """``__main__`` as a bare module: what a fork server, and a process it starts, import
    of the caller's main module (nothing). Otherwise a worker runs the ``scrapy`` script
    again (0.3 s of CPU and 26 MB), or all a benchmark script imports."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _worker_start(maker_alive, initializer: Callable | None, initargs: tuple) -> None:
    # Ctrl-C reaches every process of the terminal's process group: the pool's maker
    # stops the crawl and shuts the pool down; a worker goes on with its task meanwhile.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_maker, args=(maker_alive,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with_maker(maker_alive) -> None:
    try:
        maker_alive.recv()      # nothing is ever sent: returns at EOF, when the maker is gone
    except (EOFError, OSError):
        pass
    os._exit(0)


def _worker_pid() -> int:
    return os.getpid()


class ProcessPool(ProcessPoolExecutor):
    """A ``ProcessPoolExecutor`` of the fork server's processes (or of another
    multiprocessing ``context``'s), which end with this process. ``initializer(*initargs)``
    runs in each as it starts."""

    def __init__(self, workers: int, initializer: Callable | None = None, initargs: tuple = (),
                 inline_if_broken: bool = False, context=None):
        context = context or forkserver_context()
        # the write end stays in this process only: a worker reads EOF when it is gone
        maker_alive, self._alive = context.Pipe(duplex=False)
        super().__init__(workers, mp_context=context, initializer=_worker_start,
                         initargs=(maker_alive, initializer, initargs))
        self.workers = workers
        self.inline_if_broken = inline_if_broken
        self.tasks_inline = 0     # tasks done in this process after the pool broke

    def submit(self, fn, /, *args, **kwargs):
        """``Executor.submit``; with ``inline_if_broken``, a task the pool can no longer
        do (a worker was killed: out of memory, a signal) is done in this process when
        its result is asked for, instead of failing the caller's whole run."""
        if not self.inline_if_broken:
            return super().submit(fn, *args, **kwargs)
        try:
            future = super().submit(fn, *args, **kwargs)
        except BrokenProcessPool:
            future = None
        return _InlineIfBroken(self, future, fn, args, kwargs)

    def _run_inline(self, fn, args, kwargs):
        if not self.tasks_inline:
            logger.warning("A worker process of the pool died: its work is done in this "
                           "process from now on")
        self.tasks_inline += 1
        return fn(*args, **kwargs)

    def start(self) -> None:
        """Start every process now, without the caller's ``__main__``, by one no-op task
        each; returns when they run. SIGINT is blocked in the calling thread meanwhile:
        a spawned process inherits the mask, and a Ctrl-C during its start-up (before
        its initializer ignores SIGINT) would end it with a KeyboardInterrupt."""
        with bare_main(), _sigint_blocked():
            started = [self.submit(_worker_pid) for _ in range(self.workers)]
        for future in started:
            future.result()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        self._alive.close()


class _InlineIfBroken:
    """A :class:`ProcessPool`'s future whose task is done in the calling process when the
    pool broke (what ``Executor.map`` and a caller's ``result()`` use of a future)."""

    __slots__ = ("pool", "future", "fn", "args", "kwargs")

    def __init__(self, pool: ProcessPool, future, fn, args, kwargs):
        self.pool, self.future, self.fn, self.args, self.kwargs = pool, future, fn, args, kwargs

    def result(self, timeout: float | None = None):
        if self.future is not None:
            try:
                return self.future.result(timeout)
            except BrokenProcessPool:
                pass
        return self.pool._run_inline(self.fn, self.args, self.kwargs)

    def cancel(self) -> bool:
        return self.future.cancel() if self.future is not None else False
