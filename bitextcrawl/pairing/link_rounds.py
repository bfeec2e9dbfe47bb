"""The alignment work of the parallel links' idle rounds, pure (no Scrapy, no Twisted)
[Shi 2006 §3]: the tree aligner trained on known pairs that pass verification (§4.2,
step 2), again when twice as many pairs are known; and a round's pairs aligned and its
proposals verified a batch at a time between checks of the round's time, in a pool of
processes or here. What the rounds know of the crawl (pages, frontier, pairs) is
:class:`~bitextcrawl.pairing.link_index.LinkIndex`; the pipeline
(``pipelines/parallel_links.py``) plans a round, runs :meth:`LinkRounds.work` in a
thread beside the reactor and schedules the requests it makes.

``stats``: anything with ``inc_value``/``max_value``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from bitextcrawl.pairing.link_index import STAT, LinkIndex, pair_task
from bitextcrawl.processes import ProcessPool

if TYPE_CHECKING:
    from bitextcrawl.trees.domtree import TreeAligner

logger = logging.getLogger("bitextcrawl.pipelines.parallel_links")

# Per-pair bound on decoding time inside the crawl (the closing pipeline allows 30 s).
ALIGN_TIME_LIMIT = 5.0
# Pairs that train the tree aligner inside the crawl (the closing pipeline uses 25):
# training is done while the crawl waits.
CRAWL_TRAINING_PAIRS = 10
# Pairs per worker aligned between two checks of the round's time
# (BITEXT_PARALLEL_LINKS_ROUND_SECONDS).
BATCH = 4


def in_batches(pairs: list, workers: int):
    """``pairs`` a few at a time: enough to keep ``workers`` busy, few enough that the
    round's time is checked often."""
    size = BATCH * max(1, workers)
    for k in range(0, len(pairs), size):
        yield pairs[k:k + size]


def run_map(pool, fn, tasks: list) -> list:
    """``fn`` over ``tasks``, in order, in the round's pool or here (a pool that broke
    has its remaining work done here)."""
    return list((pool.map if pool is not None else map)(fn, tasks))


