"""``scrapy align INPUT... --langs en,fr -o DIR``: the closing pipeline, offline.

Inputs: a crawl's ``pages.jsonl``, WMT16 ``.lett``/``.lett.gz``, ``.warc``/``.warc.gz``
(any mix). Unreadable records are skipped and counted in ``stats.json``; an input
file that cannot be opened is a usage error naming it.
"""

from __future__ import annotations

import logging
import os
from collections import Counter

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from bitextcrawl.formats import iter_pages
from bitextcrawl.pages.language import LanguageIdentifier
from bitextcrawl.pairing.align import AlignConfig
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.pipelines.closing import progress, run_closing
from bitextcrawl.spiders.bitext import parse_langs

logger = logging.getLogger(__name__)


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "INFO"}

    def syntax(self) -> str:
        return "INPUT... --langs en,fr -o DIR"

    def short_desc(self) -> str:
        return "Align pages from pages.jsonl / .lett / .warc files into pairs and bitext"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("--langs", default=None, help="languages, first one pairs with each other (default BITEXT_LANGS)")
        parser.add_argument("-o", "--output", required=True, help="output dir")
        parser.add_argument("--stages", default=None,
                            help="comma-separated stages to use (url_pattern,hreflang,structure,content,ets)")
        parser.add_argument("--no-bitext", action="store_true", help="page pairs only")

    def run(self, args, opts):
        if not args:
            raise UsageError("give at least one input file", print_help=True)
        configure_logging(self.settings)
        s = self.settings
        try:
            langs = parse_langs(opts.langs or s.get("BITEXT_LANGS"))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        identifier = LanguageIdentifier(s.get("BITEXT_LID_MODEL") or None,
                                        s.getfloat("BITEXT_LID_MIN_PROB"))
        input_stats: Counter = Counter()
        pages, seen = [], set()
        for path in args:
            try:
                for page in progress(iter_pages(path, identify=identifier.identify,
                                                stats=input_stats), f"read {os.path.basename(path)}"):
                    if page.url in seen:
                        input_stats["bitext/input/skipped/duplicate_url"] += 1
                        continue
                    seen.add(page.url)
                    pages.append(page)
            except (OSError, ValueError) as exc:
                raise UsageError(f"cannot read {path}: {exc}") from exc
        logger.info("Read %d pages from %d input(s); %s", len(pages), len(args), dict(input_stats))
        config = AlignConfig.from_settings(s, langs)
        if opts.stages:
            config.stages = tuple(x.strip() for x in opts.stages.split(",") if x.strip())
        db_path = s.get("BITEXT_PATTERN_DB") or os.path.join(opts.output, "patterns-db.json")
        stats = run_closing(pages, config, opts.output, pattern_db=PatternDB(db_path),
                            crawl_stats=dict(input_stats), bitext=not opts.no_bitext)
        print(f"{stats['pairs']} pairs from {stats['pages']} pages -> {opts.output}")
