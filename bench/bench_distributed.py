"""Crawl speed with 1 and 2 distributed workers (and a local crawl) on one loopback site.

    python bench/bench_distributed.py [--pairs 300] [--scheme prefix] [--delays 0,0.05]
    python bench/bench_distributed.py --manual [--nginx] [--keep DIR]   # what a second worker costs
    python bench/bench_distributed.py --scale [--workers 1,2,4] [--pairs 300] [--nginx] [--keep DIR]
                                      [--runs N] [--only demo|manual|nginx|wet] [--set NAME=VALUE]

Needs ``redis-server`` on PATH (started here on a free loopback port, no persistence).
For each DOWNLOAD_DELAY in ``--delays``: one local crawl (SQLite, ``settings.local``),
then 1 and 2 workers with ``SCRAPY_PROJECT=distributed`` sharing a fresh Redis frontier.
The closing alignment is off (``BITEXT_ALIGN_ENABLED=False``): the figure is crawling.

Printed per run: pages stored, pages per worker, wall time (processes started -> all
exited, with ~3 s of start-up each), crawl span (first -> last page fetched, from the
records' ``fetched_at``), pages/s over the span, and pages the server served more than
once (must be 0). DOWNLOAD_DELAY is per worker, so with a delay the workers together
load the site N times harder: that is the politeness-bound case; 0 is the CPU-bound one
(the workers, the server and Redis share this machine's cores).

``--manual`` (what a second worker costs): the generated ten-language manual
(``ManualSpec(n_pages=60, seed=1)``, ``langs=en,fr``) crawled locally, by 1 distributed
worker and by 2 sharing one Redis, the closing alignment ON in all (the last worker to
leave aligns the shared store, see docs/deployment.md). With ``--nginx`` also
nginx.org crawled from ``/cn/`` (``langs=en,zh``) out of ``../shared/data/nginx``. Printed
per run: responses (``downloader/response_count`` summed over the workers, and per worker),
the server's hits, 301s, 404s, pages stored, pairs found/gold (true positives), responses
per pair found, and paths the server served more than once (robots.txt aside); then the
``bitext/focus|redirects|recovery|parallel_links/*`` stats of every worker beside the local
crawl's, and the paths served twice. ``--keep DIR`` keeps every run's output and worker logs.

``--scale``: a generated site of ``--pairs`` pairs (en-fr, prefix scheme), the manual, and
nginx.org with ``--nginx``, each crawled by 1, 2 and 4 distributed workers (``--workers``),
the closing alignment on (shared by the workers: ``BITEXT_CLOSING_SHARED_ENABLED``). Printed per run: responses
(summed over the workers), responses per pair found, pairs found/gold, the crawl's wall time
(workers started -> the closing step started: the wall time less the closing step's) and
the closing step's wall time (``seconds`` of the ``stats.json`` the last worker writes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.demo.server import free_port, serve_site  # noqa: E402
from testkit.crawls import crawl_command, redis_server  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def start_workers(cmd: list[str], env: dict, workers: int, out: Path):
    """Run ``workers`` copies of ``cmd`` at once and wait for all; their logs go to files
    (``out/worker-N.log``), never to pipes: a pipe read after another worker's exit fills
    up (64 KiB), blocks that worker's reactor on a log write, and the others, taking it for
    dead after BITEXT_WORKER_TIMEOUT, close and align without it. Returns the processes
    and their logs."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"worker-{i}.log" for i in range(workers)]
    files = [path.open("w", encoding="utf-8") for path in paths]
    try:
        procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=fh, text=True) for fh in files]
        for proc in procs:
            proc.wait()
    finally:
        for fh in files:
            fh.close()
    return procs, [path.read_text(encoding="utf-8", errors="replace") for path in paths]


