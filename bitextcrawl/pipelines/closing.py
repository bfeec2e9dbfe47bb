"""The closing pipeline: at spider close, the page store -> pairs, bitext and report in the
output dir, by :func:`bitextcrawl.outputs.run_closing` (which ``scrapy align`` calls too).
"""

from __future__ import annotations

import logging

from scrapy import signals

from bitextcrawl.context import CrawlContext
from bitextcrawl.pipelines.base import SitePipeline
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.preload import import_in_background
from bitextcrawl.signals import closing_started

logger = logging.getLogger(__name__)


class ClosingPipeline(SitePipeline):
    """Runs :func:`run_closing` over the page store when the spider closes."""

    enabled_by = "BITEXT_ALIGN_ENABLED"

    def __init__(self, crawler, context: CrawlContext | None = None):
        super().__init__(crawler, context)
        self.sentence_precision = crawler.settings.getfloat("BITEXT_SENTENCE_PRECISION")
        self.jobdir = crawler.settings.get("JOBDIR") or None

    def open_spider(self):
        # what the idle rounds and the close need, imported while the crawl waits on the
        # network; in the order the crawl's own thread would (no import-lock cycle)
        import_in_background("bitextcrawl.pairing.parallel_links", "bitextcrawl.outputs",
                             "bitextcrawl.bitext.extract")

    def close_spider(self, shared_pool=None):
        """The closing step; ``shared_pool``: the bitext stage's executor shared by the
        workers of a distributed crawl."""
        context = self.context
        engine = self.crawler.engine
        if engine is not None and not engine.running:
            # Ctrl-C / SIGTERM: the engine stops before closing the spider. Aligning a
            # half crawl would be thrown away on resume; the pages are safe in the store.
            # The advice names the files there once the store's export is done (at
            # spider_closed): the last line of the log.
            self.crawler.stats.set_value("bitext/align/skipped", "interrupted")
            self.crawler.signals.connect(self._advise, signal=signals.engine_stopped)
            return
        context.signals.send_catch_log(signal=closing_started)
        # imported here, not at the crawl's start (see open_spider)
        from bitextcrawl.outputs import run_closing
        from bitextcrawl.pairing.align import AlignConfig

        config = AlignConfig.from_settings(self.crawler.settings, context.langs)
        crawl_stats = {k: v for k, v in self.crawler.stats.get_stats().items()
                       if isinstance(v, (int, float, str))}
        # The store itself, not its records: run_closing keeps them without their HTML
        # and reads a page's HTML when its pair is aligned.
        try:
            stats = run_closing(context.store, config, context.output_dir,
                                pattern_db=PatternDB(context.pattern_db_path),
                                crawl_stats=crawl_stats, redirects=context.store.redirects(),
                                timeline=self._timeline(),
                                workers=self.crawler.settings.getint("BITEXT_WORKERS"),
                                sentence_precision=self.sentence_precision,
                                shared_pool=shared_pool)
        except OSError as exc:
            # a full disk (or a quota, a read-only mount): the outputs are written by
            # atomic_open, all or nothing, and the page store is untouched; one line says
            # so and how to write them later, and the crawl exits with EXIT_NOT_WRITTEN
            from bitextcrawl.outcome import WRITE_ERROR, not_written_advice

            self.crawler.stats.set_value(WRITE_ERROR, exc.strerror or str(exc))
            self.crawler.stats.set_value("bitext/align/skipped", "outputs_not_written")
            logger.error("%s", not_written_advice(context.output_dir, exc,
                                                  getattr(context.store, "path", None),
                                                  context.langs))
            return
        self.crawler.stats.set_value("bitext/pairs", stats["pairs"])
        self._log_cost(stats["pairs"])

    def _advise(self, spider=None):
        from bitextcrawl.outcome import interrupted_advice

        logger.warning("%s", interrupted_advice(self.context.output_dir, self.jobdir,
                                                self.context.langs))

    def _timeline(self) -> list:
        """The crawl's points (``extensions.timeline``), with one for now."""
        from bitextcrawl.extensions.timeline import STAT, add_point, snapshot

        points = list(self.crawler.stats.get_value(STAT) or [])
        if points:
            add_point(points, snapshot(self.crawler.stats))
        return points

    def _log_cost(self, pairs: int) -> None:
        """What the crawl cost per page stored and per pair found."""
        get = self.crawler.stats.get_value
        responses = get("downloader/response_count", 0)
        stored = get("bitext/pages/stored", 0)
        per_page = responses / stored if stored else None
        per_pair = responses / pairs if pairs else None
        self.crawler.stats.set_value("bitext/responses_per_page",
                                     round(per_page, 2) if per_page else None)
        self.crawler.stats.set_value("bitext/responses_per_pair",
                                     round(per_pair, 2) if per_pair else None)
        logger.info("Crawl cost: %d responses, %s per page stored (%d), %s per pair found (%d)",
                    responses, f"{per_page:.2f}" if per_page else "-", stored,
                    f"{per_pair:.2f}" if per_pair else "-", pairs)
