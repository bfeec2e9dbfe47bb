"""``scrapy evaluate --gold GOLD.tsv --pairs DIR/pairs.jsonl``: scores as JSON.

A crawl with more than two languages writes the pairs of every language pair into one
``pairs.jsonl``, and a gold lists one language pair's: ``--langs en,ru`` scores the pairs
of those two languages only (the others would count as false positives). Without it,
every pair is scored, and a file of several language pairs is named on stderr."""

from __future__ import annotations

import json
import sys

from scrapy.commands import ScrapyCommand

from bitextcrawl.commands import fail, use_help_formatter
from bitextcrawl.pages.language import parse_langs
from bitextcrawl.pairing.evaluate import evaluate, read_gold, read_pairs_jsonl


def language_pairs(path: str) -> list[str]:
    """The ``lang_1-lang_2`` language pairs of a ``pairs.jsonl``, sorted (lines that are
    no pair object are left to :func:`read_pairs_jsonl`)."""
    found = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                obj = json.loads(line)
                found.add(f"{obj['lang_1']}-{obj['lang_2']}")
            except (ValueError, KeyError, TypeError):
                continue
    return sorted(found)


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return ("--gold GOLD.tsv --pairs DIR/pairs.jsonl [--langs L1,L2] [--base URL] "
                "[--directory-index FILE]")

    def short_desc(self) -> str:
        return "Precision, recall, F1 and WMT16 1-1 recall of pairs against a gold file"

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("--gold", required=True, help="url_1<TAB>url_2 lines")
        parser.add_argument("--pairs", required=True, help="a pairs.jsonl")
        parser.add_argument("--langs", default=None, metavar="L1,L2",
                            help="score only the pairs of these two languages, the gold's "
                                 "(a crawl of more languages wrote them all in one "
                                 "pairs.jsonl); default every pair")
        parser.add_argument("--base", default=None,
                            help="prefix for relative gold paths (e.g. http://127.0.0.1:8000/)")
        parser.add_argument("--directory-index", default=None, metavar="FILE",
                            help="a URL ending in / means this file (e.g. index.html)")

    def run(self, args, opts):
        langs = None
        if opts.langs is not None:
            try:
                langs = parse_langs(opts.langs, name="--langs")
            except ValueError as exc:
                fail("evaluate", str(exc))
            if len(langs) != 2:
                fail("evaluate", f"--langs takes the gold's two languages, not {len(langs)} "
                                 f"({','.join(langs)})")
        try:
            gold = read_gold(opts.gold, base=opts.base)
            pairs = read_pairs_jsonl(opts.pairs, langs=langs)
            found = language_pairs(opts.pairs) if langs is None else []
        except (OSError, ValueError) as exc:
            fail("evaluate", f"cannot read input: {exc}")
        if len(found) > 1:
            first, second = found[0].split("-", 1)
            sys.stderr.write(f"scrapy evaluate: {opts.pairs} holds the pairs of "
                             f"{len(found)} language pairs ({', '.join(found)}), all scored "
                             f"against the gold; --langs L1,L2 scores the gold's language "
                             f"pair only (e.g. --langs {first},{second})\n")
        print(json.dumps(evaluate(gold, pairs, directory_index=opts.directory_index),
                         indent=2, sort_keys=True))
