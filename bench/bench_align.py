"""Closing-pipeline benchmarks: stage ablation (F1) and cost on 2k / 20k-page sites.

    python bench/bench_align.py                 # both
    python bench/bench_align.py --ablation      # F1 per stage set, generated sites + WET,
                                                # then each stage's gain on every real site
    python bench/bench_align.py --ablation --real-only --sites wet-opaque tldr-opaque-fr
    python bench/bench_align.py --ablation --real-only --leave-one-out \
        --sites nginx-opaque-reordered glossary-opaque-ja glossary-opaque-ja-same
    python bench/bench_align.py --scale 2000 20000 [--workers N] [--repeat R]

Page records are built by the crawl's own code (fastText included); the network is
skipped. ``--scale``: for generated sites of those sizes and for the real sites of
../shared/data, CPU seconds per page pair of pairing and of the bitext stage, the bitext
stage's wall time with one worker and with N (default: the machine's cores), and peak
RSS. The records are made once in a process of their own and kept as ``pages.jsonl`` in
``--cache``. Each site is then aligned the way ``scrapy align`` does it (Scrapy
imported, the records to a page store on disk, ``outputs.run_closing``: held without
HTML, a pair's HTML read when it is aligned, every output written) in a child process
with N workers, and again in another with one worker (its bitext CPU per pair and wall
time; not from ``--one-run-from`` pages). "peak RSS" is the main process's maximum
resident set size in the N-worker run (the workers are processes of their own); the
one-worker run's is printed beside it, and "all / 1" is the ratio of the two bitext wall
times. Each run starts the pool's fork server as the closing step does, before pairing
(``bitext.pool.warm_pool``), so its start overlaps pairing in the N-worker run.
``/usr/bin/time -v scrapy align`` with ``BITEXT_WORKERS=N`` reports a little more: the
command's own start-up (Scrapy's settings and logging, the fastText identifier it loads
for its inputs) and its pattern DB (20k pages: 470 MiB against 446).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier  # noqa: E402
from bitextcrawl.pairing.align import AlignConfig, align_site  # noqa: E402
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold  # noqa: E402
from bitextcrawl.pairing.evidence import ALL_STAGES  # noqa: E402
from testkit.records import directory_records, site_records  # noqa: E402

# label -> (stages, λ of [Liu 2014 eq. 2]; None: AlignConfig's)
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
    "all stages (anchors, entrance, parallel links too)": (ALL_STAGES, None),
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


def ablation(real: list[str] | None = None, leave_one_out: bool = False) -> None:
    """F1 per stage set on generated sites and WET, then ``real_ablation(real)``."""
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
        print(f"{label[:34]:34s}" + "".join(f"{rows[n][label]:32.3f}" for n in names))
    gain = {n: rows[n]["internal + ETS"] - max(rows[n][k] for k in INTERNAL) for n in names}
    print(f"{'ETS − best internal similarity':34s}" + "".join(f"{gain[n]:+32.3f}" for n in names))
    real_ablation(real, leave_one_out)


# Generated glossaries (testkit/glossary.py) by name: glossary-<opaque|urls>-<lang>,
# then -same (every sidebar in English order; default: each language's own order),
# -partial (the language translates 60% of the entries), -renamed (urls: 10 English slugs
# renamed after translation), -stale (urls: 10 entries renamed and translated again, the older
# translation kept under the old slug, paired with nothing), -edit (each page links its
# source file in the site's repository, as Hugo and Docsy themes do). A language named with
# a region (pt-br, zh-cn) is named so in its URLs and in every page's <html lang>, as Hugo
# names it.
GLOSSARY_LANGS = ("fr", "ja", "ru", "zh", "hi", "bn", "pt-br", "zh-cn")


def _glossary_names() -> dict:
    names = _plain_glossary_names()
    # each also with its pages' links to their source files ("Edit this page")
    names.update({name + "-edit": dict(options, edit_links=True) for name, options in names.items()})
    return names


def _plain_glossary_names() -> dict:
    names = {}
    for url in ("opaque", "urls"):
        for lang in GLOSSARY_LANGS:
            for same in (False, True):
                for partial in (False, True):
                    for fallback in ((False, True) if partial else (False,)):
                        for moved in (("", "renamed", "stale") if url == "urls" else ("", "stale")):
                            name = (f"glossary-{url}-{lang}" + "-same" * same
                                    + "-partial" * partial + "-fallback" * fallback
                                    + f"-{moved}" * bool(moved))
                            names[name] = dict(langs=("en", lang), opaque=url == "opaque",
                                               sidebar_order="same" if same else "own",
                                               translated=0.6 if partial else 1.0,
                                               fallback=fallback,
                                               renamed=10 if moved == "renamed" else 0,
                                               stale=10 if moved == "stale" else 0,
                                               html_lang="-" in lang)
    return names


GLOSSARIES = _glossary_names()


def glossary(name: str):
    """The generated glossary ``name`` as a site of ``real_sites``: records built by the
    crawl's own code (fastText as ``real_sites.identifier()``), the full gold."""
    from bitextcrawl.pages.record import build_record
    from testkit import real_sites
    from testkit.glossary import glossary_site

    options = GLOSSARIES[name]
    site = glossary_site(**options)
    identify = real_sites.identifier()
    pages = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
    gold = [(site.url(a), site.url(b)) for a, b in site.gold]
    return real_sites.RealSite(name, pages, gold, options["langs"])