def fresh_run(server, redis_url: str | None) -> dict:
    """The environment of a run's workers (the distributed profile when ``redis_url``,
    whose database is emptied first), with the server's hit counts reset."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).flushall()
        env.update(SCRAPY_PROJECT="distributed", REDIS_URL=redis_url)
    with server.httpd.hits_lock:
        server.hits.clear()
    return env


def run(site, server, out: Path, workers: int, delay: str, redis_url: str | None) -> dict:
    settings = {"BITEXT_ALIGN_ENABLED": "False", "DOWNLOAD_DELAY": delay,
                "CONCURRENT_REQUESTS_PER_DOMAIN": "8", "LOGSTATS_INTERVAL": "60"}
    env = fresh_run(server, redis_url)
    start = time.perf_counter()
    procs, logs = start_workers(crawl_command(site.start_url, out, settings=settings), env,
                                workers, out)
    wall = time.perf_counter() - start
    for proc, log in zip(procs, logs):
        if proc.returncode != 0:
            raise SystemExit(f"crawl failed ({proc.returncode}):\n{log[-3000:]}")
    pages = [json.loads(line) for line in (out / "pages.jsonl").open(encoding="utf-8")]
    fetched = sorted(p["fetched_at"] for p in pages)
    span = fetched[-1] - fetched[0] if len(fetched) > 1 else 0.0
    per_worker = []
    for log in logs:
        marker = "'bitext/pages/stored': "
        per_worker.append(int(log.split(marker, 1)[1].split(",", 1)[0]) if marker in log else 0)
    twice = sum(1 for (_, path), n in server.hits.items() if n > 1 and path != "/robots.txt")
    return {"pages": len(pages), "per_worker": per_worker, "wall": wall, "span": span,
            "rate": len(pages) / span if span else float("nan"), "twice": twice}


# ---- --manual: responses per pair found, local against 1 and 2 distributed workers ------

def log_stats(log: str) -> dict:
    """The numeric stats of a worker's "Dumping Scrapy stats" block (one ``'key': value``
    a line, as pprint writes them)."""
    import re

    block = log.rsplit("Dumping Scrapy stats:", 1)[-1] if "Dumping Scrapy stats:" in log else ""
    stats = {}
    for m in re.finditer(r"^\s*'([^']+)':\s*(-?[0-9.]+(?:e-?\d+)?)[,}]", block, re.M):
        stats[m.group(1)] = float(m.group(2))
    return stats


def cost_run(server, start_url: str, langs: str, gold: list, out: Path, workers: int,
             redis_url: str | None, directory_index: str | None,
             extra: dict | None = None) -> dict:
    """One crawl (local when ``redis_url`` is None) with the closing alignment on; the
    worker logs (``worker-N.log``) and the server's hits (``hits.tsv``) are kept in ``out``."""
    from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl

    settings = {"LOGSTATS_INTERVAL": "60", "STATS_DUMP": "True", **(extra or {})}
    env = fresh_run(server, redis_url)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    procs, logs = start_workers(crawl_command(start_url, out, langs=langs, settings=settings),
                                env, workers, out)
    wall = time.perf_counter() - start
    for proc, log in zip(procs, logs):
        if proc.returncode != 0:
            raise SystemExit(f"crawl failed ({proc.returncode}):\n{log[-3000:]}")
    stats = [log_stats(log) for log in logs]
    total = lambda key: int(sum(s.get(key, 0) for s in stats))  # noqa: E731
    pages = sum(1 for _ in (out / "pages.jsonl").open(encoding="utf-8"))
    path = out / "pairs.jsonl"  # (absent when the workers died before the close)
    predicted = read_pairs_jsonl(path, langs.split(",")) if path.exists() else []
    scores = evaluate(gold, predicted, directory_index=directory_index)
    hits = dict(server.hits)
    with (out / "hits.tsv").open("w", encoding="utf-8") as fh:
        for (_, path), n in sorted(hits.items(), key=lambda kv: kv[0][1]):
            fh.write(f"{n}\t{path}\n")
    responses = total("downloader/response_count")
    twice = sorted(path for (_, path), n in hits.items() if n > 1 and path != "/robots.txt")
    return {"responses": responses,
            "per_worker": [int(s.get("downloader/response_count", 0)) for s in stats],
            "hits": sum(hits.values()), "301": total("downloader/response_status_count/301"),
            "404": total("downloader/response_status_count/404"), "pages": pages,
            "tp": scores["tp"], "gold": scores["gold"], "f1": scores["f1"],
            "per_pair": responses / scores["tp"] if scores["tp"] else float("inf"),
            "twice": twice, "stats": stats, "wall": wall, "hit_paths": hits}


