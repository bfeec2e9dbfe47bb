"""``scrapy demo``: serve the bundled demo bilingual site on loopback, crawl it, score it.
``scrapy demo --serve`` only serves it, for a crawl with ``scrapy crawl bitext``.

The demo site is generated (``bitextcrawl.demo.generator``) with a fixed seed: mixed
URL schemes, untranslated pages, a third language, hidden pages only deep page
recovery can find, and bad input. The crawl's pairs are scored against its gold.
"""

from __future__ import annotations

import json
import os

from scrapy.commands import ScrapyCommand
from scrapy.settings import SETTINGS_PRIORITIES

from bitextcrawl.addon import enable
from bitextcrawl.commands import fail, use_help_formatter
from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.formats.jsonl import iter_jsonl
from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl
from bitextcrawl.preflight import crawl_files

DEMO_SPEC = dict(scheme="mixed", n_pairs=80, third_lang="de", n_third=10,
                 untranslated_fraction=0.1, hidden_fraction=0.2, language_switch=True,
                 bad_pages=True, seed=2026)


# The file that marks a folder as the demo's output (replaced by the next run).
MARKER = ".bitextcrawl-demo"
DEMO_FILES = {MARKER, "gold.tsv"}


def prepare_output(path: str) -> str | None:
    """Make ``path`` ready for the demo's output: created, or emptied of a previous demo's
    files (those a crawl writes, the gold, the marker; nothing else). The reason it cannot
    be, for a folder that holds anything else without the demo's marker, or a file."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"-o {path} is a file, not a folder"
    names = set(os.listdir(path)) if os.path.isdir(path) else set()
    ours = set(crawl_files(path)) | (names & DEMO_FILES)
    others = names - ours
    if others and MARKER not in names:
        shown = ", ".join(sorted(others)[:5]) + (", ..." if len(others) > 5 else "")
        return (f"-o {path} is not empty and not a demo's output ({shown}): give a new or "
                "empty folder, or one a demo wrote")
    try:
        for name in ours:
            os.remove(os.path.join(path, name))
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        return f"cannot write the demo's output to {path}: {exc.strerror or exc}"
    return None


class Command(ScrapyCommand):
    # Outside a bitextcrawl project the add-on brings the spider and its components.
    requires_project = False
    # Loopback: no need for the polite delays a real site gets. Set at "cmdline"
    # priority in run(): the project's own settings outrank a command's defaults.
    loopback_settings = {
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        "RETRY_TIMES": 0,
        # the site's server error is a deliberate trap: counted (report, stats), not
        # logged as an ERROR by the retry middleware's "Gave up retrying"
        "RETRY_ENABLED": False,
    }

    def syntax(self) -> str:
        return "[options]"

    def short_desc(self) -> str:
        return "Serve the demo bilingual site on loopback, crawl it, print pairs and P/R/F1"

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("-o", "--output", default=os.path.join("output", "demo"),
                            help="output dir (default output/demo); a demo's output there "
                                 "is replaced, any other non-empty folder refused")
        parser.add_argument("--pairs", type=int, default=DEMO_SPEC["n_pairs"],
                            help="translated page pairs in the demo site (default 80)")
        parser.add_argument("--serve", action="store_true",
                            help="only serve the demo site on loopback, until Ctrl-C, to "
                                 "crawl it with scrapy crawl bitext")
        parser.add_argument("--port", type=int, default=0,
                            help="the loopback port --serve listens on (default a free one)")
        parser.add_argument("--scheme", default=DEMO_SPEC["scheme"],
                            help="URL pairing scheme, one of prefix, subdomain, suffix, query, "
                                 "opaque, mixed (default mixed)")

    def process_options(self, args, opts):
        super().process_options(args, opts)
        enable(self.settings)  # before the crawler process loads the spiders
        if opts.serve:
            return  # nothing written
        # before Scrapy's banner: a refused folder is the command's one line
        problem = prepare_output(opts.output)
        if problem:
            fail("demo", problem)

    def run(self, args, opts):
        if opts.serve:
            self.serve(opts)
            return
        print("Generating the demo site; the first run also compiles the aligner "
              "(about 20 s), later runs reuse it.", flush=True)
        spec = SiteSpec(**{**DEMO_SPEC, "n_pairs": opts.pairs, "scheme": opts.scheme})
        port = free_port()
        site = generate_site(spec, port)
        with open(os.path.join(opts.output, MARKER), "w", encoding="utf-8") as fh:
            fh.write("The output of scrapy demo: the next scrapy demo -o here replaces it.\n")
        site.write_gold(os.path.join(opts.output, "gold.tsv"))
        for name, value in self.loopback_settings.items():
            if self.settings.getpriority(name) < SETTINGS_PRIORITIES["cmdline"]:  # -s wins
                self.settings.set(name, value, priority="cmdline")
        self.settings.set("BITEXT_OUTPUT_DIR", opts.output, priority="cmdline")
        self.settings.set("BITEXT_PATTERN_DB", os.path.join(opts.output, "patterns-db.json"),
                          priority="cmdline")
        with serve_site(site, port) as server:
            print(f"Demo site ({spec.scheme} URLs, {len(site.gold_pairs)} gold pairs) "
                  f"served at {site.start_url}")
            print("It has deliberate traps (missing pages, a server error, a page over "
                  "DOWNLOAD_MAXSIZE, a redirect loop, binary and empty pages, a calendar "
                  "trap): the crawl counts them (report.html, \"Failed requests\"); the "
                  "WARNING about the oversized page is expected.", flush=True)
            self.crawler_process.crawl("bitext", start_url=site.start_url,
                                       langs=",".join(spec.langs))
            self.crawler_process.start()
        self.summarise(site, opts.output, server)

    def serve(self, opts) -> None:
        """Serve the demo site until Ctrl-C: a bilingual site to try ``scrapy crawl
        bitext`` on, with English, French and (a few pages) German."""
        spec = SiteSpec(**{**DEMO_SPEC, "n_pairs": opts.pairs, "scheme": opts.scheme})
        port = opts.port or free_port()
        site = generate_site(spec, port)
        try:
            server = serve_site(site, port).start()
        except OSError as exc:
            fail("demo", f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}")
        print(f"Demo site ({spec.scheme} URLs, {len(site.gold_pairs)} gold pairs of "
              f"{spec.langs[0]} and {spec.langs[1]}, {spec.n_third} pages in "
              f"{spec.third_lang}) served at {site.start_url}\nCtrl-C to stop.", flush=True)
        try:
            server.thread.join()
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()

    def summarise(self, site, output_dir: str, server) -> None:
        pairs_path = os.path.join(output_dir, "pairs.jsonl")
        if not os.path.exists(pairs_path):
            print(f"No pairs were written ({pairs_path} missing): see the log above.")
            self.exitcode = 1
            return
        pairs = list(iter_jsonl(pairs_path))
        langs = {}
        for page in iter_jsonl(os.path.join(output_dir, "pages.jsonl")):
            langs[page["lang"]] = langs.get(page["lang"], 0) + 1
        print(f"\nPages stored per language: {json.dumps(langs, sort_keys=True)}")
        print(f"Pairs found: {len(pairs)} (first 10)")
        for pair in pairs[:10]:
            print(f"  {pair['score']:.3f}  {pair['url_1']}  <->  {pair['url_2']}  "
                  f"[{', '.join(pair['sources'])}]")
        scores = evaluate(site.gold_pairs, read_pairs_jsonl(pairs_path))
        print("\nAgainst the demo gold:")
        print(json.dumps(scores, indent=2, sort_keys=True))
        print(f"\nOutput: {output_dir}/ (pairs.jsonl, bitext.tsv, bitext.tmx, report.html, ...)")
