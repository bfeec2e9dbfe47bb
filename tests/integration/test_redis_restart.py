"""Redis restarted while a distributed crawl runs: the workers wait, reconnect and finish.

A real ``redis-server`` on loopback with its persistence on (the append-only file), stopped
by SIGTERM and started again on its port from its files (``testkit.faults``).

First the client alone (``store/redis_retry.py``): a command sent while the server is
down waits for it; a script that runs once per token gives a retry the first run's result
(a restart can execute a command and lose its reply, which this test makes happen).
Then two ``scrapy crawl bitext`` workers crawl a generated site twice, undisturbed and with
Redis restarted in the middle: the pairs are the same, every page stored is stored once,
and no page is fetched twice beyond the requests in flight at the restart.
"""

from __future__ import annotations

import threading
import time

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.store.redis_retry import PatientRetry, RedisWatch, once_per_token, retry_params
from testkit.faults import RestartableRedis, Workers
from tests.conftest import read_pages, read_pairs

pytestmark = pytest.mark.integration

SPEC = SiteSpec(scheme="prefix", n_pairs=80, third_lang=None, seed=23)
CRAWL_TIMEOUT = 300
# a slower crawl than the loopback default, so that the restart lands mid-crawl
SETTINGS = {"CONCURRENT_REQUESTS_PER_DOMAIN": "4", "DOWNLOAD_DELAY": "0.02"}


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    import shutil

    if shutil.which("redis-server") is None:
        pytest.skip("redis-server not found on PATH (.ci/run installs it)")
    with RestartableRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


def client(url: str, watch: RedisWatch, seconds: float = 30):
    import redis as redis_py

    params = retry_params(seconds)
    params["retry"] = PatientRetry(seconds, watch=watch)
    return redis_py.Redis.from_url(url, **params)


def test_a_command_sent_while_redis_is_down_waits_for_it(redis):
    watch = RedisWatch()
    heard = []
    watch.listeners.append(heard.append)
    c = client(redis.url, watch)
    c.set("before", "1")
    result = {}
    restart = threading.Thread(target=lambda: result.update(down=redis.restart(down=2)))
    restart.start()
    time.sleep(0.5)                        # the server is down now
    c.incr("during")                       # waits, then goes through
    restart.join(timeout=60)
    assert c.get("before") == b"1"         # the append-only file kept it
    assert c.get("during") == b"1"
    assert watch.reconnects == 1 and len(heard) == 1
    assert 1.0 < heard[0] < result["down"] + 2


def test_a_retried_script_gives_the_first_runs_result(redis):
    import redis as redis_py

    c = redis_py.Redis.from_url(redis.url)
    c.delete("memo", "queue")
    c.rpush("queue", "a", "b", "c")
    pop = c.register_script(once_per_token("return redis.call('LPOP', KEYS[2])"))
    assert pop(keys=["memo", "queue"], args=["w:1"]) == b"a"
    # the same call again (a retry after a lost reply): "a" again, "b" stays queued
    assert pop(keys=["memo", "queue"], args=["w:1"]) == b"a"
    assert pop(keys=["memo", "queue"], args=["w:2"]) == b"b"
    assert c.lrange("queue", 0, -1) == [b"c"]
    c.delete("queue")
    assert pop(keys=["memo", "queue"], args=["w:3"]) is None
    assert pop(keys=["memo", "queue"], args=["w:3"]) is None


def test_replies_lost_in_a_restart_lose_no_pop(redis):
    """Pops hammered through a restart: Redis runs some pops whose replies it never sends
    (it exits first); every item is still received exactly once."""
    import redis as redis_py

    plain = redis_py.Redis.from_url(redis.url)
    plain.delete("memo", "queue")
    items = [str(i).encode() for i in range(5000)]
    plain.rpush("queue", *items)
    watch = RedisWatch()
    c = client(redis.url, watch)
    pop = c.register_script(once_per_token("return redis.call('LPOP', KEYS[2])"))
    got = []
    n = 0
    restart = threading.Thread(target=lambda: (time.sleep(0.2), redis.restart(down=1)))
    restart.start()
    while True:
        n += 1
        item = pop(keys=["memo", "queue"], args=[f"w:{n}"])
        if item is None:
            break
        got.append(item)
    restart.join(timeout=60)
    assert watch.reconnects >= 1
    assert sorted(got, key=int) == items and len(got) == len(set(got))


def crawl(site, port, redis, out, restart_after: int | None) -> dict:
    """Two workers crawl ``site``; with ``restart_after``, Redis is restarted once the site
    has served that many requests."""
    import redis as redis_py

    redis_py.Redis.from_url(redis.url).flushall()
    with serve_site(site, port) as server:
        workers = Workers(site.start_url, out, redis.url, out / "logs", settings=SETTINGS)
        start = time.monotonic()
        workers.start(2)
        in_flight = down = None
        if restart_after is not None:
            deadline = time.monotonic() + CRAWL_TIMEOUT
            while sum(server.hits.values()) < restart_after:
                assert time.monotonic() < deadline and all(
                    p.poll() is None for p in workers.procs), "the crawl ended too soon"
                time.sleep(0.02)
            down = redis.restart(down=3)
            in_flight = 2 * int(SETTINGS["CONCURRENT_REQUESTS_PER_DOMAIN"])
        codes = workers.wait(CRAWL_TIMEOUT)
        hits = dict(server.hits)
    logs = [workers.log(i) for i in range(2)]
    assert codes == [0, 0], "\n".join(log[-3000:] for log in logs)
    twice = sorted(path for (_, path), n in hits.items() if n > 1 and path != "/robots.txt")
    pages = [p["url"] for p in read_pages(out)]
    return {"pairs": read_pairs(out), "pages": pages, "twice": twice, "logs": logs,
            "seconds": time.monotonic() - start, "down": down, "in_flight": in_flight}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, redis):
    port = free_port()
    site = generate_site(SPEC, port)
    quiet = crawl(site, port, redis, tmp_path_factory.mktemp("quiet"), None)
    restarted = crawl(site, port, redis, tmp_path_factory.mktemp("restarted"),
                      restart_after=len(quiet["pages"]) // 3)
    return quiet, restarted


def test_a_crawl_through_a_redis_restart_finds_the_same_pairs(runs):
    quiet, restarted = runs
    print(f"undisturbed {quiet['seconds']:.1f} s; restarted {restarted['seconds']:.1f} s "
          f"(Redis down {restarted['down']:.1f} s); pages {len(quiet['pages'])} / "
          f"{len(restarted['pages'])}; fetched twice {quiet['twice']} / {restarted['twice']}")
    assert quiet["pairs"] and restarted["pairs"] == quiet["pairs"]
    assert sorted(restarted["pages"]) == sorted(quiet["pages"])
    assert len(set(restarted["pages"])) == len(restarted["pages"])
    assert len(restarted["twice"]) <= len(quiet["twice"]) + restarted["in_flight"]


def test_the_workers_say_they_waited_and_count_the_reconnects(runs):
    quiet, restarted = runs
    reconnects = 0
    for log in restarted["logs"]:
        assert "Traceback" not in log, log[-3000:]
        marker = "'bitext/redis/reconnects': "
        if marker in log:
            reconnects += int(log.split(marker, 1)[1].split(",", 1)[0].split("}", 1)[0])
    assert reconnects >= 1
    assert any("Redis unreachable" in log and "Redis reachable again" in log
               for log in restarted["logs"])
    assert not any("Redis unreachable" in log for log in quiet["logs"])
