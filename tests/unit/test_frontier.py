"""The frontier: the one place requests are scheduled; idle-time work as ordered tasks."""

from __future__ import annotations

import pytest
from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from bitextcrawl.context import CrawlContext
from bitextcrawl.extensions.frontier import Frontier
from bitextcrawl.idle_rule import IdlePasses
from bitextcrawl.spiders.bitext import BitextSpider


class Engine:
    def __init__(self):
        self.crawled = []
        self.idle = True

    def crawl(self, request):
        self.crawled.append(request)
        self.idle = False

    def spider_is_idle(self):
        return self.idle


@pytest.fixture
def crawler(tmp_path):
    crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / "out")})
    crawler.spider = BitextSpider.from_crawler(crawler, start_url="http://a.org/",
                                               langs="en,fr")
    crawler.engine = Engine()
    return crawler


def test_idle_tasks_run_in_their_order_and_the_last_only_on_an_idle_engine(crawler):
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    ran = []

    def recovery():
        ran.append("deep_recovery")
        frontier.schedule(Request("http://a.org/guess"))
        return True

    context.add_idle_task("parallel_links", lambda: ran.append("parallel_links"),
                          when_idle=True)
    context.add_idle_task("deep_recovery", recovery)
    context.add_idle_task("held_links", lambda: ran.append("held_links") and False)
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()
    # parallel links wait: recovery requested a page
    assert ran == ["held_links", "deep_recovery"]
    assert [r.url for r in crawler.engine.crawled] == ["http://a.org/guess"]


def test_a_failing_task_is_logged_and_the_others_run(crawler, caplog):
    context = CrawlContext.from_crawler(crawler)
    ran = []
    context.add_idle_task("held_links", lambda: 1 / 0)
    context.add_idle_task("deep_recovery", lambda: ran.append(1) and False)
    context.frontier.spider_idle()   # nothing scheduled: the spider may close
    assert ran == [1] and "Idle task held_links failed" in caplog.text


def test_work_beside_the_reactor_keeps_the_crawl_open_until_it_ends(crawler):
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    first, second = Deferred(), Deferred()
    rounds = [first, second]
    calls = []

    def recovery():
        calls.append("deep_recovery")
        return False

    def round_():
        calls.append("parallel_links")
        return rounds.pop(0) if rounds else False

    context.add_idle_task("deep_recovery", recovery)
    # each round decides something (the rule reads it: the task is not stopped)
    context.add_idle_task("parallel_links", round_, progress=lambda: len(calls))
    assert frontier.run_idle(context) is True
    assert frontier.run_idle(context) is True   # still running: no task runs again
    assert calls == ["deep_recovery", "parallel_links"]
    first.callback(False)      # nothing more: the pass goes on after parallel links
    assert frontier.run_idle(context) is False
    assert calls == ["deep_recovery", "parallel_links"]
    assert frontier.run_idle(context) is True   # a new pass: every task
    second.callback(True)       # it requested pages: the next pass is a whole one
    assert frontier.run_idle(context) is False
    assert calls == ["deep_recovery", "parallel_links", "deep_recovery", "parallel_links",
                     "deep_recovery", "parallel_links"]


def test_every_request_goes_through_the_judge(crawler):
    frontier = CrawlContext.from_crawler(crawler).frontier
    frontier.schedule(Request("http://a.org/w"))   # (no judge: as it is)
    frontier.judge = lambda r: r.replace(dont_filter=True)
    frontier.schedule(Request("http://a.org/x"))
    frontier.schedule(Request("http://a.org/y"))
    assert [r.dont_filter for r in crawler.engine.crawled] == [False, True, True]


def test_a_crawler_without_a_crawl_context_has_a_frontier_of_its_own():
    crawler = get_crawler()
    crawler.engine = Engine()
    frontier = CrawlContext.frontier_of(crawler)
    assert isinstance(frontier, Frontier)
    frontier.schedule(Request("http://b.org/"))
    assert len(crawler.engine.crawled) == 1


class Turn:
    """An idle turn whose crawl's last pass (another worker's) found nothing to do."""

    def __init__(self):
        self.own_settled = False
        self.held = False

    def take(self):
        self.held = True
        return True

    def settled(self, own=False):
        return self.own_settled if own else True

    def release(self, settled=None):
        self.held = False
        if settled:
            self.own_settled = True


def test_a_worker_keeping_requests_of_its_own_runs_its_pass_before_it_closes(crawler):
    """Where several workers crawl one site, another worker's pass that found nothing
    does not close a worker whose rules keep links only its own pass releases."""
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    frontier.crawl_dry, frontier.idle_turn = (lambda: True), Turn()
    kept = ["http://a.org/kept"]
    frontier.add_own_keeps(lambda: bool(kept))
    passes, for_good = [], set()

    def release():
        released = [url for url in kept if url not in for_good]
        passes.append(released)
        for url in released:
            frontier.schedule(Request(url))
            kept.remove(url)
        return bool(released)

    context.add_idle_task("held_links", release)
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()
    assert passes == [["http://a.org/kept"]]
    frontier._response_received()  # the released link was answered
    frontier.spider_idle()        # nothing kept any more: settled, it closes
    assert len(passes) == 1
    kept.append("http://a.org/kept-for-good")
    for_good.add(kept[-1])
    frontier.idle_turn.own_settled = False
    frontier.spider_idle()        # its pass releases nothing (a rule keeps it for good)...
    frontier.spider_idle()        # ...and it does not run again: it closes
    assert passes == [["http://a.org/kept"], []]


