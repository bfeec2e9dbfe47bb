"""Crawl speed with 1 and 2 distributed workers (and a local crawl) on one loopback site.

    python bench/bench_distributed.py [--pairs 300] [--scheme prefix] [--delays 0,0.05]

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
from tests.conftest import crawl_command, redis_server  # noqa: E402


def run(site, server, out: Path, workers: int, delay: str, redis_url: str | None) -> dict:
    settings = {"BITEXT_ALIGN_ENABLED": "False", "DOWNLOAD_DELAY": delay,
                "CONCURRENT_REQUESTS_PER_DOMAIN": "8", "LOGSTATS_INTERVAL": "60"}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).flushall()
        env.update(SCRAPY_PROJECT="distributed", REDIS_URL=redis_url)
    with server.httpd.hits_lock:
        server.hits.clear()
    start = time.perf_counter()
    procs = [subprocess.Popen(crawl_command(site.start_url, out, settings=settings), cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
             for _ in range(workers)]
    logs = [proc.communicate()[1] for proc in procs]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--scheme", default="prefix")
    parser.add_argument("--delays", default="0,0.05",
                        help="comma-separated DOWNLOAD_DELAY values (seconds)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server not found on PATH (apt-get install redis-server)")

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
