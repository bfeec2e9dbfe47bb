"""A worker killed with ``kill -9`` during the shared closing step of a distributed crawl
(``store/redis_pool.py``): its share is redone, and the outputs are those of an
undisturbed crawl.

A real ``redis-server`` on loopback; a generated site crawled by two ``scrapy crawl
bitext`` workers three times:

* undisturbed;
* a worker that takes page pairs of the closer's bitext stage (a *drainer*) killed while
  it holds a task: the closer finds it silent after ``BITEXT_WORKER_TIMEOUT`` and puts its
  task back in the queue; the closer writes the outputs;
* the closer itself killed while its bitext stage is shared: the drainer finds it silent
  and leaves; the same command started again (the resume) is the last worker of the
  crawl, and its closing step writes the outputs.

``pairs.jsonl``, ``bitext.tsv`` and ``bitext.tmx`` are compared byte for byte (the TMX
header's creation date aside).
"""

from __future__ import annotations

import socket
import time

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.store.redis import crawl_key
from bitextcrawl.store.redis_pool import ClosingKeys
from testkit.crawls import redis_server
from testkit.faults import Workers, comparable_outputs

pytestmark = pytest.mark.integration

SPEC = SiteSpec(scheme="prefix", n_pairs=120, third_lang=None, seed=31)
TIMEOUT = "4"          # BITEXT_WORKER_TIMEOUT: a killed worker is found out after 4 s
SETTINGS = {"BITEXT_WORKER_TIMEOUT": TIMEOUT}
CRAWL_TIMEOUT = 300


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url




def closing_keys(out) -> tuple[str, ClosingKeys]:
    key = crawl_key(None, str(out))
    return key, ClosingKeys(key)


def pid_of(name: str) -> int:
    host, _, pid = name.rpartition("-")
    assert host == socket.gethostname()
    return int(pid)


def wait_until(condition, workers: Workers, timeout: float, poll: float = 0.005):
    """``condition()`` once it is not None, polled while the workers run (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(p.poll() is None for p in workers.procs):
        value = condition()
        if value is not None:
            return value
        time.sleep(poll)
    return None


@pytest.fixture(scope="module")
def runs(tmp_path_factory, redis_url):
    import redis

    server = redis.Redis.from_url(redis_url)
    port = free_port()
    site = generate_site(SPEC, port)
    found = {}
    with serve_site(site, port):
        # undisturbed
        server.flushall()
        out = tmp_path_factory.mktemp("quiet")
        workers = Workers(site.start_url, out, redis_url, out / "logs", settings=SETTINGS)
        workers.start(2)
        codes = workers.wait(CRAWL_TIMEOUT)
        assert codes == [0, 0], workers.log(0)[-3000:] + workers.log(1)[-3000:]
        found["quiet"] = {"outputs": comparable_outputs(out)}

        # a drainer killed while it holds a task of the closer's bitext stage
        server.flushall()
        out = tmp_path_factory.mktemp("drainer_killed")
        _, keys = closing_keys(out)
        workers = Workers(site.start_url, out, redis_url, out / "logs", settings=SETTINGS)
        workers.start(2)
        pids = {p.pid: i for i, p in enumerate(workers.procs)}

        def drainer_holding_a_task():
            for pid, i in pids.items():
                name = f"{socket.gethostname()}-{pid}"
                if server.get(keys.closer) not in (None, name.encode()) \
                        and server.llen(keys.processing(name)):
                    return i
            return None

        victim = wait_until(drainer_holding_a_task, workers, CRAWL_TIMEOUT)
        assert victim is not None, "no drainer took a task"
        workers.kill(victim)
        codes = workers.wait(CRAWL_TIMEOUT)
        closer = 1 - victim
        assert codes[closer] == 0, workers.log(closer)[-3000:]
        found["drainer_killed"] = {"outputs": comparable_outputs(out), "log": workers.log(closer)}

        # the closer killed while its bitext stage is shared; then the same command again
        server.flushall()
        out = tmp_path_factory.mktemp("closer_killed")
        _, keys = closing_keys(out)
        workers = Workers(site.start_url, out, redis_url, out / "logs", settings=SETTINGS)
        workers.start(2)

        def closer_sharing():
            if server.get(keys.state) == b"open" and server.hlen(keys.results):
                return server.get(keys.closer).decode()
            return None

        closer_name = wait_until(closer_sharing, workers, CRAWL_TIMEOUT)
        assert closer_name is not None, "the closer never shared its bitext stage"
        closer = next(i for i, p in enumerate(workers.procs) if p.pid == pid_of(closer_name))
        workers.kill(closer)
        assert not (out / "stats.json").exists()   # (written last, by the closing step)
        codes = workers.wait(CRAWL_TIMEOUT)
        drainer = 1 - closer
        assert codes[drainer] == 0, workers.log(drainer)[-3000:]
        left_without_outputs = not (out / "stats.json").exists()
        workers.start(1)   # the resume: the same command again
        codes = workers.wait(CRAWL_TIMEOUT)
        assert codes[2] == 0, workers.log(2)[-3000:]
        found["closer_killed"] = {"outputs": comparable_outputs(out), "drainer_log": workers.log(drainer),
                                  "resume_log": workers.log(2),
                                  "left_without_outputs": left_without_outputs}
    return found


def test_a_drainer_killed_in_the_closing_step_has_its_share_redone(runs):
    run = runs["drainer_killed"]
    assert run["outputs"] == runs["quiet"]["outputs"]
    assert "silent for more than" in run["log"] and "go back to the queue" in run["log"]


def test_a_closer_killed_in_the_closing_step_is_redone_on_resume(runs):
    run = runs["closer_killed"]
    assert run["left_without_outputs"]
    assert "the closer" in run["drainer_log"] and "is silent; leaving" in run["drainer_log"]
    assert run["outputs"] == runs["quiet"]["outputs"]
