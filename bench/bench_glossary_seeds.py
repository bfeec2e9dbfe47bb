"""Pairing F1 over many generated glossaries: seeds, languages, the share translated and
older translations kept, so that a rule is judged on sites it was not written for.

    python bench/bench_glossary_seeds.py                       # this tree
    python bench/bench_glossary_seeds.py --against 5000134     # and another commit, side by side

Each site is ``testkit.glossary.glossary_site`` at opaque URLs, each language's sidebar in
its own order, for every combination of ``--seeds``, ``--langs``, ``--translated`` and
``--stale`` (entries renamed in English and translated again, the older translation kept
under its old URL). Offline: records built by the crawl's own code, fastText lid.176. With
``--against``, the other commit's ``bitextcrawl`` package (``git archive``) aligns the same
records, with this tree's ``testkit``: the generated sites are the same.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sweep(args) -> None:
    """One line of JSON per site, with the package found first on ``sys.path``."""
    from bitextcrawl.pages.record import build_record
    from bitextcrawl.pairing.align import AlignConfig, align_site
    from bitextcrawl.pairing.evaluate import evaluate
    from testkit import real_sites
    from testkit.glossary import glossary_site

    identify = real_sites.identifier()
    for seed, lang, share, stale in itertools.product(args.seeds, args.langs, args.translated,
                                                      args.stale):
        langs = ("en", lang)
        site = glossary_site(langs=langs, seed=seed, translated=share, stale=stale)
        pages = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
        result = align_site(pages, AlignConfig(langs=langs))
        score = evaluate([(site.url(a), site.url(b)) for a, b in site.gold],
                         [(p.url_1, p.url_2) for p in result.pairs])
        print(json.dumps({"site": f"{lang} seed {seed} {share:.0%} stale {stale}",
                          "f1": round(score["f1"], 3)}), flush=True)


def run(package: Path, argv: list[str]) -> dict:
    """The sweep in a child process whose ``bitextcrawl`` comes from ``package``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package), str(ROOT)]))
    out = subprocess.run([sys.executable, __file__, "--child", *argv], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["site"]: r["f1"] for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--langs", nargs="+", default=["fr", "ja", "de", "ko"])
    ap.add_argument("--translated", type=float, nargs="+", default=[0.6, 0.8])
    ap.add_argument("--stale", type=int, nargs="+", default=[0, 5])
    ap.add_argument("--against", help="another commit, aligned on the same sites")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()
    if args.child:
        sweep(args)
        return
    argv = [a for a in sys.argv[1:] if a != "--against" and a != args.against]
    columns = {"this tree": run(ROOT, argv)}
    if args.against:
        from bench_closing_cpu import export_tree

        with tempfile.TemporaryDirectory() as tmp:
            other = export_tree(args.against, Path(tmp) / "other", "bitextcrawl")
            columns[args.against] = run(other, argv)
    names = list(columns)
    print("| glossary (opaque, own-order sidebars) | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for site in columns[names[0]]:
        print(f"| {site} | " + " | ".join(f"{columns[n].get(site, float('nan')):.3f}"
                                          for n in names) + " |")
    for label, f in (("mean", statistics.mean), ("lowest", min)):
        print(f"| {label} | " + " | ".join(f"{f(columns[n].values()):.3f}" for n in names) + " |")


if __name__ == "__main__":
    main()
