"""Language-ID downloader middleware: every HTML response becomes a page record.

The page is parsed once here (``pages.record.record_from_body``) and its language is
identified by fastText lid.176 on its main text, so the spider and the focus
middleware know the language before they follow its links. A page of a language variant
the crawl asks for (``langs=en,pt-br``) is labelled with it where its own declarations
name it (``pages.variants.page_lang``; the site's other pages' hreflang add to them at
the close); a page that declares none counts as the one variant asked for of its
language while no page of its site fetched so far declares a variant of it. Bad input is counted under ``bitext/bad/*`` or ``bitext/skipped/*`` and
passed on without a record; the crawl goes on.

With ``BITEXT_RECORD_WORKERS`` (default: the machine's cores but one) the records are
made in worker processes (``record_workers``) while this process goes on with
other responses; the language is decided here either way. A pool that breaks (a worker
killed) is counted (``bitext/record_workers/broken``) and the crawl goes on making
records in its own process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures.process import BrokenProcessPool

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import TextResponse
from scrapy.utils.reactor import is_asyncio_reactor_installed

from bitextcrawl.context import ATTRIBUTE as CONTEXT_ATTRIBUTE
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier, base_lang
from bitextcrawl.pages.record import language_fields, record_from_body
from bitextcrawl.pages.urls import site_of
from bitextcrawl.pages.variants import declared_variants, page_lang

logger = logging.getLogger(__name__)


def _asyncio_reactor() -> bool:
    try:
        return is_asyncio_reactor_installed()
    except RuntimeError:  # no reactor installed (a component built outside a crawl)
        return False


def _headers(response) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1"))
            for k, values in response.headers.items() for v in values]


class LanguageIdMiddleware:
    def __init__(self, crawler, identifier: LanguageIdentifier, workers=None):
        self.crawler = crawler
        self.stats = crawler.stats
        self.identifier = identifier
        self.workers = workers  # RecordWorkers, or None: records made in this process
        self.agreement: dict[str, DeclarationAgreement] = {}  # per site
        # per site, the languages of which its pages fetched so far declare a variant
        self.declaring: dict[str, set] = {}
        # the page store writes a WARC: a record worker makes the response's WARC record
        self.warc_in_worker = crawler.settings.getbool("BITEXT_WARC_ENABLED") and \
            bool(crawler.settings.get("BITEXT_PAGE_STORE"))
        if workers is not None:
            crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if "BITEXT_LID_MIN_PROB" not in settings:
            raise NotConfigured("BITEXT_ settings missing: use a bitextcrawl spider or settings")
        model, min_prob = settings.get("BITEXT_LID_MODEL") or None, \
            settings.getfloat("BITEXT_LID_MIN_PROB")
        workers = None
        n = settings.getint("BITEXT_RECORD_WORKERS")
        # a worker's record is awaited as an asyncio future: the asyncio reactor only
        if n > 0 and _asyncio_reactor():
            from bitextcrawl.extensions.collector import young_threshold
            from bitextcrawl.record_workers import RecordWorkers

            workers = RecordWorkers(n, model, min_prob, young_threshold(settings))
            crawler.stats.set_value("bitext/record_workers/processes", n)
            context = getattr(crawler, CONTEXT_ATTRIBUTE, None)
            if context is not None:
                context.record_workers = workers   # the store pipeline exports with one
        return cls(crawler, LanguageIdentifier(model, min_prob), workers)

    def engine_stopped(self):
        if self.workers is not None:
            self.workers.close()
            self.workers = None

    def process_response(self, request, response):
        if 300 <= response.status < 400 and b"Location" in response.headers:
            self._check_redirect_loop(request, response)
            return response
        if response.status != 200:
            return response
        content_language = response.headers.get(b"Content-Language")
        content_type = response.headers.get(b"Content-Type", b"").decode("latin-1")
        fields = {
            "requested_url": (request.meta.get("redirect_urls") or [request.url])[0],
            "redirect_urls": tuple(request.meta.get("redirect_urls", ())),
            "status": response.status,
            "content_language": content_language.decode("latin-1") if content_language else None,
            "depth": request.meta.get("depth", 0),
            "discovered_by": request.meta.get("bitext_discovered_by", "link"),
            "fetched_at": time.time(),
        }
        agreement = self.agreement.setdefault(site_of(response.url), DeclarationAgreement())
        if self.workers is not None and self.workers.ready:
            return self._record_from_worker(request, response, content_type, fields, agreement)
        if self.workers is not None:
            if self.workers.error is not None:
                self._workers_failed(self.workers.error)
            else:   # still starting: made here
                self.stats.inc_value("bitext/record_workers/not_ready")

        def identify(text, html_lang, content_lang):
            return self.identifier.identify(text, html_lang, content_lang, agreement)

        record = record_from_body(
            response.url, response.body, identify, self._count, content_type=content_type,
            decode=((lambda: (response.text, response.encoding))
                    if isinstance(response, TextResponse) else None), **fields)
        return self._attach(request, response, record)

    async def _record_from_worker(self, request, response, content_type: str, fields: dict,
                                  agreement: DeclarationAgreement):
        decoded = (response.text, response.encoding) if isinstance(response, TextResponse) \
            else None
        headers = _headers(response) if self.warc_in_worker else None
        try:
            future = self.workers.submit(response.url, response.body, content_type, decoded,
                                         fields, headers)
            record, reading, counts = await asyncio.wrap_future(future)
        except BrokenProcessPool as exc:
            self._workers_failed(exc)
            return self.process_response(request, response)
        for key in counts:
            self._count(key)
        if record is not None and reading is not None:
            ident = self.identifier.decide(*reading, record.html_lang, record.content_language,
                                           agreement)
            for name, value in language_fields(ident).items():
                setattr(record, name, value)
        return self._attach(request, response, record, headers)

    def _workers_failed(self, exc: BaseException) -> None:
        logger.warning("Record workers stopped (%s): records are made in the crawl's process"
                       " from now on", exc)
        self.stats.inc_value("bitext/record_workers/broken")
        self.engine_stopped()

    def _attach(self, request, response, record, headers: list | None = None):
        if record is None:
            return response
        context = getattr(self.crawler, CONTEXT_ATTRIBUTE, None)
        if context is not None and context.langs:
            declaring = self.declaring.setdefault(site_of(record.url), set())
            if any(base_lang(x) != x for x in context.langs):
                declaring.update(base_lang(v) for v in declared_variants(record))
            record.lang = page_lang(record, context.langs, declaring=declaring)
        if record.warc_member is None:   # the WARC record is made from these
            record.body = response.body
            record.http_headers = headers if headers is not None else _headers(response)
        self.stats.inc_value(f"bitext/lang/{record.lang}")
        request.meta["bitext_page"] = record
        return response

    def _count(self, key: str) -> None:
        self.stats.inc_value(f"bitext/{key}")

    def _check_redirect_loop(self, request, response) -> None:
        """A redirect back to a URL of its own chain is a loop (the dupefilter then drops it)."""
        try:
            target = response.urljoin(response.headers[b"Location"].decode("latin-1"))
        except (UnicodeDecodeError, ValueError):
            return
        chain = set(request.meta.get("redirect_urls", ())) | {request.url}
        if target in chain:
            self.stats.inc_value("bitext/bad/redirect_loop")
            logger.info("Redirect loop at %s -> %s", request.url, target)
