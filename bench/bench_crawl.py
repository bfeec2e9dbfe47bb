"""Crawl cost: speed against a plain spider, and responses per pair found on real sites.

    python bench/bench_crawl.py [--pairs 1000] [--scheme prefix] [--repeat R]
    python bench/bench_crawl.py --real [--manual-langs fr,ja,ko]   # responses per pair (alias --nginx)
    python bench/bench_crawl.py --real --crawls bitext --manual-langs ''   # whole crawls against plain spiders
    python bench/bench_crawl.py --real --manual-langs '' --sites 'tldr en-ja,nginx en-zh'  # some sites
    python bench/bench_crawl.py --real --crawls bitext,crawl_only --manual-langs '' --sites 'WET en-fr'

Default: the plain spider follows the same links (same site, same robots.txt, same
concurrency) and stores nothing; ``plain_lid``, the plain spider a user would write,
also labels each page with fastText and pairs URLs by stripping language codes. All run
as ``scrapy crawl`` subprocesses against one generated site; the figures are the ratios
of pages per second and of CPU per page.

``--real``: nginx.org crawled from /cn/ (en-zh), from /en/ (en-ru) and from both sides
of its partial translations (/it/, /tr/, /ja/, /he/, and /en/ for each), WET (en-fr), tldr-pages from
/en/ (en-fr, de, es, ru, zh, ja: partial translations of 1,010 English pages), all
served from ``../shared/data`` (skipped when it is absent), and the generated
multilingual manual (en-fr by default, one crawl per ``--manual-langs`` language). Each
site is crawled twice with alignment on: ``bitext`` with the project defaults, and
``unfocused`` with focus, deep recovery and parallel links off (every same-site link is
followed; pairing at close is the same). Each row gives responses, 404s, 301s, pairs
predicted for the language pair, true positives against the gold, P/R/F1 and responses
per pair found (responses / true positives); a markdown table for docs/benchmarks.md and, per
site, whether bitext stays within 2.5 responses per pair and reaches unfocused's recall
close the output. nginx.org and WET are also crawled by two plain spiders: the
one the issue compares against (every same-site link, fastText labels, URLs paired by
stripping language codes; its F1 is printed) and a bare one that only follows links. The
whole ``bitext`` crawl, alignment and bitext included, against each, in wall seconds of
the ``scrapy crawl`` process, with the closing pipeline's share and its bitext stage's.
``--crawls crawl_only`` adds the ``bitext`` crawl without its closing step
(``BITEXT_ALIGN_ENABLED=False``): the crawl phase's wall time and CPU per response against
the labelling and pairing spider's.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.demo.server import free_port, serve_site  # noqa: E402
from bitextcrawl.outcome import EXIT_NOTHING_FOUND  # noqa: E402

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

# The spider the issue compares against ("what a user feels"): what people glue
# together today. It follows every same-site link, labels each page's text with fastText
# lid.176 (the same model file bitext reads), and at the end pairs the pages whose URLs are
# equal once language codes are stripped.
PLAIN_LID_SPIDER = '''
import json
import re

import fasttext
from bitextcrawl.pages.language import model_labels, model_path
from plainbench.plain import PlainSpider

# country codes sites write for a language (nginx.org's /cn/)
COUNTRY_CODES = {"cn", "jp", "kr", "cz", "gr", "ua", "dk", "se", "br", "tw", "hk", "il"}


class PlainLidSpider(PlainSpider):
    """The plain spider; fastText labels; URL pairs by stripped language codes."""
    name = "plain_lid"

    def __init__(self, start_url, langs, out, *a, **kw):
        super().__init__(start_url, *a, **kw)
        self.out = out
        self.langs = langs.split(",")
        self.model = fasttext.load_model(model_path())
        codes = sorted(set(model_labels()) | COUNTRY_CODES, key=len, reverse=True)
        self.code = re.compile(r"(?<=[/._=-])(?:%s)(?=[/._&-]|$)" % "|".join(codes))
        self.lang_of = {}

    def parse(self, response):
        if hasattr(response, "text"):
            text = " ".join(" ".join(response.xpath(
                "//body//text()[not(ancestor::script) and not(ancestor::style)]").getall()).split())
            if text:
                labels, _ = self.model.predict(text[:20000])
                self.lang_of[response.url] = labels[0].replace("__label__", "")
        yield from super().parse(response)

    def closed(self, reason):
        by_key = {}
        for url, lang in self.lang_of.items():
            if lang in self.langs:
                by_key.setdefault(self.code.sub("", url), {}).setdefault(lang, []).append(url)
        l1, l2 = self.langs
        with open(self.out, "w", encoding="utf-8") as fh:
            for group in by_key.values():
                if len(group.get(l1, ())) == 1 and len(group.get(l2, ())) == 1:
                    fh.write(json.dumps({"url_1": group[l1][0], "url_2": group[l2][0],
                                         "lang_1": l1, "lang_2": l2}) + "\\n")
'''

PR_SET_CHILD_SUBREAPER = 36   # prctl(2)
LOOPBACK = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False",
            "CONCURRENT_REQUESTS": "16", "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
            "LOG_LEVEL": "INFO", "RETRY_TIMES": "0", "STATS_DUMP": "True"}


def _adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans (Linux): a worker forked
    by a fork server outlives the crawl's process by a moment and is then reaped here, so
    its CPU counts in RUSAGE_CHILDREN like the crawl's own."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _reap_orphans(timeout: float = 5.0) -> None:
    """Wait for the orphans the crawl left (its fork server and the workers it forked end
    when the crawl's process is gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return          # no child left
        if pid == 0:
            time.sleep(0.02)


def run(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the whole process tree: start-up, record
    workers and fork server included) and the log of one ``scrapy crawl``; CPU is the
    figure that holds on a shared machine."""
    _adopt_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # (a crawl that found no pair is a row of the table, not a failure of the bench)
    if proc.returncode not in (0, EXIT_NOTHING_FOUND):
        raise SystemExit(proc.stderr[-3000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stderr


def stat(log: str, key: str) -> float:
    for line in log.splitlines():
        line = line.strip()
        if line.startswith(f"'{key}':"):
            return float(line.split(":", 1)[1].strip().rstrip(",").split("(")[0])
    return 0.0


SHARED = ROOT.parent / "shared" / "data"
# (name, site folder, start path, langs, gold file), all under SHARED
REAL_CRAWLS = [
    ("nginx en-zh", "nginx/site", "/cn/", "en,zh", "nginx/gold/en-cn.tsv"),
    ("nginx en-ru", "nginx/site", "/en/", "en,ru", "nginx/gold/en-ru.tsv"),
    ("WET en-fr", "wet", "/index-en.html", "en,fr", "wet-gold.tsv"),
] + [(f"nginx en-{code}", "nginx/site", f"/{code}/", f"en,{code}", f"nginx/gold/en-{code}.tsv")
     for code in ("it", "tr", "ja", "he")] + [
    # the same partial translations crawled from the English side: nothing there links
    # them; the crawl finds each from the start URL's language code
    (f"nginx en-{code} /en/", "nginx/site", "/en/", f"en,{code}", f"nginx/gold/en-{code}.tsv")
    for code in ("it", "tr", "ja", "he")] + [
    # partial translations of 1,010 English pages, crawled from the English side
    (f"tldr en-{lang}", "tldr/site", "/en/", f"en,{lang}", f"tldr/gold/en-{lang}.tsv")
    for lang in ("fr", "de", "es", "ru", "zh", "ja", "pt-br")]
# The sites the plain spiders crawl too (the whole-crawl comparison)
PLAIN_COMPARED = ("nginx en-zh", "nginx en-ru", "WET en-fr")
# Both crawls pair at close; unfocused turns off everything that chooses which links to
# follow, so it fetches every same-site page and shows what the focus saves.
VARIANTS = [
    ("bitext", []),
    ("unfocused", ["-s", "BITEXT_FOCUS_ENABLED=False", "-s", "BITEXT_DEEP_RECOVERY_ENABLED=False",
                   "-s", "BITEXT_PARALLEL_LINKS_ENABLED=False"]),
    # ``--crawls crawl_only``: the bitext crawl without its closing step (no pairs), the
    # crawl phase's cost against the plain spiders'
    ("crawl_only", ["-s", "BITEXT_ALIGN_ENABLED=False"]),
]
DEFAULT_CRAWLS = ("bitext", "unfocused")
# ``--set K=V``: settings of every bitext crawl (e.g. BITEXT_RECORD_WORKERS=0 against the default)
BITEXT_SETTINGS: list[str] = []
PER_PAIR_TARGET = 2.5  # target: at most two and a half responses per pair found
WHOLE_CRAWL_TARGET = 2.0  # target: a whole crawl within twice a plain spider's


def plain_spider_env(tmp: Path) -> dict:
    """The environment in which ``scrapy crawl plain`` finds the plain spider."""
    (tmp / "plainbench").mkdir(exist_ok=True)
    (tmp / "plainbench" / "__init__.py").write_text("")
    (tmp / "plainbench" / "plain.py").write_text(PLAIN_SPIDER)
    (tmp / "plainbench" / "plain_lid.py").write_text(PLAIN_LID_SPIDER)
    return {**os.environ, "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}"}


def crawl_stats(out: Path, log: str) -> dict:
    """Scrapy's stats as the closing pipeline saved them; the dumped log when it did not."""
    path = out / "stats.json"
    if path.exists():
        stats = json.loads(path.read_text(encoding="utf-8")).get("crawl") or {}
        if "downloader/response_count" in stats:
            return stats
    keys = ("downloader/response_count", "downloader/response_status_count/404",
            "downloader/response_status_count/301")
    return {k: stat(log, k) for k in keys}


def bench_site(name: str, start_url: str, langs: str, gold: list,
               variants: list | None = None) -> list[dict]:
    """Both crawls of one served site; one row each, printed as soon as it is known."""
    from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl

    sets = [x for k, v in LOOPBACK.items() if k != "CONCURRENT_REQUESTS_PER_DOMAIN"
            for x in ("-s", f"{k}={v}")] + ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rows = []
    for crawl, extra in variants or VARIANTS:
        out = Path(tempfile.mkdtemp(prefix=f"bench-real-{crawl}-"))
        wall, cpu, log = run([sys.executable, "-m", "scrapy", "crawl", "bitext", "-a",
                         f"start_url={start_url}", "-a", f"langs={langs}",
                         "-s", f"BITEXT_OUTPUT_DIR={out}",
                         "-s", f"BITEXT_PATTERN_DB={out / 'db.json'}", *sets, *extra,
                         *BITEXT_SETTINGS], env)
        stats = crawl_stats(out, log)
        # nginx links folders (/en/docs/) and the gold names their index.html
        pairs = out / "pairs.jsonl"   # (none without the closing step: crawl_only)
        scores = evaluate(gold, read_pairs_jsonl(pairs, langs.split(",")) if pairs.exists()
                          else [], directory_index="index.html")
        responses = int(stats.get("downloader/response_count", 0))
        closing = json.loads((out / "stats.json").read_text(encoding="utf-8")) \
            if (out / "stats.json").exists() else {}
        row = {"site": name, "crawl": crawl, "responses": responses,
               "closing_s": closing.get("seconds", 0.0),
               "bitext_s": (closing.get("timings_s") or {}).get("bitext", 0.0),
               "404": int(stats.get("downloader/response_status_count/404", 0)),
               "301": int(stats.get("downloader/response_status_count/301", 0)),
               "predicted": scores["predicted"], "tp": scores["tp"], "gold": scores["gold"],
               "precision": scores["precision"], "recall": scores["recall"],
               "f1": scores["f1"], "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
               "per_pair": responses / scores["tp"] if scores["tp"] else float("inf")}
        print_row(row)
        rows.append(row)
    return rows


def print_row(r: dict) -> None:
    print(f"{r['site']:18s} {r['crawl']:9s} {r['responses']:9d} {r['404']:5d} {r['301']:5d} "
          f"{r['predicted']:9d} {r['tp']:4d}/{r['gold']:<4d} {r['precision']:6.3f} "
          f"{r['recall']:6.3f} {r['f1']:6.3f} {r['per_pair']:9.2f} {r['wall_s']:7.1f}",
          flush=True)


def plain_crawl(name: str, start_url: str, env: dict, langs: str = "", gold=None) -> dict:
    """The plain spiders over the same served site, with the same loopback settings: the
    bare one, and with ``langs`` the one that labels and pairs (``PLAIN_LID_SPIDER``),
    whose pairs are scored against ``gold``."""
    from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl

    sets = [x for k, v in LOOPBACK.items() if k != "CONCURRENT_REQUESTS_PER_DOMAIN"
            for x in ("-s", f"{k}={v}")] + ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]
    common = ["-a", f"start_url={start_url}", "-s",
              "SPIDER_MODULES=plainbench.plain,plainbench.plain_lid", *sets]
    wall, cpu, log = run([sys.executable, "-m", "scrapy", "crawl", "plain", *common], env)
    out = {"site": name, "responses": int(stat(log, "downloader/response_count")),
           "crawl_s": round(stat(log, "elapsed_time_seconds"), 1), "wall_s": round(wall, 1),
           "cpu_s": round(cpu, 1)}
    if langs:
        pairs = Path(tempfile.mkdtemp(prefix="bench-plain-lid-")) / "pairs.jsonl"
        wall, cpu, log = run([sys.executable, "-m", "scrapy", "crawl", "plain_lid",
                              "-a", f"langs={langs}", "-a", f"out={pairs}", *common], env)
        scores = evaluate(gold, read_pairs_jsonl(pairs, langs.split(",")),
                          directory_index="index.html")
        out["lid"] = {"responses": int(stat(log, "downloader/response_count")),
                      "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "f1": scores["f1"],
                      "tp": scores["tp"], "gold": scores["gold"], "recall": scores["recall"]}
    return out


