"""Language-ID downloader middleware: every HTML response becomes a page record.

The page is parsed once here (``pages.record.record_from_body``) and its language is
identified by fastText lid.176 on its main text, so the spider and the focus
middleware know the language before they follow its links. Bad input is counted
under ``bitext/bad/*`` or ``bitext/skipped/*`` and passed on without a record; the
crawl goes on.
"""

from __future__ import annotations

import logging
import time

from scrapy.exceptions import NotConfigured
from scrapy.http import TextResponse

from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier
from bitextcrawl.pages.record import record_from_body
from bitextcrawl.pages.urls import site_of

logger = logging.getLogger(__name__)


class LanguageIdMiddleware:
    def __init__(self, crawler, identifier: LanguageIdentifier):
        self.crawler = crawler
        self.stats = crawler.stats
        self.identifier = identifier
        self.agreement: dict[str, DeclarationAgreement] = {}  # per site

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if "BITEXT_LID_MIN_PROB" not in settings:
            raise NotConfigured("BITEXT_ settings missing: use a bitextcrawl spider or settings")
        identifier = LanguageIdentifier(settings.get("BITEXT_LID_MODEL") or None,
                                        settings.getfloat("BITEXT_LID_MIN_PROB"))
        return cls(crawler, identifier)

    def process_response(self, request, response):
        if 300 <= response.status < 400 and b"Location" in response.headers:
            self._check_redirect_loop(request, response)
            return response
        if response.status != 200 or request.meta.get("bitext_raw"):
            return response
        content_language = response.headers.get(b"Content-Language")
        agreement = self.agreement.setdefault(site_of(response.url), DeclarationAgreement())

        def identify(text, html_lang, content_lang):
            return self.identifier.identify(text, html_lang, content_lang, agreement)

        record = record_from_body(
            response.url, response.body, identify, self._count,
            content_type=response.headers.get(b"Content-Type", b"").decode("latin-1"),
            decode=((lambda: (response.text, response.encoding))
                    if isinstance(response, TextResponse) else None),
            requested_url=(request.meta.get("redirect_urls") or [request.url])[0],
            redirect_urls=request.meta.get("redirect_urls", ()),
            status=response.status,
            content_language=content_language.decode("latin-1") if content_language else None,
            depth=request.meta.get("depth", 0),
            discovered_by=request.meta.get("bitext_discovered_by", "link"),
            fetched_at=time.time(),
        )
        if record is None:
            return response
        record.body = response.body
        record.http_headers = [(k.decode("latin-1"), v.decode("latin-1"))
                               for k, values in response.headers.items() for v in values]
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
