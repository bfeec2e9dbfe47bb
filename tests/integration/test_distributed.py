"""Distributed profile: `scrapy crawl bitext` workers sharing one site's frontier in a real Redis.

A real ``redis-server`` on loopback (skips where it is not installed), a generated site
served on loopback, two worker processes started with ``SCRAPY_PROJECT=distributed``:
every page must be downloaded exactly once, and the pages and pairs must equal those of
a single-process local crawl of the same site.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.store.redis import RedisPageStore, crawl_key
from tests.conftest import (
    PROJECT_ROOT,
    crawl_command,
    read_pages,
    read_pairs,
    redis_server,
    run_crawl,
)

pytestmark = pytest.mark.integration

# Hidden pages: only deep page recovery finds them, over the pages of both workers.
SPEC = SiteSpec(scheme="prefix", n_pairs=60, hidden_fraction=0.2, third_lang="de",
                n_third=6, seed=23)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def redis_settings(url: str):
    from scrapy.settings import Settings

    return Settings({"REDIS_URL": url})


def test_shared_queue_is_fifo_within_a_priority(redis_url):
    """Like a local crawl's queue (FifoMemoryQueue per priority): higher priority first,
    then the order of pushes — not the byte order of the pickled requests."""
    import redis
    from scrapy import Request, Spider

    from bitextcrawl.scheduler.redis import FifoPriorityQueue

    server = redis.Redis.from_url(redis_url)
    queue = FifoPriorityQueue(server, Spider("q"), "test-fifo:%(spider)s:requests")
    queue.clear()
    pushed = [Request(f"http://a.example/{name}", priority=priority) for name, priority in
              [("z-long-name-first.html", 0), ("a.html", 0), ("hi.html", 5),
               ("m" * 40 + ".html", 0), ("b.html", -3), ("hi-2.html", 5), ("c.html", 0)]]
    for request in pushed:
        queue.push(request)
    popped = [queue.pop().url.rsplit("/", 1)[1] for _ in pushed]
    assert popped == ["hi.html", "hi-2.html", "z-long-name-first.html", "a.html",
                      "m" * 40 + ".html", "c.html", "b.html"]
    assert queue.pop() is None
    queue.clear()
    assert not server.exists(queue.seq_key)

def test_redis_store_interface(redis_url):
    settings = redis_settings(redis_url)
    store = RedisPageStore.from_settings(settings, "output/a.example")
    other = RedisPageStore.from_settings(settings, "output/b.example")
    try:
        assert store.key == "bitext:output/a.example" == crawl_key(settings, "output/a.example")
        pages = [PageRecord(url=f"http://a.example/{lang}/{i}.html", lang=lang,
                            content_hash=f"h{i}", text=f"text {i}")
                 for i in range(3) for lang in ("en", "fr")]
        assert [store.add(p) for p in pages] == [True] * 6
        assert store.add(pages[0]) is False  # a URL is stored once
        assert len(store) == 6 and len(other) == 0  # keys are namespaced per output dir
        assert pages[1].url in store and "http://a.example/x" not in store
        assert store.has_content("h2") and not store.has_content("nope")
        assert store.urls_by_lang() == {
            "en": [f"http://a.example/en/{i}.html" for i in range(3)],
            "fr": [f"http://a.example/fr/{i}.html" for i in range(3)]}
        assert [p.url for p in store] == [p.url for p in pages]  # stored order
        assert [d["text"] for d in store.iter_dicts()][:2] == ["text 0", "text 0"]
        store.set_meta("recovery_tried", {"u": "fr"})
        assert store.get_meta("recovery_tried") == {"u": "fr"}
        assert other.get_meta("recovery_tried", {}) == {}
        reopened = RedisPageStore.from_settings(settings, "output/./a.example")
        assert len(reopened) == 6  # same crawl key: the output dir is normalised
        reopened.close()
    finally:
        store.clear()
        store.close()
        other.close()


def _read_in_worker(reader, urls):
    return reader(urls)


def test_redis_stores_html_reader_reads_in_another_process(redis_url):
    """What the bitext pool's workers read the pages with: pickled as the connection's
    plain settings and the pages' key, it connects in the worker."""
    from bitextcrawl.processes import ProcessPool

    store = RedisPageStore.from_settings(redis_settings(redis_url), "output/reader")
    try:
        page = PageRecord(url="http://r.example/en/1.html", lang="en", content_hash="h",
                          html="<p>Hello</p>", text="Hello")
        store.add(page)
        reader = store.html_reader()
        urls = [page.url, "http://r.example/missing"]
        with ProcessPool(1) as pool:
            got = pool.submit(_read_in_worker, reader, urls).result()
        assert got == reader(urls) == {page.url: "<p>Hello</p>"}
    finally:
        store.clear()
        store.close()


ADDER = textwrap.dedent("""
    import sys
    from scrapy.settings import Settings
    from bitextcrawl.pages.record import PageRecord
    from bitextcrawl.store.redis import RedisPageStore
    store = RedisPageStore.from_settings(Settings({"REDIS_URL": sys.argv[1]}), "output/race")
    sys.stdin.readline()  # start together
    won = sum(store.add(PageRecord(url=f"http://race.example/{i}", lang="en",
                                   content_hash=str(i))) for i in range(400))
    print(won)
""")


