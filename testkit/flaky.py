"""A generated site served the way a struggling server answers: slowly, and with bursts of
5xx errors. Wraps anything :func:`~bitextcrawl.demo.server.serve_site` serves (a
``lookup(host_header, path)``), deterministically by path:

* every ``burst_every``-th page answers its first ``burst`` requests with 503, then
  normally (a retry within ``RETRY_TIMES`` gets it);
* every ``slow_every``-th page answers after ``delay`` seconds (the handler's thread
  sleeps: the server's other threads go on);
* the paths in ``dead`` answer 500 every time (a page no retry gets).

``failures`` counts the error answers given, by path.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections import Counter

from bitextcrawl.demo.site_model import Resource

ERROR_BODY = b"<html><body><h1>Service unavailable</h1></body></html>"


class FlakySite:
    def __init__(self, site, burst_every: int = 3, burst: int = 2, slow_every: int = 4,
                 delay: float = 0.4, dead: tuple[str, ...] = ()):
        self.site = site
        self.start_url = site.start_url
        self.burst_every, self.burst = burst_every, burst
        self.slow_every, self.delay = slow_every, delay
        self.dead = set(dead)
        self.seen: Counter = Counter()      # path -> requests received
        self.failures: Counter = Counter()  # path -> error answers given
        self._lock = threading.Lock()

    @staticmethod
    def _bucket(path: str, every: int) -> bool:
        """Is ``path`` one of every ``every`` paths (by a hash stable across runs)?"""
        return every > 0 and zlib.crc32(path.encode()) % every == 0

    def lookup(self, host: str, path: str):
        resource = self.site.lookup(host, path)
        if resource is None or path in ("/robots.txt",):
            return resource
        with self._lock:
            self.seen[path] += 1
            n = self.seen[path]
            error = 500 if path in self.dead else \
                503 if self._bucket(path, self.burst_every) and n <= self.burst else None
            if error is not None:
                self.failures[path] += 1
        if error is not None:
            return Resource(status=error, headers={"Content-Type": "text/html"},
                            body=ERROR_BODY)
        if self._bucket(path, self.slow_every) and self.delay > 0:
            time.sleep(self.delay)
        return resource
