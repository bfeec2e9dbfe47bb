"""The figures and tables of docs/benchmarks.md, drawn from the data in ``bench/results/``:

    python bench/plot_benchmarks.py            # write docs/figures/*.svg from the data
    python bench/plot_benchmarks.py --check    # exit 1 where a figure is not what the data draws
    python bench/plot_benchmarks.py --tables   # print the markdown tables the page holds

The data files hold the figures a bench printed, one row each, with the commit and the
date they were measured at:

- ``responses_per_pair.csv``: ``bench/bench_crawl.py --real`` (the focused crawl,
  ``bitext``, and the unfocused one of each site);
- ``baseline.csv``: ``bench/bench_crawl.py --real --crawls bitext`` on the sites the plain
  spiders crawl too (``bitext`` against ``plain_lid``: every same-site link, fastText
  labels, URLs paired by stripping language codes);
- ``workers.csv``: ``bench/bench_distributed.py --scale --nginx`` and its ``--only SITE
  --runs 5`` series (1, 2 and 4 distributed workers).

Drawn with the standard library alone (SVG written as text): no plotting package is a
dependency of the project, and the same data gives the same bytes, which
``tests/unit/test_docs.py`` checks.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FIGURES = ROOT / "docs" / "figures"
RESPONSES_CSV = RESULTS / "responses_per_pair.csv"
WORKERS_CSV = RESULTS / "workers.csv"
BASELINE_CSV = RESULTS / "baseline.csv"
RESPONSES_SVG = FIGURES / "responses-per-pair.svg"
WORKERS_SVG = FIGURES / "workers.svg"

FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif' font-size='12'"
COLOURS = {"bitext": "#1f5fa8", "unfocused": "#e08a1e"}
LINE_COLOURS = ["#1f5fa8", "#e08a1e", "#2e8b57", "#b03060", "#6a5acd"]


def read_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def plain(label: str) -> str:
    """A table label as a figure prints it (no markdown code quotes)."""
    return label.replace("`", "")


def per_pair(row: dict) -> float | None:
    found = float(row["found"])
    return float(row["responses"]) / found if found else None


def thousands(value: str) -> str:
    """``3552`` -> ``3,552``; a mean (``106.0``) as it is."""
    return f"{int(value):,}" if value.isdigit() else value


def _svg(width: int, height: int, parts: list[str], title: str) -> str:
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}' {FONT}>\n<title>{escape(title)}</title>\n"
            f"<rect width='{width}' height='{height}' fill='white'/>\n"
            + "\n".join(parts) + "\n</svg>\n")


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' text-anchor='{anchor}'{extra}>"
            f"{escape(text)}</text>")


def responses_figure(rows: list[dict]) -> str:
    """Responses per pair found, focused (``bitext``) and unfocused, one group of bars per
    site and start page, on a log scale."""
    sites: dict[str, dict[str, dict]] = {}
    for row in rows:
        sites.setdefault(row["site"], {})[row["crawl"]] = row
    label_w, plot_w, top, row_h, bar_h = 290, 420, 58, 34, 12
    low, high = 1.0, 100.0
    height = top + row_h * len(sites) + 44
    width = label_w + plot_w + 80

    def x_of(value: float) -> float:
        return label_w + plot_w * (math.log10(value) - math.log10(low)) / (
            math.log10(high) - math.log10(low))

    parts = [_text(10, 20, "Responses per pair found (log scale): focused crawl (bitext) "
                   "and unfocused crawl", extra=" font-weight='bold'")]
    for i, crawl in enumerate(("bitext", "unfocused")):
        x = label_w + i * 150
        parts.append(f"<rect x='{x}' y='32' width='12' height='12' fill='{COLOURS[crawl]}'/>")
        parts.append(_text(x + 18, 42, crawl if crawl == "unfocused" else "bitext (focused)"))
    bottom = top + row_h * len(sites)
    for tick in (1, 2, 5, 10, 20, 50, 100):
        x = x_of(tick)
        parts.append(f"<line x1='{x:.1f}' y1='{top - 4}' x2='{x:.1f}' y2='{bottom}' "
                     f"stroke='#ddd'/>")
        parts.append(_text(x, bottom + 16, str(tick), "middle"))
    parts.append(_text(label_w + plot_w / 2, bottom + 34, "responses per pair found", "middle"))
    for i, (site, crawls) in enumerate(sites.items()):
        y = top + i * row_h
        parts.append(_text(label_w - 8, y + row_h / 2 + 4, plain(site), "end"))
        for j, crawl in enumerate(("bitext", "unfocused")):
            row = crawls.get(crawl)
            bar_y = y + 4 + j * (bar_h + 2)
            if row is None:
                parts.append(_text(label_w + 4, bar_y + bar_h - 2, f"{crawl}: not run",
                                   extra=" fill='#888'"))
                continue
            value = per_pair(row)
            if value is None:
                parts.append(_text(label_w + 4, bar_y + bar_h - 2,
                                   f"{crawl}: no pair found ({thousands(row['responses'])} "
                                   "responses)", extra=" fill='#a33'"))
                continue
            x = x_of(value)
            parts.append(f"<rect x='{label_w}' y='{bar_y}' width='{x - label_w:.1f}' "
                         f"height='{bar_h}' fill='{COLOURS[crawl]}'/>")
            parts.append(_text(x + 4, bar_y + bar_h - 2, f"{value:.2f}"))
    parts.append(f"<line x1='{label_w}' y1='{top - 4}' x2='{label_w}' y2='{bottom}' "
                 "stroke='#333'/>")
    return _svg(width, height, parts, "Responses per pair found, focused and unfocused")


def workers_figure(rows: list[dict]) -> str:
    """1, 2 and 4 distributed workers: responses per pair found (left) and the crawl's and
    the closing step's wall seconds (right), one line per site."""
    sites: dict[str, list[dict]] = {}
    for row in rows:
        sites.setdefault(row["site"], []).append(row)
    counts = sorted({int(r["workers"]) for r in rows})
    panel_w, panel_h, left, top, gap = 300, 220, 60, 50, 90
    width = left + 2 * panel_w + gap + 30
    height = top + panel_h + 60 + 18 * len(sites)
    parts = [_text(10, 20, "1, 2 and 4 distributed workers (2 cores shared with the site's "
                   "server and Redis)", extra=" font-weight='bold'")]

    def panel(x0: float, title: str, value, y_max: float, y_step: float) -> None:
        parts.append(_text(x0 + panel_w / 2, top - 10, title, "middle"))
        ticks = [y_step * k for k in range(int(round(y_max / y_step)) + 1)]
        for tick in ticks:
            y = top + panel_h - panel_h * tick / y_max
            parts.append(f"<line x1='{x0}' y1='{y:.1f}' x2='{x0 + panel_w}' y2='{y:.1f}' "
                         "stroke='#ddd'/>")
            parts.append(_text(x0 - 6, y + 4, f"{tick:g}", "end"))
        for i, n in enumerate(counts):
            x = x0 + 20 + (panel_w - 40) * i / max(1, len(counts) - 1)
            parts.append(_text(x, top + panel_h + 16, str(n), "middle"))
        parts.append(_text(x0 + panel_w / 2, top + panel_h + 34, "workers", "middle"))
        parts.append(f"<rect x='{x0}' y='{top}' width='{panel_w}' height='{panel_h}' "
                     "fill='none' stroke='#333'/>")
        for k, site_rows in enumerate(sites.values()):
            colour = LINE_COLOURS[k % len(LINE_COLOURS)]
            points = []
            for row in sorted(site_rows, key=lambda r: int(r["workers"])):
                i = counts.index(int(row["workers"]))
                x = x0 + 20 + (panel_w - 40) * i / max(1, len(counts) - 1)
                y = top + panel_h - panel_h * value(row) / y_max
                points.append((x, y))
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f"<polyline points='{path}' fill='none' stroke='{colour}' "
                         "stroke-width='2'/>")
            parts.extend(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3.5' fill='{colour}'/>"
                         for x, y in points)

    ratios = [per_pair(r) or 0.0 for r in rows]
    panel(left, "responses per pair found", lambda r: per_pair(r) or 0.0,
          max(3.0, math.ceil(max(ratios))), 0.5)
    seconds = [float(r["crawl_s"]) + float(r["closing_s"]) for r in rows]
    step = 5.0
    panel(left + panel_w + gap, "wall seconds: crawl + closing step",
          lambda r: float(r["crawl_s"]) + float(r["closing_s"]),
          step * math.ceil(max(seconds) / step), step)
    for k, (site, site_rows) in enumerate(sites.items()):
        y = top + panel_h + 56 + 18 * k
        colour = LINE_COLOURS[k % len(LINE_COLOURS)]
        runs = int(site_rows[0]["runs"])
        parts.append(f"<line x1='{left}' y1='{y - 4}' x2='{left + 24}' y2='{y - 4}' "
                     f"stroke='{colour}' stroke-width='2'/>")
        parts.append(_text(left + 30, y, plain(site) + (f" (mean of {runs} runs)"
                                                         if runs > 1 else " (one run)")))
    return _svg(width, height, parts, "1, 2 and 4 distributed workers")


