"""Precision and recall of URL-only pairing [Zhang 2013 §2.1], per scheme and on real sites.

    python bench/bench_url_patterns.py                 # against the learner of git ref main
    python bench/bench_url_patterns.py --baseline REF  # another ref ("" = no baseline)

1. Real sites of ``../shared/data`` (skipped with a message where absent): nginx.org (en–XX,
   gold from the source tree), WET (en–fr, silver gold from its toggles), the WMT16 lett crawl
   (en–de, Bitextor's expected pairs). URLs labelled as the tests label them (nginx: the
   language folder; WET: the ``-en``/``-fr`` suffix; lett: its language column), the rest
   unlabelled. Precision is judged on the pairs touching a gold URL where the gold is partial
   (WET, lett).
2. A generated benchmark (:mod:`testkit.url_lists`): sites of every URL scheme
   mixed with sites whose URLs share no scheme, all given to one ``pair_urls`` call (as
   ``scrapy urlpairs`` does: cross-site C(p) rescue included). Recall is over the gold pairs
   of the covered schemes; a ``none`` site's pairs all count against precision.
3. Time of ``pair_urls`` on 5,000 URLs from 200 generated sites.

Each row is printed for this tree's learner and for the baseline (the module as it is at the
baseline git ref, loaded from ``git show``), so that a regression shows.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.pages.urls import site_of  # noqa: E402
from bitextcrawl.pairing import url_patterns  # noqa: E402
from testkit.url_lists import COVERED, make_benchmark, make_site  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_urlpairs_real import _folder_lines, lett_lines  # noqa: E402  (one reader each)

DATA = ROOT.parent / "shared" / "data"
BASE = "http://127.0.0.1:8000"


def load_baseline(ref: str):
    """The url_patterns module as it is at git ref ``ref`` (None if unavailable)."""
    try:
        src = subprocess.run(["git", "show", f"{ref}:bitextcrawl/pairing/url_patterns.py"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(no baseline: {exc})")
        return None
    path = Path(tempfile.mkdtemp()) / "baseline_url_patterns.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("baseline_url_patterns", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (dataclasses look their module up there)
    spec.loader.exec_module(mod)
    return mod


def score(pairs, gold: dict[str, str], partial: bool) -> tuple[int, int, int]:
    """(correct, judged, gold size); with a partial gold only pairs touching it are judged."""
    urls = set(gold) | set(gold.values())
    judged = [(a, b) for a, b in pairs if not partial or a in urls or b in urls]
    correct = sum(gold.get(a) == b for a, b in judged)
    return correct, len(judged), len(gold)


# ----------------------------------------------------------------------------- real sites


def nginx_cases():
    site = DATA / "nginx" / "site"
    if not site.is_dir():
        return
    langs = ("en", "ru", "cn", "it", "tr", "ja", "he")
    lines = _folder_lines(site, set(langs))
    for lang in langs[1:]:
        g = DATA / "nginx" / "gold" / f"en-{lang}.tsv"
        if not g.is_file():
            continue
        gold = dict(tuple(BASE + x for x in line.split("\t"))
                    for line in g.read_text(encoding="utf-8").splitlines() if line.strip())
        yield f"nginx en-{lang}", lines, ("en", lang), gold, False


def wet_case():
    wet, goldf = DATA / "wet", DATA / "wet-gold.tsv"
    if not wet.is_dir() or not goldf.is_file():
        return
    lines = []
    for f in sorted(wet.rglob("*.html")):
        rel = f.relative_to(wet).as_posix()
        url = f"{BASE}/{rel}"
        lang = next((x for x in ("en", "fr") if rel.endswith(f"-{x}.html")), None)
        lines.append(f"{lang}\t{url}" if lang else url)
    gold = dict(tuple(f"{BASE}/{x}" for x in line.split("\t"))
                for line in goldf.read_text(encoding="utf-8").splitlines() if line.strip())
    yield "wet en-fr", lines, ("en", "fr"), gold, True


def lett_case():
    lett, expf = DATA / "lett" / "v2.lett.gz", DATA / "lett" / "expected"
    if not lett.is_file() or not expf.is_file():
        return
    lines = lett_lines(lett)
    gold = dict(line.split("\t") for line in expf.read_text(encoding="utf-8").splitlines()
                if line.strip())
    yield "lett en-de", lines, ("en", "de"), gold, True


# ----------------------------------------------------------------------------- printing


def row(name: str, c: int, j: int, g: int | None) -> str:
    p = c / j if j else 1.0
    r = f"{c / g:.3f}" if g else "  n/a"
    gs = g if g is not None else "-"
    return f"{name:<26} {p:9.3f} {r:>7} {c:>6} {j:>6} {gs:>6}"


HEADER = f"{'row':<26} {'precision':>9} {'recall':>7} {'right':>6} {'found':>6} {'gold':>6}"


def run_real(mods) -> None:
    print("## Real sites (URLs only)\n")
    print(HEADER)
    for case in (*nginx_cases(), *wet_case(), *lett_case()):
        name, lines, langs, gold, partial = case
        for label, mod in mods:
            pairs = mod.pair_urls(lines, langs=langs)
            print(row(f"{name} [{label}]", *score(pairs, gold, partial)))
    print()


def run_generated(mods, seed: int) -> None:
    sites = make_benchmark(seed)
    lines = [line for s in sites for line in s.lines()]
    print(f"## Generated benchmark: {len(sites)} sites ({len(COVERED)} schemes x 4 + 12 with no "
          f"scheme), {len(lines)} URLs, seed {seed}\n")
    print(HEADER)
    for label, mod in mods:
        pairs = mod.pair_urls(lines, langs=("en", "fr"))
        by_site = defaultdict(list)
        for a, b in pairs:
            by_site[site_of(a)].append((a, b))
        totals = defaultdict(lambda: [0, 0, 0])
        for s in sites:
            c, j, g = score(by_site.get(site_of(next(iter(s.gold))), []), s.gold, False)
            t = totals[s.scheme]
            t[0] += c
            t[1] += j
            t[2] += g if s.scheme != "none" else 0
        allc = [0, 0, 0]
        for scheme in (*COVERED, "none"):
            c, j, g = totals[scheme]
            allc = [allc[0] + c, allc[1] + j, allc[2] + g]
            print(row(f"{scheme} [{label}]", c, j, g if scheme != "none" else None))
        print(row(f"overall [{label}]", *allc))
        print()


def run_speed(mods) -> None:
    schemes = COVERED
    lines: list[str] = []
    s = 0
    while len(lines) < 5000:
        site = make_site(schemes[s % len(schemes)], 10_000 + s, pages=10, untranslated=0.1,
                         noise=2, host=f"www.speed{s}.example")
        lines += site.lines()
        s += 1
    lines = lines[:5000]
    print(f"## Speed: {len(lines)} URLs from {s} sites\n")
    for label, mod in mods:
        mod.pair_urls(lines[:50], langs=("en", "fr"))  # warm the public-suffix list
        t = time.perf_counter()
        pairs = mod.pair_urls(lines, langs=("en", "fr"))
        dt = time.perf_counter() - t
        print(f"pair_urls [{label}]: {dt:.2f} s, {len(pairs)} pairs")
    print()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="main", help="git ref of the baseline ('' = none)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    mods = [("new", url_patterns)]
    if args.baseline:
        base = load_baseline(args.baseline)
        if base is not None:
            mods.append((args.baseline, base))
    if not DATA.is_dir():
        print(f"(real data absent: {DATA}; real-site rows skipped)\n")
    run_real(mods)
    run_generated(mods, args.seed)
    run_speed(mods)


if __name__ == "__main__":
    main()