def real_ablation(sites: list[str] | None = None, leave_one_out: bool = False) -> None:
    """Stages added one at a time, in pipeline order, on every real site of ../shared/data
    (plain and opaque variants), or on ``sites`` (names of ``real_sites.SITES``, their
    ``-reordered`` variants included, or of ``GLOSSARIES``); with ``leave_one_out``, also F1
    with every stage and with each single stage left out."""
    from testkit import real_sites

    names = sites or [n for n in real_sites.SITES if not n.endswith("-reordered")]
    unknown = [n for n in names if n not in real_sites.SITES and n not in GLOSSARIES]
    if unknown:
        raise SystemExit(f"unknown site(s) {unknown}; known: {', '.join(real_sites.SITES)}, "
                         f"and generated glossaries such as {', '.join(list(GLOSSARIES)[:6])}… "
                         f"(glossary-<opaque|urls>-<{'|'.join(GLOSSARY_LANGS)}>"
                         f"[-same][-partial[-fallback]][-renamed|-stale])")
    table, loo = {}, {}
    for name in names:
        if name in GLOSSARIES:
            site = glossary(name)
        else:
            load, folder = real_sites.SITES[name]
            if not (SHARED / folder).is_dir():
                print(f"real site {name}: {SHARED / folder} not found, skipped")
                continue
            site = load(SHARED)
        table[site.name] = dict(real_sites.cumulative_ablation(site))
        if leave_one_out:
            loo[site.name] = dict(real_sites.leave_one_out(
                site, full=table[site.name][real_sites.CUMULATIVE[-1]]))
        print(f"{site.name}: {len(site.pages)} pages, {len(site.gold)} gold pairs, done",
              file=sys.stderr, flush=True)
    if not table:
        return
    names = list(table)
    print("\nSites: F1 as each stage is added (WET and tldr judged on their judged pairs: "
          "silver golds; the lett file on its judged pairs too: Bitextor's output)")
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
    if leave_one_out:
        print_leave_one_out(loo)


def print_leave_one_out(loo: dict) -> None:
    """F1 with all stages, then with each left out (its difference to all stages); ``!``
    marks a stage whose absence scores higher than the full pipeline."""
    from testkit import real_sites

    names = list(loo)
    print("\nLeave one out: F1 with every stage, and with each single stage left out "
          "(difference to every stage; ! where leaving it out scores higher)")
    print(f"{'stages':16s}" + "".join(f"{n[:28]:>30s}" for n in names))
    print(f"{'all':16s}" + "".join(f"{loo[n]['all']:.3f}".rjust(30) for n in names))
    worse = {n: [] for n in names}
    for stage in real_sites.CUMULATIVE:
        cells = []
        for n in names:
            v, full = loo[n][stage], loo[n]["all"]
            mark = "!" if v > full else " "
            if v > full:
                worse[n].append(stage)
            cells.append(f"{v:.3f} ({v - full:+.3f}){mark}".rjust(30))
        print(f"{'- ' + stage:16s}" + "".join(cells))
    print(f"{'full >= each':16s}" + "".join(
        ("yes" if not worse[n] else "no: " + ",".join(worse[n]))[:28].rjust(30) for n in names))


SCALE_KIND = {"scheme": "mixed"}
CACHE = Path(tempfile.gettempdir()) / "bitextcrawl-bench-align"
REAL_SITES = ("lett", "nginx", "wet")


