"""A site that answers slowly and with bursts of 5xx: the crawl retries, throttles, ends,
and loses only the page no retry got; the report counts what failed.

A generated site is crawled twice by ``scrapy crawl`` (in a subprocess, bounded by its
timeout): served as generated, then through :class:`testkit.flaky.FlakySite`, where one
page in three answers its first two requests with 503, one in four answers after 0.4 s,
and one French page answers 500 every time. The second crawl runs with AutoThrottle on (the
profiles' setting) and the profiles' ``RETRY_TIMES``.

AutoThrottle (Scrapy 2.19, ``scrapy/extensions/throttle.py``) sets a slot's delay from the
answers' latency; an answer other than 200 may raise it, never lower it (error pages come
fast). Its adjustments are read from its debug log (``AUTOTHROTTLE_DEBUG``): the slow pages
raise the delay above its start, and no error answer of the bursts lowers it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.report.figures import failures
from bitextcrawl.settings import base
from testkit.flaky import ERROR_BODY, FlakySite
from tests.conftest import read_pairs, run_crawl

pytestmark = pytest.mark.integration

CRAWL_TIMEOUT = 240
START_DELAY = 0.05
THROTTLED = {"AUTOTHROTTLE_ENABLED": "True", "AUTOTHROTTLE_START_DELAY": str(START_DELAY),
             "AUTOTHROTTLE_MAX_DELAY": "1", "AUTOTHROTTLE_DEBUG": "True"}
# AutoThrottle's debug line for each answer: the slot's delay after it and its change (ms),
# the answer's latency, its body's size
ADJUSTMENT = re.compile(r"delay:\s*(-?\d+) ms \(([+-]\d+)\) \| latency:\s*(\d+) ms"
                        r" \| size:\s*(\d+) bytes")


def crawl(served, port, out, **settings) -> dict:
    with serve_site(served, port):
        proc = run_crawl(served.start_url, out, timeout=CRAWL_TIMEOUT, settings=settings)
    return {"pairs": read_pairs(out),
            "stats": json.loads((out / "stats.json").read_text())["crawl"],
            "throttle": [tuple(map(int, m.groups())) for m in ADJUSTMENT.finditer(proc.stderr)]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    spec = SiteSpec(scheme="prefix", n_pairs=16, seed=11)
    port = free_port()
    site = generate_site(spec, port)
    dead_url = sorted(site.gold_pairs)[-1][1]
    flaky = FlakySite(site, dead=(urlsplit(dead_url).path,))
    quiet = crawl(site, port, tmp_path_factory.mktemp("quiet"))
    struggling = crawl(flaky, port, tmp_path_factory.mktemp("flaky"), **THROTTLED)
    return site, flaky, dead_url, quiet, struggling


def test_a_struggling_site_is_crawled_to_the_end_losing_only_the_dead_page(runs):
    site, flaky, dead_url, quiet, struggling = runs
    assert sum(flaky.failures.values()) > len(flaky.dead) * (base.RETRY_TIMES + 1)
    lost = {pair for pair in quiet["pairs"] if dead_url in pair}
    assert lost and quiet["pairs"] - lost
    assert struggling["pairs"] == quiet["pairs"] - lost


def test_bursts_are_retried_and_the_report_counts_what_failed(runs):
    site, flaky, dead_url, quiet, struggling = runs
    stats = struggling["stats"]
    dead = urlsplit(dead_url).path
    # every 503 of a burst was retried and got the page; the dead page was tried
    # RETRY_TIMES + 1 times, no more
    assert flaky.failures[dead] == base.RETRY_TIMES + 1
    bursts = sum(n for path, n in flaky.failures.items() if path != dead)
    assert bursts > 0
    assert stats["retry/count"] == bursts + base.RETRY_TIMES
    assert stats["retry/max_reached"] == 1
    # what the report shows: the one request that failed for good, and no 503 (each
    # was retried); (guesses of the dead page's counterpart may add 404s)
    rows = dict(failures(stats))
    assert rows["HTTP 500 (server error)"] == 1
    assert not [kind for kind in rows if "503" in kind or "timed out" in kind]
    assert "HTTP 500 (server error)" not in dict(failures(quiet["stats"]))


def test_autothrottle_slows_down_and_error_answers_never_speed_it_up(runs):
    site, flaky, dead_url, quiet, struggling = runs
    adjustments = struggling["throttle"]
    assert adjustments, "no AutoThrottle debug line in the crawl's log"
    # the slow pages' latency raised the delay above its start (0.4 s answers: a target
    # of 0.4 / AUTOTHROTTLE_TARGET_CONCURRENCY)
    assert max(delay for delay, _, _, _ in adjustments) > 2 * START_DELAY * 1000, adjustments
    # the 503s of the bursts and the 500s (the flaky site's error page): answered at
    # once, and none lowered the delay
    errors = [(delay, change) for delay, change, _, size in adjustments
              if size == len(ERROR_BODY)]
    assert len(errors) == sum(flaky.failures.values()), (len(errors), flaky.failures)
    assert all(change >= 0 for _, change in errors), errors
    # where pages came fast, the delay went down
    assert any(change < 0 for _, change, _, size in adjustments if size != len(ERROR_BODY))
