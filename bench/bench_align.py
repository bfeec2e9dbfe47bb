"""Closing-pipeline benchmarks: stage ablation (F1) and cost on 2k / 20k-page sites.

    python bench/bench_align.py                 # both
    python bench/bench_align.py --ablation      # F1 per stage set, generated sites + WET
    python bench/bench_align.py --scale 2000 20000

Page records are built by the crawl's own code (fastText included); the network is
skipped. Each scale run is a child process so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.demo.records import directory_records, site_records  # noqa: E402
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier  # noqa: E402
from bitextcrawl.pairing.align import AlignConfig, align_site  # noqa: E402
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold  # noqa: E402

# label -> (stages, λ of seed 004 eq. 2; None: AlignConfig's)
STAGE_SETS = {
    "url patterns only": (("url_pattern",), None),
    "hreflang only": (("hreflang",), None),
    "structure only": (("structure",), None),
    "content only": (("content",), None),
    # The LSI space needs pairs to learn from: here the confident structural pairs teach
    # it, and the pairs are then decided by content alone (λ = 1).
    "content only, taught by structure": (("structure", "content"), 1.0),
    "internal (structure+content)": (("structure", "content"), None),
    "internal + ETS": (("structure", "content", "ets"), None),
    "everything": (("url_pattern", "hreflang", "structure", "content", "ets"), None),
}
INTERNAL = ("structure only", "content only", "content only, taught by structure",
            "internal (structure+content)")
SHARED = ROOT.parent / "shared" / "data"


def config(label: str) -> AlignConfig:
    stages, lam = STAGE_SETS[label]
    cfg = AlignConfig(langs=("en", "fr"), stages=stages)
    if lam is not None:
        cfg.lam = lam
    return cfg


def identifier():
    lid, agreement = LanguageIdentifier(), DeclarationAgreement()
    return lambda text, html_lang, cl: lid.identify(text, html_lang, cl, agreement)


def ablation() -> None:
    sites = {
        "prefix": SiteSpec(scheme="prefix", n_pairs=150, seed=31),
        "mixed": SiteSpec(scheme="mixed", n_pairs=150, seed=32),
        "opaque, no switches": SiteSpec(scheme="opaque", n_pairs=150, language_switch=False,
                                        seed=33),
        # Nothing a page shares with its translation but the words (no numbers, dates,
        # names, places): the case ETS is for.
        "opaque, no switches, no anchors": SiteSpec(scheme="opaque", n_pairs=150,
                                                    language_switch=False, anchors=False, seed=33),
    }
    rows = {}
    for name, spec in sites.items():
        site = generate_site(spec, 8000)
        pages = site_records(site, identifier())
        rows[name] = {}
        for label in STAGE_SETS:
            result = align_site(pages, config(label))
            rows[name][label] = evaluate(site.gold_pairs,
                                         [(p.url_1, p.url_2) for p in result.pairs])["f1"]
    if (SHARED / "wet").is_dir():
        pages = directory_records(SHARED / "wet", "http://wet.test", identifier())
        gold = read_gold(SHARED / "wet-gold.tsv", base="http://wet.test/")
        rows["WET (real; judged pairs)"] = {}
        for label in STAGE_SETS:
            result = align_site(pages, config(label))
            pairs = [(p.url_1, p.url_2) for p in result.pairs]
            rows["WET (real; judged pairs)"][label] = evaluate_silver(gold, pairs)["f1"]
    names = list(rows)
    print("F1 by evidence used (ablation)")
    print(f"{'stages':34s}" + "".join(f"{n[:30]:>32s}" for n in names))
    for label in STAGE_SETS:
        print(f"{label:34s}" + "".join(f"{rows[n][label]:32.3f}" for n in names))
    gain = {n: rows[n]["internal + ETS"] - max(rows[n][k] for k in INTERNAL) for n in names}
    print(f"{'ETS − best internal similarity':34s}" + "".join(f"{gain[n]:+32.3f}" for n in names))
    real_ablation()


def real_ablation() -> None:
    """Stages added one at a time, in pipeline order, on every real site of ../shared/data."""
    from bitextcrawl.demo import real_sites

    if not (SHARED / "nginx").is_dir():
        print(f"real sites: {SHARED} not found, skipped")
        return
    loaders = (real_sites.wet, real_sites.nginx, real_sites.nginx_opaque, real_sites.lett)
    table = {}
    for load in loaders:
        site = load(SHARED)
        table[site.name] = dict(real_sites.cumulative_ablation(site))
    names = list(table)
    print("\nReal sites: F1 as each stage is added (WET judged on its silver gold; the lett "
          "file against Bitextor's output)")
    print(f"{'+ stage':16s}" + "".join(f"{n[:28]:>30s}" for n in names))
    previous = {n: None for n in names}
    for stage in real_sites.CUMULATIVE:
        cells = []
        for n in names:
            v = table[n][stage]
            delta = "" if previous[n] is None else f" ({v - previous[n]:+.3f})"
            cells.append(f"{v:.3f}{delta}".rjust(30))
            previous[n] = v
        print(f"{'+ ' + stage:16s}" + "".join(cells))


SCALE_SITES = {
    "mixed": {"scheme": "mixed"},
    # The worst case: no URL, hreflang or shared-token evidence, every stage at work.
    "opaque-anchorless": {"scheme": "opaque", "language_switch": False, "anchors": False},
}


def one_scale(pages_wanted: int, kind: str) -> dict:
    n_pairs = max(10, int(pages_wanted / 2.2))
    site = generate_site(SiteSpec(n_pairs=n_pairs, third_lang=None, seed=5, **SCALE_SITES[kind]),
                         8000)
    t = time.perf_counter()
    pages = site_records(site, identifier())
    build_s = time.perf_counter() - t
    t = time.perf_counter()
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    align_s = time.perf_counter() - t
    f1 = evaluate(site.gold_pairs, [(p.url_1, p.url_2) for p in result.pairs])["f1"]
    return {"pages": len(pages), "records_s": round(build_s, 1), "align_s": round(align_s, 1),
            "stages_s": result.timings, "f1": round(f1, 4),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def scale(sizes: list[int]) -> None:
    for kind in SCALE_SITES:
        results = []
        for size in sizes:
            out = subprocess.run([sys.executable, __file__, "--one", str(size), "--kind", kind],
                                 capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
            if out.returncode:
                raise SystemExit(out.stderr[-3000:])
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"closing pipeline (page pairs, no bitext) on generated {kind} sites")
        for r in results:
            print(f"{r['pages']:7d} pages: align {r['align_s']:7.1f} s  (records {r['records_s']} s)  "
                  f"peak RSS {r['peak_rss_mb']} MiB  F1 {r['f1']}  stages {r['stages_s']}")
        if len(results) >= 2:
            a, b = results[0], results[-1]
            print(f"time ratio {b['align_s'] / a['align_s']:.1f}x for "
                  f"{b['pages'] / a['pages']:.1f}x pages")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--scale", nargs="*", type=int)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--kind", default="mixed", choices=list(SCALE_SITES), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_scale(args.one, args.kind)))
        return
    if args.ablation or args.scale is None:
        ablation()
    if args.scale is not None or not args.ablation:
        scale(args.scale or [2000, 20000])


if __name__ == "__main__":
    main()
