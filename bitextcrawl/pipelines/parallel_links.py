"""Parallel hyperlinks fed back to the crawl [Shi 2006 §3 steps 3 and 5].

When the crawl runs dry (``spider_idle``) and deep page recovery has nothing left to
request, the page pairs known so far — URL-pattern pairs [Zhang 2013] and ``hreflang``
pairs of the stored pages, and pairs proposed by parallel links and verified — are
DOM-aligned (:mod:`bitextcrawl.trees.domtree`), a bounded number per idle round. Their
aligned hyperlinks are candidate pairs (:func:`bitextcrawl.pairing.parallel_links.link_proposals`):

* a target not downloaded yet is requested (``discovered_by="parallel_link"``, §3 step 5);
* a proposal whose two pages are stored is verified (§3 step 2,
  :func:`bitextcrawl.pairing.parallel_links.verify_pair`); verified, it is a known pair in turn,
  and its own aligned links are followed in a later round.

Only pairs that link somewhere the crawl did not go are worth aligning: the pipeline
keeps, for every in-scope link of a stored page that was never scheduled, the pages
linking to it (the *frontier*; a link leaves it when a request for it is scheduled).
In a full crawl the frontier holds the links the crawl chose not to follow (robots,
other languages, ``DEPTH_LIMIT``), so little is aligned. In a crawl bounded by
``DEPTH_LIMIT`` — the paper's scheme, whose step 1 downloads the home page and the
pages it links to, and whose later steps follow parallel links only — parallel links
carry the crawl on: a request made here has the depth of its source pair plus one, is
exempt from ``DEPTH_LIMIT`` itself (the frontier schedules it with ``engine.crawl``, past the
depth middleware), and the links found on its page are followed only within
``DEPTH_LIMIT``.

Order with deep page recovery (:class:`~bitextcrawl.pipelines.pairing.UrlPairingPipeline`):
both are idle tasks of the frontier (:mod:`bitextcrawl.extensions.frontier`), which runs
this one after recovery and only when the engine is still idle, i.e. when recovery
requested nothing in this round. The pairs are decided at close as ever
(``pairing/align.py``).

Stats (``bitext/parallel_links/*``): ``rounds``, ``aligned`` (pairs DOM-aligned),
``proposed`` (distinct link pairs proposed), ``scheduled`` (requests made), ``found``
(requested pages stored in the expected language), ``wrong_language``,
``verified``, ``rejected``, ``align_failed``, ``workers`` (processes a round aligned in;
absent when the crawl's process did), ``pool_broken_tasks`` (pairs aligned in the crawl's
process after a worker died).

A round's alignments are made in a pool of ``BITEXT_WORKERS`` processes: the crawl waits
for the round, and the record workers have nothing to do then. The decisions are the
same as in one process (``tests/integration/test_parallel_links.py``).
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from contextlib import contextmanager
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from bitextcrawl import config
from bitextcrawl.context import CrawlContext
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.urls import UrlLanguageTokens, canonical, looks_like_trap
from bitextcrawl.pages.variants import link_lang
from bitextcrawl.pages.switches import link_named_language

if TYPE_CHECKING:
    from bitextcrawl.trees.domtree import TreeAligner

logger = logging.getLogger(__name__)

STAT = "bitext/parallel_links/"
# Decoding a pair of big pages can take seconds: while the spider is idle the reactor
# waits for us, so a round also stops after this many seconds.
ROUND_SECONDS = 20.0
# Per-pair bound on decoding time inside the crawl (the closing pipeline allows 30 s).
ALIGN_TIME_LIMIT = 5.0
# Pairs that train the tree aligner inside the crawl (the closing pipeline uses 25):
# training is done while the crawl waits.
CRAWL_TRAINING_PAIRS = 10
# Pairs per worker aligned between two checks of the round's time (ROUND_SECONDS).
BATCH = 4


def _canon(url: str) -> str:
    try:
        return canonical(url)
    except ValueError:
        return url


class _Page:
    """What the pipeline keeps of a stored page: small, one per page."""

    __slots__ = ("lang", "hreflang", "depth")

    def __init__(self, lang: str, hreflang: dict, depth: int):
        self.lang, self.hreflang, self.depth = lang, hreflang, depth


def _batches(pairs: list, workers: int):
    """``pairs`` a few at a time: enough to keep ``workers`` busy, few enough that the
    round's time is checked often."""
    size = BATCH * max(1, workers)
    for k in range(0, len(pairs), size):
        yield pairs[k:k + size]


