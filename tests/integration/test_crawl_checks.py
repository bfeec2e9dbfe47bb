"""Checks before a crawl (output dir, start URL) and after it (a wanted language with no
page, no pair): the real ``scrapy crawl`` in a subprocess, against loopback servers.
Refused: one line on stderr, exit status 2, no traceback, nothing written. Finished
without what was asked for: a WARNING saying what was seen instead, exit status 3."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from bitextcrawl.demo.server import serve_directory
from tests.conftest import FAST_CRAWL, PROJECT_ROOT
from tests.conftest import one_page_site as site

pytestmark = pytest.mark.integration

def crawl(start_url: str, out, *args: str, langs: str = "en,fr",
          timeout: float = 120) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "bitext", "-a", f"start_url={start_url}",
           "-a", f"langs={langs}", "-s", f"BITEXT_OUTPUT_DIR={out}", *args]
    for key, value in FAST_CRAWL.items():
        cmd += ["-s", f"{key}={value}"]
    return subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})


def refused(proc: subprocess.CompletedProcess) -> str:
    """The one line of a crawl refused before it started."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("scrapy crawl: error: "), proc.stderr
    return lines[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/"
    line = refused(crawl(url, tmp_path / "out"))
    assert line == (f"scrapy crawl: error: the start URL {url} does not answer: connection "
                    f"refused by 127.0.0.1:{url.rsplit(':', 1)[1].rstrip('/')}")
    assert not (tmp_path / "out").exists()


def test_dns_failure(tmp_path):
    line = refused(crawl("http://no-such-host.invalid/", tmp_path / "out"))
    assert "does not answer: cannot resolve no-such-host.invalid (DNS" in line
    assert not (tmp_path / "out").exists()


def test_tls_error(tmp_path):
    with site() as server:   # plain HTTP where TLS is asked for
        url = server.url.replace("http://", "https://")
        line = refused(crawl(url, tmp_path / "out"))
    assert f"does not answer: TLS handshake with 127.0.0.1:{server.server_port} failed" in line
    assert not (tmp_path / "out").exists()


def test_robots_txt_forbids_the_start_url(tmp_path):
    with site(robots=b"User-agent: *\nDisallow: /\n") as server:
        line = refused(crawl(server.url, tmp_path / "out"))
        assert server.requests == ["/robots.txt"]
    assert line.endswith(f"robots.txt of {server.url.rstrip('/')} forbids {server.url} to the "
                         "user agent 'bitextcrawl/0.1 (+https://github.com/bitextcrawl/"
                         "bitextcrawl)': nothing would be crawled")
    assert not (tmp_path / "out").exists()


def test_output_dir_not_writable(tmp_path):
    (tmp_path / "a-file").write_text("x")
    with site() as server:
        line = refused(crawl(server.url, tmp_path / "a-file" / "out"))
        assert server.requests == []
    assert line.endswith(f"cannot create the output dir {tmp_path}/a-file/out: "
                         f"{tmp_path}/a-file is a file, not a folder")


def test_output_dir_of_another_crawl_refused_then_overwritten(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("pages.sqlite", "stats.json", "pairs.jsonl"):
        (out / name).write_text("another crawl's")
    (out / "notes.txt").write_text("the user's")
    with site() as server:
        line = refused(crawl(server.url, out))
        assert server.requests == []
        assert "holds another crawl (pages.sqlite, stats.json)" in line
        assert "BITEXT_OVERWRITE_ENABLED=True" in line and "JOBDIR" in line
        proc = crawl(server.url, out, "-s", "BITEXT_OVERWRITE_ENABLED=True")
    assert "deleted pages.sqlite, pairs.jsonl, stats.json" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (out / "notes.txt").read_text() == "the user's"
    assert (out / "pages.sqlite").read_bytes() != b"another crawl's"
    assert (out / "patterns-db.json").exists()   # the crawl's own pattern database


def test_mistyped_language_warns_what_was_seen_and_exits_3(tmp_path, shared_data):
    """langs=en,ur on nginx.org (meant: ru): a WARNING naming Russian, exit status 3."""
    root = shared_data / "nginx" / "site"
    if not root.is_dir():
        pytest.skip("nginx data not found")
    with serve_directory(str(root)) as server:
        proc = crawl(f"{server.url}/en/", tmp_path, langs="en,ur", timeout=300)
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if " WARNING: " in line]
    missing = [w for w in warnings if "no page in Urdu (ur) was found (langs=en,ur)" in w]
    assert len(missing) == 1, warnings
    import re
    ru = re.search(r"the crawl saw instead: (\d+) links led to Russian \(ru\)", missing[0])
    assert ru and int(ru.group(1)) > 100, missing[0]
    assert any("no page pair was found" in w for w in warnings)
