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
