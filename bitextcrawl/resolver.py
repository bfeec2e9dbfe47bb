"""DNS resolver that answers ``*.localhost`` with 127.0.0.1, as RFC 6761 §6.3 asks.

Browsers do this; glibc does not. It lets a site with language subdomains
(``en.demo.localhost``, ``fr.demo.localhost``) be served and crawled on loopback.
"""

from __future__ import annotations

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

from bitextcrawl import config


class LocalhostResolver(CachingThreadedResolver):
    enabled = True

    @classmethod
    def from_crawler(cls, crawler, reactor):
        resolver = super().from_crawler(crawler, reactor)
        resolver.enabled = config.getbool(crawler.settings, "BITEXT_RESOLVE_LOCALHOST_ENABLED")
        return resolver

    def getHostByName(self, name: str, timeout=()):
        if self.enabled and (name == "localhost" or name.endswith(".localhost")):
            return defer.succeed("127.0.0.1")
        return super().getHostByName(name, timeout)
