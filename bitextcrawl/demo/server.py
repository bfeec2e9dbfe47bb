"""Loopback HTTP servers for generated sites and for folders of real pages.

Both run ``http.server.ThreadingHTTPServer`` in a background thread, bound to
127.0.0.1 on a free port, and stop with ``shutdown()`` (or as context managers).
"""

from __future__ import annotations

import functools
import http.server
import socket
import sys
import threading
from urllib.parse import urlsplit


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (signature of the base class)
        pass

    def do_GET(self):
        _count_hit(self.server, self.headers.get("Host", ""), self.path)
        super().do_GET()


class _SiteHandler(http.server.BaseHTTPRequestHandler):
    site = None  # set on a subclass per server
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002
        pass

    def do_GET(self):
        host = self.headers.get("Host", "")
        parts = urlsplit(self.path)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        _count_hit(self.server, host, path)
        resource = self.site.lookup(host, path)
        if resource is None:
            body = b"<html><body><h1>404 Not Found</h1></body></html>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        else:
            body = resource.body
            self.send_response(resource.status)
            for name, value in resource.headers.items():
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the crawler cancelled an oversized download

    do_HEAD = do_GET


def _count_hit(server, host: str, path: str) -> None:
    key = (host.split(":")[0], path)
    with server.hits_lock:
        server.hits[key] = server.hits.get(key, 0) + 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # socketserver listens with a backlog of 5: a crawl's burst of new connections (16
    # requests at once, one connection each to an HTTP/1.0 handler) overflowed it, and
    # each dropped SYN cost the crawler a one-second retransmit. Real servers listen with
    # hundreds (nginx: 511).
    request_queue_size = 512

    def handle_error(self, request, client_address):
        """A client that closed its connection mid-request (a crawl stopping, a worker
        that left) is no error of the server: no traceback for it."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class LoopbackServer:
    """A server thread on 127.0.0.1; ``url`` is its root."""

    def __init__(self, handler, port: int = 0):
        self.httpd = _HTTPServer(("127.0.0.1", port), handler)
        self.httpd.hits = {}
        self.httpd.hits_lock = threading.Lock()
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def hits(self) -> dict:
        """(host, path) -> number of GET/HEAD requests received."""
        return self.httpd.hits

    def start(self) -> "LoopbackServer":
        self.thread.start()
        return self

    def shutdown(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.shutdown()


def serve_site(site, port: int) -> LoopbackServer:
    """Serve a generated site on ``port``: a :class:`~bitextcrawl.demo.generator.GeneratedSite`
    or a :class:`~testkit.multilingual.MultilingualSite` (anything with
    ``lookup(host_header, path) -> Resource | None``). Each answer carries the resource's
    status and headers, so redirects (301 + ``Location``) go out as the site made them;
    every request, redirects included, counts in ``hits``."""
    handler = type("SiteHandler", (_SiteHandler,), {"site": site})
    return LoopbackServer(handler, port)


def serve_directory(path: str, port: int = 0) -> LoopbackServer:
    """Serve a folder of static files (e.g. a copy of a real site)."""
    handler = functools.partial(_QuietHandler, directory=path)
    return LoopbackServer(handler, port)
