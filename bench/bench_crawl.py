"""Crawl speed of ``bitext`` against a plain Scrapy spider on the same loopback site.

    python bench/bench_crawl.py [--pairs 1000] [--scheme prefix]
    python bench/bench_crawl.py --nginx     # responses per pair on real sites (issue 13)

The plain spider follows the same links (same site, same robots.txt, same
concurrency) and stores nothing. Both run as ``scrapy crawl`` subprocesses against
one generated site; the figure is the ratio of pages per second.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.demo.server import free_port, serve_site  # noqa: E402

PLAIN_SPIDER = '''
import scrapy
from bitextcrawl.pages.urls import site_of

class PlainSpider(scrapy.Spider):
    """Follows every same-site link; stores nothing."""
    name = "plain"
    custom_settings = {"ITEM_PIPELINES": {}, "DOWNLOADER_MIDDLEWARES": {}, "SPIDER_MIDDLEWARES": {}}

    def __init__(self, start_url, *a, **kw):
        super().__init__(*a, **kw)
        self.start_url = start_url
        self.site = site_of(start_url)

    async def start(self):
        yield scrapy.Request(self.start_url)

    def parse(self, response):
        if not hasattr(response, "text"):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#")[0]
            if url.startswith("http") and site_of(url) == self.site:
                yield scrapy.Request(url)
'''

LOOPBACK = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False",
            "CONCURRENT_REQUESTS": "16", "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
            "LOG_LEVEL": "INFO", "RETRY_TIMES": "0", "STATS_DUMP": "True"}


def run(cmd: list[str], env: dict) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return wall, proc.stderr


def stat(log: str, key: str) -> float:
    for line in log.splitlines():
        line = line.strip()
        if line.startswith(f"'{key}':"):
            return float(line.split(":", 1)[1].strip().rstrip(",").split("(")[0])
    return 0.0


SHARED = ROOT.parent / "shared" / "data"
# (name, site folder, start path, langs, gold file)
REAL_CRAWLS = [
    ("nginx /cn/", "nginx/site", "/cn/", "en,zh", "nginx/gold/en-cn.tsv"),
    ("nginx /en/", "nginx/site", "/en/", "en,ru", "nginx/gold/en-ru.tsv"),
    ("WET", "wet", "/index-en.html", "en,fr", "wet-gold.tsv"),
]


def _gold_path(url_or_path: str) -> str:
    from urllib.parse import urlsplit
    path = urlsplit(url_or_path).path if "://" in url_or_path else url_or_path
    path = "/" + path.lstrip("/")
    return path + "index.html" if path.endswith("/") else path


def real_sites() -> None:
    """Responses, 404s, pages per language and gold pairs with both pages stored (the
    crawl's recall ceiling), for crawls of the real sites in ../shared/data."""
    from collections import Counter

    from bitextcrawl.demo.server import serve_directory
    if not (SHARED / "README.md").exists():
        raise SystemExit(f"real data not found at {SHARED}")
    sets = [x for k, v in LOOPBACK.items() if k != "CONCURRENT_REQUESTS_PER_DOMAIN"
            for x in ("-s", f"{k}={v}")] + ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print(f"{'crawl':12s} {'responses':>9s} {'404':>5s} {'pairs':>9s} {'resp/pair':>9s}  pages")
    for name, folder, start, langs, gold_file in REAL_CRAWLS:
        tmp = Path(tempfile.mkdtemp(prefix="bench-real-"))
        with serve_directory(str(SHARED / folder)) as server:
            wall, log = run([sys.executable, "-m", "scrapy", "crawl", "bitext", "-a",
                             f"start_url={server.url}{start}", "-a", f"langs={langs}",
                             "-s", f"BITEXT_OUTPUT_DIR={tmp}", "-s",
                             f"BITEXT_PATTERN_DB={tmp / 'db.json'}", "-s",
                             "BITEXT_ALIGN_ENABLED=False", *sets], env)
        responses = int(stat(log, "downloader/response_count"))
        not_found = int(stat(log, "downloader/response_status_count/404"))
        stored, langs_seen = set(), Counter()
        for line in (tmp / "pages.jsonl").open(encoding="utf-8"):
            page = json.loads(line)
            langs_seen[page["lang"]] += 1
            for url in [page["url"], page.get("requested_url") or page["url"],
                        *(page.get("aliases") or [])]:
                stored.add(_gold_path(url))
        gold = [line.rstrip("\n").split("\t")
                for line in (SHARED / gold_file).open(encoding="utf-8") if line.strip()]
        both = sum(1 for a, b in gold if _gold_path(a) in stored and _gold_path(b) in stored)
        per_pair = responses / both if both else float("inf")
        print(f"{name:12s} {responses:9d} {not_found:5d} {both:4d}/{len(gold):<4d} "
              f"{per_pair:9.2f}  {dict(langs_seen.most_common())}  ({wall:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--scheme", default="prefix")
    ap.add_argument("--nginx", action="store_true",
                    help="responses per pair on the real nginx.org and WET sites instead")
    args = ap.parse_args()
    if args.nginx:
        real_sites()
        return
    port = free_port()
    site = generate_site(SiteSpec(scheme=args.scheme, n_pairs=args.pairs, third_lang=None,
                                  seed=1), port)
    tmp = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    (tmp / "plainbench").mkdir()
    (tmp / "plainbench" / "__init__.py").write_text("")
    (tmp / "plainbench" / "plain.py").write_text(PLAIN_SPIDER)
    env = {**os.environ, "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}"}
    sets = [x for k, v in LOOPBACK.items() for x in ("-s", f"{k}={v}")]
    results = {}
    with serve_site(site, port):
        for name, cmd in (
            ("plain", [sys.executable, "-m", "scrapy", "crawl", "plain", "-a",
                       f"start_url={site.start_url}", "-s", "SPIDER_MODULES=plainbench.plain",
                       *sets]),
            ("bitext", [sys.executable, "-m", "scrapy", "crawl", "bitext", "-a",
                        f"start_url={site.start_url}", "-a", "langs=en,fr", "-s",
                        f"BITEXT_OUTPUT_DIR={tmp / 'out'}", "-s",
                        f"BITEXT_PATTERN_DB={tmp / 'db.json'}", "-s",
                        "BITEXT_ALIGN_ENABLED=False", *sets]),
        ):
            wall, log = run(cmd, env)
            pages = stat(log, "response_received_count")
            elapsed = stat(log, "elapsed_time_seconds")
            results[name] = {"pages": int(pages), "crawl_s": round(elapsed, 2),
                             "pages_per_s": round(pages / elapsed, 1) if elapsed else 0,
                             "wall_s": round(wall, 2),
                             "peak_mem_mb": round(stat(log, "memusage/max") / 2**20, 1)}
    print(f"site: {args.scheme} scheme, {len(site.page_langs)} pages, loopback")
    for name, r in results.items():
        print(f"{name:7s} {r['pages']:6d} pages  {r['pages_per_s']:7.1f} pages/s  "
              f"crawl {r['crawl_s']:6.2f} s  "
              f"wall {r['wall_s']:6.2f} s  peak {r['peak_mem_mb']} MiB")
    ratio = results["bitext"]["pages_per_s"] / results["plain"]["pages_per_s"]
    print(f"ratio bitext/plain pages/s: {ratio:.2f}  (bitext: language ID, store, WARC, focus,"
          " online URL patterns and deep recovery; the closing alignment is timed by"
          " bench/bench_align.py)")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
