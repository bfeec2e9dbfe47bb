"""``scrapy urlpairs FILE --langs en,fr``: URL-only pairing by learned patterns [Zhang 2013 §2.1].

FILE holds one URL a line, or ``lang<TAB>url`` (blank lines and ``#`` comments are skipped;
``-`` reads standard input). URLs of many sites may be mixed: each site is learned on its own
and weak local keys are rescued by their credibility across all sites (and, with
``--pattern-db``, across earlier runs), or where their two tokens are the site's own markers of
the two languages, learned from the languages of its URLs (a partial translation of a
multilingual site). Languages and labels take the crawl's aliases (``cn`` is ``zh``), in
``--langs``, in the labels and as URL tokens (nginx.org's ``/cn/``). Prints ``url_1<TAB>url_2`` lines (url_1 in the first language); progress
goes to the log (stderr).
"""

from __future__ import annotations

import logging
import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from bitextcrawl.commands import command_settings, fail, use_help_formatter
from bitextcrawl.pages.language import lang_code, parse_langs
from bitextcrawl.pairing.url_pairs import pair_urls
from bitextcrawl.pairing.url_patterns import (
    DEFAULT_LOCAL_THRESHOLD,
    DEFAULT_RESCUE_THRESHOLD,
    PatternDB,
)

logger = logging.getLogger(__name__)


def _parse_langs(value: str, model: str | None = None) -> tuple[str, ...]:
    """The languages as the crawl takes them: aliases mapped (cn -> zh), checked against
    the language-ID model's labels; a one-line error otherwise."""
    try:
        return parse_langs(value, model or None, name="--langs")
    except ValueError as exc:
        fail("urlpairs", str(exc))


def _normalise_labels(lines: list[str]) -> list[str]:
    """``lang<TAB>url`` lines with their label as ``--langs`` maps it (cn -> zh)."""
    out = []
    for line in lines:
        lang, tab, url = line.partition("\t")
        if tab and lang.strip() and not lang.lstrip().startswith("#"):
            line = f"{lang_code(lang.strip()) or lang.strip()}\t{url}"
        out.append(line)
    return out


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = command_settings(LOG_LEVEL="INFO")

    def syntax(self) -> str:
        return "FILE --langs en,fr [--pattern-db PATH]"

    def short_desc(self) -> str:
        return "Pair URLs (one a line, or lang<TAB>url) by learned URL patterns"

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("--langs", default=None,
                            help="the two language codes, comma-separated; the first "
                                 "language's URLs are url_1 (default BITEXT_LANGS, else en,fr)")
        parser.add_argument("--pattern-db", dest="pattern_db", default=None, metavar="PATH",
                            help="pattern database (JSON) to read and update across runs")

    def run(self, args, opts):
        if len(args) != 1:
            raise UsageError("give exactly one FILE of URLs", print_help=True)
        configure_logging(self.settings)  # no CrawlerProcess here to do it
        s = self.settings
        langs = _parse_langs(opts.langs or s.get("BITEXT_LANGS") or "en,fr",
                             s.get("BITEXT_LID_MODEL"))
        path = args[0]
        try:
            if path == "-":
                lines = sys.stdin.read().splitlines()
            else:
                with open(path, encoding="utf-8") as fh:
                    lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {path}: {exc}", print_help=False) from exc
        lines = _normalise_labels(lines)
        db_path = opts.pattern_db or None
        try:
            db = PatternDB(db_path)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from exc
        logger.info("urlpairs: %d lines from %s, langs %s", len(lines), path, ",".join(langs))
        local = s.getfloat("BITEXT_PATTERN_LOCAL_THRESHOLD", DEFAULT_LOCAL_THRESHOLD)
        rescue = s.getfloat("BITEXT_PATTERN_RESCUE_THRESHOLD", DEFAULT_RESCUE_THRESHOLD)
        pairs = pair_urls(lines, langs=langs[:2], local_threshold=local,
                          rescue_threshold=rescue, pattern_db=db)
        out = sys.stdout
        for url_1, url_2 in pairs:
            out.write(f"{url_1}\t{url_2}\n")
        out.flush()
        if db_path:
            db.save()
            logger.info("urlpairs: pattern database saved to %s", db_path)
