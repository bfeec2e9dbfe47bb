"""``scrapy align INPUT... --langs en,fr -o DIR``: the closing pipeline, offline.

Inputs: a crawl's ``pages.jsonl`` or its page store ``pages.sqlite`` (with the redirects
the crawl saw: the outputs of its own closing step), WMT16 ``.lett``/``.lett.gz``,
``.warc``/``.warc.gz`` (any mix). Unreadable records are skipped and counted in ``stats.json``. Bad input ends
the command with one line, ``scrapy align: error: ...``, exit status 2, and nothing
written: an input that is missing, cannot be opened or has a name of no known kind; an
unknown language code; inputs that hold no readable page at all (an empty file, a text
file, a corrupt ``.gz``), or no page in the first language or in any other of ``--langs``.
An input without a readable page among others that have some is a warning.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections import Counter

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from bitextcrawl.commands import command_settings, fail, use_help_formatter
from bitextcrawl.config import pattern_db_path
from bitextcrawl.formats.readers import INPUT_KINDS, input_kind
from bitextcrawl.pages.language import LanguageIdentifier, base_lang, parse_langs
from bitextcrawl.pages.variants import page_lang
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.store.inputs import input_redirects, read_input
from bitextcrawl.store.sqlite import SQLitePageStore

logger = logging.getLogger(__name__)

EXPECTED = ("a crawl's pages.jsonl or pages.sqlite, a WMT16 .lett/.lett.gz or a "
            ".warc/.warc.gz (pages.jsonl.gz too)")


def check_input(path: str) -> str | None:
    """Why ``path`` cannot be an input (one phrase), or None."""
    if not os.path.exists(path):
        return f"no such file: {path}"
    if os.path.isdir(path):
        return f"{path} is a directory: give the files in it (e.g. {path}/pages.jsonl)"
    try:
        input_kind(path)
    except ValueError:
        return (f"{path}: no known input kind by its name; expected {EXPECTED}, a name "
                "ending in " + ", ".join(s for s, _ in INPUT_KINDS))
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return None


def nothing_read(stats: Counter, path: str | None = None) -> str:
    """What a reader found in inputs that gave no page, as a phrase for the message."""
    found = []
    for key, n in sorted(stats.items()):
        kind, _, what = key.rpartition("/")
        if what == "truncated":
            name = f"a {input_kind(path).upper()} file" if path else "of its kind"
            found.append(f"data that breaks off: corrupt, cut short, or not {name}")
        elif what == "broken_line":
            found.append(f"{n} line{'s' * (n != 1)} that {'are' if n != 1 else 'is'} "
                         "not a page record")
        elif kind.endswith(("/skipped", "/bad")):
            found.append(f"{n} record{'s' * (n != 1)} skipped as {what.replace('_', ' ')}")
    return "; ".join(found) if found else "no record at all: an empty file?"


def read_inputs(paths, identify, store, langs=None) -> tuple[Counter, Counter, list]:
    """Every input's pages into ``store`` (the first record of a URL kept): the inputs'
    stats, the pages by language (as pairing ``langs`` counts them: a variant asked for
    where the page declares it), and ``(path, stats)`` of the inputs without a page."""
    from bitextcrawl.outputs import progress  # see Command.align

    input_stats: Counter = Counter()
    by_lang: Counter = Counter()
    empty = []
    for path in paths:
        file_stats: Counter = Counter()
        before = sum(by_lang.values())
        try:
            for page in progress(read_input(path, identify=identify, stats=file_stats),
                                 f"read {os.path.basename(path)}"):
                if not store.add(page):
                    file_stats["bitext/input/skipped/duplicate_url"] += 1
                    continue
                by_lang[page_lang(page, langs) if langs else page.lang] += 1
        except (OSError, ValueError) as exc:
            fail("align", f"cannot read {path}: {exc}")
        input_stats.update(file_stats)
        if sum(by_lang.values()) == before and not file_stats["bitext/input/skipped/duplicate_url"]:
            empty.append((path, file_stats))
    return input_stats, by_lang, empty


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = command_settings(LOG_LEVEL="INFO")

    def syntax(self) -> str:
        return "INPUT... --langs en,fr -o DIR"

    def short_desc(self) -> str:
        return ("Align pages from pages.jsonl / .lett / .warc files or a crawl's pages.sqlite "
                "into pairs and bitext")

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("--langs", default=None,
                            help="language codes, comma-separated; the first language is "
                                 "paired with each of the others (default BITEXT_LANGS)")
        parser.add_argument("-o", "--output", required=True, help="output dir")
        parser.add_argument("--stages", default=None,
                            help="comma-separated stages to use (default all of url_pattern, "
                                 "hreflang, entrance, parallel_link, structure, content, "
                                 "anchors, ets)")
        parser.add_argument("--no-bitext", action="store_true", help="page pairs only")

    def run(self, args, opts):
        if not args:
            raise UsageError("give at least one input file", print_help=True)
        s = self.settings
        for path in args:  # all inputs checked before anything is read or written
            problem = check_input(path)
            if problem:
                fail("align", problem)
        try:
            langs = parse_langs(opts.langs or s.get("BITEXT_LANGS"),
                                s.get("BITEXT_LID_MODEL") or None,
                                name="--langs" if opts.langs else "BITEXT_LANGS")
        except ValueError as exc:
            fail("align", str(exc))
        configure_logging(self.settings)
        identifier = LanguageIdentifier(s.get("BITEXT_LID_MODEL") or None,
                                        s.getfloat("BITEXT_LID_MIN_PROB"))
        # The pages go to a store on disk as they are read: the closing step holds them
        # without their HTML and reads a pair's HTML when it aligns the pair.
        with tempfile.TemporaryDirectory(prefix="bitextcrawl-align-") as tmp:
            store = SQLitePageStore(tmp)
            try:
                self.align(args, opts, langs, identifier, store)
            finally:
                store.close()

    def align(self, args, opts, langs, identifier, store) -> None:
        # Imported here: Scrapy imports every command to list them, and the closing
        # pipeline's modules (numba, SciPy) took 1.4 s of every ``scrapy`` start.
        from bitextcrawl.outputs import run_closing
        from bitextcrawl.pairing.align import AlignConfig

        s = self.settings
        input_stats, by_lang, empty = read_inputs(args, identifier.identify, store, langs)
        n_pages = sum(by_lang.values())
        if not n_pages:
            if len(empty) == 1:
                path, file_stats = empty[0]
                why = f"no readable page in {path} ({nothing_read(file_stats, path)})"
            else:
                why = (f"no readable page in any of the {len(empty)} inputs "
                       f"({nothing_read(input_stats)})")
            fail("align", f"{why}: expected {EXPECTED}; nothing written to {opts.output}")
        for path, file_stats in empty:
            logger.warning("No readable page in %s (%s)", path, nothing_read(file_stats, path))
        missing = [lang for lang in langs if not by_lang[lang]]
        if langs[0] in missing or len(missing) == len(langs) - 1:
            found = ", ".join(f"{lang} {n}" for lang, n in by_lang.most_common(8))
            suggest = ",".join(lang for lang, _ in by_lang.most_common(2))
            variants = [lang for lang in missing if base_lang(lang) != lang
                        and by_lang[base_lang(lang)]]
            hint = (f"; no {base_lang(variants[0])} page declares the variant "
                    f"{variants[0]} (URL, hreflang, <html lang>): ask for "
                    f"{base_lang(variants[0])}") if variants else ""
            fail("align", f"{n_pages} pages read, none in {', '.join(missing)} "
                          f"(pages by language: {found}): pass the languages of the input, "
                          f"e.g. --langs {suggest}{hint}; nothing written to {opts.output}")
        logger.info("Read %d pages from %d input(s); %s", n_pages, len(args), dict(input_stats))
        config = AlignConfig.from_settings(s, langs)
        if opts.stages:
            config.stages = tuple(x.strip() for x in opts.stages.split(",") if x.strip())
        db_path = pattern_db_path(s, opts.output)
        redirects: dict[str, str] = {}
        for path in args:
            redirects.update(input_redirects(path))
        stats = run_closing(store, config, opts.output, pattern_db=PatternDB(db_path),
                            crawl_stats=dict(input_stats), bitext=not opts.no_bitext,
                            workers=s.getint("BITEXT_WORKERS"), redirects=redirects or None)
        print(f"{stats['pairs']} pairs from {stats['pages']} pages -> {opts.output}")
