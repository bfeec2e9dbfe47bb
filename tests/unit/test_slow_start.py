"""The local profile's scheduler: a crawl's first requests go out a few at a time
(scheduler/slow_start.py)."""

from __future__ import annotations

from scrapy import Request, Spider, signals
from scrapy.http import Response
from scrapy.utils.test import get_crawler

from bitextcrawl.scheduler.slow_start import SlowStartScheduler


def open_scheduler(**settings):
    crawler = get_crawler(Spider, {"CONCURRENT_REQUESTS_PER_DOMAIN": 4, **settings})
    active: set = set()
    downloader = type("Downloader", (), {"active": active, "slots": {},
                                          "get_slot_key": lambda self, r: "example.org"})()
    crawler.engine = type("Engine", (), {"downloader": downloader})()
    scheduler = SlowStartScheduler.from_crawler(crawler)
    scheduler.open(Spider("s"))
    for i in range(10):
        scheduler.enqueue_request(Request(f"http://example.org/p{i}.html", dont_filter=True))
    return crawler, scheduler, active


def answer(crawler, n: int = 1) -> None:
    for _ in range(n):
        request = Request("http://example.org/")
        crawler.signals.send_catch_log(signals.response_received, request=request,
                                       response=Response(request.url), spider=None)


def take(scheduler, active) -> int:
    """Requests the scheduler gives until it holds back."""
    n = 0
    while (request := scheduler.next_request()) is not None:
        active.add(request)
        n += 1
    return n


def test_one_request_more_in_flight_than_responses_until_the_sites_cap():
    crawler, scheduler, active = open_scheduler()
    assert take(scheduler, active) == 1          # the start page alone
    active.pop()
    answer(crawler)
    assert take(scheduler, active) == 2          # one answer in: two in flight
    answer(crawler)                               # (nothing freed: a request answered
    assert take(scheduler, active) == 1          # here stands for one)
    answer(crawler)                               # one more in flight would be the site's
    assert take(scheduler, active) == 6          # cap: the rest of the queue, unheld
    assert crawler.stats.get_value("bitext/slow_start/responses") == 3
    assert crawler.stats.get_value("bitext/slow_start/waits") >= 3


def test_off_the_scheduler_is_scrapys():
    crawler, scheduler, active = open_scheduler(BITEXT_SLOW_START_ENABLED=False)
    assert take(scheduler, active) == 10
