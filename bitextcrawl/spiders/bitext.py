"""The ``bitext`` spider: crawl one bilingual site.

    scrapy crawl bitext -a start_url=URL -a langs=en,fr [-a max_pages=N]

The spider stays on the start URL's site (same registered domain, any subdomain),
yields one :class:`~bitextcrawl.pages.record.PageRecord` per HTML page (made by the
language-ID middleware) and follows its links; the focus middleware orders them,
the pipelines store, pair and align.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.linkextractors import IGNORED_EXTENSIONS
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import DNSLookupError, TCPTimedOutError, TimeoutError

from bitextcrawl import config
from bitextcrawl.context import CrawlContext
from bitextcrawl.defaults import DEFAULTS
from bitextcrawl.extensions.feeds import FEED_EXPORTERS
from bitextcrawl.pages.language import parse_langs
from bitextcrawl.pages.record import EXPORTED_FIELDS
from bitextcrawl.pages.urls import looks_like_trap, site_name, site_of
from bitextcrawl.pages.switches import named_like_a_code

__all__ = ["BitextSpider", "parse_langs", "settings_langs", "skip_extensions", "whole_number"]

NO_START_URL = ("the bitext spider needs the site to crawl: pass -a start_url=URL, e.g. "
                "scrapy crawl bitext -a start_url=https://nginx.org/ -a langs=en,ru")


def start_url_list(start_url: str | None = None, start_urls: str | None = None) -> list[str]:
    """The crawl's start URLs: ``start_url`` and ``start_urls`` (a comma-separated list,
    or a file of one URL a line, ``#`` comments), ``http://`` added where no scheme is
    given, in order, once each; ValueError (one line) when none is given, a file cannot
    be read or the URLs are of several sites."""
    urls = [start_url] if start_url else []
    if start_urls:
        if os.path.isfile(start_urls):
            try:
                with open(start_urls, encoding="utf-8") as fh:
                    urls += [line.split("#", 1)[0].strip() for line in fh]
            except (OSError, UnicodeError) as exc:
                raise ValueError(f"cannot read the start URLs file {start_urls}: {exc}")
        else:
            urls += start_urls.split(",")
    urls = [u.strip() for u in urls if u and u.strip()]
    urls = list(dict.fromkeys(u if "://" in u else "http://" + u for u in urls))
    if not urls:
        raise ValueError(NO_START_URL)
    sites = sorted({site_of(u) for u in urls})
    if len(sites) > 1:
        raise ValueError(f"the start URLs are of {len(sites)} sites ({', '.join(sites)}): the "
                         "bitext spider crawls one site; crawl each on its own, or several "
                         "with scrapy crawl expand")
    return urls


def whole_number(name: str, value, example: int = 500) -> int | None:
    """``value`` (a spider argument) as an int >= 0; None for None or ""; ValueError
    with a one-line message (``-a NAME=EXAMPLE``) otherwise."""
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0:
        raise ValueError(f"{name} must be a whole number (0 or more), like -a {name}={example} "
                         f"(got {value!r})")
    return number


def settings_langs(langs, settings) -> tuple[str, ...]:
    """The crawl's languages: ``-a langs=`` else ``BITEXT_LANGS``, checked against the
    labels of the language-ID model (``BITEXT_LID_MODEL``) and normalised to them."""
    model = settings.get("BITEXT_LID_MODEL") or None
    if langs:
        return parse_langs(langs, model, name="langs")
    return parse_langs(settings.get("BITEXT_LANGS") or DEFAULTS["BITEXT_LANGS"], model,
                       name="BITEXT_LANGS")


def skip_extensions(value) -> tuple[str, ...]:
    """File name endings whose links are not followed: Scrapy's IGNORED_EXTENSIONS and
    ``value`` (comma-separated; "-" = none at all)."""
    if isinstance(value, str) and value.strip() == "-":
        return ()
    items = value.split(",") if isinstance(value, str) else list(value or ())
    exts = {x.strip().lower().lstrip(".") for x in [*IGNORED_EXTENSIONS, *items] if x.strip()}
    return tuple(sorted("." + x for x in exts))


class BitextSpider(scrapy.Spider):
    name = "bitext"
    # max_pages is a budget of the crawl's responses (middlewares/budget.py)
    response_budget = True

    def __init__(self, start_url: str | None = None, langs: str | None = None,
                 max_pages: str | int | None = None, start_urls: str | None = None,
                 *args, **kwargs):
        # Scrapyd passes extra arguments (_job, setting=...): Spider keeps them as attributes.
        super().__init__(*args, **kwargs)
        self.start_url_list = start_url_list(start_url, start_urls)
        self.start_url = self.start_url_list[0]
        self.site = site_of(self.start_url)
        self._langs_arg = langs
        self._max_pages_arg = max_pages
        self.context: CrawlContext | None = None   # made by from_crawler

    @classmethod
    def update_settings(cls, settings):
        settings.setdict(DEFAULTS, priority="default")
        # Scrapy's feed exports (-o/-O) write a page record's exported fields, those of
        # pages.jsonl: its transient ones hold bytes and dicts with tuple keys, which no
        # feed format can write; the JSON exporters write its frozensets as lists. At
        # "spider" priority: Scrapy's crawl() updates a crawler's settings with the
        # process's, which replace values of the same priority. A user's own wins.
        if settings.get("FEED_EXPORT_FIELDS") is None:
            settings.set("FEED_EXPORT_FIELDS", list(EXPORTED_FIELDS), priority="spider")
        if not settings.getdict("FEED_EXPORTERS"):
            settings.set("FEED_EXPORTERS", dict(FEED_EXPORTERS), priority="spider")
        super().update_settings(settings)

    @classmethod
    def check_arguments(cls, settings, start_url=None, langs=None, max_pages=None,
                        start_urls=None, **_):
        """ValueError, with a one-line message saying what to pass, for spider arguments
        this crawl cannot run with. ``scrapy crawl`` calls it before the crawl starts
        (:mod:`bitextcrawl.commands.crawl`) and prints the message alone; ``__init__`` and
        ``from_crawler`` raise the same messages for crawls started otherwise."""
        start_url_list(start_url, start_urls)
        settings_langs(langs, settings)
        whole_number("max_pages", max_pages)

    @classmethod
    def preflight(cls, settings, start_url=None, start_urls=None, **_) -> list[str]:
        """RuntimeError, with one line, when the crawl cannot run: its output dir cannot
        be written or holds another crawl, or a start URL does not answer (DNS, refused,
        TLS, robots.txt forbids it). ``scrapy crawl`` calls it after
        :meth:`check_arguments`, before anything is written; with
        ``BITEXT_OVERWRITE_ENABLED`` it then deletes the other crawl's files, and returns
        their names."""
        from bitextcrawl import preflight

        urls = start_url_list(start_url, start_urls)
        output_dir = settings.get("BITEXT_OUTPUT_DIR") or os.path.join(
            "output", site_name(urls[0]))
        checks = [lambda: preflight.check_output_dir(output_dir)]
        if settings.get("BITEXT_PAGE_STORE") == DEFAULTS["BITEXT_PAGE_STORE"]:
            # the crawl's own store in the output dir (a shared one, Redis, is meant to be
            # shared: the workers of one crawl, its restarts)
            checks.append(lambda: preflight.check_previous_crawl(
                output_dir, settings.get("JOBDIR"),
                config.getbool(settings, "BITEXT_OVERWRITE_ENABLED")))
        timeout = min(settings.getfloat("DOWNLOAD_TIMEOUT") or 15.0, 15.0)
        checks.append(lambda: preflight.check_redis_of(settings, timeout))
        for url in urls:
            checks.append(lambda url=url: preflight.check_start_url(
                url, settings.get("USER_AGENT") or "*", timeout,
                config.getbool(settings, "BITEXT_RESOLVE_LOCALHOST_ENABLED"),
                settings.getbool("ROBOTSTXT_OBEY")))
        for check in checks:
            message = check()
            if message:
                raise RuntimeError(message)
        if config.getbool(settings, "BITEXT_OVERWRITE_ENABLED"):
            return preflight.remove_crawl_files(output_dir)
        return []

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.configure(crawler.settings)
        spider.context = spider.make_context(crawler.settings).install(crawler)
        return spider

    def configure(self, settings) -> None:
        """The spider's own settings, read once its arguments are known."""
        self.langs = settings_langs(self._langs_arg, settings)
        self.max_pages = (whole_number("max_pages", self._max_pages_arg)
                          or settings.getint("BITEXT_MAX_PAGES") or 0)
        self.output_dir = settings.get("BITEXT_OUTPUT_DIR") or os.path.join(
            "output", site_name(self.start_url))
        self.trap_repeats = settings.getint("BITEXT_TRAP_MAX_REPEATS")
        self.trap_segments = settings.getint("BITEXT_TRAP_MAX_SEGMENTS")
        self.skip_duplicate_links = config.getbool(
            settings, "BITEXT_FOCUS_SKIP_DUPLICATE_LINKS_ENABLED")
        self.skip_extensions = skip_extensions(settings.get("BITEXT_SKIP_EXTENSIONS"))

    @property
    def answered(self) -> set[str]:
        """URLs answered in this run (the crawl state's)."""
        return self.context.state.answered

    def make_context(self, settings) -> CrawlContext:
        """The context of this crawl, which every component reaches from the crawler."""
        return CrawlContext(settings, self.output_dir, self.langs, site=self.site,
                            start_url=self.start_url, max_pages=self.max_pages,
                            request_factory=self.page_request, scope=self.in_scope,
                            response_budget=self.response_budget)

    async def start(self):
        for url in self.start_url_list:
            yield self.page_request(url, discovered_by="start")

    def page_request(self, url: str, discovered_by: str = "link", link: dict | None = None,
                     priority: int = 0, **meta) -> scrapy.Request:
        meta.update({"bitext_discovered_by": discovered_by, "bitext_link": link})
        return scrapy.Request(url, callback=self.parse, errback=self.on_error,
                              priority=priority, meta=meta)

    def in_scope(self, url: str) -> bool:
        return site_of(url) == self.site

    def parse(self, response):
        self._answered(response.request)
        page = response.meta.get("bitext_page")
        if page is None:  # not an HTML page; the language-ID middleware counted why
            return
        stats = self.crawler.stats
        if not self.context.take_page():
            stats.inc_value("bitext/pages/over_max_pages")
            return
        if page.requested_url and page.requested_url != (page.fetched_url or page.url):
            stats.inc_value("bitext/http/redirected")
        duplicate = self.context.state.learn_page(page)
        yield page
        if duplicate and self.skip_duplicate_links:
            # the same content under another URL (dir/ and dir/index.html, a fallback copy,
            # a redirect target): its links were followed there
            stats.inc_value("bitext/links/skipped_duplicate_page")
            return
        code_alone = named_like_a_code(page.links)
        for i, link in enumerate(page.links):
            if self.followable(link["url"], self.in_scope):
                if i in code_alone:
                    link = {**link, "code_alone": True}   # no language switch
                yield self.page_request(link["url"], link=link)

    def followable(self, url: str, in_scope) -> bool:
        """Is a link to ``url`` worth a request? If not, why is counted."""
        reason = None
        # first the commonest reason and the cheapest test (menus link pages already
        # downloaded): a URL the server answered is not requested again, whatever else
        if url in self.answered:
            reason = "links/already_answered"
        elif not in_scope(url):
            reason = "links/offsite"
        elif looks_like_trap(url, self.trap_repeats, self.trap_segments):
            reason = "bad/trap"
        elif self.skip_extensions and urlsplit(url).path.lower().endswith(self.skip_extensions):
            reason = "links/skipped_extension"  # an archive, image, ...
        if reason is not None:
            self.crawler.stats.inc_value("bitext/" + reason)
        return reason is None

    def _answered(self, request) -> None:
        """The server answered ``request`` (a page or an HTTP error): its URLs are done."""
        self.context.state.answer(request.url, request.meta.get("redirect_urls", ()))

    def on_error(self, failure):
        """Count what went wrong by kind; the crawl goes on."""
        stats = self.crawler.stats
        request = getattr(failure, "request", None)
        if request is not None and request.meta.get("bitext_held"):
            return  # the focus middleware holds it back for now (bitext/focus/held)
        discovered_by = request.meta.get("bitext_discovered_by") if request is not None else None
        if discovered_by == "pattern":
            stats.inc_value("bitext/recovery/failed")
        elif discovered_by == "parallel_link":
            stats.inc_value("bitext/parallel_links/failed")
        if failure.check(HttpError):
            self._answered(request)
            status = failure.value.response.status
            stats.inc_value(f"bitext/http/{status}")
            stats.inc_value(f"bitext/bad/http_{status // 100}xx")
        elif failure.check(IgnoreRequest):
            reason = str(failure.value).lower()
            if "robots.txt" in reason:
                return  # a link not followed (robotstxt/forbidden), not a failure
            kind = "redirect_loop" if "redirect" in reason else "ignored"
            stats.inc_value(f"bitext/bad/{kind}")
        elif failure.check(DNSLookupError):
            stats.inc_value("bitext/bad/dns")
        elif failure.check(TimeoutError, TCPTimedOutError):
            stats.inc_value("bitext/bad/timeout")
        else:
            name = failure.type.__name__ if failure.type else "error"
            if "max size" in failure.getErrorMessage().lower() or name == "DownloadCancelledError":
                stats.inc_value("bitext/bad/too_large")  # DOWNLOAD_MAXSIZE cancelled it
            else:
                stats.inc_value(f"bitext/bad/{name}")
        self.logger.debug("%s failed: %s", request.url if request is not None else "?",
                          failure.getErrorMessage())
