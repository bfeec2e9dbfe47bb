"""The distributed profile against a Redis that asks for a password (``--requirepass``) and
one that speaks TLS only (``rediss://``): real ``redis-server`` processes on loopback,
``scrapy crawl bitext`` workers with ``SCRAPY_PROJECT=distributed``.

A wrong or missing password ends the crawl before it starts: one line, exit status 2, no
traceback, the password not shown.
"""

from __future__ import annotations

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pairing.evaluate import evaluate
from bitextcrawl.store.redis import RedisPageStore
from tests.conftest import read_pairs, redis_server, run_workers

pytestmark = pytest.mark.integration

SPEC = SiteSpec(scheme="prefix", n_pairs=20, third_lang=None, seed=7)
PASSWORD = "s3cret-Pw"


@pytest.fixture(scope="module")
def site():
    port = free_port()
    site = generate_site(SPEC, port)
    with serve_site(site, port):
        yield site


def workers(site, out, redis_url: str, n: int = 2, timeout: float = 300):
    return run_workers(site.start_url, out, redis_url, n, out.parent / f"{out.name}-logs",
                       timeout)


def crawl_keys(redis_url: str, out) -> int:
    from scrapy.settings import Settings

    store = RedisPageStore.from_settings(Settings({"REDIS_URL": redis_url}), str(out))
    try:
        return len(store)
    finally:
        store.close()


def assert_pairs(site, out):
    pairs = read_pairs(out)
    scores = evaluate(site.gold_pairs, sorted(pairs))
    assert scores["precision"] >= 0.9 and scores["recall"] >= 0.8, scores


@pytest.fixture(scope="module")
def password_redis(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis-auth"), password=PASSWORD) as url:
        yield url


def test_two_workers_crawl_through_a_redis_with_a_password(site, password_redis, tmp_path):
    assert password_redis.startswith(f"redis://:{PASSWORD}@127.0.0.1:")
    out = tmp_path / "out"
    results = workers(site, out, password_redis)
    for code, log in results:
        assert code == 0, log[-5000:]
        assert "Traceback" not in log
    assert sum("Closing pipeline:" in log for _, log in results) == 1
    assert crawl_keys(password_redis, out) > 0   # the pages are in the Redis with a password
    assert_pairs(site, out)


@pytest.mark.parametrize("url, says", [
    ("redis://:wrong-pw@127.0.0.1:{port}/0", "refused the password of REDIS_URL"),
    ("redis://127.0.0.1:{port}/0", "asks for a password: put it in REDIS_URL"),
])
def test_a_wrong_or_missing_password_is_one_line_and_status_2(site, password_redis, tmp_path,
                                                               url, says):
    port = password_redis.rsplit(":", 1)[1].split("/", 1)[0]
    url = url.format(port=port)
    ((code, log),) = workers(site, tmp_path / "out", url, n=1, timeout=120)
    lines = log.strip().splitlines()
    assert code == 2, log[-3000:]
    assert lines[-1].startswith("scrapy crawl: error: Redis at ") and says in lines[-1], \
        lines[-3:]
    assert "Traceback" not in log and "wrong-pw" not in log
    assert not (tmp_path / "out").exists()   # nothing written


def test_a_worker_crawls_through_redis_over_tls(site, tmp_path):
    with redis_server(tmp_path, password=PASSWORD, tls=True) as url:
        assert url.startswith("rediss://")
        out = tmp_path / "out"
        ((code, log),) = workers(site, out, url, n=1)
        assert code == 0, log[-5000:]
        assert crawl_keys(url, out) > 0
        plain = url.replace("rediss://", "redis://").split("?", 1)[0]
        ((code, log),) = workers(site, tmp_path / "plain", plain, n=1, timeout=120)
        assert code == 2 and "Traceback" not in log
        assert "scrapy crawl: error: Redis at " in log.strip().splitlines()[-1]
    assert_pairs(site, out)


def test_a_wrong_password_with_the_checks_off_is_one_line_too(site, password_redis, tmp_path):
    """BITEXT_PREFLIGHT_ENABLED=False skips the output dir and start URL checks; Redis is
    asked all the same (scrapy-redis's scheduler would fail inside the engine, with
    Scrapy's tracebacks)."""
    import os
    import subprocess

    from tests.conftest import PROJECT_ROOT, crawl_command

    port = password_redis.rsplit(":", 1)[1].split("/", 1)[0]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "SCRAPY_PROJECT": "distributed",
           "REDIS_URL": f"redis://:wrong-pw@127.0.0.1:{port}/0"}
    proc = subprocess.run(crawl_command(site.start_url, tmp_path / "out",
                                        settings={"BITEXT_PREFLIGHT_ENABLED": "False"}),
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    log = proc.stderr
    assert proc.returncode == 2, log[-3000:]
    assert log.strip().splitlines()[-1].startswith("scrapy crawl: error: Redis at ")
    assert "refused the password of REDIS_URL" in log
    assert "Traceback" not in log and "wrong-pw" not in log