# ---- the rule that ends the idle phase ---------------------------------------------------

def test_a_task_whose_requests_bring_nothing_is_stopped_and_the_crawl_can_close(crawler,
                                                                               caplog):
    """A task that says "more" every pass (its requests dropped or held: no response
    comes) is stopped once a pass changed nothing; the pass after lets the spider close."""
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    calls = []

    def release():
        calls.append("held_links")
        return True       # says "more" whatever happens

    context.add_idle_task("held_links", release)
    caplog.set_level("INFO")
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()
    frontier.spider_idle()     # nothing grew since the last pass: stopped, the spider closes
    assert calls == ["held_links"]
    stats = crawler.stats.get_stats()
    assert stats["bitext/idle/stopped/held_links"] == 1
    assert stats["bitext/idle/ended_by_rule"] == 1
    assert stats["bitext/idle/passes"] == 2
    assert "Idle work ends" in caplog.text


def test_responses_keep_a_task_running_and_a_stopped_task_runs_again_after_them(crawler):
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    calls = []

    def recovery():
        calls.append(1)
        return True

    context.add_idle_task("deep_recovery", recovery)
    for _ in range(3):   # each pass's requests were answered: progress
        with pytest.raises(DontCloseSpider):
            frontier.spider_idle()
        frontier._response_received()
    assert len(calls) == 3
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()      # the last response came after the third pass
    frontier.spider_idle()          # the fourth brought none: stopped
    assert len(calls) == 4
    context.state.answer("http://a.org/late")   # another worker's answer, synced
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()      # progress again: the task runs again
    assert len(calls) == 5


def test_a_stopped_task_lets_a_task_waiting_for_an_idle_engine_run(crawler):
    """The task that waits for an idle engine runs in the pass where the one before it
    is stopped, and the crawl closes only once it too has nothing to show."""
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    engine = crawler.engine
    ran = []
    decided = []

    def release():     # its request reaches the queue and is then held: never answered
        ran.append("held_links")
        frontier.schedule(Request(f"http://a.org/held{len(ran)}"))
        return True

    def links():
        ran.append("parallel_links")
        if len(decided) < 2:
            decided.append(1)       # a pair aligned: decided for good
            return True
        return False

    context.add_idle_task("held_links", release)
    context.add_idle_task("parallel_links", links, when_idle=True,
                          progress=lambda: len(decided))
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()
    assert ran == ["held_links"]       # the engine is busy: parallel links wait
    engine.idle = True                 # the request was held before download
    with pytest.raises(DontCloseSpider):
        frontier.spider_idle()         # held links stopped; parallel links run
    assert ran == ["held_links", "parallel_links"]
    closed_after = None
    for n in range(10):
        engine.idle = True             # held again before download
        try:
            frontier.spider_idle()
        except DontCloseSpider:
            continue
        closed_after = n
        break
    # held links ran again after each pair decided (progress), and were stopped again;
    # parallel links ran until they decided nothing, then the spider closed
    assert closed_after == 3
    assert ran[2:] == ["held_links", "parallel_links", "held_links", "parallel_links"]
    assert crawler.stats.get_value("bitext/idle/stopped/held_links") == 3


def test_a_request_the_dupefilter_drops_is_not_counted_as_enqueued(crawler):
    frontier = CrawlContext.from_crawler(crawler).frontier
    engine = crawler.engine

    def crawl(request):
        engine.crawled.append(request)
        if request.url.endswith("seen"):
            crawler.signals.send_catch_log(signal=signals.request_dropped, request=request)

    engine.crawl = crawl
    assert frontier.schedule(Request("http://a.org/new")) is True
    assert frontier.schedule(Request("http://a.org/seen")) is False
    assert frontier.enqueued == 1


def test_a_task_that_is_not_stoppable_is_left_be(crawler):
    context = CrawlContext.from_crawler(crawler)
    frontier = context.frontier
    rounds = [True, True, False]
    context.add_idle_task("expand_rounds", lambda: rounds.pop(0), stoppable=False)
    for _ in range(2):
        with pytest.raises(DontCloseSpider):
            frontier.spider_idle()
    frontier.spider_idle()
    assert rounds == [] and "bitext/idle/ended_by_rule" not in crawler.stats.get_stats()


def test_idle_passes_end_whatever_the_tasks_say():
    """However the tasks answer, the passes without progress end within one pass per
    task more than there are tasks."""
    passes = IdlePasses()
    tasks = ["a", "b", "c"]
    for n in range(len(tasks) + 2):
        passes.start((7,))
        running = [t for t in tasks if passes.runs(t)]
        for t in running[:1]:     # one task at a time gets its turn, and claims
            passes.claim(t)
        if not running:
            break
    assert n == len(tasks) and passes.stopped == set(tasks)
    assert passes.ended_by_rule() and not passes.ended_by_rule()
    passes.start((8,))           # progress: every task runs again
    assert all(passes.runs(t) for t in tasks)
