"""Crash-safe resume of JOBDIR crawls: a journal of the requests not yet done.

With ``JOBDIR``, Scrapy appends each scheduled request's fingerprint to ``requests.seen``
(a buffered file) as the crawl goes, but writes the index of its disk queue
(``active.json`` and each queue's ``info.json``) only when the spider closes. A crawl killed with SIGKILL (or by
the OOM killer, or a power cut) comes back with its requests *seen* and no usable queue:
everything that was waiting, and everything taken from the queue but not finished, is
lost, and the restarted crawl ends early. (Worse, a queue folder left without its index
makes the new queue read stale entries.)

:class:`FrontierJournal` keeps, in ``JOBDIR/frontier.sqlite``, every request the
scheduler accepted and the engine has not finished with. A row is written when the
request is accepted (before the scheduler sees it; SQLite in WAL mode, so the write
survives the process) and deleted when the engine is done with the request: downloaded,
its callback's items through the pipelines and the requests it yielded accepted — that
is, once it has been in the downloader and is neither there nor in the scraper any more
(checked whenever a request reaches the downloader, every second, and at idle and close).
The few requests finished since the last check before a crash are simply done again.

Scrapy's ``requests.seen`` is buffered: the journal flushes it before it forgets finished
requests, so that they stay *seen* after a crash and are not downloaded again.

When a crawl starts and the journal says its last process did not close (state
``running``), the stale disk queue is moved aside (``requests.queue.stale``) and every
journalled request is scheduled again, first through the dupefilter (which re-records
fingerprints lost from the end of ``requests.seen``) and, when filtered, with
``dont_filter=True``. Pages already stored are dropped as duplicate URLs by the store
pipeline; their links go through the dupefilter as usual, so links that were not yet
scheduled at the crash are not lost. After a clean stop (Ctrl-C, SIGTERM) Scrapy's own
queue is complete and nothing is replayed; after a finished crawl the journal is emptied.
With Scrapy's own RobotsTxtMiddleware (see ``robotstxt.py`` here for its bug with many
requests waiting for one robots.txt), one replayed request per site goes first and the
others once a request of that site is past robots.txt.

Settings: ``JOBDIR`` (required), ``BITEXT_RESUME_JOURNAL_ENABLED`` (default True). Only with a
scheduler of Scrapy's own kind (the distributed profile keeps its frontier in Redis).
Stats: ``bitext/resume/rescheduled``, ``bitext/resume/unclean_stop``,
``bitext/resume/pending`` (rows left at close), ``bitext/resume/unserializable``.
"""

from __future__ import annotations

import logging
import os
import pickle
import shutil
import sqlite3
from collections import Counter, defaultdict

from scrapy import signals
from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.job import job_dir
from scrapy.utils.misc import load_object
from scrapy.utils.request import request_from_dict