def cost_sites(with_nginx: bool, demo_pairs: int = 0, with_wet: bool = False):
    """(name, start URL, langs, gold, directory_index, server context) per site; with
    ``demo_pairs``, first a generated site of that many pairs (``--scale``); with
    ``with_wet``, WET en-fr out of ../shared/data/wet last."""
    from testkit.multilingual import ManualSpec, generate_manual

    if demo_pairs:
        port = free_port()
        site = generate_site(SiteSpec(scheme="prefix", n_pairs=demo_pairs, third_lang=None,
                                      seed=3), port)
        yield f"demo-{demo_pairs} en-fr", site.start_url, "en,fr", site.gold_pairs, None, \
            serve_site(site, port)
    port = free_port()
    site = generate_manual(ManualSpec(n_pages=60, seed=1), port)
    yield "manual en-fr", site.start_url, "en,fr", site.gold_pairs["fr"], None, \
        serve_site(site, port)
    if with_nginx:
        from bitextcrawl.demo.server import serve_directory
        from bitextcrawl.pairing.evaluate import read_gold

        folder, gold_file = SHARED / "nginx" / "site", SHARED / "nginx" / "gold" / "en-cn.tsv"
        if not folder.is_dir() or not gold_file.exists():
            print(f"nginx: skipped, {folder} or {gold_file} not found", flush=True)
            return
        server = serve_directory(str(folder))
        gold = read_gold(gold_file, base=server.url + "/")
        yield "nginx /cn/ en-zh", server.url + "/cn/", "en,zh", gold, "index.html", server
    if with_wet:
        from bitextcrawl.demo.server import serve_directory
        from bitextcrawl.pairing.evaluate import read_gold

        folder, gold_file = SHARED / "wet", SHARED / "wet-gold.tsv"
        if not folder.is_dir() or not gold_file.exists():
            print(f"WET: skipped, {folder} or {gold_file} not found", flush=True)
            return
        server = serve_directory(str(folder))
        gold = read_gold(gold_file, base=server.url + "/")
        yield "wet en-fr", server.url + "/index-en.html", "en,fr", gold, None, server


STAT_PREFIXES = ("bitext/focus/", "bitext/redirects/", "bitext/recovery/",
                 "bitext/parallel_links/", "bitext/pages/", "dupefilter/",
                 "downloader/response_status_count/", "scheduler/enqueued")