def test_redis_store_add_is_atomic_across_processes(redis_url):
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, redis_url], cwd=PROJECT_ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
             for _ in range(3)]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    won = [int(proc.communicate(timeout=60)[0]) for proc in procs]
    store = RedisPageStore.from_settings(redis_settings(redis_url), "output/race")
    try:
        urls = [p.url for p in store]
        assert sum(won) == 400 == len(store) == len(urls) == len(set(urls))
    finally:
        store.clear()
        store.close()


@pytest.fixture(scope="module")
def crawls(tmp_path_factory, redis_url):
    port = free_port()
    site = generate_site(SPEC, port)
    local_out = tmp_path_factory.mktemp("local")
    dist_out = tmp_path_factory.mktemp("distributed")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "SCRAPY_PROJECT": "distributed",
           "REDIS_URL": redis_url}
    with serve_site(site, port) as server:
        run_crawl(site.start_url, local_out)
        with server.httpd.hits_lock:
            server.hits.clear()
        workers = [subprocess.Popen(crawl_command(site.start_url, dist_out), cwd=PROJECT_ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, env=env)
                   for _ in range(2)]
        logs = []
        for worker in workers:
            try:
                logs.append(worker.communicate(timeout=300)[1])
            finally:
                if worker.poll() is None:
                    worker.kill()
        for worker, log in zip(workers, logs):
            assert worker.returncode == 0, log[-5000:]
        hits = dict(server.hits)
    return {"site": site, "local": local_out, "dist": dist_out, "hits": hits, "logs": logs,
            "redis_url": redis_url}


def test_every_page_downloaded_exactly_once(crawls):
    site = crawls["site"]
    hits = {k: v for k, v in crawls["hits"].items() if k[1] != "/robots.txt"}
    twice = sorted(k for k, v in hits.items() if v > 1)
    assert not twice, f"downloaded more than once: {twice[:5]}"
    start = site.start_url.split(str(site.port), 1)[1]
    assert hits[("demo.localhost", start)] == 1  # every worker's start() yields it
    stored = {p["url"] for p in read_pages(crawls["dist"])}
    downloaded = {f"http://{host}:{site.port}{path}" for host, path in hits}
    assert stored <= downloaded


def test_same_pages_and_pairs_as_a_local_crawl(crawls):
    local_pages = [p["url"] for p in read_pages(crawls["local"])]
    dist_pages = [p["url"] for p in read_pages(crawls["dist"])]
    assert len(dist_pages) == len(set(dist_pages))
    assert set(dist_pages) == set(local_pages)
    hidden = crawls["site"].hidden_urls & set(dist_pages)
    assert hidden, "deep page recovery found no hidden page"
    local_pairs, dist_pairs = read_pairs(crawls["local"]), read_pairs(crawls["dist"])
    assert local_pairs and dist_pairs == local_pairs


def test_workers_share_the_work_and_align_once(crawls):
    logs = crawls["logs"]
    assert all("joined" in log for log in logs)
    stored = [json.loads(log.split("'bitext/pages/stored': ", 1)[1].split(",", 1)[0])
              if "'bitext/pages/stored': " in log else 0 for log in logs]
    print("pages stored per worker:", stored)
    assert sum(stored) == len(read_pages(crawls["dist"]))
    aligned = [log for log in logs if "Closing pipeline:" in log]
    assert len(aligned) == 1, "the closing pipeline must run once, in the last worker"
    assert sum("left the alignment" in log or "last one to finish aligns" in log
               for log in logs) == 1
    warcs = sorted(p.name for p in crawls["dist"].glob("pages-*.warc.gz"))
    assert len(warcs) == 2, warcs  # one WARC file per worker
    # The registry is empty once every worker is gone; the frontier stays (SCHEDULER_PERSIST).
    store = RedisPageStore.from_settings(redis_settings(crawls["redis_url"]),
                                         str(crawls["dist"]))
    try:
        assert not store.server.exists(f"{store.key}:workers")
        assert store.server.zcard(f"{store.key}:requests") == 0
        assert store.server.scard(f"{store.key}:dupefilter") > 0
    finally:
        store.close()


def test_robots_txt_downloaded_once_and_obeyed_by_every_worker(crawls):
    """One crawl downloads a site's robots.txt once: the first worker to claim it does,
    the other parses the answer kept in the crawl state, and both obey it."""
    def stat(log: str, key: str) -> int:
        return int(log.split(f"'{key}': ", 1)[1].split(",", 1)[0].rstrip("}")) \
            if f"'{key}': " in log else 0

    logs = crawls["logs"]
    assert sum(stat(log, "robotstxt/request_count") for log in logs) == 1
    assert sum(stat(log, "bitext/robotstxt/shared") for log in logs) == 1
    site = crawls["site"]
    assert site.robots_disallowed
    fetched = {f"http://{host}:{site.port}{path}" for host, path in crawls["hits"]}
    assert not set(site.robots_disallowed) & fetched
