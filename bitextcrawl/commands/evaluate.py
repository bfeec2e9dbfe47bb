"""``scrapy evaluate --gold GOLD.tsv --pairs DIR/pairs.jsonl``: scores as JSON."""

from __future__ import annotations

import json

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from bitextcrawl.commands import use_help_formatter
from bitextcrawl.pairing.evaluate import evaluate, read_gold, read_pairs_jsonl


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "--gold GOLD.tsv --pairs DIR/pairs.jsonl [--base URL] [--directory-index FILE]"

    def short_desc(self) -> str:
        return "Precision, recall, F1 and WMT16 1-1 recall of pairs against a gold file"

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("--gold", required=True, help="url_1<TAB>url_2 lines")
        parser.add_argument("--pairs", required=True, help="a pairs.jsonl")
        parser.add_argument("--base", default=None,
                            help="prefix for relative gold paths (e.g. http://127.0.0.1:8000/)")
        parser.add_argument("--directory-index", default=None, metavar="FILE",
                            help="a URL ending in / means this file (e.g. index.html)")

    def run(self, args, opts):
        try:
            gold = read_gold(opts.gold, base=opts.base)
            pairs = read_pairs_jsonl(opts.pairs)
        except OSError as exc:
            raise UsageError(f"cannot read input: {exc}") from exc
        print(json.dumps(evaluate(gold, pairs, directory_index=opts.directory_index),
                         indent=2, sort_keys=True))