class ParallelLinkPipeline:
    def __init__(self, crawler, context: CrawlContext | None = None):
        self.crawler = crawler
        self.context = context or CrawlContext.from_crawler(crawler)
        self.langs = self.context.langs
        self.stats = crawler.stats
        s = crawler.settings
        self.per_round = max(1, s.getint("BITEXT_PARALLEL_LINKS_PER_ROUND"))
        self.workers = s.getint("BITEXT_WORKERS") or os.cpu_count() or 1
        self.use_patterns = s.getbool("BITEXT_PATTERNS_ENABLED")
        self.trap_repeats = s.getint("BITEXT_TRAP_MAX_REPEATS")
        self.trap_segments = s.getint("BITEXT_TRAP_MAX_SEGMENTS")
        self.pages: dict[str, _Page] = {}          # stored pages in the wanted languages
        self.stored: set[str] = set()              # every stored URL (any language)
        self.frontier: dict[str, set[str]] = {}    # unscheduled link -> pages linking to it
        self.scheduled: set[str] = set()           # URLs ever given to the scheduler
        self.aligned: set[tuple[str, str]] = set()
        self.verified: dict[tuple[str, str], bool] = {}
        self.proposed: Counter = Counter()         # (u1, u2) -> verified pairs proposing it
        self.tried: dict[str, str] = {}            # URL requested here -> expected language
        # What the links themselves say of their targets' language (hreflang, a switch
        # anchor), and URL tokens learned from the stored pages: a switch bar aligns
        # with a switch bar, and its links into unwanted languages are not proposals.
        self.link_lang: dict[str, str] = {}
        self.tokens = UrlLanguageTokens()
        self.aligner: TreeAligner | None = None
        self.trained_on = 0
        self._pattern_cache: tuple[int, list] = (-1, [])
        self._requests: list = []                  # the round's requests, made in its thread
        # after deep page recovery, only when it requested nothing (the engine is idle)
        self.context.add_idle_task("parallel_links", self.spider_idle, when_idle=True)
        self.context.state.add_section("parallel_links", self._state)
        self.context.state.on_stored_record(self._remember)
        self.context.signals.connect(self.request_scheduled, signal=signals.request_scheduled)

    @classmethod
    def from_crawler(cls, crawler, context: CrawlContext | None = None):
        if not config.getbool(crawler.settings, "BITEXT_PARALLEL_LINKS_ENABLED"):
            raise NotConfigured
        return cls(crawler, context)

    # ---- state ------------------------------------------------------------------------

    def open_spider(self):
        self.pattern_db = self.context.pattern_db  # read as the crawl starts; read-only
        # a resumed crawl: the page index rebuilt (every stored page to _remember), the state
        self.context.replay_store()
        state = self.context.state_section("parallel_links", {})
        if state:
            self.aligned = {tuple(p) for p in state.get("aligned", [])}
            self.verified = {tuple(p): ok for p, ok in state.get("verified", [])}
            self.proposed = Counter({(a, b): n for a, b, n in state.get("proposed", [])})
            self.tried = dict(state.get("tried", {}))
            self.scheduled.update(self.tried)

    def _state(self) -> dict:
        """This pipeline's section of the crawl state."""
        return {
            "aligned": sorted(self.aligned),
            "verified": [[list(p), ok] for p, ok in sorted(self.verified.items())],
            "proposed": [[a, b, n] for (a, b), n in sorted(self.proposed.items())],
            "tried": self.tried,
        }

    def request_scheduled(self, request, spider=None):
        url = _canon(request.url)
        self.scheduled.add(url)
        self.frontier.pop(url, None)

    def _leads_elsewhere(self, url: str) -> bool:
        """The link's own evidence, or its URL's language tokens, name an unwanted language."""
        lang = self.link_lang.get(url)
        if lang is None:
            predicted = self.tokens.predict(url)
            lang = predicted.pop() if len(predicted) == 1 else None
        return lang is not None and lang not in self.langs

    def _remember(self, record: PageRecord) -> None:
        self.tokens.learn(record.url, record.lang)
        self.stored.add(record.url)
        self.scheduled.add(record.url)
        if record.requested_url:
            self.scheduled.add(record.requested_url)
        self.frontier.pop(record.url, None)
        if record.lang not in self.langs:
            return
        self.pages[record.url] = _Page(record.lang, dict(record.hreflang or {}), record.depth)
        in_scope = self.context.in_scope
        for link in record.links:
            url = link["url"]
            named = link_lang(link_named_language(link), self.langs)
            if named:
                self.link_lang.setdefault(url, named)
            if url in self.scheduled or url in self.stored or not in_scope(url):
                continue
            if looks_like_trap(url, self.trap_repeats, self.trap_segments) or \
                    self._leads_elsewhere(url):
                continue
            self.frontier.setdefault(url, set()).add(record.url)

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        expected = self.tried.get(item.requested_url) or self.tried.get(item.url)
        if item.discovered_by == "parallel_link" and expected:
            key = "found" if item.lang == expected else "wrong_language"
            self.stats.inc_value(STAT + key)
        self._remember(item)
        return item

    # ---- the idle round ---------------------------------------------------------------

    def known_pairs(self) -> list[tuple[str, str]]:
        """Pairs known so far, url_1 in the first language: hreflang pairs of the stored
        pages (declared alternates, language toggles), verified link pairs, URL-pattern
        pairs. Pairs that failed verification are left out."""
        out: dict[tuple[str, str], None] = {}
        first = self.langs[0]
        by_lang: dict[str, list[str]] = {}
        for url, page in self.pages.items():
            by_lang.setdefault(page.lang, []).append(url)
        cached = self._pattern_cache[0] == len(self.pages)
        pattern_pairs = self._pattern_cache[1] if cached else []
        for other in self.langs[1:]:
            urls1, urls2 = by_lang.get(first, []), by_lang.get(other, [])
            if not urls1 or not urls2:
                continue
            for u1 in urls1:  # declared alternates / language toggles, either way
                t = self.pages[u1].hreflang.get(other)
                if t in self.pages and self.pages[t].lang == other:
                    out[(u1, t)] = None
            for u2 in urls2:
                t = self.pages[u2].hreflang.get(first)
                if t in self.pages and self.pages[t].lang == first:
                    out[(t, u2)] = None
            if self.use_patterns and not cached:
                learner = self.context.url_pattern_learner(langs=(first, other))
                learner.fit({first: urls1, other: urls2})
                pattern_pairs.extend((p.url_1, p.url_2) for p in learner.pairs())
        self._pattern_cache = (len(self.pages), pattern_pairs)
        for pair, ok in self.verified.items():
            if ok:
                out[pair] = None
        for pair in pattern_pairs:
            out[pair] = None
        return [p for p in out if self.verified.get(p, True)]

    def _records(self, urls: set[str]) -> dict[str, PageRecord]:
        """Stored records of ``urls`` (the store's batched lookup)."""
        return self.context.store.get_many(sorted(urls)) if urls else {}

    @contextmanager
    def _pool(self, tasks: int):
        """The round's processes (``BITEXT_WORKERS``, from the fork server, a few ms to
        start): the crawl waits for the round, and the record workers are idle then.
        None where this process does: one worker, or fewer than two pairs to align."""
        if self.workers <= 1 or tasks < 2:
            yield None
            return
        from bitextcrawl.processes import ProcessPool

        self.stats.max_value(STAT + "workers", self.workers)
        with ProcessPool(self.workers, inline_if_broken=True) as pool:
            yield pool
        if pool.tasks_inline:
            self.stats.inc_value(STAT + "pool_broken_tasks", pool.tasks_inline)

    @staticmethod
    def _map(pool, fn, tasks: list) -> list:
        """``fn`` over ``tasks``, in order, in the round's pool or here (a pool that broke
        has its remaining work done here)."""
        return list((pool.map if pool is not None else map)(fn, tasks))

    def _pair_task(self, pair, records) -> tuple:
        u1, u2 = pair
        r1, r2 = records.get(u1), records.get(u2)
        return (u1, r1.html if r1 else None, r1.text if r1 else "",
                u2, r2.html if r2 else None, r2.text if r2 else "")

    def _aligned(self, result, pair, verify: bool):
        """A :func:`round_pair` result counted: None when the pair could not be aligned
        or failed verification (step 2), else the result."""
        if result == "align":
            self.stats.inc_value(STAT + "align_failed")
        if isinstance(result, str):
            return None
        if verify:
            self.verified[pair] = result[0]
            self.stats.inc_value(STAT + ("verified" if result[0] else "rejected"))
            if not result[0]:
                return None
        return result

    def _train(self, known, records, pool) -> None:
        """Train the tree aligner (§4.2) on known pairs that pass verification (step 2)
        under the current parameters (at first, the aligner's initial tag prior); again
        when twice as many pairs are known, up to ``CRAWL_TRAINING_PAIRS``.

        The pairs to verify go out a batch at a time, as many as are still wanted: the
        same training pairs as verifying one by one, in the same order."""
        from bitextcrawl.trees.domtree import TreeAligner
        from bitextcrawl.pairing.parallel_links import round_pair

        fresh = self.aligner is None
        base = self.aligner or TreeAligner(n_iter=3, time_limit=ALIGN_TIME_LIMIT)
        training: list[tuple] = []
        first: dict[int, dict | None] = {}    # the verifications' counts: EM's first E-step
        candidates = iter(known)
        while len(training) < CRAWL_TRAINING_PAIRS:
            batch = list(islice(candidates, CRAWL_TRAINING_PAIRS - len(training)))
            if not batch:
                break
            decode = [p for p in batch if self.verified.get(p) is None]
            results = dict(zip(decode, self._map(
                pool, partial(round_pair, base, verify=True, counts=fresh),
                [self._pair_task(p, records) for p in decode])))
            for pair in batch:
                if pair in results:
                    result = self._aligned(results[pair], pair, verify=True)
                    if result is None:
                        continue
                    if fresh:
                        first[len(training)] = result[1]
                elif pair[0] not in records or pair[1] not in records:
                    continue
                training.append(self._pair_task(pair, records))
        if not training:
            return

        def e_step(aligner, limit=None) -> list:
            # the pairs verified just now were decoded under the initial parameters: the
            # first E-step takes their counts
            given = training[:limit]
            todo = [k for k in range(len(given)) if k not in first]
            out = [(first.get(k), None) for k in range(len(given))]
            for k, result in zip(todo, self._map(pool, partial(round_pair, aligner, counts=True),
                                                 [given[k] for k in todo])):
                out[k] = (result[1] if isinstance(result, tuple) else None, None)
            first.clear()
            return out

        self.aligner = TreeAligner(n_iter=3, time_limit=ALIGN_TIME_LIMIT).fit_with(e_step)
        self.trained_on = len(training)

    def _needs_training(self, n_known: int) -> bool:
        want = min(CRAWL_TRAINING_PAIRS, n_known)
        return self.aligner is None or (self.trained_on < CRAWL_TRAINING_PAIRS
                                        and want >= 2 * self.trained_on)

    def spider_idle(self):
        """The idle task ``parallel_links``: rounds until one requests pages or runs out
        of time, or nothing is left to align. A Deferred (True: the crawl goes on): the
        rounds' alignments run in a thread beside the reactor, their process pool there
        too; the stored records are read and the requests scheduled here. False when
        there is nothing to align."""
        plan = self._plan()
        if plan is None:
            return False
        return self._rounds(time.monotonic(), plan)

    @inlineCallbacks
    def _rounds(self, start: float, plan):
        while True:
            requests, verified, cut = yield deferToThread(self._compute, start, *plan)
            for request in requests:
                self.context.frontier.schedule(request)
            if requests or cut:         # pages to download, or the round's budget is spent
                return True
            if not verified:
                return False
            # New verified pairs and nothing to download: their links at once, no wait.
            plan = self._plan()
            if plan is None:
                return False

    def _plan(self):
        """A round's work, read here (the reactor's thread, the store's): the pairs to
        align, the proposals to verify, the known pairs, their records, whether the tree
        aligner is trained again; None when there is nothing to align or verify."""
        first = self.langs[0]
        known = self.known_pairs()
        linking = set()
        for pages in self.frontier.values():
            linking.update(pages)
        # Pairs worth aligning: not aligned yet, and linking somewhere the crawl did not go.
        todo = [p for p in known if p not in self.aligned
                and (p[0] in linking or p[1] in linking)][:self.per_round]
        # Proposals whose two pages are now stored, in the right languages, wait for step 2
        # — if verifying them can lead anywhere: one of the pages links to the frontier.
        pending = [p for p in self.proposed if p not in self.verified
                   and p[0] in self.pages and p[1] in self.pages
                   and (p[0] in linking or p[1] in linking)
                   and self.pages[p[0]].lang == first and self.pages[p[1]].lang != first]
        pending = pending[:self.per_round]
        if not todo and not pending:
            return None
        self.stats.inc_value(STAT + "rounds")
        training = self._needs_training(len(known))
        need = {u for pair in todo + pending for u in pair}
        if training:
            need.update(u for pair in known[:2 * CRAWL_TRAINING_PAIRS] for u in pair)
        return todo, pending, known, self._records(need), training

    def _compute(self, start: float, todo, pending, known, records, training):
        """One round's alignments (in a thread): (requests to make, proposals verified,
        work left over)."""
        # the tree aligner's modules (scipy) come with the first round, not at the crawl's
        # start (the closing pipeline has ``preload.import_in_background`` load them meanwhile)
        from bitextcrawl.pairing.parallel_links import clear_round_trees

        self._requests = []
        try:
            with self._pool(len(todo) + len(pending) + (2 if training else 0)) as pool:
                result = self._work(start, todo, pending, known, records, pool, training)
        finally:
            clear_round_trees()
        requests, self._requests = self._requests, []
        if result is None:
            return requests, 0, False
        return requests, result[1], result[2]

    def _work(self, start, todo, pending, known, records, pool, training):
        """The round's alignments, a batch of ``BATCH`` pairs at a time between checks of
        the round's time."""
        from bitextcrawl.pairing import parallel_links as links

        if training:
            self._train(known, records, pool)
        if self.aligner is None:
            return None

        scheduled = verified = aligned = 0
        cut = len(todo) == self.per_round or len(pending) == self.per_round
        for batch in _batches(pending, self.workers):
            if time.monotonic() - start > ROUND_SECONDS:
                cut = True
                break
            results = self._map(pool, partial(links.round_pair, self.aligner, verify=True),
                                [self._pair_task(p, records) for p in batch])
            for pair, result in zip(batch, results):
                if isinstance(result, str):     # no tree, or the decoder failed
                    self.verified[pair] = False
                verified += self._aligned(result, pair, verify=True) is not None

        todo = [p for p in todo if self.verified.get(p) is not False]
        for batch in _batches(todo, self.workers):
            if time.monotonic() - start > ROUND_SECONDS:
                cut = True
                break
            self.aligned.update(batch)
            # step 2 for the pairs that have not been through it (URL patterns, hreflang)
            verify = [self.verified.get(p) is None for p in batch]
            results = self._map(pool, links.proposing_round_pair, [
                (self.aligner, self._pair_task(p, records), v) for p, v in zip(batch, verify)])
            for (u1, u2), result, v in zip(batch, results, verify):
                result = self._aligned(result, (u1, u2), verify=v)
                if result is None:
                    continue
                self.stats.inc_value(STAT + "aligned")
                aligned += 1
                scheduled += self._follow_aligned_links(result[2], u1, u2)
        if scheduled:
            self.stats.inc_value(STAT + "scheduled", scheduled)
        logger.info("Parallel links: %d pairs aligned, %d proposals verified, %d pages "
                    "requested (%.1fs)", aligned, verified, scheduled,
                    time.monotonic() - start)
        return scheduled, verified, cut

    def _follow_aligned_links(self, proposals, u1: str, u2: str) -> int:
        """Propose the aligned links of the pair (u1, u2) (``links.link_proposals``) as
        pairs, and request their targets not stored, tried or scheduled yet; the number
        of requests made."""
        context = self.context
        scheduled = 0
        l1, l2 = self.pages[u1].lang, self.pages[u2].lang
        depth = max(self.pages[u1].depth, self.pages[u2].depth) + 1
        for h1, h2 in proposals:
            p1, p2 = self.pages.get(h1), self.pages.get(h2)
            if (h1 in self.stored and (p1 is None or p1.lang != l1)) or \
                    (h2 in self.stored and (p2 is None or p2.lang != l2)):
                continue  # a stored page in another language: not this pair
            if self._leads_elsewhere(h1) or self._leads_elsewhere(h2):
                self.stats.inc_value(STAT + "other_language")
                continue  # e.g. two switch bars' links into German
            if (h1, h2) not in self.proposed:
                self.stats.inc_value(STAT + "proposed")
            self.proposed[(h1, h2)] += 1
            for url, lang in ((h1, l1), (h2, l2)):
                if url in self.stored or url in self.tried or url in self.scheduled:
                    continue
                if not context.in_scope(url) or looks_like_trap(url, self.trap_repeats,
                                                                 self.trap_segments):
                    continue
                self.tried[url] = lang
                request = context.page_request(url, discovered_by="parallel_link",
                                               bitext_expected_lang=lang,
                                               bitext_parallel_pair=[u1, u2], depth=depth)
                self._requests.append(request)   # scheduled by the reactor's thread
                scheduled += 1
        return scheduled
