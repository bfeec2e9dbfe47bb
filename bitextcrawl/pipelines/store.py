"""Page store pipeline: every page record to the store (and its raw response to WARC).

At close, the store is exported to ``pages.jsonl`` in the output dir: one record per
content, other URLs of the same page (redirects, fallback copies) in its ``aliases``. With
record workers (``BITEXT_RECORD_WORKERS``) and the SQLite store, one of them exports while
the closing pipeline pairs and aligns; the crawl waits for it when the spider closes.
"""

from __future__ import annotations

import logging
import os

from scrapy import signals
from scrapy.exceptions import DropItem, NotConfigured

from bitextcrawl.context import CrawlContext
from bitextcrawl.pipelines.base import SitePipeline
from bitextcrawl.formats.warc import WarcPageWriter
from bitextcrawl.outcome import WRITE_ERROR
from bitextcrawl.store.export import export_pages, export_store
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.signals import closing_started, url_rewritten
from bitextcrawl.store.sqlite import SQLitePageStore

logger = logging.getLogger(__name__)


class PageStorePipeline(SitePipeline):
    def __init__(self, crawler, context: CrawlContext | None = None):
        super().__init__(crawler, context)
        self.output_dir = self.context.output_dir
        self.warc_enabled = crawler.settings.getbool("BITEXT_WARC_ENABLED")
        self.store = None
        self.warc = None
        self.pages_path = os.path.join(self.output_dir, "pages.jsonl")
        self.export = None   # the export's future, when a record worker makes it
        self.context.signals.connect(self.response_downloaded,
                                     signal=signals.response_downloaded)
        self.context.signals.connect(self.url_rewritten, signal=url_rewritten)
        self.context.signals.connect(self.closing_started, signal=closing_started)

    @classmethod
    def from_crawler(cls, crawler, context: CrawlContext | None = None):
        if not crawler.settings.get("BITEXT_PAGE_STORE"):
            raise NotConfigured
        return cls(crawler, context)

    def open_spider(self):
        self.store = self.context.store
        stored = len(self.store)
        if stored:
            logger.info("Resuming: %d pages already in %s", stored, self.output_dir)
            self.context.pages_seen = stored
        self.stats.set_value("bitext/pages/resumed", stored)
        if self.warc_enabled:
            self.warc = WarcPageWriter(os.path.join(self.output_dir, "pages.warc.gz"))
            if self.warc.bytes_dropped:  # the last run was killed mid-record
                logger.warning("Dropped a torn record (%d bytes) at the end of %s",
                               self.warc.bytes_dropped, self.warc.path)
                self.stats.set_value("bitext/resume/warc_bytes_dropped", self.warc.bytes_dropped)

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        if self.store.has_content(item.content_hash):
            self.stats.inc_value("bitext/pages/duplicate_content")  # kept: URLs differ
        if not self.store.add(item):
            self.stats.inc_value("bitext/pages/duplicate_url")
            raise DropItem(f"already stored: {item.url}", log_level="DEBUG")
        if self.warc is not None:
            if item.warc_member is not None and self.warc.gzip:   # a record worker's
                self.warc.write_member(item.warc_member)
            elif item.body is not None:
                self.warc.write_response(item.fetched_url or item.url, item.status,
                                         item.http_headers or [], item.body, item.fetched_at)
        # the raw bytes are in the WARC now, the encoded content in the store: free them
        item.body = item.warc_member = item.stored_content = None
        self.stats.inc_value("bitext/pages/stored")
        self.stats.inc_value(f"bitext/pages/stored/{item.lang}")
        return item

    def response_downloaded(self, response, request, spider=None):
        """Every redirect the site answers, requested URL -> target, kept in the store:
        links written to the requested URL resolve to the page at the end of the chain,
        even when the dupefilter drops the redirected request (the page was stored)."""
        if self.store is None or not 300 <= response.status < 400:
            return
        location = response.headers.get(b"Location")
        if not location:
            return
        try:
            target = response.urljoin(location.decode("latin-1").strip())
        except ValueError:
            return
        if target != request.url:
            self.store.add_redirect(request.url, target)
            self.stats.inc_value("bitext/redirects/seen")

    def url_rewritten(self, source, target):
        """A link rewritten before download the way the site redirects: kept as a redirect."""
        if self.store is not None:
            self.store.add_redirect(source, target)

    def closing_started(self):
        """The closing pipeline is about to pair and align: export in a record worker now."""
        self._start_export()

    def close_spider(self):
        if self.warc is not None:
            try:
                self.warc.close()
            except OSError as exc:   # a full disk: the store keeps the pages all the same
                self._not_written(self.warc.path, exc)
        if self.export is None and not self._start_export():
            self._export_here()
        # (the store stays open for the spider_closed handlers; the context closes it)

    def _export_here(self) -> None:
        try:
            self._exported(export_pages(self.store, self.pages_path, self.context.langs))
        except OSError as exc:
            self._not_written(self.pages_path, exc)

    def _not_written(self, path: str, exc: OSError) -> None:
        """A file of the crawl that a full disk (or the like) kept from being written: one
        WARNING line (the closing step's ERROR line says what to do), the exit status
        :data:`~bitextcrawl.outcome.EXIT_NOT_WRITTEN`."""
        self.stats.set_value(WRITE_ERROR, exc.strerror or str(exc))
        logger.warning("%s not written: %s", path, exc.strerror or exc)

    def _start_export(self) -> bool:
        """Have a record worker export the store (once), the result taken at spider_closed;
        False when there is none to ask."""
        if self.export is not None:
            return True
        workers = self.context.record_workers
        if workers is None or not workers.ready or not isinstance(self.store, SQLitePageStore) \
                or self.context.signals is not self.crawler.signals:
            return False
        self.export = workers.pool.submit(export_store, self.output_dir, self.pages_path,
                                          self.context.langs)
        self.crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        return True

    def spider_closed(self, spider=None):
        try:
            n = self.export.result()
        except Exception as exc:  # noqa: BLE001 - a broken worker: export here instead
            if isinstance(exc, OSError):
                self._not_written(self.pages_path, exc)
                return
            logger.warning("Export of %s in a worker failed (%s): exported here",
                           self.pages_path, exc)
            self._export_here()
            return
        self._exported(n)

    def _exported(self, n: int) -> None:
        logger.info("Exported %d page records (one per content) to %s", n, self.pages_path)
