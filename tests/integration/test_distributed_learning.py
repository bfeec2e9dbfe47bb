"""Workers of a distributed crawl learn together: what one learns, the others use. A real
``redis-server`` on loopback (skips where it is not installed).

* Two ``scrapy crawl bitext`` workers, one after the other, on a small loopback site
  whose old URLs (``/old/pN.html``) redirect to ``/en/pN.html``: the first learns the
  redirect rule (three 301s) and stops with most links still in the shared queue; the
  second, started afterwards, rewrites every one of them with the first one's rule and
  is answered no 301 at all. A worker that learned from its own responses only would
  pay three 301s again before it knew the rule.
* Two workers' focus middlewares in one process, each with the crawl state on the same
  Redis: a link held at download by one (it has passed the shared dupefilter) is held by
  the other as well, which releases it; the first one's copy is refused, so the page is
  requested once, and not lost when the worker that held it leaves.
"""

from __future__ import annotations

import re

import pytest

from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.demo.site_model import Resource
from bitextcrawl.focus.marks import carrying, marks
from tests.conftest import PROJECT_ROOT, crawl_command, redis_server

pytestmark = pytest.mark.integration

SECTIONS = 6   # /more/s1.html .. /more/s6.html, a chain; each links 4 old URLs
EN = ("The city council approved the new budget for public libraries and parks this week. "
      "Residents will see longer opening hours and more books in every district. Article {n} "
      "explains how the money will be spent over the next three years, and who decides.")
FR = ("Le conseil municipal a approuvé cette semaine le nouveau budget des bibliothèques et "
      "des parcs. Les habitants verront des horaires plus longs et davantage de livres dans "
      "chaque quartier. L'article {n} explique comment l'argent sera dépensé.")
HTML = {"Content-Type": "text/html; charset=utf-8"}
N = 4 * (SECTIONS + 1)   # old URLs


class MovedSite:
    """``/en/index.html`` links ``/old/p1.html`` .. ``/old/p4.html`` and the first of a
    chain of sections (``/more/sK.html``), each linking four more old URLs and the next
    section. An old URL ``/old/pN.html`` is a 301 to ``/en/pN.html``, whose page switches
    to ``/fr/pN.html`` (and back)."""

    def __init__(self, port: int):
        self.start_url = f"http://127.0.0.1:{port}/en/index.html"

    def lookup(self, host: str, path: str):
        m = re.fullmatch(r"/(old|en|fr)/p(\d+)\.html", path)
        if path == "/en/index.html" or path.startswith("/more/"):
            k = 0 if path == "/en/index.html" else int(re.sub(r"\D", "", path) or 0)
            if not 0 <= k <= SECTIONS:
                return None
            links = "".join(f'<li><a href="/old/p{n}.html">Article {n}</a></li>'
                            for n in range(4 * k + 1, 4 * k + 5))
            more = f'<a href="/more/s{k + 1}.html">More</a>' if k < SECTIONS else ""
            return self._page("en", EN.format(n=100 + k), f"<ul>{links}</ul>{more}")
        if m is None or not 1 <= int(m.group(2)) <= N:
            return None
        section, n = m.group(1), int(m.group(2))
        if section == "old":
            return Resource(301, {"Location": f"/en/p{n}.html", **HTML}, b"")
        other, name = ("fr", "Français") if section == "en" else ("en", "English")
        text = (EN if section == "en" else FR).format(n=n)
        return self._page(section, text,
                          f'<a hreflang="{other}" href="/{other}/p{n}.html">{name}</a>')

    @staticmethod
    def _page(lang: str, text: str, links: str) -> Resource:
        body = (f'<html lang="{lang}"><head><title>{text[:30]}</title></head><body>'
                f"<nav>{links}</nav><p>{text}</p><p>{text}</p></body></html>")
        return Resource(200, dict(HTML), body.encode("utf-8"))


