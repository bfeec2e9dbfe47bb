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

Stats (``bitext/parallel_links/*``): ``rounds``, ``rounds_cut`` (rounds that left work
for the next: the time budget or ``BITEXT_PARALLEL_LINKS_PER_ROUND``), ``trainings``
(the tree aligner trained), ``aligned`` (pairs DOM-aligned),
``proposed`` (distinct link pairs proposed), ``scheduled`` (requests made), ``found``
(requested pages stored in the expected language), ``wrong_language``,
``verified``, ``rejected``, ``end_missing`` (a link pair one of whose ends the server
answered with no page: not followed), ``align_failed``, ``workers`` (processes a round aligned in;
absent when the crawl's process did), ``pool_broken_tasks`` (pairs aligned in the crawl's
process after a worker died).

A round's alignments are made in a pool of ``BITEXT_WORKERS`` processes: the crawl waits
for the round, and the record workers have nothing to do then. The decisions are the
same as in one process (``tests/integration/test_parallel_links.py``).

The rounds converge. A round stops once ``BITEXT_PARALLEL_LINKS_ROUND_SECONDS`` have
passed, checked between batches and never before its first batch: every round decides
something, and what it decides (a pair aligned, a proposal verified or rejected) is kept
and never planned again, so the next round resumes where a cut one stopped. The tree
aligner is trained again only on known pairs other than those it was last trained on (the
same pairs give the same aligner). The task says the crawl goes on when a round's
requests reached the scheduler's queue (one the dupefilter drops brings nothing) or its
budget cut it; its progress (``progress``: pairs aligned, proposals decided) is part of
what the frontier's rule reads (:mod:`bitextcrawl.idle_rule`).

What the rounds know of the crawl (stored pages, the frontier, the pairs known, proposed
and verified) is :class:`bitextcrawl.pairing.link_index.LinkIndex`; their tree aligner and
alignments are :class:`bitextcrawl.pairing.link_rounds.LinkRounds`. This pipeline feeds the
index the crawl's records and requests, runs a round in a thread beside the reactor and
schedules its requests.
"""

from __future__ import annotations

import logging
import os
import time

from scrapy import signals
from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from bitextcrawl.context import CrawlContext
from bitextcrawl.pipelines.base import SitePipeline
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.link_index import STAT, LinkIndex
from bitextcrawl.pairing.link_rounds import CRAWL_TRAINING_PAIRS, LinkRounds

logger = logging.getLogger(__name__)


class ParallelLinkPipeline(SitePipeline):
    enabled_by = "BITEXT_PARALLEL_LINKS_ENABLED"

    def __init__(self, crawler, context: CrawlContext | None = None):
        super().__init__(crawler, context)
        s = crawler.settings
        self.use_patterns = s.getbool("BITEXT_PATTERNS_ENABLED")
        self.index = LinkIndex(self.langs, self.context.in_scope, self.stats,
                               s.getint("BITEXT_TRAP_MAX_REPEATS"),
                               s.getint("BITEXT_TRAP_MAX_SEGMENTS"),
                               tokens=self.context.state.url_tokens.links)
        self.index.answered = self.context.state.answered
        self.index.leads_nowhere = self._leads_nowhere
        # the rounds' tree aligner and alignments (pairing/link_rounds.py)
        self.rounds = LinkRounds(self.index, self.stats,
                                 max(1, s.getint("BITEXT_PARALLEL_LINKS_PER_ROUND")),
                                 s.getfloat("BITEXT_PARALLEL_LINKS_ROUND_SECONDS"),
                                 s.getint("BITEXT_WORKERS") or os.cpu_count() or 1)
        self._requests: list = []                  # the round's requests, made in its thread
        # after deep page recovery, only when it requested nothing (the engine is idle)
        self.context.add_idle_task("parallel_links", self.spider_idle, when_idle=True,
                                   progress=self.progress)
        self.context.state.add_section("parallel_links", self.index.to_state)
        self.context.state.on_stored_record(self.index.remember)
        self.context.signals.connect(self.request_scheduled, signal=signals.request_scheduled)

    def _leads_nowhere(self, url: str) -> bool:
        """The focus learned that ``url``'s family of links leads only to errors or files."""
        focus = self.context.state.focus if self.context is not None else None
        return focus is not None and focus.queue.families.failing(url)

    def open_spider(self):
        self.pattern_db = self.context.pattern_db  # read as the crawl starts; read-only
        # a resumed crawl: the page index rebuilt (every stored page to _remember), the state
        self.context.replay_store()
        self.index.load(self.context.state_section("parallel_links", {}))

    @property
    def pages(self):
        """The stored pages in the wanted languages (the index's)."""
        return self.index.pages

    def request_scheduled(self, request, spider=None):
        self.index.scheduled_url(request.url)

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        tried = self.index.tried
        expected = tried.get(item.requested_url) or tried.get(item.url)
        if item.discovered_by == "parallel_link" and expected:
            key = "found" if item.lang == expected else "wrong_language"
            self.stats.inc_value(STAT + key)
        self.index.remember(item)
        return item

    # ---- the idle round ---------------------------------------------------------------

    def known_pairs(self) -> list[tuple[str, str]]:
        """Pairs known so far (``LinkIndex.known_pairs``), URL-pattern pairs among them
        with ``BITEXT_PATTERNS_ENABLED``."""
        return self.index.known_pairs(
            (lambda langs: self.context.url_pattern_learner(langs=langs))
            if self.use_patterns else None)

    def _records(self, urls: set[str]) -> dict[str, PageRecord]:
        """Stored records of ``urls`` (the store's batched lookup)."""
        return self.context.store.get_many(sorted(urls)) if urls else {}

    def progress(self) -> tuple[int, int]:
        """What the rounds decided for good (pairs aligned, proposals verified or
        rejected): counts that only grow, read by the frontier's rule."""
        return len(self.index.aligned), len(self.index.verified)

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
            enqueued = sum(self.context.frontier.schedule(request) for request in requests)
            # pages to download, or the round's budget is spent (the next round resumes:
            # what this one decided is not planned again)
            if enqueued or cut:
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
        known = self.known_pairs()
        todo, pending = self.index.plan(known, self.rounds.per_round)
        if not todo and not pending:
            return None
        self.stats.inc_value(STAT + "rounds")
        training = self.rounds.needs_training(known)
        if training:
            self.rounds.trained_with = tuple(known)
            self.stats.inc_value(STAT + "trainings")
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
            with self.rounds.pool(len(todo) + len(pending) + (2 if training else 0)) as pool:
                result = self.rounds.work(start, todo, pending, known, records, pool,
                                          training, self._follow_aligned_links)
        finally:
            clear_round_trees()
        requests, self._requests = self._requests, []
        if result is None:
            return requests, 0, False
        return requests, result[1], result[2]

    def _follow_aligned_links(self, proposals, u1: str, u2: str) -> int:
        """Propose the aligned links of the pair (u1, u2) (``links.link_proposals``) as
        pairs, and request their targets not stored, tried or scheduled yet; the number
        of requests made."""
        targets = self.index.follow(proposals, u1, u2)
        for url, _lang, depth in targets:
            request = self.context.page_request(url, discovered_by="parallel_link",
                                                depth=depth)
            self._requests.append(request)   # scheduled by the reactor's thread
        return len(targets)