class LinkRounds:
    def __init__(self, index: LinkIndex, stats, per_round: int, round_seconds: float,
                 workers: int):
        self.index, self.stats = index, stats
        self.per_round = per_round          # pairs aligned (and proposals verified) a round
        # decoding a pair of big pages can take seconds, and the crawl waits for a round:
        # a round stops after this many seconds (checked between batches)
        self.round_seconds = round_seconds
        self.workers = workers
        self.aligner: TreeAligner | None = None
        self.trained_on = 0
        self.trained_with: tuple | None = None     # the known pairs of the last training

    @contextmanager
    def pool(self, tasks: int):
        """The round's processes (``BITEXT_WORKERS``, from the fork server, a few ms to
        start): the crawl waits for the round, and the record workers are idle then.
        None where this process does: one worker, or fewer than two pairs to align."""
        if self.workers <= 1 or tasks < 2:
            yield None
            return
        self.stats.max_value(STAT + "workers", self.workers)
        with ProcessPool(self.workers, inline_if_broken=True) as pool:
            yield pool
        if pool.tasks_inline:
            self.stats.inc_value(STAT + "pool_broken_tasks", pool.tasks_inline)

    def train(self, known, records, pool) -> None:
        """Train the tree aligner (§4.2) on known pairs that pass verification (step 2)
        under the current parameters (at first, the aligner's initial tag prior); again
        when twice as many pairs are known, up to ``CRAWL_TRAINING_PAIRS``.

        The pairs to verify go out a batch at a time, as many as are still wanted: the
        same training pairs as verifying one by one, in the same order."""
        from bitextcrawl.pairing.parallel_links import round_pair
        from bitextcrawl.trees.domtree import TreeAligner

        fresh = self.aligner is None
        base = self.aligner or TreeAligner(n_iter=3, time_limit=ALIGN_TIME_LIMIT)
        training: list[tuple] = []
        first: dict[int, dict | None] = {}    # the verifications' counts: EM's first E-step
        candidates = iter(known)
        while len(training) < CRAWL_TRAINING_PAIRS:
            batch = list(islice(candidates, CRAWL_TRAINING_PAIRS - len(training)))
            if not batch:
                break
            decode = [p for p in batch if self.index.verified.get(p) is None]
            results = dict(zip(decode, run_map(
                pool, partial(round_pair, base, verify=True, counts=fresh),
                [pair_task(p, records) for p in decode])))
            for pair in batch:
                if pair in results:
                    result = self.index.counted(results[pair], pair, verify=True)
                    if result is None:
                        continue
                    if fresh:
                        first[len(training)] = result[1]
                elif pair[0] not in records or pair[1] not in records:
                    continue
                training.append(pair_task(pair, records))
        if not training:
            return

        def e_step(aligner, limit=None) -> list:
            # the pairs verified just now were decoded under the initial parameters: the
            # first E-step takes their counts
            given = training[:limit]
            todo = [k for k in range(len(given)) if k not in first]
            out = [(first.get(k), None) for k in range(len(given))]
            for k, result in zip(todo, run_map(pool, partial(round_pair, aligner, counts=True),
                                                 [given[k] for k in todo])):
                out[k] = (result[1] if isinstance(result, tuple) else None, None)
            first.clear()
            return out

        self.aligner = TreeAligner(n_iter=3, time_limit=ALIGN_TIME_LIMIT).fit_with(e_step)
        self.trained_on = len(training)

    def needs_training(self, known: list) -> bool:
        """Train at the first round, and again when twice as many pairs are known as
        trained it, up to ``CRAWL_TRAINING_PAIRS``; never twice on the same known pairs
        (the training pairs, their verifications and so the aligner would be the same)."""
        if self.trained_with == tuple(known):
            return False
        want = min(CRAWL_TRAINING_PAIRS, len(known))
        return self.aligner is None or (self.trained_on < CRAWL_TRAINING_PAIRS
                                        and want >= 2 * self.trained_on)

    def work(self, start: float, todo, pending, known, records, pool, training: bool,
             follow: Callable[[list, str, str], int]):
        """The round's alignments, a batch of ``BATCH`` pairs at a time between checks of
        the round's time (after the first batch: a round always decides something):
        (pages requested, proposals verified, work left over), or None where no tree
        aligner could be trained. ``follow(proposals, u1, u2)``: the aligned links of a
        pair proposed and their targets requested; the number of requests made."""
        from bitextcrawl.pairing import parallel_links as links

        if training:
            self.train(known, records, pool)
        if self.aligner is None:
            return None

        scheduled = verified = aligned = batches = 0
        cut = len(todo) == self.per_round or len(pending) == self.per_round

        def spent() -> bool:
            return batches > 0 and time.monotonic() - start > self.round_seconds

        for batch in in_batches(pending, self.workers):
            if spent():
                cut = True
                break
            batches += 1
            results = run_map(pool, partial(links.round_pair, self.aligner, verify=True),
                                [pair_task(p, records) for p in batch])
            for pair, result in zip(batch, results):
                if isinstance(result, str):     # no tree, or the decoder failed
                    self.index.verified[pair] = False
                verified += self.index.counted(result, pair, verify=True) is not None

        todo = [p for p in todo if self.index.verified.get(p) is not False]
        for batch in in_batches(todo, self.workers):
            if spent():
                cut = True
                break
            batches += 1
            self.index.aligned.update(batch)
            # step 2 for the pairs that have not been through it (URL patterns, hreflang)
            verify = [self.index.verified.get(p) is None for p in batch]
            results = run_map(pool, links.proposing_round_pair, [
                (self.aligner, pair_task(p, records), v) for p, v in zip(batch, verify)])
            for (u1, u2), result, v in zip(batch, results, verify):
                result = self.index.counted(result, (u1, u2), verify=v)
                if result is None:
                    continue
                self.stats.inc_value(STAT + "aligned")
                aligned += 1
                scheduled += follow(result[2], u1, u2)
        if scheduled:
            self.stats.inc_value(STAT + "scheduled", scheduled)
        if cut:
            self.stats.inc_value(STAT + "rounds_cut")
        logger.info("Parallel links: %d pairs aligned, %d proposals verified, %d pages "
                    "requested (%.1fs%s)", aligned, verified, scheduled,
                    time.monotonic() - start, ", more left" if cut else "")
        return scheduled, verified, cut