def run_worker(site, out, redis_url: str, log_path, settings: dict, timeout: float = 60):
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "SCRAPY_PROJECT": "distributed",
           "REDIS_URL": redis_url}
    cmd = crawl_command(site.start_url, out, settings={"STATS_DUMP": "True", **settings})
    with log_path.open("w") as log:
        proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=log,
                                env=env)
        try:
            proc.wait(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()   # a worker this test started
                proc.wait()
    return proc.returncode, log_path.read_text()


def old_hits(server) -> int:
    return sum(n for (_, path), n in server.hits.items() if path.startswith("/old/"))


def test_a_redirect_rule_learned_by_one_worker_is_used_by_the_next(tmp_path):
    port = free_port()
    site = MovedSite(port)
    out = tmp_path / "out"
    with redis_server(tmp_path) as redis_url, serve_site(site, port) as server:
        # the first worker: one request at a time, gone after 11 responses
        code, log = run_worker(site, out, redis_url, tmp_path / "first.log", {
            "CLOSESPIDER_PAGECOUNT": "11", "CONCURRENT_REQUESTS": "1",
            "BITEXT_CLOSING_SHARED_ENABLED": "False"})
        # (stopped by CLOSESPIDER_PAGECOUNT with a request in flight, where Twisted may
        # log an AlreadyCalledError of the cancelled download on a loaded machine)
        assert code == 0, log[-3000:]
        learned = old_hits(server)
        assert learned >= 3, log[-3000:]          # the rule takes three 301s to learn
        assert "are rewritten before they are requested" in log
        code, log = run_worker(site, out, redis_url, tmp_path / "second.log", {})
        assert code == 0, log[-3000:]
        assert "Closing pipeline:" in log          # the last worker closed the crawl
        rewritten = re.search(r"'bitext/redirects/rewritten': (\d+)", log)
        assert rewritten and int(rewritten.group(1)) >= 8, log[-3000:]
        assert old_hits(server) == learned, "the second worker was answered 301s"
        assert "downloader/response_status_count/301" not in log
        pages = {path for (_, path) in server.hits}
        assert {f"/en/p{n}.html" for n in range(1, N + 1)} <= pages


# ---- held links, in one process -----------------------------------------------------------

def two_workers(tmp_path, redis_url: str):
    """Two crawlers of one crawl (same output dir, same Redis), each with its focus and
    downloader-side middlewares and its crawl state backed by the Redis."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from bitextcrawl.context import CrawlContext
    from bitextcrawl.middlewares.focus import FocusMiddleware
    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    from bitextcrawl.spiders.bitext import BitextSpider
    from bitextcrawl.store.redis_state import RedisStateBacking

    workers = []
    for name in ("w1", "w2"):
        crawler = get_crawler(BitextSpider, {
            "BITEXT_OUTPUT_DIR": str(tmp_path / "out"), "REDIS_URL": redis_url,
            "BITEXT_PAGE_STORE": "bitextcrawl.store.redis.RedisPageStore",
            "BITEXT_PATTERN_DB": str(tmp_path / "db.json")})
        crawler.stats = MemoryStatsCollector(crawler)
        crawler.spider = BitextSpider.from_crawler(crawler, start_url="http://h.test/cn/",
                                                   langs="en,zh")
        focus, downloader = FocusMiddleware(crawler), HeldLinksMiddleware(crawler)
        context = CrawlContext.from_crawler(crawler)
        context.state.backing = RedisStateBacking(context.store, name)
        scheduled: list = []
        # the frontier schedules into an engine that keeps the requests
        crawler.engine = type("Engine", (), {"crawl": staticmethod(scheduled.append)})()
        workers.append((crawler, focus, downloader, context, scheduled))
    return workers


def test_a_link_held_by_one_worker_is_released_by_the_other_once(tmp_path):
    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import HtmlResponse

    from bitextcrawl.pages.record import PageRecord

    H = "http://h.test"

    def store(worker, page):
        """As the worker's spider and pipelines do: stored, learned once by the crawl
        state, seen by the focus."""
        worker[3].store.add(page)
        worker[3].state.learn_page(page)
        worker[1].get_processed_item(page, None)

    with redis_server(tmp_path) as redis_url:
        w1, w2 = two_workers(tmp_path, redis_url)
        (c1, f1, d1, x1, s1), (_, f2, d2, x2, s2) = w1, w2
        # worker 1 stores a one-way site's pages (Chinese pages switch into English,
        # English pages link nowhere): links between English pages are held
        for i in range(6):
            store(w1, PageRecord(url=f"{H}/cn/p{i}.html", lang="zh", links=[
                {"url": f"{H}/en/p{i}.html", "text": "english", "hreflang": None}]))
        for i in range(10):
            store(w1, PageRecord(url=f"{H}/en/q{i}.html", lang="en"))
        page = PageRecord(url=f"{H}/en/q1.html", lang="en")
        response = HtmlResponse(page.url, body=b"<html></html>", request=Request(
            page.url, meta={"bitext_page": page, "bitext_discovered_by": "link"}))
        link = Request(f"{H}/en/y.html",
                       meta={"bitext_link": {"url": f"{H}/en/y.html", "text": "",
                                             "hreflang": None}})
        assert f1.get_processed_request(link, response) is None   # held at link time
        # a queued English request reaches worker 1's downloader: held there (it has
        # passed the shared dupefilter: no other worker could fetch it by itself)
        with pytest.raises(IgnoreRequest):
            d1.process_request(Request(f"{H}/en/x.html", meta=carrying(chain="en")))
        held = {"en": [f"{H}/en/y.html", f"{H}/en/x.html"]}
        assert f1.held_links() == held
        # worker 2 learns it all from Redis: the pages (the site is one-way to it too)
        # and the held links
        assert x2.state.sync() >= 18
        assert f2.pages_by_lang["en"] == 10 and f2.pages_by_lang["zh"] == 6
        assert f2.holding.should_hold("en")
        assert f2.held_links() == held
        # English pages that switch into Chinese reach worker 2: the site is two-way
        # after all, and worker 2 releases the held links (worker 1 has not looked yet)
        for i in range(10, 12):
            store(w2, PageRecord(url=f"{H}/en/q{i}.html", lang="en", links=[
                {"url": f"{H}/cn/q{i}.html", "text": "中文", "hreflang": None}]))
        assert not f2.holding.should_hold("en")
        assert f2.release_held()
        released = {r.url: r for r in s2}
        assert set(released) == set(held["en"])
        copy = released[f"{H}/en/x.html"]   # (past the shared dupefilter: claimed)
        assert copy.dont_filter and marks(copy.meta).released
        assert d2.process_request(copy) is None             # worker 2 requests it
        # worker 1 looks: two-way for it too; its own copy of the link held at download
        # is refused (worker 2 requested it), so the page is requested once
        x1.state.sync()
        assert not f1.holding.should_hold("en")
        assert f1.release_held()
        mine = {r.url: r for r in s1}
        with pytest.raises(IgnoreRequest):
            d1.process_request(mine[f"{H}/en/x.html"])
        assert c1.stats.get_value("bitext/focus/shared/requested_elsewhere") == 1
        for context in (x1, x2):
            context.close()


def test_a_switch_target_held_by_a_worker_that_never_saw_the_switch_goes_out(tmp_path):
    """Worker 1 holds a queued English request at download (English links are held);
    worker 2 has seen a Chinese page switch to that URL: a counterpart, which a single
    crawl never holds. Worker 2 learns of the held request and sends it, once."""
    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import HtmlResponse

    from bitextcrawl.pages.record import PageRecord

    H = "http://h.test"
    with redis_server(tmp_path) as redis_url:
        w1, w2 = two_workers(tmp_path, redis_url)
        (_, f1, d1, x1, _), (_, f2, d2, x2, s2) = w1, w2
        for i in range(6):
            page = PageRecord(url=f"{H}/cn/p{i}.html", lang="zh", links=[
                {"url": f"{H}/en/p{i}.html", "text": "english", "hreflang": None}])
            x1.store.add(page)
            x1.state.learn_page(page)   # (as worker 1's spider does)
            f1.get_processed_item(page, None)
        for i in range(10):
            page = PageRecord(url=f"{H}/en/q{i}.html", lang="en")
            x1.store.add(page)
            x1.state.learn_page(page)   # (as worker 1's spider does)
            f1.get_processed_item(page, None)
        f1.holding.update("en")
        assert "en" in f1.holding.queue.holding
        # worker 2 judges a Chinese page's switch to /en/z.html (the dupefilter, which
        # had seen worker 1's ordinary link to it, drops the switch's own request)
        zh = PageRecord(url=f"{H}/cn/z.html", lang="zh")
        response = HtmlResponse(zh.url, body=b"<html></html>", request=Request(
            zh.url, meta={"bitext_page": zh, "bitext_discovered_by": "link"}))
        switch = Request(f"{H}/en/z.html", meta={"bitext_link": {
            "url": f"{H}/en/z.html", "text": "English", "hreflang": "en"}})
        assert f2.get_processed_request(switch, response) is not None
        # worker 1 has not looked yet: it holds its ordinary link's request at download
        with pytest.raises(IgnoreRequest):
            d1.process_request(Request(f"{H}/en/z.html", meta=carrying(chain="en")))
        assert f"{H}/en/z.html" in f1.held_links()["en"]
        x2.state.sync()                  # worker 2 learns of it: a switch target, sent
        (released,) = [r for r in s2 if r.url == f"{H}/en/z.html"]
        assert d2.process_request(released) is None
        x1.state.sync()                  # worker 1 learns of the switch: held no more
        assert f"{H}/en/z.html" not in f1.held_links().get("en", [])
        for context in (x1, x2):
            context.close()
