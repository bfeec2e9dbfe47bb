"""Resume with JOBDIR after SIGKILL and after SIGINT: same pages and pairs as a crawl
that was never interrupted (the frontier journal, bitextcrawl/extensions/resume.py)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.extensions.resume import stock_robots_middleware
from tests.conftest import PROJECT_ROOT, crawl_command, read_pages, read_pairs, run_crawl

pytestmark = pytest.mark.integration

# Hidden pages too: the resumed crawl must also finish deep page recovery.
SPEC = SiteSpec(scheme="prefix", n_pairs=60, hidden_fraction=0.2, third_lang="de",
                n_third=6, seed=31)
# The interrupted runs crawl a little slower, so the signal lands mid-crawl.
STEADY = {"DOWNLOAD_DELAY": "0.01", "CONCURRENT_REQUESTS": "8"}


def project_settings():
    from scrapy.settings import Settings

    settings = Settings()
    settings.setmodule("bitextcrawl.settings.local", priority="project")  # the profile crawls use
    return settings


def stored_pages(db_path) -> int:
    try:
        with sqlite3.connect(db_path, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    except sqlite3.Error:
        return 0


def page_urls(out) -> list[str]:
    return [page["url"] for page in read_pages(out)]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The site on loopback, and the pages and pairs of an uninterrupted crawl of it."""
    port = free_port()
    site = generate_site(SPEC, port)
    out = tmp_path_factory.mktemp("uninterrupted")
    with serve_site(site, port) as server:
        run_crawl(site.start_url, out)
        yield {"site": site, "server": server, "pages": page_urls(out),
               "pairs": read_pairs(out)}


def interrupt(site, out, jobdir, sig, at_pages: int) -> str:
    """Start a JOBDIR crawl, send ``sig`` once ``at_pages`` pages are stored; its log."""
    settings = {**STEADY, "JOBDIR": str(jobdir)}
    proc = subprocess.Popen(crawl_command(site.start_url, out, settings=settings),
                            cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    try:
        deadline = time.time() + 120
        while stored_pages(out / "pages.sqlite") < at_pages and time.time() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.send_signal(sig)
        _, log = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return log


def check_same_as_uninterrupted(served, out):
    pages = page_urls(out)
    leaked = set(pages) & set(served["site"].robots_disallowed)
    if leaked and stock_robots_middleware(project_settings()):
        pytest.xfail(f"Scrapy 2.19's RobotsTxtMiddleware let {sorted(leaked)} through (many "
                     "requests waiting for one robots.txt): use "
                     "bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware in bitextcrawl/settings/base.py")
    assert len(pages) == len(set(pages)), "a page was stored twice"
    missing = set(served["pages"]) - set(pages)
    assert not missing, f"{len(missing)} pages lost: {sorted(missing)[:5]}"
    assert set(pages) == set(served["pages"])
    assert read_pairs(out) == served["pairs"]


def test_sigkill_twice_then_resume(served, tmp_path):
    site, server = served["site"], served["server"]
    out, jobdir = tmp_path / "out", tmp_path / "job"
    total = len(served["pages"])
    with server.httpd.hits_lock:
        server.hits.clear()
    interrupt(site, out, jobdir, signal.SIGKILL, at_pages=40)
    first = stored_pages(out / "pages.sqlite")
    assert 40 <= first < total, "the crawl was not killed midway"
    assert not (jobdir / "requests.queue" / "active.json").exists()  # Scrapy's index is lost
    # Killed again while resuming: the journal survives its own replay.
    log = interrupt(site, out, jobdir, signal.SIGKILL, at_pages=first + 30)
    assert "unfinished requests scheduled again" in log
    second = stored_pages(out / "pages.sqlite")
    assert first < second < total, "the resumed crawl was not killed midway"
    log = run_crawl(site.start_url, out, settings={"JOBDIR": str(jobdir)}).stderr
    assert "unfinished requests scheduled again" in log
    assert "'bitext/resume/unclean_stop': 1" in log
    check_same_as_uninterrupted(served, out)
    # Only what was in flight at each kill is downloaded again, not the whole crawl.
    pages = {p.split(str(site.port), 1)[1] for p in served["pages"]}
    twice = [path for (_, path), n in server.hits.items() if path in pages and n > 1]
    print(f"pages stored at the kills: {first}, {second} of {total}; "
          f"downloaded again: {len(twice)} {sorted(twice)[:12]}")
    assert len(twice) <= 40
    with sqlite3.connect(jobdir / "frontier.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM pending").fetchone()[0] == 0
        assert db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()[0] == "finished"


def test_sigint_then_resume(served, tmp_path):
    site, server = served["site"], served["server"]
    out, jobdir = tmp_path / "out", tmp_path / "job"
    with server.httpd.hits_lock:
        server.hits.clear()
    log = interrupt(site, out, jobdir, signal.SIGINT, at_pages=40)
    assert "alignment skipped" in log
    assert 40 <= stored_pages(out / "pages.sqlite") < len(served["pages"])
    log = run_crawl(site.start_url, out, settings={"JOBDIR": str(jobdir)}).stderr
    assert "unfinished requests scheduled again" not in log  # Scrapy's own queue is whole
    check_same_as_uninterrupted(served, out)
    page_hits = {k: v for k, v in server.hits.items() if k[1] != "/robots.txt"}
    assert max(page_hits.values()) == 1, [k for k, v in page_hits.items() if v > 1][:5]
