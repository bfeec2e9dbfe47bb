"""Checks before a crawl starts: can its output dir be written, does its start URL answer.

Each check returns None when the crawl can go, otherwise the one line that says what is
wrong (``scrapy crawl`` prints it and exits before anything is written). No Scrapy here.

- :func:`check_output_dir`: the dir, or the nearest folder above it that exists, is a
  writable folder. Nothing is created.
- :func:`check_start_url`: the host resolves (DNS), accepts a connection, completes a
  TLS handshake for ``https``, and its ``robots.txt`` (when obeyed) does not forbid the
  start URL to the crawl's user agent. Certificates are not verified, as Scrapy does not.
- :func:`check_redis`: the distributed profile's ``REDIS_URL`` answers a PING, with its
  password and, for ``rediss://``, over TLS (the URL's certificate options, verified).
"""

from __future__ import annotations

import http.client
import os
import socket
import ssl
import tempfile
import urllib.request
from urllib.parse import urlsplit


def _unwritable(folder: str) -> str | None:
    """Why no file can be made in ``folder``, or None: a file is made there and deleted
    at once (permissions alone do not say: root passes them, and /proc refuses root)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return "permission denied"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def check_output_dir(path: str) -> str | None:
    """Why ``path`` cannot be the output dir, or None."""
    path = os.path.abspath(path)
    if os.path.exists(path):
        if not os.path.isdir(path):
            return f"the output dir {path} is a file, not a folder"
        why = _unwritable(path)
        return f"the output dir {path} is not writable ({why})" if why else None
    parent = os.path.dirname(path)
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return f"cannot create the output dir {path}: {parent} is a file, not a folder"
    why = _unwritable(parent)
    return f"cannot create the output dir {path} in {parent} ({why})" if why else None


def _address(host: str, port: int, resolve_localhost: bool):
    if resolve_localhost and (host == "localhost" or host.endswith(".localhost")):
        return "127.0.0.1"
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return infos[0][4][0]


def check_start_url(url: str, user_agent: str = "*", timeout: float = 15.0,
                    resolve_localhost: bool = True, obey_robots: bool = True) -> str | None:
    """Why the crawl of ``url`` cannot start, or None (see the module)."""
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        return f"the start URL {url} is not an http(s) URL"
    if urllib.request.getproxies().get(parts.scheme):
        return None  # the crawl goes through a proxy: a direct connection proves nothing
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = _address(host, port, resolve_localhost)
    except (socket.gaierror, UnicodeError) as exc:
        return f"the start URL {url} does not answer: cannot resolve {host} (DNS: {exc.strerror or exc})"
    try:
        sock = socket.create_connection((address, port), timeout=timeout)
    except ConnectionRefusedError:
        return f"the start URL {url} does not answer: connection refused by {host}:{port}"
    except TimeoutError:
        return f"the start URL {url} does not answer: no connection to {host}:{port} in {timeout:g} s"
    except OSError as exc:
        return f"the start URL {url} does not answer: {host}:{port}: {exc.strerror or exc}"
    try:
        if parts.scheme == "https":
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            try:
                sock = context.wrap_socket(sock, server_hostname=host)
            except (ssl.SSLError, OSError) as exc:
                return (f"the start URL {url} does not answer: TLS handshake with "
                        f"{host}:{port} failed ({getattr(exc, 'reason', None) or exc})")
        if obey_robots:
            return _robots_forbids(sock, parts, user_agent, timeout)
        return None
    finally:
        sock.close()


def _robots_forbids(sock, parts, user_agent: str, timeout: float) -> str | None:
    """Read ``/robots.txt`` on the open connection ``sock``; the message if it forbids
    the start URL. Anything but a 200 with rules allows it (as Scrapy's middleware)."""
    netloc = parts.netloc.rsplit("@", 1)[-1]
    try:
        sock.settimeout(timeout)
        conn = http.client.HTTPConnection(parts.hostname, timeout=timeout)
        conn.sock = sock
        conn.request("GET", "/robots.txt", headers={"Host": netloc, "User-Agent": user_agent})
        response = conn.getresponse()
        if response.status != 200:
            return None
        body = response.read(512 * 1024).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return None   # the crawl will see for itself
    from protego import Protego

    url = parts.geturl()
    if Protego.parse(body).can_fetch(url, user_agent):
        return None
    return (f"robots.txt of {parts.scheme}://{netloc} forbids {url} to the user agent "
            f"{user_agent!r}: nothing would be crawled")


def shown_url(url: str) -> str:
    """A Redis URL as messages show it: its password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[-1]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def uses_redis(settings) -> bool:
    """Do these settings crawl with Redis (the distributed profile's scheduler or store)?"""
    return any("redis" in str(settings.get(name) or "").lower()
               for name in ("SCHEDULER", "BITEXT_PAGE_STORE"))


def check_redis_of(settings, timeout: float = 10.0) -> str | None:
    """:func:`check_redis` of the settings' ``REDIS_URL`` where they crawl with Redis."""
    if not uses_redis(settings):
        return None
    return check_redis(settings.get("REDIS_URL") or "redis://127.0.0.1:6379/0",
                       settings.getdict("REDIS_PARAMS"), timeout)


def check_redis(url: str, params: dict | None = None, timeout: float = 10.0) -> str | None:
    """Why the crawl cannot use the Redis at ``url`` (``REDIS_URL``; ``params``:
    ``REDIS_PARAMS``), or None: it must answer a PING, authenticated."""
    try:
        import redis
    except ImportError:
        return ("the distributed profile needs the redis package: "
                "pip install -r requirements.txt, or pip install \".[redis]\" "
                "from the checkout's folder")
    shown = shown_url(url)
    options = {k: v for k, v in (params or {}).items()
               if k not in ("url", "socket_connect_timeout", "socket_timeout")}
    client = None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout,
                                      socket_timeout=timeout, **options)
        client.ping()
    except ValueError as exc:
        return f"REDIS_URL={shown} is not a Redis URL: {exc}"
    except redis.exceptions.AuthenticationError as exc:
        if urlsplit(url).password is None:
            return (f"Redis at {shown} asks for a password: put it in REDIS_URL "
                    "(redis://:PASSWORD@host:port/0)")
        return f"Redis at {shown} refused the password of REDIS_URL ({exc})"
    except redis.exceptions.ResponseError as exc:
        return f"Redis at {shown} refused the connection: {exc}"
    except redis.exceptions.RedisError as exc:
        tls = " (a rediss:// URL needs a Redis that speaks TLS on that port)" \
            if url.startswith("rediss://") else ""
        return f"Redis at {shown} does not answer: {exc}{tls}"
    finally:
        if client is not None:
            client.close()
    return None


# What a crawl (and ``scrapy align``) writes in its output dir; the demo adds ``gold.tsv``.
CRAWL_FILES = ("pages.sqlite", "pages.sqlite-wal", "pages.sqlite-shm", "pages.sqlite-journal",
               "pages.jsonl", "pages.warc.gz", "pairs.jsonl", "pairs.jsonl.gz",
               "patterns.json", "patterns-db.json", "bitext.tsv", "bitext.tsv.gz",
               "parallel_links.jsonl", "parallel_links.jsonl.gz", "stats.json", "report.html")
# A crawl's store: what a second crawl into the same dir would add to.
STORE_FILES = ("pages.sqlite", "pages.warc.gz", "pages.jsonl", "stats.json")


def crawl_files(output_dir: str) -> list[str]:
    """The names in ``output_dir`` that a crawl writes (sorted)."""
    try:
        names = os.listdir(output_dir)
    except OSError:
        return []
    return sorted(n for n in names if n in CRAWL_FILES or _is_crawl_file(n))


def _is_crawl_file(name: str) -> bool:
    return (name.startswith("bitext.") and name.endswith((".tmx", ".tmx.gz"))) \
        or (name.startswith("pages-") and name.endswith(".warc.gz"))


def check_previous_crawl(output_dir: str, jobdir: str | None, overwrite: bool) -> str | None:
    """Why a crawl cannot write into ``output_dir``, which holds another crawl's store:
    only a resume (``jobdir`` holding that crawl's state) or ``overwrite`` may."""
    found = [n for n in crawl_files(output_dir) if n in STORE_FILES]
    if not found or overwrite:
        return None
    if jobdir and os.path.exists(os.path.join(jobdir, "requests.seen")):
        return None   # resuming the crawl whose state JOBDIR holds
    return (f"the output dir {output_dir} holds another crawl ({', '.join(found)}): resume it "
            f"with the JOBDIR it ran with, replace it with -s BITEXT_OVERWRITE_ENABLED=True, "
            f"or choose another -s BITEXT_OUTPUT_DIR")


def remove_crawl_files(output_dir: str) -> list[str]:
    """Delete what a crawl wrote in ``output_dir`` (nothing else); the names deleted."""
    names = crawl_files(output_dir)
    for name in names:
        os.remove(os.path.join(output_dir, name))
    return names
