"""The frontier: the one place requests are scheduled; idle-time work as ordered tasks."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from bitextcrawl.context import CrawlContext
from bitextcrawl.extensions.frontier import Frontier
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
    context.add_idle_task("parallel_links", round_)
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


def test_guesses_go_through_the_guess_hooks(crawler):
    frontier = CrawlContext.from_crawler(crawler).frontier
    frontier.add_guess_hook(lambda r: r.replace(dont_filter=True))
    frontier.schedule(Request("http://a.org/x"), guess=True)
    frontier.schedule(Request("http://a.org/y"))
    assert [r.dont_filter for r in crawler.engine.crawled] == [True, False]


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
    frontier.spider_idle()        # nothing kept any more: settled, it closes
    assert len(passes) == 1
    kept.append("http://a.org/kept-for-good")
    for_good.add(kept[-1])
    frontier.idle_turn.own_settled = False
    frontier.spider_idle()        # its pass releases nothing (a rule keeps it for good)...
    frontier.spider_idle()        # ...and it does not run again: it closes
    assert passes == [["http://a.org/kept"], []]