def _cell(text: str) -> str:
    return f" {text} " if text else " "


def responses_table(rows: list[dict]) -> str:
    lines = ["| site | crawl | responses | 404 | pairs found/gold | recall | F1 "
             "| responses per pair | measured at |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    last = None
    for row in rows:
        value = per_pair(row)
        site = row["site"] if row["site"] != last else ""
        last = row["site"]
        lines.append(f"|{_cell(site)}| {row['crawl']} | {thousands(row['responses'])} "
                     f"| {row['http_404']} | {row['found']}/{row['gold']} | {row['recall']} "
                     f"| {row['f1']} | {'—' if value is None else f'{value:.2f}'} "
                     f"| `{row['commit']}`, {row['date']} |")
    return "\n".join(lines)


def workers_table(rows: list[dict]) -> str:
    lines = ["| site | workers | responses | responses per pair | pairs found / gold "
             "| crawl s | closing s | measured at |",
             "|---|---|---|---|---|---|---|---|"]
    last = None
    for row in rows:
        runs = int(row["runs"])
        site = row["site"] if row["site"] != last else ""
        if site and runs > 1:
            site += f", mean of {runs} runs"
        last = row["site"]
        found = f"{row['found']} / {row['gold']}"
        if runs > 1:
            found += f" in {row['found_all_in_runs']} of {runs}"
        lines.append(f"|{_cell(site)}| {row['workers']} | {row['responses']} "
                     f"| {per_pair(row):.2f} | {found} | {row['crawl_s']} "
                     f"| {row['closing_s']} | `{row['commit']}`, {row['date']} |")
    return "\n".join(lines)


def baseline_table(rows: list[dict]) -> str:
    names = {"bitext": "bitextcrawl (defaults)",
             "plain_lid": "`plain_lid`: Scrapy, fastText, URL stripping"}
    lines = ["| site | crawler | responses | pairs found/gold | recall | F1 "
             "| responses per pair | wall s (CPU s) | measured at |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    last = None
    for row in rows:
        site = row["site"] if row["site"] != last else ""
        last = row["site"]
        lines.append(f"|{_cell(site)}| {names[row['crawler']]} | {row['responses']} "
                     f"| {row['found']}/{row['gold']} | {row['recall']} | {row['f1']} "
                     f"| {per_pair(row):.2f} | {row['wall_s']} ({row['cpu_s']}) "
                     f"| `{row['commit']}`, {row['date']} |")
    return "\n".join(lines)


def figures() -> dict[Path, str]:
    """Each figure's path and the SVG the data draws."""
    return {RESPONSES_SVG: responses_figure(read_rows(RESPONSES_CSV)),
            WORKERS_SVG: workers_figure(read_rows(WORKERS_CSV))}


def tables() -> dict[str, str]:
    return {"responses per pair": responses_table(read_rows(RESPONSES_CSV)),
            "baseline": baseline_table(read_rows(BASELINE_CSV)),
            "workers": workers_table(read_rows(WORKERS_CSV))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 where a figure differs from what the data draws")
    ap.add_argument("--tables", action="store_true",
                    help="print the markdown tables of docs/benchmarks.md")
    args = ap.parse_args()
    if args.tables:
        print("\n\n".join(tables().values()))
        return 0
    stale = []
    for path, svg in figures().items():
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != svg:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("not what the data draws (python bench/plot_benchmarks.py): "
              + ", ".join(str(p.relative_to(ROOT)) for p in stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
