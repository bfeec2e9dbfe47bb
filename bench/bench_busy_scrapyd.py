"""A Scrapyd job on a busy machine: does the crawl end, and with which pairs?

    python bench/bench_busy_scrapyd.py [--busy 2] [--pages 240] [--deadline 900]

Starts a real ``scrapyd`` on loopback, deploys this tree's egg, serves the generated
multilingual manual (``testkit/multilingual.py``: ten languages, each translating part of
its module pages; the crawl asks for en,fr) on loopback, holds ``--busy`` cores with
busy loops, and schedules ``bitext``. Prints how long the job took (or that it did not
end by ``--deadline`` seconds), its responses, idle passes and parallel-link rounds cut
by their time budget, and the F1 of its pairs. Everything it starts it stops.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.server import free_port, serve_site  # noqa: E402
from bitextcrawl.pairing.evaluate import evaluate  # noqa: E402
from testkit.multilingual import ManualSpec, generate_manual  # noqa: E402
from testkit.scrapyd_nodes import (  # noqa: E402
    api,
    build_egg,
    deploy_egg,
    running_scrapyd,
)

STATS = ("downloader/response_count", "elapsed_time_seconds", "bitext/idle/passes",
         "bitext/idle/ended_by_rule", "bitext/parallel_links/rounds",
         "bitext/parallel_links/rounds_cut")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--busy", type=int, default=2, help="busy loops (default %(default)s)")
    ap.add_argument("--pages", type=int, default=240, help="English module pages")
    ap.add_argument("--deadline", type=float, default=900.0, help="seconds")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "home").mkdir()
    (tmp / "src").mkdir()
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(args.busy)]
    try:
        with running_scrapyd(tmp / "home") as base:
            deploy_egg(build_egg(tmp / "src"), base)
            port = free_port()
            site = generate_manual(ManualSpec(n_pages=args.pages, seed=3), port)
            out = tmp / "out"
            with serve_site(site, port):
                t0 = time.time()
                job = api(base, "schedule.json", [
                    ("project", "bitextcrawl"), ("spider", "bitext"),
                    ("start_url", site.start_url), ("langs", "en,fr"),
                    ("setting", f"BITEXT_OUTPUT_DIR={out}"),
                    ("setting", f"BITEXT_PATTERN_DB={out}/patterns-db.json"),
                    ("setting", "DOWNLOAD_DELAY=0"), ("setting", "AUTOTHROTTLE_ENABLED=False")])
                ended = None
                while time.time() - t0 < args.deadline:
                    jobs = api(base, "listjobs.json?project=bitextcrawl")
                    if any(j["id"] == job["jobid"] for j in jobs["finished"]):
                        ended = time.time() - t0
                        break
                    time.sleep(2)
            log = (tmp / "home" / "logs" / "bitextcrawl" / "bitext"
                   / f"{job['jobid']}.log").read_text()
    finally:
        for loop in loops:
            loop.kill()
    print(f"{args.busy} busy loops, a manual of {args.pages} module pages in ten languages: "
          + (f"the job ended after {ended:.0f} s" if ended is not None
             else f"the job did not end in {args.deadline:.0f} s"))
    for name in STATS:
        found = re.search(rf"'{re.escape(name)}': ([0-9.]+)", log)
        print(f"  {name}: {found.group(1) if found else 0}")
    if (out / "pairs.jsonl").exists():
        pairs = [json.loads(line) for line in (out / "pairs.jsonl").open(encoding="utf-8")]
        score = evaluate(site.gold_pairs["fr"], [(p["url_1"], p["url_2"]) for p in pairs])
        print(f"  pairs: {len(pairs)}, F1 {score['f1']:.3f}")
    else:
        print("  no pairs.jsonl")


if __name__ == "__main__":
    main()