def cost_main(with_nginx: bool, keep: str | None) -> None:
    base = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="bench-dist-cost-"))
    print(f"outputs and worker logs under {base}")
    head = (f"{'site':<17} {'run':<15} {'responses':>9} {'per worker':<11} {'hits':>5} "
            f"{'301':>4} {'404':>4} {'pages':>5} {'pairs/gold':>10} {'F1':>5} "
            f"{'resp/pair':>9} {'twice':>5} {'wall s':>6}")
    rows = []
    with tempfile.TemporaryDirectory() as rtmp, redis_server(Path(rtmp)) as redis_url:
        for name, start_url, langs, gold, index, server in cost_sites(with_nginx):
            print(head, flush=True)
            with server:
                for run_name, workers, url in (("local", 1, None),
                                               ("distributed x1", 1, redis_url),
                                               ("distributed x2", 2, redis_url)):
                    out = base / f"{name.split()[0]}-{run_name.replace(' ', '-')}"
                    r = cost_run(server, start_url, langs, gold, out, workers, url, index)
                    rows.append((name, run_name, r))
                    print(f"{name:<17} {run_name:<15} {r['responses']:>9} "
                          f"{'/'.join(map(str, r['per_worker'])):<11} {r['hits']:>5} "
                          f"{r['301']:>4} {r['404']:>4} {r['pages']:>5} "
                          f"{r['tp']:>5}/{r['gold']:<4} {r['f1']:>5.3f} {r['per_pair']:>9.2f} "
                          f"{len(r['twice']):>5} {r['wall']:>6.1f}", flush=True)
            print()
    for name in dict.fromkeys(n for n, _, _ in rows):
        runs = [(run_name, r) for n, run_name, r in rows if n == name]
        cols = [(f"{run_name}#{i}" if len(r["stats"]) > 1 else run_name, s)
                for run_name, r in runs for i, s in enumerate(r["stats"])]
        keys = sorted({k for _, s in cols for k in s if k.startswith(STAT_PREFIXES)})
        print(f"{name}: stats per worker")
        print(f"  {'stat':<44}" + "".join(f"{c[:16]:>17}" for c, _ in cols))
        for k in keys:
            print(f"  {k:<44}" + "".join(f"{int(s.get(k, 0)):>17}" for _, s in cols))
        for run_name, r in runs:
            if r["twice"]:
                shown = ", ".join(f"{p} x{n}" for p, n in
                                  ((p, max(v for (h, q), v in r["hit_paths"].items() if q == p))
                                   for p in r["twice"][:12]))
                print(f"  {run_name}: {len(r['twice'])} paths served more than once: {shown}"
                      + (" ..." if len(r["twice"]) > 12 else ""))
        print()


