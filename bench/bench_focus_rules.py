"""The focus's ablation: each rule of ``BITEXT_FOCUS_RULES`` switched off in turn (``None``)
on real sites, against every rule on and an unfocused crawl.

    python bench/bench_focus_rules.py                          # nginx en-zh
    python bench/bench_focus_rules.py --sites 'nginx en-zh,WET en-fr'
    python bench/bench_focus_rules.py --rules promote,sent_once  # some rules only

Each site of ``bench_crawl.REAL_CRAWLS`` is served from ``../shared/data`` and crawled
with the project defaults (``all rules``), once per rule with that rule off, and once
unfocused (focus, deep recovery and parallel links off, as ``bench_crawl --real``). A row
gives responses, 404s, pairs found against the gold, recall, F1 and responses per pair
found; ``Δ responses`` and ``Δ pairs`` are the row's against ``all rules`` (a rule that
saves responses shows a positive ``Δ responses`` when it is off). A markdown table for
docs/benchmarks.md closes the output.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_crawl import REAL_CRAWLS, SHARED, VARIANTS, bench_site  # noqa: E402

from bitextcrawl.defaults import DEFAULTS  # noqa: E402


def variants(only: set[str]) -> list[tuple[str, list[str]]]:
    """``all rules``, each rule off (those of ``only``, where given), unfocused."""
    out: list[tuple[str, list[str]]] = [("all rules", [])]
    for path in DEFAULTS["BITEXT_FOCUS_RULES"]:
        module = path.split(".")[-2]
        if only and module not in only:
            continue
        out.append((f"- {module}", ["-s", "BITEXT_FOCUS_RULES=" + json.dumps({path: None})]))
    out.append(("unfocused", dict(VARIANTS)["unfocused"]))
    return out


def markdown(rows: list[dict]) -> str:
    lines = ["| site | rules | responses | 404 | pairs found/gold | recall | F1 "
             "| responses per pair | Δ responses | Δ pairs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = {r["site"]: r for r in rows if r["crawl"] == "all rules"}
    for r in rows:
        b = base[r["site"]]
        lines.append(f"| {r['site']} | {r['crawl']} | {r['responses']} | {r['404']} "
                     f"| {r['tp']}/{r['gold']} | {r['recall']:.3f} | {r['f1']:.3f} "
                     f"| {r['per_pair']:.2f} | {r['responses'] - b['responses']:+d} "
                     f"| {r['tp'] - b['tp']:+d} |")
    return "\n".join(lines)


def main() -> None:
    from bitextcrawl.demo.server import serve_directory
    from bitextcrawl.pairing.evaluate import read_gold

    ap = argparse.ArgumentParser()
    ap.add_argument("--sites", default="nginx en-zh",
                    help="comma-separated names of bench_crawl.REAL_CRAWLS")
    ap.add_argument("--rules", default="",
                    help="comma-separated rule modules to switch off (default: every rule)")
    args = ap.parse_args()
    names = [n.strip() for n in args.sites.split(",") if n.strip()]
    only = {n.strip() for n in args.rules.split(",") if n.strip()}
    rows = []
    for name, folder, start, langs, gold_file in REAL_CRAWLS:
        if name not in names:
            continue
        if not (SHARED / folder).is_dir() or not (SHARED / gold_file).exists():
            print(f"{name}: skipped, {SHARED / folder} not found", flush=True)
            continue
        with serve_directory(str(SHARED / folder)) as server:
            gold = read_gold(SHARED / gold_file, base=server.url + "/")
            rows += bench_site(name, server.url + start, langs, gold, variants(only))
    if rows:
        print()
        print(markdown(rows))


if __name__ == "__main__":
    main()
