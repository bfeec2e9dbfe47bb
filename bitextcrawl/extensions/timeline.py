"""The crawl over time, for the report: a few numbers every few seconds, in the stats.

``bitext/timeline`` holds ``[seconds, responses, pages stored, URL pairs known]`` points
(the last from the online URL-pattern learner, ``bitext/patterns/pairs``). At most
``MAX_POINTS``: when full, every other point is dropped and the interval doubles, so a
crawl of any length costs a constant few hundred numbers.
"""

from __future__ import annotations

import time

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

MAX_POINTS = 120
STAT = "bitext/timeline"
START_STAT = "bitext/timeline/start"   # time.time() at spider open


def snapshot(stats) -> list:
    """One point from the crawl's stats now."""
    get = stats.get_value
    return [round(time.time() - get(START_STAT, time.time()), 1),
            get("downloader/response_count", 0),
            get("bitext/pages/stored", 0), get("bitext/patterns/pairs", 0)]


def add_point(points: list, point: list, max_points: int = MAX_POINTS) -> bool:
    """Append ``point``; True when the list was thinned (halved) to make room."""
    if points and points[-1][1:] == point[1:]:
        return False  # nothing moved: no new point
    points.append(point)
    if len(points) > max_points:
        del points[1:-1:2]
        return True
    return False


class CrawlTimeline:
    def __init__(self, crawler, interval: float):
        self.crawler = crawler
        self.interval = interval
        self.points: list = []
        self.loop = None

    @classmethod
    def from_crawler(cls, crawler):
        interval = crawler.settings.getfloat("BITEXT_TIMELINE_INTERVAL", 1.0)
        if interval <= 0:
            raise NotConfigured
        ext = cls(crawler, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider=None):
        self.crawler.stats.set_value(START_STAT, time.time())
        self.crawler.stats.set_value(STAT, self.points)
        self.tick()
        self._start(self.interval)

    def _start(self, interval: float):
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        self.loop = task.LoopingCall(self.tick)
        self.loop.start(interval, now=False)

    def tick(self):
        if add_point(self.points, snapshot(self.crawler.stats)):
            self.interval *= 2   # halved resolution: sample half as often
            self._start(self.interval)
        self.crawler.stats.set_value(STAT, self.points)

    def spider_closed(self, spider=None, reason=None):
        if self.loop is not None and self.loop.running:
            self.loop.stop()
