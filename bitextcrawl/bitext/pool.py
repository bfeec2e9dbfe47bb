"""The process pool of the bitext stage: how many workers for how many pairs, the pool
started ahead of the stage (:func:`warm_pool`), tasks mapped in order a few chunks ahead
(:func:`ordered_map`), and the stage's objects kept out of the cyclic collector's sight
(:func:`_gc_frozen`)."""

from __future__ import annotations

import gc
import os
from collections import deque
from contextlib import contextmanager
from functools import wraps
from itertools import islice

from bitextcrawl.processes import ProcessPool, start_forkserver, tune_collector

# A worker costs one to three seconds to start (imports, compiled code), 20 to 100 pairs'
# work: fewer pairs than this each, fewer workers (bench_align --scale: 18 pairs took
# 0.7 s in one process, 3.3 s with two).
MIN_PAIRS_PER_WORKER = 50
# Allocations between two young-generation collections during the stage (Python: 700).
# The trees' nodes die with their pair (dom.release): fewer collections promote fewer of them.
GC_YOUNG_THRESHOLD = 20_000
# Page pairs a pool is given at a time, and chunks of them in flight: the tasks carry the
# pages' HTML, read from the page store as the pairs come (``ordered_map``).
CHUNK_PAIRS = 4
CHUNKS_AHEAD = 16


def _run_chunk(fn, chunk: list) -> list:
    return [fn(task) for task in chunk]


def ordered_map(pool, fn, tasks, chunk: int = CHUNK_PAIRS, ahead: int = CHUNKS_AHEAD):
    """``pool.map(fn, tasks)`` in order, taking ``tasks`` as it goes: ``Executor.map``
    submits every task at once, and each holds the HTML of two pages.

    The first ``ahead`` chunks are submitted when this is called, not when the first
    result is asked for: the caller may have other results to handle first (the pairs
    EM decoded), and the pool works meanwhile. A chunk's results are handed out after
    the next chunk is submitted."""
    tasks = iter(tasks)
    pending: deque = deque()

    def submit() -> None:
        batch = list(islice(tasks, chunk))
        if batch:
            pending.append(pool.submit(_run_chunk, fn, batch))

    for _ in range(ahead):
        submit()

    def results():
        while pending:
            done = pending.popleft().result()
            submit()
            yield from done

    return results()


def _gc_frozen(function):
    """``function`` with the objects that exist when it is called out of the cyclic garbage
    collector's sight (``gc.freeze``): the pages, records and caches of the caller are
    not scanned again by each full collection that the trees made here set off (on
    nginx.org, 11 full collections took 1.7 s of the stage's 15 s of CPU). What the
    function makes is collected as usual."""
    @wraps(function)
    def frozen(*args, **kwargs):
        # a crawl's process froze its own start-up already (extensions.collector): the
        # one unfreeze, of everything, is then the crawl's, when its engine stops
        unfreeze = gc.get_freeze_count() == 0
        threshold = tune_collector(GC_YOUNG_THRESHOLD)
        try:
            return function(*args, **kwargs)
        finally:
            gc.set_threshold(*threshold)
            if unfreeze:
                gc.unfreeze()
    return frozen


def pool_size(workers: int, n_pairs: int) -> int:
    """Processes :func:`worker_pool` starts for ``n_pairs`` page pairs (1: none)."""
    workers = workers or os.cpu_count() or 1
    return max(1, min(workers, n_pairs // MIN_PAIRS_PER_WORKER))


@contextmanager
def worker_pool(workers: int, n_pairs: int):
    """A process pool of ``workers`` (0: the machine's cores) for ``n_pairs`` page pairs,
    or None where one process does (one worker, or too few pairs to pay for starting more).
    Its processes come from the fork server (:mod:`bitextcrawl.processes`)."""
    workers = pool_size(workers, n_pairs)
    if workers <= 1:
        yield None
        return
    with ProcessPool(workers, _young_threshold, (GC_YOUNG_THRESHOLD,),
                     inline_if_broken=True) as pool:
        pool.start()
        yield pool


def _young_threshold(allocations: int) -> None:
    """A worker's collector as :func:`_gc_frozen` sets the stage's: its work is the same."""
    gc.set_threshold(allocations, *gc.get_threshold()[1:])


def warm_pool(workers: int, n_pages: int) -> bool:
    """Start the pool's fork server now if the bitext stage of a site of ``n_pages`` pages
    may use a pool (a language pair has at most ``n_pages // 2`` page pairs): its imports
    (the compiled kernels, about 1.5 s) then overlap pairing instead of delaying the stage.
    """
    if pool_size(workers, n_pages // 2) <= 1:
        return False
    start_forkserver()
    return True
