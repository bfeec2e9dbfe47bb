"""A disk that fills while the closing step writes the outputs: one clear ERROR line, exit
status 4, the page store intact; ``scrapy align`` on it, once there is room, writes the
outputs of an undisturbed crawl.

The full disk is a real one: a small ``tmpfs`` mounted for the test (root only; the test
skips where ``mount`` is refused) holds the crawl's output dir. The crawl runs with room
to spare; when Scrapy logs that the spider is closing, the test fills the file system
(one file takes all of its free space), so the closing step's writes meet ``ENOSPC``
from the kernel. A generated site is crawled twice by ``scrapy crawl`` in a subprocess
(bounded by its timeout): undisturbed, and onto the disk that fills.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.outcome import EXIT_NOT_WRITTEN
from testkit.faults import OUTPUTS, SmallDisk, comparable_outputs
from tests.conftest import PROJECT_ROOT, crawl_command, run_crawl

pytestmark = pytest.mark.integration

SPEC = SiteSpec(scheme="prefix", n_pairs=30, third_lang=None, seed=13)
DISK = 64 << 20
CRAWL_TIMEOUT = 240
ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}




def store_check(path) -> tuple[str, int]:
    """SQLite's integrity check of a page store, and its pages."""
    db = sqlite3.connect(path)
    try:
        return (db.execute("PRAGMA integrity_check").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM pages").fetchone()[0])
    finally:
        db.close()


def crawl_onto_a_disk_that_fills(site, disk: SmallDisk, out, log_path) -> tuple[int, str]:
    """The crawl into ``out`` (on ``disk``); the disk filled as the spider closes."""
    with log_path.open("w") as log:
        proc = subprocess.Popen(crawl_command(site.start_url, out), cwd=PROJECT_ROOT,
                                env=ENV, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + CRAWL_TIMEOUT
        while "Closing spider (finished)" not in log_path.read_text(errors="replace"):
            assert proc.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "the crawl did not reach its closing step"
            time.sleep(0.01)
        disk.fill()
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()   # the crawl this test started
            proc.wait()
    return proc.returncode, log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("scratch")
    why = SmallDisk.available(scratch)
    if why:
        pytest.skip(f"no small disk to fill: {why}")
    port = free_port()
    site = generate_site(SPEC, port)
    quiet = tmp_path_factory.mktemp("quiet")
    later = tmp_path_factory.mktemp("aligned_later")
    with serve_site(site, port), SmallDisk(tmp_path_factory.mktemp("disk"), DISK) as disk:
        run_crawl(site.start_url, quiet, timeout=CRAWL_TIMEOUT)
        out = disk.path / "out"
        code, log = crawl_onto_a_disk_that_fills(site, disk, out, scratch / "crawl.log")
        store = out / "pages.sqlite"
        written = {name for name in OUTPUTS if (out / name).exists()}
        leftovers = [n for n in os.listdir(out) if n.endswith(".tmp")]
        disk.free()                           # room again: the outputs, written later
        integrity, stored = store_check(store)
        align = subprocess.run(
            ["scrapy", "align", str(store), "--langs", "en,fr", "-o", str(later),
             "-s", f"BITEXT_PATTERN_DB={later}/patterns-db.json"],
            cwd=PROJECT_ROOT, env=ENV, capture_output=True, text=True, timeout=CRAWL_TIMEOUT)
    quiet_stored = store_check(quiet / "pages.sqlite")[1]
    return {"code": code, "log": log, "integrity": integrity, "stored": stored,
            "quiet_stored": quiet_stored, "written": written, "leftovers": leftovers,
            "align": align, "quiet": comparable_outputs(quiet), "later": later, "store": store}


def test_a_full_disk_is_one_clear_line_and_a_non_zero_exit(runs):
    assert runs["code"] == EXIT_NOT_WRITTEN, runs["log"][-3000:]
    errors = [line for line in runs["log"].splitlines() if "] ERROR: " in line]
    assert len(errors) == 1, errors
    line = errors[0]
    assert "No space left on device" in line
    assert f"scrapy align {runs['store']} --langs en,fr" in line
    assert "Traceback" not in runs["log"]
    # what was not written is not there half-written
    assert not runs["leftovers"]


def test_the_page_store_is_intact_and_align_later_gives_the_same_outputs(runs):
    assert runs["integrity"] == "ok"
    assert runs["stored"] == runs["quiet_stored"] > 0
    align = runs["align"]
    assert align.returncode == 0, align.stderr[-3000:]
    assert comparable_outputs(runs["later"]) == runs["quiet"]
