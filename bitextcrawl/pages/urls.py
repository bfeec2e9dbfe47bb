"""URL helpers: the site a URL belongs to, canonical form, crawler-trap shapes."""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from functools import lru_cache
from urllib.parse import urldefrag, urlsplit

import tldextract

# The bundled public-suffix snapshot: no download at run time.
_extract = tldextract.TLDExtract(suffix_list_urls=())


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


@lru_cache(maxsize=65536)
def site_of(url: str) -> str:
    """``scheme://registered-domain[:port]``: subdomains (``en.``, ``fr.``) are the same site.

    IP hosts and single-label or ``.localhost`` hosts, which have no public suffix, use
    the host itself, or its last two labels (``en.demo.localhost`` -> ``demo.localhost``).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port
    if _is_ip(host):
        domain = host
    else:
        ext = _extract(host)
        if ext.suffix and ext.domain:
            domain = f"{ext.domain}.{ext.suffix}"
        else:
            labels = host.split(".")
            domain = ".".join(labels[-2:])
    default = {"http": 80, "https": 443}.get(parts.scheme)
    suffix = f":{port}" if port and port != default else ""
    return f"{parts.scheme}://{domain}{suffix}"


def site_name(url: str) -> str:
    """A file-system-safe name for a site (the default output folder)."""
    site = site_of(url).split("://", 1)[1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", site)


def canonical(url: str) -> str:
    """Fragment removed; the rest as the site wrote it (query order can matter)."""
    return urldefrag(url)[0]


def looks_like_trap(url: str, max_repeats: int = 3, max_segments: int = 20) -> bool:
    """Calendar/session traps: a path segment repeated many times, or absurd depth."""
    path = urlsplit(url).path
    segments = [s for s in path.split("/") if s]
    if len(segments) > max_segments:
        return True
    counts = Counter(segments)
    return bool(counts) and max(counts.values()) > max_repeats
