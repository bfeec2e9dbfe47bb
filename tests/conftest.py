"""Shared test helpers: where the real data is, and how to run a real crawl."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"

# Loopback crawls need no politeness delays; everything else is the real profile.
FAST_CRAWL = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
    "LOG_LEVEL": "INFO",
    "LOGSTATS_INTERVAL": "5",
}


@pytest.fixture
def shared_data() -> Path:
    if not (SHARED_DATA / "README.md").exists():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the project)")
    return SHARED_DATA


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


def crawl_command(start_url: str, output_dir: Path, langs: str = "en,fr",
                  settings: dict | None = None, spider_args: dict | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "bitext", "-a", f"start_url={start_url}",
           "-a", f"langs={langs}", "-s", f"BITEXT_OUTPUT_DIR={output_dir}",
           "-s", f"BITEXT_PATTERN_DB={output_dir}/patterns-db.json"]
    for key, value in {**FAST_CRAWL, **(settings or {})}.items():
        cmd += ["-s", f"{key}={value}"]
    for key, value in (spider_args or {}).items():
        cmd += ["-a", f"{key}={value}"]
    return cmd


def run_crawl(start_url: str, output_dir: Path, timeout: float = 300, **kwargs):
    """Run ``scrapy crawl bitext`` as a user would, in a subprocess; returns it, log in .stderr."""
    proc = subprocess.run(crawl_command(start_url, output_dir, **kwargs), cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    if proc.returncode != 0:
        raise AssertionError(f"crawl failed ({proc.returncode}):\n{proc.stderr[-5000:]}")
    return proc


def redis_server(directory: Path):
    """A real ``redis-server`` on a free loopback port, no persistence, its files in
    ``directory``; a context manager yielding its URL (``redis://127.0.0.1:PORT/0``).
    Skips the test when ``redis-server`` is not installed."""
    import contextlib
    import shutil
    import socket
    import time

    @contextlib.contextmanager
    def _server():
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("redis-server not found on PATH (apt-get install redis-server; "
                        ".ci/run installs it)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--dir", str(directory)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1) as c:
                        c.sendall(b"PING\r\n")
                        if c.recv(16).startswith(b"+PONG"):
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            stop_process(proc, timeout=10)

    return _server()


def stop_process(proc, timeout: float) -> None:
    """Terminate a server this test started; kill it if it has not stopped in ``timeout``."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
