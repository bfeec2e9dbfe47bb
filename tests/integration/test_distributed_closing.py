"""The shared closing step of a distributed crawl (``store/redis_pool.py``): the bitext
stage's page pairs through a reliable Redis queue that every live worker drains.

A real ``redis-server`` on loopback. The queue alone: tasks run by the closer and by a
draining worker, a worker that takes a task and dies has it put back. Then two
``scrapy crawl bitext`` workers: the pairs of the bitext stage split between them, and
``pairs.jsonl``, ``bitext.tsv`` and ``bitext.tmx`` byte for byte those of a local crawl.
And a summaries site whose list of entries each language orders its own way, closed with
a drainer in another process: the pairs' known link pairs reach it with their tasks.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import threading
import time

import pytest

from bitextcrawl import outputs
from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.align import AlignConfig
from bitextcrawl.store.redis_pool import ClosingKeys, Heartbeat, RedisTaskPool, drain, run_one
from testkit.summaries_site import summaries_site
from tests.conftest import redis_server, run_crawl, run_workers

pytestmark = pytest.mark.integration

SPEC = SiteSpec(scheme="prefix", n_pairs=120, third_lang=None, seed=31)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def server(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushall()
    yield client
    client.close()


def square(x):
    time.sleep(0.01)
    return x * x


def test_tasks_are_shared_and_results_come_in_order(server):
    pool = RedisTaskPool(server, "t1", "closer", timeout=5)
    pool.reset()
    helped = {}
    helper = threading.Thread(target=lambda: helped.update(
        n=drain(server, "t1", "helper", timeout=5)))
    helper.start()
    with Heartbeat(server, pool.keys, pool.worker):
        deadline = time.time() + 10
        while pool.others() != ["helper"]:
            assert time.time() < deadline
            time.sleep(0.05)
        with pool.open(fallback=None) as executor:
            assert executor is pool
            assert executor.map(square, range(200)) == [x * x for x in range(200)]
    pool.finish()
    helper.join(timeout=10)
    assert not helper.is_alive()
    assert helped["n"] == pool.shares["helper"] > 0 and pool.shares["closer"] > 0
    assert sum(pool.shares.values()) == 200
    keys = ClosingKeys("t1")
    assert not server.exists(keys.todo, keys.tasks, keys.results)


def test_a_dead_workers_tasks_go_back_to_the_queue(server):
    pool = RedisTaskPool(server, "t2", "closer", timeout=1)
    pool.reset()
    keys = pool.keys
    server.hset(keys.alive, "dead", repr(time.time()))   # looks alive when tasks open
    futures = [pool.submit(square, x) for x in range(5)]
    # "dead" takes one task and is never heard of again
    taken = server.blmove(keys.todo, keys.processing("dead"), 1, "RIGHT", "LEFT")
    assert taken is not None
    with Heartbeat(server, keys, pool.worker):
        assert [f.result() for f in futures] == [x * x for x in range(5)]
    assert "dead" not in pool.shares and pool.shares["closer"] == 5
    assert not server.exists(keys.processing("dead"))
    assert not server.hexists(keys.alive, "dead")
    assert run_one(server, keys, "closer", 0, lambda fn, args: 1) is None
    pool.finish()


def test_a_task_that_raises_raises_in_the_closer(server):
    pool = RedisTaskPool(server, "t3", "closer", timeout=5)
    pool.reset()
    future = pool.submit(int, "not a number")
    with pytest.raises(ValueError):
        future.result()
    pool.finish()


def test_with_no_other_worker_the_local_pool_is_used(server):
    from contextlib import nullcontext

    pool = RedisTaskPool(server, "t4", "closer", timeout=5)
    pool.reset()
    with pool.open(nullcontext("local")) as executor:
        assert executor == "local"
    pool.finish()


def test_drain_stops_between_tasks_when_asked(server):
    pool = RedisTaskPool(server, "t6", "closer", timeout=30)
    pool.reset()
    server.set(pool.keys.state, "open")
    with Heartbeat(server, pool.keys, pool.worker):
        futures = [pool.submit(square, x) for x in range(3)]
        asked = time.monotonic() + 0.5
        start = time.monotonic()
        done = drain(server, "t6", "stopping", timeout=30,
                     stop=lambda: time.monotonic() > asked)
        assert time.monotonic() - start < 3 and done == 3
        assert [f.result() for f in futures] == [0, 1, 4]
    pool.finish()


def test_drain_leaves_when_no_closer_comes(server):
    start = time.monotonic()
    assert drain(server, "t5", "early", timeout=5, wait_for_closer=0.5) == 0
    assert time.monotonic() - start < 5


@pytest.fixture(scope="module")
def crawls(tmp_path_factory, redis_url):
    port = free_port()
    site = generate_site(SPEC, port)
    local_out = tmp_path_factory.mktemp("local")
    dist_out = tmp_path_factory.mktemp("distributed")
    with serve_site(site, port):
        run_crawl(site.start_url, local_out)
        results = run_workers(site.start_url, dist_out, redis_url, 2, dist_out)
    for code, log in results:
        assert code == 0, log[-5000:]
    logs = [log for _, log in results]
    return {"local": local_out, "dist": dist_out, "logs": logs}


def test_the_bitext_stage_is_shared_and_the_outputs_are_a_local_crawls(crawls):
    for name in ("pairs.jsonl", "bitext.tsv", "bitext.tmx"):
        local = (crawls["local"] / name).read_bytes()
        dist = (crawls["dist"] / name).read_bytes()
        if name.endswith(".tmx"):   # the header's creationdate is the time of writing
            local, dist = (re.sub(rb'creationdate="[0-9TZ]+"', b"", x) for x in (local, dist))
        assert local and dist == local, name
    logs = crawls["logs"]
    shares = []
    for log in logs:
        marker = "'bitext/closing/pairs_aligned': "
        assert marker in log, log[-3000:]
        shares.append(int(log.split(marker, 1)[1].split(",", 1)[0].split("}", 1)[0]))
    print("page pairs aligned per worker:", shares)
    assert all(n > 0 for n in shares), shares
    stats = json.loads((crawls["dist"] / "stats.json").read_text())["align"]
    per_worker = {k: v for k, v in stats.items()
                  if k.startswith("bitext/closing/pairs_aligned/")}
    assert len(per_worker) == 2 and sorted(per_worker.values()) == sorted(shares)
    assert stats["bitext/closing/workers"] == 2
    assert sum(shares) >= sum(1 for _ in (crawls["dist"] / "pairs.jsonl").open())


def _drain_from(url: str, key: str, worker: str) -> None:
    import redis

    drain(redis.Redis.from_url(url), key, worker, timeout=30)


def test_known_link_pairs_reach_a_drainer_in_another_process(server, redis_url, tmp_path):
    # the page of all entries lists them in each language's own order: its rows are
    # paired by the items' links to known page pairs, which travel with the tasks
    site = summaries_site(seed=5, langs=("en", "fr"))
    records = [build_record(u, h) for u, h in site.pages.items()]
    local = outputs.run_closing(records, AlignConfig(langs=("en", "fr")), str(tmp_path / "l"))
    assert local["align"]["bitext/bitext/reordered_lists"] == 1
    pool = RedisTaskPool(server, "t8", "closer", timeout=30)
    pool.reset()
    helper = multiprocessing.get_context("fork").Process(
        target=_drain_from, args=(redis_url, "t8", "helper"))
    helper.start()
    try:
        with Heartbeat(server, pool.keys, pool.worker):
            deadline = time.time() + 20
            while pool.others() != ["helper"]:
                assert time.time() < deadline
                time.sleep(0.05)
            dist = outputs.run_closing(records, AlignConfig(langs=("en", "fr")),
                                       str(tmp_path / "d"), shared_pool=pool)
    finally:
        pool.finish()
        helper.join(timeout=30)
        if helper.is_alive():
            helper.kill()     # the process this test started
    align = dist["align"]
    # every task went through the queue (the closer takes its share from it too, each
    # task unpickled where it runs); the drainer, in another process, took some or none
    assert align["bitext/closing/workers"] == 2, align
    assert align["bitext/bitext/reordered_lists"] == 1
    assert (tmp_path / "d" / "bitext.tsv").read_bytes() == \
        (tmp_path / "l" / "bitext.tsv").read_bytes()
