"""Many languages in one crawl: ``scrapy crawl bitext`` over loopback on the generated
glossary (``testkit/glossary.py``), F1 per language of the one crawl, and the same crawl's
``pages.jsonl`` aligned again offline with ``scrapy align`` (the two must agree).

    python bench/bench_glossary_crawl.py [--langs en es zh it pt ru ja] [--translated 0.8]
        [--stale 5] [--urls] [--fallback] [--html-lang] [--edit-links] [--out DIR]

The glossary: short entries inside a heavy template, a sidebar of every entry in each
language's own order, opaque URLs (``/p/<hash>.html``; ``--urls``: ``/xx/X``), one plain
link from the English home to each other language's home; each language translates
``--translated`` of the entries; ``--stale`` entries of the first other language were
renamed and translated again, the older translation kept under the old name. A language
named with a region (``--langs en pt-br zh-cn``) is named so in its URL folder and, with
``--html-lang``, in every page's ``<html lang>`` (as Hugo names languages), and the crawl
asks for it by that code.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bitextcrawl.demo.server import serve_directory  # noqa: E402
from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl  # noqa: E402
from testkit.crawls import crawl_command  # noqa: E402
from testkit.glossary import glossary_site  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def scores(site, base: str, pairs_path: Path) -> dict:
    """F1, precision, recall per language of the pairs in ``pairs_path``."""
    # a directory answers as its index.html: the home pages' gold URLs are the directories
    pairs = [tuple(u[len(base):].replace("/index.html", "/") for u in p)
             for p in read_pairs_jsonl(pairs_path)]
    return {lang: evaluate(gold, [p for p in pairs if site.langs.get(p[1]) == lang])
            for lang, gold in site.golds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", nargs="+", default=["en", "es", "zh", "it", "pt", "ru", "ja"])
    parser.add_argument("--translated", type=float, default=0.8)
    parser.add_argument("--stale", type=int, default=5)
    parser.add_argument("--urls", action="store_true", help="the site's URLs, not opaque ones")
    parser.add_argument("--fallback", action="store_true",
                        help="untranslated entries served as English copies under a notice")
    parser.add_argument("--edit-links", action="store_true",
                        help="each page links its source file in the site's repository")
    parser.add_argument("--html-lang", action="store_true",
                        help="every page declares its language's code in <html lang>")
    parser.add_argument("--out", help="keep the crawl's output here (default: a temp dir)")
    args = parser.parse_args()
    langs = tuple(args.langs)
    site = glossary_site(langs=langs, opaque=not args.urls, translated=args.translated,
                         stale=args.stale, fallback=args.fallback, html_lang=args.html_lang,
                         edit_links=args.edit_links)
    with tempfile.TemporaryDirectory(prefix="bench-glossary-") as tmp:
        out = Path(args.out or tmp)
        site.write(out / "site")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with serve_directory(str(out / "site")) as server:
            t = time.monotonic()
            crawl = subprocess.run(crawl_command(server.url + "/en/", out / "crawl",
                                                 langs=",".join(langs)),
                                   cwd=ROOT, capture_output=True, text=True, env=env)
            seconds = time.monotonic() - t
        if crawl.returncode != 0:
            raise SystemExit(f"crawl failed ({crawl.returncode}): {crawl.stderr[-2000:]}")
        again = subprocess.run([sys.executable, "-m", "scrapy", "align",
                                str(out / "crawl" / "pages.jsonl"), "--langs", ",".join(langs),
                                "-o", str(out / "align"), "--no-bitext"],
                               cwd=ROOT, capture_output=True, text=True, env=env)
        if again.returncode != 0:
            raise SystemExit(f"scrapy align failed ({again.returncode}): {again.stderr[-2000:]}")
        crawled = scores(site, server.url, out / "crawl" / "pairs.jsonl")
        offline = scores(site, server.url, out / "align" / "pairs.jsonl")
    print(f"{len(site.pages)} pages, {len(langs)} languages, one crawl: {seconds:.0f} s")
    print(f"{'pair':8s} {'crawl F1':>9s} {'precision':>10s} {'recall':>7s} "
          f"{'scrapy align on pages.jsonl':>28s}")
    for lang in langs[1:]:
        m = crawled[lang]
        print(f"en-{lang:5s} {m['f1']:9.3f} {m['precision']:10.3f} {m['recall']:7.3f} "
              f"{offline[lang]['f1']:28.3f}")


if __name__ == "__main__":
    main()