def scale_pages(what: str):
    """(pages, langs, gold or None, redirects) of a generated size or a real site."""
    if what.isdigit():
        n_pairs = max(10, int(int(what) / 2.2))
        site = generate_site(SiteSpec(n_pairs=n_pairs, third_lang=None, seed=5, **SCALE_KIND),
                             8000)
        return site_records(site, identifier()), ("en", "fr"), site.gold_pairs, {}
    from testkit import real_sites

    site = getattr(real_sites, what)(SHARED)
    return site.pages, site.langs, None, site.redirects


def prepare(what: str, cache: Path) -> Path:
    """``<what>.pages.jsonl`` and ``<what>.json`` (languages, gold, redirects) in
    ``cache``, made in this process unless there already."""
    from bitextcrawl.formats.jsonl import write_jsonl

    meta = cache / f"{what}.json"
    if not meta.exists():
        cache.mkdir(parents=True, exist_ok=True)
        pages, langs, gold, redirects = scale_pages(what)
        write_jsonl(cache / f"{what}.pages.jsonl", (p.to_dict() for p in pages))
        with open(meta, "w") as fh:
            json.dump({"langs": list(langs), "redirects": redirects,
                       "gold": sorted(gold) if gold is not None else None}, fh)
    return meta


def one_scale(what: str, workers: int, cache: Path) -> dict:
    """``what``'s prepared records aligned as ``scrapy align`` does it, bitext with
    ``workers``: Scrapy imported (the command's modules), the records into a SQLite
    page store, then ``outputs.run_closing`` (records held without HTML, a pair's HTML
    read when it is aligned, every output file written). The peak RSS is this process's
    (the main one; the pool's workers are processes of their own)."""
    from bitextcrawl import outputs
    from bitextcrawl.formats.readers import iter_pages
    from bitextcrawl.store.sqlite import SQLitePageStore

    importlib.import_module("bitextcrawl.commands.align")   # what `scrapy align` imports
    meta = json.loads((cache / f"{what}.json").read_text())
    cpu = Counter()

    def timed(name, function):
        def run(*args, **kwargs):
            t = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                cpu[name] += time.process_time() - t
        return run

    outputs.align_site = timed("pairing", outputs.align_site)
    outputs.run_bitext = timed("bitext", outputs.run_bitext)
    config = AlignConfig(langs=tuple(meta["langs"]))
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as out:
        store = SQLitePageStore(tmp)
        try:
            for page in iter_pages(cache / f"{what}.pages.jsonl"):
                store.add(page)
            stats = outputs.run_closing(store, config, out, redirects=meta["redirects"],
                                        workers=workers)
        finally:
            store.close()
        pairs = [(d["url_1"], d["url_2"]) for d in map(json.loads, open(Path(out) / "pairs.jsonl"))]
    n = max(len(pairs), 1)
    row = {"site": what, "pages": stats["pages"], "pairs": len(pairs),
           "pairing_cpu": cpu["pairing"] / n, "bitext_cpu": cpu["bitext"] / n,
           "bitext_wall": stats["timings_s"]["bitext"],
           "sentence_pairs": stats["align"].get("bitext/bitext/sentence_pairs", 0),
           "workers": stats["align"].get("bitext/bitext/workers", 1),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if meta["gold"] is not None:
        gold = {tuple(p) for p in meta["gold"]}
        row["f1"] = round(evaluate(gold, pairs)["f1"], 4)
    return row


def _child(*args: str) -> str:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return out.stdout


def scale(sizes: list[int], workers: int, cache: Path, one_run_from: int,
          repeat: int = 1) -> None:
    """Per site, one child process with ``workers`` bitext workers and one with one
    worker (not from ``one_run_from`` pages), so that each peak RSS is its own (the
    records are made in another one before). ``repeat``: that many such rounds, one
    after the other; each figure is the median over the rounds, and "all / 1" the
    median of the rounds' ratios with their range (the machine's load moves them)."""
    rows = []
    sites = [str(n) for n in sizes] + [s for s in REAL_SITES if (SHARED / "nginx").is_dir()]
    for what in sites:
        _child("--prepare", what, "--cache", str(cache))
        rounds = []
        for _ in range(repeat):
            row = _one(what, workers, cache)
            if not (what.isdigit() and int(what) >= one_run_from):
                one = _one(what, 1, cache)
                row.update(bitext_cpu_1=one["bitext_cpu"], bitext_wall_1=one["bitext_wall"],
                           peak_rss_1_mb=one["peak_rss_mb"])
                if row["workers"] > 1:
                    row["ratio"] = row["bitext_wall"] / row["bitext_wall_1"]
            rounds.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)   # a long run's progress
        rows.append(_median_row(rounds))
    print(f"closing pipeline cost, each run as `scrapy align` (CPU seconds per page pair: "
          f"pairing, and bitext with one worker; bitext wall seconds with 1 and with "
          f"{workers} workers; peak RSS of the main process with {workers} workers, and "
          f"with one)" + (f"; medians of {repeat} rounds, the ratio's range in brackets"
                          if repeat > 1 else ""))
    print("| site | pages | pairs | pairing CPU/pair | bitext CPU/pair | bitext wall, 1 worker "
          "| bitext wall, all workers | all / 1 | peak RSS MiB | peak RSS MiB, 1 worker "
          "| sentence pairs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        name = f"generated ({r['site']} pages asked; F1 {r['f1']})" if "f1" in r else r["site"]
        one = (f"{r['bitext_cpu_1']:.4f} | {r['bitext_wall_1']:.1f}" if "bitext_cpu_1" in r
               else "not run | not run")
        rss_1 = f"{r['peak_rss_1_mb']:,.0f}" if "peak_rss_1_mb" in r else "not run"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "–"
        if "ratios" in r:
            ratio += f" ({min(r['ratios']):.2f}–{max(r['ratios']):.2f})"
        print(f"| {name} | {r['pages']:,} | {r['pairs']:,} | {r['pairing_cpu']:.4f} | "
              f"{one} | {r['bitext_wall']:.1f} ({r['workers']}) | {ratio} | "
              f"{r['peak_rss_mb']:,.0f} | {rss_1} | {r['sentence_pairs']:,} |")


def _median_row(rounds: list[dict]) -> dict:
    """One row of the rounds of a site: each number their median (the counts are the
    same in every round), and the rounds' ratios."""
    row = dict(rounds[0])
    for key, value in row.items():
        if isinstance(value, float):
            row[key] = statistics.median(r[key] for r in rounds)
    if len(rounds) > 1 and "ratio" in row:
        row["ratios"] = [r["ratio"] for r in rounds]
    return row


def _one(what: str, workers: int, cache: Path) -> dict:
    out = _child("--one", what, "--workers", str(workers), "--cache", str(cache))
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--sites", nargs="+", metavar="SITE",
                    help="--ablation: the real sites to run (default: wet wet-opaque nginx "
                         "nginx-opaque lett tldr-fr tldr-ja tldr-ru tldr-opaque-fr "
                         "tldr-opaque-ja tldr-opaque-ru); each but lett also as "
                         "<name>-reordered (the second language's link lists in its own "
                         "order); tldr[-opaque]-<fr|ja|ru>-copies (copies of untranslated "
                         "pages under the other language's URLs); and generated glossaries: "
                         "glossary-<opaque|urls>-<fr|ja|ru|zh|hi|bn|pt-br|zh-cn>"
                         "[-same][-partial][-renamed|-stale][-edit] (e.g. glossary-opaque-ja, "
                         "glossary-opaque-ja-same, glossary-urls-ja-renamed, "
                         "glossary-opaque-ja-partial-edit: pages link their source files)")
    ap.add_argument("--leave-one-out", action="store_true",
                    help="--ablation: also F1 with every stage and with each single stage "
                         "left out, on the same sites")
    ap.add_argument("--real-only", action="store_true",
                    help="--ablation: the real sites' table only (not the generated sites')")
    ap.add_argument("--scale", nargs="*", type=int)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="bitext workers of the second run (default: the machine's cores)")
    ap.add_argument("--cache", type=Path, default=CACHE,
                    help="where --scale keeps the records it made, reused by later runs (delete "
                         "it after changing the generator; default: %(default)s)")
    ap.add_argument("--one-run-from", type=int, default=50000,
                    help="generated sites of this many pages or more: the bitext stage with "
                         "all workers only (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="--scale: rounds of runs per site, medians printed (default 1)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--prepare", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.prepare:
        prepare(args.prepare, args.cache)
        return
    if args.one:
        print(json.dumps(one_scale(args.one, args.workers, args.cache)))
        return
    if args.ablation and args.real_only:
        real_ablation(args.sites, args.leave_one_out)
    elif args.ablation or args.scale is None:
        ablation(args.sites, args.leave_one_out)
    if args.scale is not None or not args.ablation:
        scale(args.scale or [2000, 20000], args.workers, args.cache, args.one_run_from,
              max(1, args.repeat))


if __name__ == "__main__":
    main()
