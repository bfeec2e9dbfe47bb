"""Shared test helpers: where the real data is, and how to run a real crawl."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from testkit.crawls import (  # noqa: F401
    FAST_CRAWL,
    crawl_command,
    redis_server,
    stop_process,
    tls_certificate,
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"



@pytest.fixture
def shared_data() -> Path:
    if not (SHARED_DATA / "README.md").exists():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the project)")
    return SHARED_DATA


def first_claims():
    """A claim function like the crawl state's over a shared backing: True for the first
    claim of a key, False after (the workers of one crawl, in one process)."""
    claimed: set[str] = set()

    def claim(key: str) -> bool:
        if key in claimed:
            return False
        claimed.add(key)
        return True

    return claim


def read_jsonl(path) -> list[dict]:
    """The records of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_pages(output_dir: Path) -> list[dict]:
    """The page records of a crawl's ``pages.jsonl``."""
    return read_jsonl(Path(output_dir) / "pages.jsonl")


def read_pairs(output_dir: Path) -> set[tuple[str, str]]:
    """The ``(url_1, url_2)`` pairs of a crawl's ``pairs.jsonl``."""
    return {(p["url_1"], p["url_2"]) for p in read_jsonl(Path(output_dir) / "pairs.jsonl")}


def run_crawl(start_url: str, output_dir: Path, timeout: float = 300, **kwargs):
    """Run ``scrapy crawl bitext`` as a user would, in a subprocess; returns it, log in .stderr."""
    proc = subprocess.run(crawl_command(start_url, output_dir, **kwargs), cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    if proc.returncode != 0:
        raise AssertionError(f"crawl failed ({proc.returncode}):\n{proc.stderr[-5000:]}")
    return proc


def run_workers(start_url: str, output_dir: Path, redis_url: str, n: int, log_dir: Path,
                timeout: float = 300) -> list[tuple[int, str]]:
    """``n`` distributed workers (``SCRAPY_PROJECT=distributed``) crawling ``start_url``
    at once; each one's exit status and log. The logs go to files in ``log_dir``, not to
    pipes (a pipe read after another worker's exit can fill up and block a worker)."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "SCRAPY_PROJECT": "distributed",
           "REDIS_URL": redis_url}
    log_dir.mkdir(parents=True, exist_ok=True)
    paths = [log_dir / f"worker-{i}.log" for i in range(n)]
    procs = []
    for path in paths:
        with path.open("w") as log:
            procs.append(subprocess.Popen(crawl_command(start_url, output_dir),
                                          cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL,
                                          stderr=log, env=env))
    deadline = time.monotonic() + timeout
    for proc in procs:
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:
                proc.kill()   # a worker this test started
                proc.wait()
    return [(proc.returncode, path.read_text()) for proc, path in zip(procs, paths)]


ONE_PAGE = (b"<html lang='en'><head><title>One page</title></head><body>"
            b"<p>A single English page that links nowhere at all.</p></body></html>")


@contextmanager
def one_page_site(robots: bytes | None = None):
    """A loopback site of one English page at ``/`` (anything else: 404; ``/robots.txt``:
    ``robots`` if given); yields the server, its URL in ``.url``, the paths asked for in
    ``.requests``."""
    requests = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            if self.path == "/robots.txt" and robots is not None:
                body, kind, code = robots, "text/plain", 200
            else:
                body, kind = ONE_PAGE, "text/html; charset=utf-8"
                code = 200 if self.path == "/" else 404
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests = requests
    server.url = f"http://127.0.0.1:{server.server_port}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
