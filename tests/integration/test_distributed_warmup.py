"""The warm-up of a distributed crawl: its first responses come with at most one worker's
requests in flight across all workers; then every worker runs at full concurrency. A
real ``redis-server`` on loopback (skips where it is not installed).

Two ``scrapy crawl bitext`` workers, ``CONCURRENT_REQUESTS_PER_DOMAIN=3`` each, on a site
whose server answers each page after 0.2 s and counts the requests it is serving at
once: while the crawl has had fewer than ``BITEXT_DISTRIBUTED_WARMUP_RESPONSES``
responses, never more than 3 (two workers at full concurrency serve up to 6); after it,
more than 3 at some point. With the warm-up off (``BITEXT_DISTRIBUTED_WARMUP_RESPONSES=0``)
the first check fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time

import pytest

from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.demo.site_model import Resource
from tests.conftest import PROJECT_ROOT, crawl_command, redis_server

pytestmark = pytest.mark.integration

PAGES = 90        # English pages, each with its French translation
PER_WORKER = 3    # CONCURRENT_REQUESTS_PER_DOMAIN
WARMUP = 60       # BITEXT_DISTRIBUTED_WARMUP_RESPONSES
DELAY = 0.2       # seconds the server takes for a page
WORKERS = 2
HTML = {"Content-Type": "text/html; charset=utf-8"}
EN = ("The city council approved the new budget for public libraries and parks this week. "
      "Residents will see longer opening hours and more books in every district. Page {n}.")
FR = ("Le conseil municipal a approuvé cette semaine le nouveau budget des bibliothèques et "
      "des parcs. Les habitants verront des horaires plus longs. Page {n}.")


class SlowSite:
    """``/en/index.html`` links every English page; each page switches to its French
    translation and back. Every page takes ``DELAY`` seconds; ``starts`` records, for each
    page request, how many page requests were being served when it started and how many
    had been answered (robots.txt left out: it does not go through the shared queue)."""

    def __init__(self, port: int):
        self.start_url = f"http://127.0.0.1:{port}/en/index.html"
        self.lock = threading.Lock()
        self.serving = 0
        self.answered = 0
        self.starts: list[tuple[int, int]] = []   # (answered before, serving with it)
        self.paths: list[str] = []

    def lookup(self, host: str, path: str):
        if path == "/robots.txt":
            return None
        with self.lock:
            self.serving += 1
            self.starts.append((self.answered, self.serving))
            self.paths.append(path)
        try:
            time.sleep(DELAY)
            return self._page(path)
        finally:
            with self.lock:
                self.serving -= 1
                self.answered += 1

    def _page(self, path: str):
        if path == "/en/index.html":
            links = "".join(f'<li><a href="/en/p{n}.html">Page {n}</a></li>'
                            for n in range(1, PAGES + 1))
            return self._html("en", EN.format(n=0), f"<ul>{links}</ul>")
        m = re.fullmatch(r"/(en|fr)/p(\d+)\.html", path)
        if m is None or not 1 <= int(m.group(2)) <= PAGES:
            return None
        lang, n = m.group(1), int(m.group(2))
        other, name = ("fr", "Français") if lang == "en" else ("en", "English")
        return self._html(lang, (EN if lang == "en" else FR).format(n=n),
                          f'<a hreflang="{other}" href="/{other}/p{n}.html">{name}</a>')

    @staticmethod
    def _html(lang: str, text: str, links: str) -> Resource:
        body = (f'<html lang="{lang}"><head><title>{text[:30]}</title></head><body>'
                f"<nav>{links}</nav><p>{text}</p><p>{text}</p></body></html>")
        return Resource(200, dict(HTML), body.encode("utf-8"))


def crawl(tmp_path, warmup: int):
    """Two workers at once on a fresh site and Redis: the site and the workers' logs."""
    port = free_port()
    site = SlowSite(port)
    out = tmp_path / "out"
    settings = {"STATS_DUMP": "True", "BITEXT_ALIGN_ENABLED": "False",
                "CONCURRENT_REQUESTS_PER_DOMAIN": str(PER_WORKER),
                "BITEXT_DISTRIBUTED_WARMUP_RESPONSES": str(warmup)}
    logs = [tmp_path / f"worker-{i}.log" for i in range(WORKERS)]
    with redis_server(tmp_path) as redis_url, serve_site(site, port):
        env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "SCRAPY_PROJECT": "distributed",
               "REDIS_URL": redis_url}
        files = [path.open("w") for path in logs]
        procs = [subprocess.Popen(crawl_command(site.start_url, out, settings=settings),
                                  cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=fh,
                                  env=env) for fh in files]
        try:
            for proc in procs:
                proc.wait(timeout=120)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()   # a worker this test started
                    proc.wait()
            for fh in files:
                fh.close()
    texts = [path.read_text() for path in logs]
    for proc, text in zip(procs, texts):
        assert proc.returncode == 0, text[-3000:]
    return site, texts


def in_warmup(site) -> list[int]:
    """Page requests served at once, at each start while the crawl was warming up (the
    workers count robots.txt's answers too: one each, left out here)."""
    return [serving for answered, serving in site.starts if answered < WARMUP - WORKERS]


def test_the_warm_up_caps_the_requests_in_flight_of_all_workers(tmp_path):
    site, logs = crawl(tmp_path, WARMUP)
    pages = {"/en/index.html"} | {f"/{lang}/p{n}.html" for lang in ("en", "fr")
                                  for n in range(1, PAGES + 1)}
    assert pages <= set(site.paths) and len(site.paths) == len(set(site.paths))
    assert max(in_warmup(site)) <= PER_WORKER, site.starts[:WARMUP]
    # both workers took part in the warm-up, and it ended: after it, the crawl has both
    # workers' requests in flight
    served = [int(m.group(1)) for log in logs
              for m in re.finditer(r"'downloader/response_count': (\d+)", log)]
    assert len(served) == WORKERS and min(served) > 0, served
    assert max(serving for answered, serving in site.starts
               if answered >= WARMUP) > PER_WORKER
    for log in logs:
        assert "'bitext/distributed/warmup/over': 1" in log, log[-3000:]
        m = re.search(r"'bitext/distributed/warmup/max_in_flight': (\d+)", log)
        assert m is None or int(m.group(1)) <= PER_WORKER
    assert any("'bitext/distributed/warmup/waits'" in log for log in logs)


def test_one_worker_at_a_time_does_the_idle_work(tmp_path):
    """The idle turn (``scheduler/registry.py``): a worker holding it keeps the others out
    until it gives it up; a pass that found nothing marks the crawl settled until a
    request is queued; a dead worker's turn expires."""
    import redis

    from bitextcrawl.scheduler.registry import IdleTurn

    with redis_server(tmp_path) as redis_url:
        server = redis.Redis.from_url(redis_url)
        seq = "k:requests:seq"
        a, b = (IdleTurn(server, "k", seq, name, timeout=1.0) for name in ("a", "b"))
        assert a.take() and a.take()          # (taken again by its holder: renewed)
        assert not b.take()
        a.release(settled=False)               # a pass that queued requests
        assert not b.settled()
        assert b.take() and not a.take()
        b.release(settled=True)                # a pass that found nothing to do
        assert a.settled() and b.settled(own=True)
        assert not a.settled(own=True)         # (a's own pass has not run since)
        server.incr(seq)                       # a request queued since
        assert not a.settled() and not b.settled(own=True)
        assert a.take()                        # a dies holding the turn: it expires
        time.sleep(1.2)
        assert b.take()