from bitextcrawl import config
from bitextcrawl.context import CrawlContext
from bitextcrawl.signals import request_discarded

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    fp BLOB PRIMARY KEY,
    url TEXT NOT NULL,
    request BLOB NOT NULL,
    copies INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Journal:
    """The SQLite file: pending requests by fingerprint (with a count of live copies:
    a retry shares its original's fingerprint) and the state of the last process."""

    def __init__(self, path: str):
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # durable across a process crash
        self.db.executescript(SCHEMA)

    def state(self) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
        return row[0] if row else None

    def set_state(self, state: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('state', ?)", (state,))

    def add(self, fp: bytes, url: str, blob: bytes) -> None:
        self.db.execute("INSERT INTO pending (fp, url, request) VALUES (?, ?, ?) "
                        "ON CONFLICT (fp) DO UPDATE SET copies = copies + 1", (fp, url, blob))

    def release(self, fp: bytes, copies: int = 1) -> None:
        with self.db:
            self.db.execute("UPDATE pending SET copies = copies - ? WHERE fp = ?", (copies, fp))
            self.db.execute("DELETE FROM pending WHERE fp = ? AND copies <= 0", (fp,))

    def take_all(self) -> list[bytes]:
        """Every pending request (pickled), with its count of live copies set to 0: they
        count again as they are scheduled again."""
        with self.db:
            blobs = [b for (b,) in self.db.execute("SELECT request FROM pending ORDER BY rowid")]
            self.db.execute("UPDATE pending SET copies = 0")
        return blobs

    def clear(self) -> None:
        self.db.execute("DELETE FROM pending")

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM pending").fetchone()[0]

    def close(self) -> None:
        self.db.close()


def stock_robots_middleware(settings) -> bool:
    """True if robots.txt is obeyed by Scrapy's own RobotsTxtMiddleware (2.19's, with the
    waiters bug), not by bitextcrawl's fixed one."""
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return False
    mws = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    return mws.get("scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware") is not None


class FrontierJournal:
    filename = "frontier.sqlite"
    settle_interval = 1.0  # seconds between checks for finished requests

    def __init__(self, crawler, jobdir: str):
        self.crawler = crawler
        self.stats = crawler.stats
        self.fingerprint = crawler.request_fingerprinter.fingerprint
        os.makedirs(jobdir, exist_ok=True)
        self.journal = Journal(os.path.join(jobdir, self.filename))
        # Extensions are built before the engine opens the scheduler: the stale queue can
        # still be moved out of its way.
        self.unclean = self.journal.state() == "running"
        if self.unclean:
            self._discard_stale_queue(jobdir)
        self.journal.set_state("running")
        self.seen: set[bytes] = set()      # fingerprints the dupefilter knows (this process)
        self.started: Counter = Counter()  # fingerprint -> copies that reached the downloader
        self._last = None                  # (request, fingerprint) being scheduled
        self._dropped = None               # the last request the scheduler refused
        self.held: dict[str, list] = {}    # site (netloc) -> replayed requests held back
        self._loop = None
        cs = crawler.signals
        cs.connect(self.spider_opened, signal=signals.spider_opened)
        cs.connect(self.spider_idle, signal=signals.spider_idle)
        cs.connect(self.spider_closed, signal=signals.spider_closed)
        cs.connect(self.request_scheduled, signal=signals.request_scheduled)
        cs.connect(self.request_dropped, signal=signals.request_dropped)
        cs.connect(self.request_reached_downloader, signal=signals.request_reached_downloader)
        cs.connect(self.request_discarded, signal=request_discarded)

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        jobdir = job_dir(settings)
        if not jobdir or not config.getbool(settings, "BITEXT_RESUME_JOURNAL_ENABLED"):
            raise NotConfigured
        if not issubclass(load_object(settings["SCHEDULER"]), Scheduler):
            raise NotConfigured("the frontier journal backs Scrapy's own JOBDIR scheduler")
        return cls(crawler, jobdir)

    @staticmethod
    def _discard_stale_queue(jobdir: str) -> None:
        queue = os.path.join(jobdir, "requests.queue")
        if os.path.isdir(queue):
            stale = queue + ".stale"
            shutil.rmtree(stale, ignore_errors=True)
            os.replace(queue, stale)

    # -- recording ---------------------------------------------------------------------

    def request_scheduled(self, request, spider):
        if self._last is not None:  # the previous request was not dropped: accepted
            self.seen.add(self._last[1])
            self._last = None
        fp = self.fingerprint(request)
        if not request.dont_filter and fp in self.seen:
            return  # the dupefilter will drop it: nothing to record
        try:
            blob = pickle.dumps(request.to_dict(spider=spider), protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError):
            # Not a spider method as callback, or meta that does not pickle: Scrapy keeps
            # such a request in memory only, and so it cannot outlive the process either.
            self.stats.inc_value("bitext/resume/unserializable")
            return
        self.journal.add(fp, request.url, blob)
        self._last = (request, fp)

    def request_dropped(self, request, spider):
        self._dropped = request
        if self._last is not None and self._last[0] is request:
            self.journal.release(self._last[1])
            self.seen.add(self._last[1])
        self._last = None

    def request_reached_downloader(self, request, spider):
        if self.held:  # past robots.txt: this site's rules are known (or there are none)
            self.release(urlparse_cached(request).netloc)
        self.settle()  # a download slot came free: usually because a request is done
        fp = self.fingerprint(request)
        self.seen.add(fp)
        self.started[fp] += 1

    def request_discarded(self, request):
        """A downloader middleware dropped it for good: done, like a downloaded one."""
        self.started[self.fingerprint(request)] += 1

    def settle(self, everything: bool = False) -> None:
        """Forget the requests the engine is done with (all of them, at close)."""
        if not self.started:
            return
        busy = set()
        if not everything:
            engine = self.crawler.engine
            requests = list(engine.downloader.active)
            slot = engine.scraper.slot
            if slot is not None:
                requests += list(slot.active) + [request for _, request, _ in slot.queue]
            busy = {self.fingerprint(r) for r in requests}
        done = [fp for fp in self.started if fp not in busy]
        if done:
            self.flush_dupefilter()  # a forgotten request must stay seen after a crash
        for fp in done:
            self.journal.release(fp, self.started.pop(fp))

    def flush_dupefilter(self) -> None:
        """Write out Scrapy's ``requests.seen``: it is buffered, and a crash loses its tail."""
        scheduler = getattr(self.crawler.engine, "scheduler", None)
        file = getattr(getattr(scheduler, "df", None), "file", None)
        if file is not None and not file.closed:
            file.flush()

    # -- lifecycle ---------------------------------------------------------------------

    def spider_opened(self, spider):
        if self.unclean:
            self.stats.set_value("bitext/resume/unclean_stop", 1)
            self.replay(spider)
        self._loop = create_looping_call(self.settle)
        self._loop.start(self.settle_interval, now=False)

    def replay(self, spider) -> None:
        blobs = self.journal.take_all()
        requests = [request_from_dict(pickle.loads(blob), spider=spider) for blob in blobs]
        if stock_robots_middleware(self.crawler.settings):
            # Scrapy 2.19's RobotsTxtMiddleware gives a site's rules only to the first
            # request waiting for its robots.txt; the others skip them (fixed by
            # bitextcrawl/middlewares/robotstxt.py). Without the fix, one request per site
            # goes first, the others once a request of that site is past robots.txt.
            by_site = defaultdict(list)
            for request in requests:
                by_site[urlparse_cached(request).netloc].append(request)
            self.held = {site: reqs[1:] for site, reqs in by_site.items() if len(reqs) > 1}
            requests = [reqs[0] for reqs in by_site.values()]
        self.reschedule(requests)
        self.stats.set_value("bitext/resume/rescheduled", len(blobs))
        logger.info("Resuming after an unclean stop: %d unfinished requests scheduled again "
                    "from %s", len(blobs), self.journal.path)

    def reschedule(self, requests) -> None:
        frontier = CrawlContext.frontier_of(self.crawler)
        for request in requests:
            self._dropped = None
            frontier.schedule(request)
            if self._dropped is request:  # seen: it was scheduled, never finished
                frontier.schedule(request.replace(dont_filter=True))

    def release(self, site: str | None = None) -> None:
        """Schedule the replayed requests held back for ``site`` (all sites if None)."""
        for key in [site] if site is not None else list(self.held):
            self.reschedule(self.held.pop(key, ()))

    def spider_idle(self, spider):
        self.release()  # a site whose first request was refused by robots.txt
        self.settle()

    def spider_closed(self, spider, reason):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self.settle(everything=True)  # the engine has finished every request it took
        if reason == "finished":
            self.journal.clear()
        self.stats.set_value("bitext/resume/pending", len(self.journal))
        self.journal.set_state(reason if reason == "finished" else "closed")
        self.journal.close()
