"""Shared test helpers: where the real data is, and how to run a real crawl."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
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


def redis_server(directory: Path, password: str | None = None, tls: bool = False):
    """A real ``redis-server`` on a free loopback port, no persistence, its files in
    ``directory``; a context manager yielding its URL (``redis://127.0.0.1:PORT/0``).
    ``password``: started with ``--requirepass`` (the URL carries it); ``tls``: TLS only,
    with a certificate for 127.0.0.1 made here by ``openssl`` (a ``rediss://`` URL that
    names its CA file). Skips the test when ``redis-server`` (or, for TLS, ``openssl`` or
    TLS support in this redis-server) is missing."""
    import contextlib
    import shutil
    import socket
    import ssl
    import time

    def ping(port: int, context) -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as raw:
            conn = context.wrap_socket(raw, server_hostname="127.0.0.1") if context else raw
            conn.sendall(b"PING\r\n")
            reply = conn.recv(64)
        return reply.startswith((b"+PONG", b"-NOAUTH"))

    @contextlib.contextmanager
    def _server():
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("redis-server not found on PATH (apt-get install redis-server; "
                        ".ci/run installs it)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        args = [exe, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(directory)]
        context = None
        query = ""
        if tls:
            cert, key = tls_certificate(directory)
            args += ["--port", "0", "--tls-port", str(port), "--tls-cert-file", cert,
                     "--tls-key-file", key, "--tls-ca-cert-file", cert,
                     "--tls-auth-clients", "no"]
            context = ssl.create_default_context(cafile=cert)
            query = f"?ssl_ca_certs={cert}"
        else:
            args += ["--port", str(port)]
        if password:
            args += ["--requirepass", password]
        log = directory / "redis-server.log"
        with log.open("w") as out:
            proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.time() + 10
            while True:
                try:
                    if ping(port, context):
                        break
                except OSError:
                    pass
                if proc.poll() is not None or time.time() > deadline:
                    text = log.read_text()
                    if tls and "TLS" in text and ("not supported" in text
                                                  or "Unrecognized" in text
                                                  or "Bad directive" in text):
                        pytest.skip("this redis-server was built without TLS support")
                    raise RuntimeError(f"redis-server did not start on port {port}: "
                                       + text[-2000:])
                time.sleep(0.05)
            auth = f":{password}@" if password else ""
            scheme = "rediss" if tls else "redis"
            yield f"{scheme}://{auth}127.0.0.1:{port}/0{query}"
        finally:
            stop_process(proc, timeout=10)

    return _server()


def tls_certificate(directory: Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key, made by ``openssl`` in
    ``directory`` (the test skips without it)."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("openssl not found on PATH: no certificate for the TLS test")
    cert, key = directory / "redis.crt", directory / "redis.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


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
