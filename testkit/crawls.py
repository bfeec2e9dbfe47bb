"""Crawls and servers as a test runs them: the ``scrapy crawl bitext`` command line of a
loopback crawl, a real ``redis-server`` on a free port, stopping a server by its process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Loopback crawls need no politeness delays; everything else is the real profile.
FAST_CRAWL = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
    "LOG_LEVEL": "INFO",
    "LOGSTATS_INTERVAL": "5",
}


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