def scale_main(workers: list[int], with_nginx: bool, keep: str | None,
               demo_pairs: int, runs: int = 1, only: str | None = None,
               extra: dict | None = None) -> None:
    """Responses per pair, pairs found, crawl and closing wall time for N workers; with
    ``runs`` > 1 each count is crawled that many times, then a summary line per count."""
    base = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="bench-dist-scale-"))
    print(f"outputs and worker logs under {base}; {os.cpu_count()} CPUs")
    print(f"{'site':<17} {'workers':>7} {'run':>3} {'responses':>9} {'resp/pair':>9} "
          f"{'pairs/gold':>10} {'crawl s':>8} {'closing s':>9}", flush=True)
    with tempfile.TemporaryDirectory() as rtmp, redis_server(Path(rtmp)) as redis_url:
        for name, start_url, langs, gold, index, server in cost_sites(
                with_nginx, demo_pairs, with_wet=only == "wet"):
            if only and not name.startswith(only):
                server.httpd.server_close()   # (bound, never started)
                continue
            summary = []
            with server:
                for n in workers:
                    per_run = []
                    for k in range(runs):
                        out = base / f"{name.split()[0]}-x{n}" / f"run{k + 1}"
                        r = cost_run(server, start_url, langs, gold, out, n, redis_url, index,
                                     extra)
                        closing = json.loads((out / "stats.json").read_text())["seconds"]
                        per_run.append(r)
                        print(f"{name:<17} {n:>7} {k + 1:>3} {r['responses']:>9} "
                              f"{r['per_pair']:>9.2f} {r['tp']:>5}/{r['gold']:<4} "
                              f"{r['wall'] - closing:>8.1f} {closing:>9.1f}", flush=True)
                    summary.append((n, per_run))
            if runs > 1:
                print(f"{name}: per worker count, over {runs} runs: responses per pair "
                      f"min/mean/max, pairs found min/max (gold), runs with every pair")
                for n, per_run in summary:
                    pp = [r["per_pair"] for r in per_run]
                    tp = [r["tp"] for r in per_run]
                    full = sum(1 for r in per_run if r["tp"] == r["gold"])
                    print(f"  {n} workers: {min(pp):.2f}/{sum(pp) / len(pp):.2f}/{max(pp):.2f}"
                          f"  pairs {min(tp)}-{max(tp)} ({per_run[0]['gold']})"
                          f"  every pair in {full}/{runs} runs", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--scheme", default="prefix")
    parser.add_argument("--delays", default="0,0.05",
                        help="comma-separated DOWNLOAD_DELAY values (seconds)")
    parser.add_argument("--manual", action="store_true",
                        help="responses per pair found on the generated manual (en-fr), "
                             "local against 1 and 2 workers, alignment on")
    parser.add_argument("--nginx", action="store_true",
                        help="with --manual or --scale: also nginx.org from /cn/ (en-zh), "
                             "from ../shared/data/nginx")
    parser.add_argument("--keep", help="with --manual or --scale: write outputs and logs here")
    parser.add_argument("--scale", action="store_true",
                        help="responses per pair, pairs, crawl and closing wall time for "
                             "1, 2 and 4 workers (alignment on)")
    parser.add_argument("--workers", default="1,2,4",
                        help="with --scale: comma-separated worker counts")
    parser.add_argument("--runs", type=int, default=1,
                        help="with --scale: crawls per worker count (and a summary)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="with --scale: a Scrapy setting for every worker (repeatable)")
    parser.add_argument("--only", choices=("demo", "manual", "nginx", "wet"),
                        help="with --scale: this site alone (nginx implies --nginx; wet: "
                             "WET en-fr out of ../shared/data/wet)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server not found on PATH (apt-get install redis-server)")
    if args.scale:
        try:
            counts = [int(n) for n in args.workers.split(",")]
        except ValueError:
            raise SystemExit(f"--workers takes whole numbers, e.g. 1,2,4; got {args.workers}")
        if not counts or min(counts) < 1:
            raise SystemExit(f"--workers takes numbers of 1 or more; got {args.workers}")
        if args.runs < 1:
            raise SystemExit(f"--runs takes a number of 1 or more; got {args.runs}")
        if any("=" not in item for item in args.set):
            raise SystemExit(f"--set takes NAME=VALUE; got {args.set}")
        scale_main(counts, args.nginx or args.only == "nginx", args.keep,
                   args.pairs if args.only in (None, "demo") else 0, args.runs, args.only,
                   dict(item.split("=", 1) for item in args.set))
        return
    if args.manual:
        cost_main(args.nginx, args.keep)
        return

    port = free_port()
    site = generate_site(SiteSpec(scheme=args.scheme, n_pairs=args.pairs, seed=3), port)
    print(f"site: {args.scheme} scheme, {len(site.page_langs)} HTML pages, "
          f"{len(site.gold_pairs)} gold pairs; {os.cpu_count()} CPUs")
    print(f"{'delay':>6} {'run':<14} {'pages':>6} {'per worker':<14} {'wall s':>7} "
          f"{'span s':>7} {'pages/s':>8} {'twice':>6}")
    with tempfile.TemporaryDirectory() as tmp, serve_site(site, port) as server, \
            redis_server(Path(tmp)) as redis_url:
        for delay in args.delays.split(","):
            baseline = None
            for name, workers, url in (("local", 1, None), ("distributed x1", 1, redis_url),
                                       ("distributed x2", 2, redis_url)):
                out = Path(tmp) / f"{name.replace(' ', '-')}-{delay}"
                r = run(site, server, out, workers, delay, url)
                if name == "distributed x1":
                    baseline = r["rate"]
                speedup = f"  x{r['rate'] / baseline:.2f}" if baseline and workers > 1 else ""
                print(f"{delay:>6} {name:<14} {r['pages']:>6} "
                      f"{'/'.join(map(str, r['per_worker'])):<14} {r['wall']:>7.1f} "
                      f"{r['span']:>7.1f} {r['rate']:>8.1f} {r['twice']:>6}{speedup}",
                      flush=True)


if __name__ == "__main__":
    main()
