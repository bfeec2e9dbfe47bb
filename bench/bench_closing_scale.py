"""The shared closing step on a big site: a local crawl against two Redis workers.

    python bench/bench_closing_scale.py [--pairs 10000] [--workers 2] [--keep DIR]

A generated site of ``--pairs`` en-fr pairs (prefix scheme: 2 x pairs pages and a home
page) served on loopback, crawled twice with the closing alignment on: once locally
(SQLite, one process) and once by ``--workers`` distributed workers sharing a fresh Redis
(``SCRAPY_PROJECT=distributed``, ``BITEXT_CLOSING_SHARED_ENABLED`` on: the last worker
decides the pairs, every live worker drains the bitext stage's queue). Needs
``redis-server`` on PATH.

Printed per run: responses, pages stored, pairs found/gold, the crawl's and the closing
step's wall time, and each worker's share of the bitext stage's page pairs
(``bitext/closing/pairs_aligned`` of its stats). Then, file by file, whether the
distributed run's outputs (``pairs.jsonl``, ``bitext.tsv``, ``bitext.tmx``) are
byte-identical to the local crawl's once the server's port is taken out of the URLs (the
two runs are served from one server, so the ports agree already), and if not, how many
lines differ.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_distributed import cost_run  # noqa: E402

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.demo.server import free_port, serve_site  # noqa: E402
from testkit.crawls import redis_server  # noqa: E402

COMPARED = ("pairs.jsonl", "bitext.tsv", "bitext.tmx")
# the TMX header carries the time it was written
VOLATILE = ("creationdate=",)


def lines_of(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if not any(v in line for v in VOLATILE)]


def compare(local: Path, distributed: Path) -> list[tuple[str, bool, int]]:
    """(file, identical, lines differing) for each compared output."""
    rows = []
    for name in COMPARED:
        a, b = lines_of(local / name), lines_of(distributed / name)
        differing = len(set(a) ^ set(b)) + abs(len(a) - len(b) - (len(set(a)) - len(set(b))))
        rows.append((name, a == b, differing))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", default=None, help="write outputs and worker logs here")
    args = ap.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-closing-"))
    port = free_port()
    site = generate_site(SiteSpec(scheme="prefix", n_pairs=args.pairs, third_lang=None,
                                  seed=3), port)
    print(f"generated site: {args.pairs} pairs; outputs and logs under {base}", flush=True)
    print(f"{'run':<15} {'responses':>9} {'pages':>6} {'pairs/gold':>12} {'crawl s':>8} "
          f"{'closing s':>9}  bitext pairs aligned per worker", flush=True)
    runs = {}
    with tempfile.TemporaryDirectory() as rtmp, redis_server(Path(rtmp)) as redis_url, \
            serve_site(site, port) as server:
        for name, workers, url in (("local", 1, None),
                                   (f"distributed x{args.workers}", args.workers, redis_url)):
            out = base / name.replace(" ", "-")
            r = cost_run(server, site.start_url, "en,fr", site.gold_pairs, out, workers, url,
                         None)
            closing = json.loads((out / "stats.json").read_text())["seconds"]
            shares = [int(s.get("bitext/closing/pairs_aligned", 0)) for s in r["stats"]]
            runs[name] = out
            print(f"{name:<15} {r['responses']:>9} {r['pages']:>6} "
                  f"{r['tp']:>6}/{r['gold']:<5} {r['wall'] - closing:>8.1f} {closing:>9.1f}  "
                  f"{' + '.join(map(str, shares))}", flush=True)
    local, distributed = runs.values()
    print()
    for name, same, differing in compare(local, distributed):
        print(f"{name:<13} {'identical' if same else f'differs ({differing} lines)'}")


if __name__ == "__main__":
    main()
