"""An ``expand`` crawl's sites (``spiders/expand.py``): one site's round state and crawl
context (:class:`SiteCrawl`), the spider middleware that holds back the links of a site
still being checked (:class:`HoldMiddleware`), and why a check request got no response
(:func:`failure_kind`)."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING

from scrapy.exceptions import (CannotResolveHostError, DownloadConnectionRefusedError,
                               DownloadTimeoutError, IgnoreRequest)
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import (ConnectionRefusedError, DNSLookupError, TCPTimedOutError,
                                    TimeoutError)

from bitextcrawl.context import CrawlContext
from bitextcrawl.pages.urls import site_name, site_of
from bitextcrawl.sites.phases import CHECK, CRAWL, FAILED
from bitextcrawl.signals import SITE_MARK, SiteMark, SiteSignals, site_mark

if TYPE_CHECKING:
    from bitextcrawl.spiders.expand import ExpandSpider


def failure_kind(failure) -> str:
    """Why a request got no response, as ``expansion.jsonl`` reports a failed check."""
    if failure.check(IgnoreRequest) and "robots" in str(failure.value).lower():
        return "robots.txt forbids it"
    # Scrapy 2.19 wraps Twisted's errors in its own; both are checked.
    if failure.check(ConnectionRefusedError, DownloadConnectionRefusedError):
        return "unreachable: connection refused"
    if failure.check(DNSLookupError, CannotResolveHostError):
        return "unreachable: DNS lookup failed"
    if failure.check(TimeoutError, TCPTimedOutError, DownloadTimeoutError):
        return "unreachable: timeout"
    if failure.check(HttpError):
        return f"HTTP {failure.value.response.status}"
    return "unreachable: " + (failure.type.__name__ if failure.type else "error")


class SiteCrawl:
    """One site of an expand crawl: its round state, and the crawl context its pipelines
    share (its own output dir, scope, page budget, store and signals)."""

    def __init__(self, spider: "ExpandSpider", site: str, start_urls: list[str], round_no: int,
                 seed: bool = False, replaces: str = ""):
        self.spider = spider
        self.site = site
        self.start_urls = start_urls
        self.start_url = start_urls[0]
        self.round = round_no
        self.seed = seed
        self.replaces = replaces
        self.responses = 0              # responses of any kind (an answer, even 404)
        self.errors: Counter = Counter()  # failure_kind -> requests that got no response
        self.failure = ""               # why the check failed (no response at all)
        self.name = site_name(site)
        self.context = CrawlContext(
            spider.crawler.settings, os.path.join(spider.output_dir, "sites", self.name),
            spider.langs, site=site, start_url=self.start_url, max_pages=spider.max_pages,
            request_factory=self.page_request, scope=self.in_scope,
            # the crawler's bus, this site's events only
            signals=SiteSignals(spider.crawler.signals, site),
            frontier=spider.context.frontier,
            pattern_db=spider.pattern_db_path)  # one database for the sites of the rounds
        self.check_budget = spider.detect_pages
        self.check_urls: set[str] = set(start_urls)  # requested for the check
        self.phase = CHECK
        self.held: dict[str, object] = {}   # URL -> request held back while checking
        self.detection = None
        self.pipelines: list = []

    @property
    def output_dir(self) -> str:
        return self.context.output_dir

    @property
    def is_open(self) -> bool:
        return self.phase in (CHECK, CRAWL)

    def in_scope(self, url: str) -> bool:
        return site_of(url) == self.site

    def page_request(self, url: str, discovered_by: str = "link", link: dict | None = None,
                     priority: int = 0, check: str = "", **meta):
        """A request of this site (``check``: its part in the site's check, ``SiteMark``)."""
        meta[SITE_MARK] = SiteMark(self.site, check)
        return self.spider.page_request(url, discovered_by=discovered_by, link=link,
                                        priority=priority, **meta)

    def link_requests(self, links, from_root: bool, checking: bool):
        """The requests of a page's links (followable ones): while the site is checked, the
        root's links up to the check's budget, the others held back."""
        for link in links:
            url = link["url"]
            if from_root and self.check_budget > 0 and url not in self.check_urls:
                self.check_budget -= 1
                self.check_urls.add(url)
                yield self.page_request(url, link=link, check="link")
            elif checking:
                yield self.page_request(url, link=link, check="held")
            else:
                yield self.page_request(url, link=link)

    def no_response(self, kind: str) -> None:
        """A request of the site failed (``failure_kind``): an HTTP error is an answer."""
        if kind.startswith("HTTP"):
            self.responses += 1  # the server answered
        else:
            self.errors[kind] += 1

    def hold(self, request) -> bool:
        """Keep a request until the verdict; False if its URL is already held."""
        if request.url in self.held:
            return False
        self.held[request.url] = request
        return True

    def release(self) -> list:
        held, self.held = list(self.held.values()), {}
        return held

    def crawl(self) -> list:
        """The site passed its check: crawled from now; the links held, to schedule."""
        self.phase = CRAWL
        return self.release()

    def end(self, phase: str) -> None:
        """The site dropped or failed (``phase``): its held links forgotten."""
        self.held = {}
        self.phase = phase

    def pages(self) -> list:
        return list(self.context.store)

    def finish(self) -> list:
        """The round's end: the site's pages, its store closed."""
        pages = self.pages()
        self.context.close()
        return pages

    def fail(self) -> None:
        """No check request reached the site (connection refused, DNS, robots.txt): why
        is kept, its crawl ends and nothing more is read of it."""
        self.failure = self.errors.most_common(1)[0][0]
        self.spider.crawler.stats.inc_value("bitext/expand/failed")
        self.spider.site_pipelines.close_site(self)
        self.context.close()
        self.end(FAILED)

    def learn(self, page) -> None:
        """A page of the site: learned by its crawl state (its pipelines read it) and by
        the whole crawl's (the focus reads it)."""
        self.context.state.learn_page(page)
        self.spider.context.state.learn_page(page)


class HoldMiddleware(BaseSpiderMiddleware):
    """Holds back the links of a site still being checked (after the focus middleware has
    ordered or dropped them); the spider releases them if the site proves bilingual."""

    def get_processed_request(self, request, response):
        mark = site_mark(request.meta)
        if response is None or mark is None or mark.check != "held":
            return request
        site = getattr(self.crawler.spider, "sites", {}).get(mark.site)
        if site is not None and site.phase == CHECK:
            if site.hold(request):
                self.crawler.stats.inc_value("bitext/expand/held")
            return None
        return request