def real_site_rows(variants: list | None = None) -> tuple[list[dict], list[dict]]:
    """The nginx.org and WET copies of ../shared/data, each served from its folder: the
    bitext and unfocused rows, and the plain spider's crawl of each."""
    from bitextcrawl.demo.server import serve_directory
    from bitextcrawl.pairing.evaluate import read_gold

    rows, plain = [], []
    env = plain_spider_env(Path(tempfile.mkdtemp(prefix="bench-real-plain-")))
    for name, folder, start, langs, gold_file in REAL_CRAWLS:
        if not (SHARED / folder).is_dir() or not (SHARED / gold_file).exists():
            print(f"{name}: skipped, {SHARED / folder} or {SHARED / gold_file} not found",
                  flush=True)
            continue
        with serve_directory(str(SHARED / folder)) as server:
            # golds hold site-relative paths; the crawl sees them under this server's root
            gold = read_gold(SHARED / gold_file, base=server.url + "/")
            rows += bench_site(name, server.url + start, langs, gold, variants)
            if name in PLAIN_COMPARED:
                plain.append(plain_crawl(name, server.url + start, env, langs, gold))
    return rows, plain


def whole_crawl_lines(rows: list[dict], plain: list[dict]) -> list[str]:
    """Per real site: the whole bitext crawl (alignment and bitext
    included) within twice the plain spider's crawl of the same site: the spider the
    issue names (fastText labels, URLs paired by stripping language codes), and the bare
    one that only follows links."""
    bitext = {r["site"]: r for r in rows if r["crawl"] == "bitext"}
    crawl_only = {r["site"]: r for r in rows if r["crawl"] == "crawl_only"}
    lines = []
    for p in plain:
        c, lid = crawl_only.get(p["site"]), p.get("lid")
        if c and lid and lid["wall_s"] and lid["cpu_s"]:
            lines.append(f"{p['site']}: the crawl alone (no closing step) {c['wall_s']:.1f} s, CPU"
                         f" {c['cpu_s']:.1f} s ({c['responses']} responses): against the"
                         f" labelling and pairing spider {c['wall_s'] / lid['wall_s']:.2f}x"
                         f" wall, CPU per response"
                         f" {(c['cpu_s'] / c['responses']) / (lid['cpu_s'] / lid['responses']):.2f}x")
        b = bitext.get(p["site"])
        if not b or not p["wall_s"]:
            continue
        lines.append(f"{p['site']}: whole crawl {b['wall_s']:.1f} s ({b['responses']} responses;"
                     f" closing {b['closing_s']:.1f} s, of it bitext {b['bitext_s']:.1f} s;"
                     f" CPU {b['cpu_s']:.1f} s; F1 {b['f1']:.3f})")
        lid = p.get("lid")
        spiders = ([("labelling and pairing spider", lid)] if lid else []) + \
            [("bare spider", p)]
        for label, ref in spiders:
            ratio = b["wall_s"] / ref["wall_s"]
            ok = ratio <= WHOLE_CRAWL_TARGET
            f1 = (f"; {ref['tp']}/{ref['gold']} pairs, recall {ref['recall']:.3f},"
                  f" F1 {ref['f1']:.3f}") if "f1" in ref else ""
            lines.append(f"    against the {label}: {ref['wall_s']:.1f} s ({ref['responses']}"
                         f" responses; CPU {ref['cpu_s']:.1f} s{f1}): {ratio:.2f}x"
                         f" {'<=' if ok else '>'} {WHOLE_CRAWL_TARGET} ({'yes' if ok else 'NO'});"
                         f" without the bitext stage"
                         f" {(b['wall_s'] - b['bitext_s']) / ref['wall_s']:.2f}x; CPU"
                         f" {b['cpu_s'] / ref['cpu_s']:.2f}x")
    return lines


