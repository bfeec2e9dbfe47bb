"""The owner of the crawl's frontier: the one place, besides the spider's callbacks, where a
request is scheduled, and where the idle-time work runs.

Every component that adds requests of its own (deep page recovery's guesses, parallel
links, held links released, a redirect rewrite undone, the frontier journal's replays, the
expand spider's rounds) hands them to :meth:`Frontier.schedule`, which hands each to the
focus's judge first (``Frontier.judge``, the focus middleware's ``LinkJudge.scheduled``):
the focus's rules judge a request once, whether the spider or the frontier schedules it,
and a request they judged already (a held link released) goes as it is. The work done when the
crawl runs dry is a list of ordered *idle tasks*, registered by the components with
:meth:`Frontier.add_idle_task` under the names and orders of :data:`IDLE_ORDER`:

1. ``held_links``: the focus releases the links it held whose yield came back
   (:mod:`bitextcrawl.middlewares.focus`);
2. ``deep_recovery``: counterpart URLs guessed with the URL patterns learned
   (:mod:`bitextcrawl.pipelines.pairing`);
3. ``parallel_links``: known pairs DOM-aligned, their aligned links followed
   (:mod:`bitextcrawl.pipelines.parallel_links`) — only when the tasks before it
   scheduled nothing (``when_idle``);
4. ``expand_rounds``: the expand spider runs its sites' tasks, then checks, closes and
   opens sites and rounds (:mod:`bitextcrawl.spiders.expand`).

A task returns whether the crawl goes on (requests that reached the scheduler's queue,
or work left), or a Deferred: work that runs beside the reactor (a process pool's round,
in a thread). While such work runs, the crawl stays open and no task runs again; when it
ends, the engine is woken at once, and if the work asked for nothing more, the next pass
starts after its task (the decisions are those of a pass that had waited for it). A task's
error is logged and the others still run. :meth:`Frontier.schedule` says whether a request
reached the queue (the dupefilter drops a URL seen before), and :attr:`Frontier.enqueued`
counts those that did, for a task to report only requests that go out.

What a task says is not taken as progress: the frontier has a rule of its own
(:class:`~bitextcrawl.idle_rule.IdlePasses`). At the start of each full pass it reads the
crawl's progress: responses received, URLs answered and pages learned (the crawl state's,
other workers' included), and what each task registered (``progress``: the parallel links'
pairs aligned and proposals decided). A task that said "more" in a pass after which none of
it grew is stopped until it grows again; a pass where nothing runs or says "more" ends the
idle phase, so the closing step is reached whatever the tasks say (log line "Idle work
ends", stats ``bitext/idle/*``: ``passes``, ``stopped/<task>``, ``ended_by_rule``). The
expand spider's rounds are not stoppable (``stoppable=False``): they drive the sites'
tasks, each site with the rule of its own.

The tasks of a single-site crawl run on ``spider_idle``; where several workers crawl the
site (the distributed profile), once the whole crawl has run dry (``crawl_dry``, set by
the scheduler: no worker busy, the shared queue empty), as a single crawl's would, and in
one worker at a time (``idle_turn``, set by the scheduler where
``BITEXT_DISTRIBUTED_IDLE_TURN_ENABLED``: :class:`~bitextcrawl.scheduler.registry.IdleTurn`):
the workers run dry together, and each one's pass would guess and release on what was
known before the others' requests were answered (N rounds of guesses where a single crawl
makes one). The worker holding the turn keeps it while work of its pass runs beside the
reactor. An
expand crawl's sites each have their own tasks (keyed by the site's crawl context), run by
the expand spider when its phases want them (:meth:`run_idle`).

The frontier is made with the crawl context (``CrawlContext.install``): every component
reaches it as ``context.frontier``. It listens to ``spider_idle`` from the first task
registered for the crawler (the focus middleware's), after the extensions' handlers (the
frontier journal releases its replayed requests first).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from bitextcrawl.idle_rule import IdlePasses

logger = logging.getLogger(__name__)

#: The idle tasks, in the order they run.
IDLE_ORDER = {"held_links": 100, "deep_recovery": 200, "parallel_links": 300,
              "expand_rounds": 400}


STAT = "bitext/idle/"


class _Task:
    __slots__ = ("fn", "name", "order", "stoppable", "when_idle")

    def __init__(self, order: int, name: str, fn: Callable, when_idle: bool,
                 stoppable: bool):
        self.order, self.name, self.fn, self.when_idle = order, name, fn, when_idle
        self.stoppable = stoppable


class Frontier:
    def __init__(self, crawler, owner: object = None):
        self.crawler = crawler
        self.owner = owner     # the crawler's crawl context: its tasks run on spider_idle
        self._tasks: dict[object, list[_Task]] = {}
        # ``judge(request) -> request``: the focus's judgement of a request on its way to
        # the scheduler (FocusMiddleware's), which every request scheduled here goes
        # through; None without the focus
        self.judge: Callable | None = None
        self._running: set[Deferred] = set()   # idle work beside the reactor
        self._resume: dict[object, int] = {}   # key -> the task its next pass starts at
        self._passes: dict[object, IdlePasses] = {}    # key -> its passes (the rule's)
        self._progress: dict[object, list[Callable[[], object]]] = {}
        self.responses = 0     # responses received by the crawler
        self.enqueued = 0      # requests scheduled here that reached the scheduler's queue
        self._dropped = None   # the last request the scheduler dropped
        self._connected = False
        # where several workers crawl one site: True once the whole crawl has run dry
        # (the distributed scheduler's worker registry); None: this crawl alone
        self.crawl_dry: Callable[[], bool] | None = None
        # where several workers crawl one site: one of them at a time runs the idle work
        # (an IdleTurn of the scheduler's registry); None: this crawl alone
        self.idle_turn = None
        # ``fn() -> bool``: this worker keeps requests that only its own idle pass
        # releases (links a rule of its own keeps back)
        self._keeps_own: list[Callable[[], bool]] = []
        crawler.signals.connect(self._response_received, signal=signals.response_received)
        crawler.signals.connect(self._request_dropped, signal=signals.request_dropped)

    def connect(self) -> None:
        if not self._connected:
            self._connected = True
            self.crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    def _response_received(self, response=None, request=None, spider=None) -> None:
        self.responses += 1

    def _request_dropped(self, request=None, spider=None) -> None:
        self._dropped = request

    # ---- scheduling ---------------------------------------------------------------------

    def schedule(self, request) -> bool:
        """Schedule ``request``, judged by the focus first (``judge``: the rules that see
        every request on its way to the scheduler, as they see a link the spider
        follows; a request they judged already goes as it is); True if it reached the
        scheduler's queue (the dupefilter did not drop it)."""
        if self.judge is not None:
            request = self.judge(request)
        self._dropped = None
        self.crawler.engine.crawl(request)
        if self._dropped is request:
            return False
        self.enqueued += 1
        return True

    # ---- idle-time work -------------------------------------------------------------------

    def add_idle_task(self, name: str, fn: Callable, key: object = None,
                      when_idle: bool = False, progress: Callable[[], object] | None = None,
                      stoppable: bool = True) -> None:
        """Run ``fn()`` when the crawl of ``key`` (a crawl context; the crawler's own runs
        on ``spider_idle``) runs dry, in the order of :data:`IDLE_ORDER`; ``when_idle``:
        only if the engine is still idle then (the tasks before it scheduled nothing).
        ``progress()``: counts of what the task decided for good, which only grow (part
        of the crawl's progress the rule reads); ``stoppable``: False for a task the rule
        leaves be (its work is bounded, and drives tasks under rules of their own)."""
        tasks = self._tasks.setdefault(key, [])
        tasks.append(_Task(IDLE_ORDER[name], name, fn, when_idle, stoppable))
        tasks.sort(key=lambda t: t.order)
        if progress is not None:
            self._progress.setdefault(key, []).append(progress)
        if key is self.owner:
            self.connect()

    def add_own_keeps(self, fn: Callable[[], bool]) -> None:
        """``fn()``: True while this worker keeps requests that only its own idle pass
        releases; where several workers crawl the site, it then runs a pass of its own
        before it closes, though another worker's pass found nothing to do."""
        self._keeps_own.append(fn)

    def remove_idle_tasks(self, key: object) -> None:
        self._tasks.pop(key, None)
        self._resume.pop(key, None)
        self._passes.pop(key, None)
        self._progress.pop(key, None)

    def progress(self, key: object) -> tuple:
        """The crawl's progress as the rule reads it: responses received, URLs answered
        and pages learned (where ``key`` has a crawl state: other workers' too), and the
        counts the tasks of ``key`` registered."""
        state = getattr(key, "state", None)
        crawl: tuple = (self.responses,)
        if state is not None:
            crawl += (len(state.answered), sum(state.pages_by_lang.values()))
        return crawl + tuple(fn() for fn in self._progress.get(key, ()))

    def spider_idle(self):
        state = getattr(self.owner, "state", None)
        if state is not None:   # the idle work decides on what every worker learned
            state.sync()
        if self.crawl_dry is not None and not self.crawl_dry():
            # other workers of the crawl are still busy: what their pages bring may make
            # the idle work's guesses and releases needless; it waits, as a single
            # crawl's does, until the whole crawl has run dry
            raise DontCloseSpider
        turn = self.idle_turn
        if turn is not None and not self._running:
            if not self._take_turn(turn, state):
                raise DontCloseSpider
            if turn.settled() and (not any(fn() for fn in self._keeps_own)
                                   or turn.settled(own=True)):
                # the crawl's last idle pass (another worker's) found nothing to do, and
                # nothing was queued since: nothing to do here either, unless this worker
                # keeps requests another worker's pass could not release
                turn.release()
                self.crawler.stats.inc_value("bitext/distributed/idle_turn/settled")
                return
            self.crawler.stats.inc_value("bitext/distributed/idle_turn/passes")
        try:
            more = self.run_idle(self.owner)
        except BaseException:
            if turn is not None and not self._running:
                turn.release()
            raise
        if turn is not None and not self._running:
            turn.release(settled=not more)
        if more:
            raise DontCloseSpider

    def _take_turn(self, turn, state) -> bool:
        """Take the crawl's idle turn; False while another worker's idle work runs, or
        when the crawl is no longer dry once it is taken (the last pass queued requests)."""
        if not turn.take():
            self.crawler.stats.inc_value("bitext/distributed/idle_turn/waits")
            return False
        if state is not None:   # what the pass before this one learned
            state.sync()
        if self.crawl_dry is not None and not self.crawl_dry():
            turn.release()
            return False
        return True

    def run_idle(self, key: object) -> bool:
        """Run the idle tasks of ``key``; True if the crawl goes on."""
        if self._running:
            return True
        more = False
        engine = self._engine()
        tasks = self._tasks.get(key, [])
        first = self._resume.pop(key, 0)
        passes = self._passes.setdefault(key, IdlePasses())
        if first == 0:
            self._start_pass(passes, key)
        for index in range(first, len(tasks)):
            task = tasks[index]
            if task.stoppable and not passes.runs(task.name):
                continue
            if task.when_idle and engine is not None and not engine.spider_is_idle():
                continue
            try:
                result = task.fn()
            except DontCloseSpider:
                result = True
            except Exception:
                logger.exception("Idle task %s failed", task.name)
                continue
            if isinstance(result, Deferred):
                # the rest of the pass waits for it
                self._track(result, task, key, index + 1)
                return True
            if result:
                more = True
                if task.stoppable:
                    passes.claim(task.name)
        if not more and passes.ended_by_rule():
            self.crawler.stats.inc_value(STAT + "ended_by_rule")
            logger.info("Idle work ends: no response, page, pair or decided proposal "
                        "since the pass before (%d in a row); stopped: %s", passes.still,
                        ", ".join(sorted(passes.stopped)))
        return more

    def _start_pass(self, passes: IdlePasses, key: object) -> None:
        """A full pass of the tasks of ``key`` starts: the rule stops the tasks that
        said "more" in the last one if the crawl's progress has not grown since."""
        self.crawler.stats.inc_value(STAT + "passes")
        for name in passes.start(self.progress(key)):
            self.crawler.stats.inc_value(STAT + "stopped/" + name)
            logger.info("Idle task %s stops: its last pass brought no response, page, "
                        "pair or decided proposal", name)

    def _track(self, d: Deferred, task: _Task, key: object, after: int) -> None:
        """Work beside the reactor: when it ends, the engine is woken; if it asked for
        nothing more, the next pass goes on with the tasks after it (``after``), as if it
        had run in this one."""
        self._running.add(d)

        def done(result):
            self._running.discard(d)
            if isinstance(result, Failure):
                logger.error("Idle task %s failed: %s", task.name, result.getTraceback())
                result = None
            if not result:
                self._resume[key] = after
            elif task.stoppable and key in self._passes:
                self._passes[key].claim(task.name)
            self._wake()

        d.addBoth(done)

    def _engine(self):
        """The crawler's engine; None before the crawl starts."""
        try:
            return self.crawler.engine
        except RuntimeError:   # (Scrapy 2.19 raises where older ones gave None)
            return None

    def _wake(self) -> None:
        """Have the engine look at its queue (and at idleness) now, not at its next
        heartbeat, up to 5 s later. (Scrapy 2.19 has no public call for it.)"""
        slot = getattr(self._engine(), "_slot", None)
        if slot is not None:
            slot.nextcall.schedule()