def manual_rows(langs: list[str]) -> list[dict]:
    """The generated multilingual manual (fallback copies, redirecting switches), one
    language pair per crawl."""
    from testkit.multilingual import ManualSpec, generate_manual

    port = free_port()
    site = generate_manual(ManualSpec(n_pages=60, seed=1), port)
    rows = []
    with serve_site(site, port):
        for lang in langs:
            rows += bench_site(f"manual en-{lang}", site.start_url, f"en,{lang}",
                               site.gold_pairs[lang])
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| site | crawl | responses | 404 | pairs found/gold | recall | F1 "
             "| responses per pair |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['site']} | {r['crawl']} | {r['responses']} | {r['404']} "
                     f"| {r['tp']}/{r['gold']} | {r['recall']:.3f} | {r['f1']:.3f} "
                     f"| {r['per_pair']:.2f} |")
    return "\n".join(lines)


def verdicts(rows: list[dict]) -> list[str]:
    """Per site: bitext cheap per pair and missing nothing unfocused finds."""
    by_site: dict = {}
    for r in rows:
        by_site.setdefault(r["site"], {})[r["crawl"]] = r
    lines = []
    for site, crawls in by_site.items():
        b, u = crawls.get("bitext"), crawls.get("unfocused")
        if not (b and u):
            continue
        cheap, full = b["per_pair"] <= PER_PAIR_TARGET, b["recall"] >= u["recall"]
        lines.append(f"{site}: responses per pair {b['per_pair']:.2f} "
                     f"{'<=' if cheap else '>'} {PER_PAIR_TARGET} ({'yes' if cheap else 'NO'}); "
                     f"recall {b['recall']:.3f} {'>=' if full else '<'} unfocused "
                     f"{u['recall']:.3f} ({'yes' if full else 'NO'})")
    return lines


def real_sites(manual_langs: list[str], variants: list | None = None) -> None:
    """Responses, pairs found and responses per pair found, bitext against unfocused,
    on the real sites and the generated manual."""
    if not SHARED.is_dir():
        print(f"real data not found at {SHARED}: nginx and WET skipped", flush=True)
    print(f"{'site':18s} {'crawl':9s} {'responses':>9s} {'404':>5s} {'301':>5s} "
          f"{'predicted':>9s} {'tp/gold':>9s} {'P':>6s} {'R':>6s} {'F1':>6s} "
          f"{'resp/pair':>9s} {'wall s':>7s}", flush=True)
    rows, plain = real_site_rows(variants) if SHARED.is_dir() else ([], [])
    rows += manual_rows(manual_langs) if manual_langs else []
    print()
    print(markdown([r for r in rows if r["crawl"] != "crawl_only"]))
    print()
    print("\n".join(verdicts(rows)))
    print("\n".join(whole_crawl_lines(rows, plain)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--scheme", default="prefix")
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of the three crawls in turn; the ratios' medians and ranges")
    ap.add_argument("--real", "--nginx", dest="real", action="store_true",
                    help="responses per pair found, bitext against unfocused, on nginx.org,"
                         " WET and the generated manual instead")
    ap.add_argument("--manual-langs", default="fr",
                    help="with --real: the manual's languages, one crawl pair each (fr,ja,ko);"
                         " empty: no manual")
    ap.add_argument("--crawls", default=",".join(DEFAULT_CRAWLS),
                    help="with --real: which crawls of each site (default %(default)s;"
                         " crawl_only: the bitext crawl without its closing step)")
    ap.add_argument("--set", action="append", default=[], metavar="K=V",
                    help="a setting of the bitext crawls (repeatable)")
    ap.add_argument("--sites", default="",
                    help="with --real: only these real sites, by name (comma-separated: "
                         "'tldr en-fr,nginx en-zh')")
    args = ap.parse_args()
    if args.sites:
        names = {x.strip() for x in args.sites.split(",")}
        REAL_CRAWLS[:] = [c for c in REAL_CRAWLS if c[0] in names]
    BITEXT_SETTINGS.extend(x for kv in args.set for x in ("-s", kv))
    if args.real:
        wanted = {x.strip() for x in args.crawls.split(",")}
        real_sites([x.strip() for x in args.manual_langs.split(",") if x.strip()],
                   [v for v in VARIANTS if v[0] in wanted])
        return
    port = free_port()
    site = generate_site(SiteSpec(scheme=args.scheme, n_pairs=args.pairs, third_lang=None,
                                  seed=1), port)
    tmp = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    env = plain_spider_env(tmp)
    sets = [x for k, v in LOOPBACK.items() for x in ("-s", f"{k}={v}")]

    def commands(start_url: str, run_dir: Path, startup: bool = False) -> dict:
        """The three crawls; ``run_dir`` holds the bitext crawl's outputs and pattern DB (a
        new one each round: a crawl into an existing store resumes it). ``startup``: run
        against a port nothing listens on, where the bitext crawl's preflight (is the
        start URL answering?) would refuse to start: it is left out."""
        preflight = ["-s", "BITEXT_PREFLIGHT_ENABLED=False"] if startup else []
        return {
            "plain": [sys.executable, "-m", "scrapy", "crawl", "plain", "-a",
                      f"start_url={start_url}", "-s", "SPIDER_MODULES=plainbench.plain", *sets],
            "plain_lid": [sys.executable, "-m", "scrapy", "crawl", "plain_lid", "-a",
                          f"start_url={start_url}", "-a", "langs=en,fr", "-a",
                          f"out={tmp / 'plain_lid_pairs.jsonl'}", "-s",
                          "SPIDER_MODULES=plainbench.plain_lid", *sets],
            "bitext": [sys.executable, "-m", "scrapy", "crawl", "bitext", "-a",
                       f"start_url={start_url}", "-a", "langs=en,fr", "-s",
                       f"BITEXT_OUTPUT_DIR={run_dir / 'out'}", "-s",
                       f"BITEXT_PATTERN_DB={run_dir / 'db.json'}", "-s",
                       "BITEXT_ALIGN_ENABLED=False", *sets, *BITEXT_SETTINGS, *preflight],
        }

    # Rounds in turn (plain, plain_lid, bitext, then again): on a shared machine a spider's
    # pages/s moves by a quarter between back-to-back runs, so each ratio is of one round's
    # runs, and the medians are quoted.
    repeat = max(1, args.repeat)
    rounds: list[dict] = []
    with serve_site(site, port):
        for i in range(repeat):
            results = {}
            for name, cmd in commands(site.start_url, tmp / f"round-{i + 1}").items():
                wall, cpu, log = run(cmd, env)
                pages = stat(log, "response_received_count")
                elapsed = stat(log, "elapsed_time_seconds")
                results[name] = {"pages": int(pages), "crawl_s": round(elapsed, 2),
                                 "pages_per_s": round(pages / elapsed, 1) if elapsed else 0,
                                 "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                                 "peak_mem_mb": round(stat(log, "memusage/max") / 2**20, 1)}
            rounds.append(results)
    # Start-up and shutdown alone: the same commands on a port nothing listens on.
    startup = {name: round(run(cmd, env)[1], 2)
               for name, cmd in commands(f"http://127.0.0.1:{free_port()}/",
                                         tmp / "start-up", startup=True).items()}
    for results in rounds:
        for name, r in results.items():
            r["startup_cpu_s"] = startup[name]
            r["crawl_cpu_ms_per_page"] = round(
                1000 * (r["cpu_s"] - startup[name]) / max(1, r["pages"]), 2)
    print(f"site: {args.scheme} scheme, {len(site.page_langs)} pages, loopback")
    for i, results in enumerate(rounds, 1):
        for name, r in results.items():
            print(f"{'round ' + str(i) if repeat > 1 else '':8s} {name:9s} {r['pages']:6d} pages"
                  f"  {r['pages_per_s']:7.1f} pages/s  crawl {r['crawl_s']:6.2f} s  wall"
                  f" {r['wall_s']:6.2f} s  CPU {r['cpu_s']:6.2f} s (start-up"
                  f" {r['startup_cpu_s']:.2f} s; {r['crawl_cpu_ms_per_page']:.2f} ms a page)"
                  f"  peak {r['peak_mem_mb']} MiB")

    def ratios(figure, a: str, b: str, inverse: bool = False) -> str:
        values = sorted((r[b][figure] / r[a][figure]) if inverse else
                        (r[a][figure] / r[b][figure]) for r in rounds)
        text = f"{statistics.median(values):.2f}"
        return text + (f" ({values[0]:.2f}-{values[-1]:.2f}, {len(values)} rounds)"
                       if len(values) > 1 else "")

    print(f"ratio bitext/plain_lid pages/s: {ratios('pages_per_s', 'bitext', 'plain_lid')}"
          "  (plain_lid: the plain spider a user would write, fastText labels and URLs"
          " paired by stripping language codes)")
    print(f"ratio bitext/plain pages/s: {ratios('pages_per_s', 'bitext', 'plain')}  (bitext:"
          " language ID, store, WARC, focus, online URL patterns and deep recovery; the"
          " closing alignment is timed by bench/bench_align.py)")
    print("ratio of CPU per page, plain_lid/bitext:"
          f" {ratios('crawl_cpu_ms_per_page', 'bitext', 'plain_lid', inverse=True)}")
    print("ratio of CPU per page, plain/bitext:"
          f" {ratios('crawl_cpu_ms_per_page', 'bitext', 'plain', inverse=True)}"
          "  (start-up set aside; the figure a shared machine moves least)")
    print(json.dumps(rounds if repeat > 1 else rounds[0]))


if __name__ == "__main__":
    main()
