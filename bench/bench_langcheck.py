"""The bitext language check on the real sites of ``../shared/data``: prints figures.

    python bench/bench_langcheck.py                      # every site, ~4 min
    python bench/bench_langcheck.py --sites "wet en-fr" "nginx en-ru" --show 20

For each site, the closing pipeline (``align_pages``: pairs, then bitext, the check on)
runs over the site's pages, and the table gives the rows of ``bitext.tsv``, the rows the
check dropped by reason (``bitext/bitext/dropped/<reason>``, copies included), and the
*doubtful* rows: of the rows with at least five words a side, those where fastText finds
a side's language neither first nor at ≥ 0.2 among its five first readings. A doubtful
row is not always wrong (fastText misreads titles and command lines: ``Home › Linux ›
as``), so the doubtful share is an upper bound of the rows in the wrong language;
``--show N`` prints N of them per site to be judged by hand.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl import align_pages  # noqa: E402
from bitextcrawl.bitext.langcheck import language_words  # noqa: E402
from bitextcrawl.pages.language import base_lang, load_model  # noqa: E402
from testkit import real_sites  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SITES = {
    "nginx en-ru": lambda: real_sites.nginx(DATA, "ru", "ru"),
    "nginx en-zh": lambda: real_sites.nginx(DATA, "cn", "zh"),
    "nginx en-it": lambda: real_sites.nginx(DATA, "it", "it"),
    "nginx en-tr": lambda: real_sites.nginx(DATA, "tr", "tr"),
    "wet en-fr": lambda: real_sites.wet(DATA),
    **{f"tldr en-{lang}": (lambda lang=lang: real_sites.tldr(DATA, lang))
       for lang in ("fr", "de", "es", "ru", "zh", "ko")},
}
MIN_WORDS = 5
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def words(text: str) -> int:
    """Words of a side; in scripts without spaces, two characters make a word."""
    return max(len(text.split()), len(_CJK.findall(text)) // 2)


def doubtful(model, text: str, lang: str) -> bool:
    labels, probs = model.predict(language_words(text) or text, k=5)
    readings = {label.replace("__label__", ""): p for label, p in zip(labels, probs)}
    lang = base_lang(lang)
    return max(readings, key=readings.get) != lang and readings.get(lang, 0.0) < 0.2


def measure(name: str, model, show: int) -> dict:
    site = SITES[name]()
    with tempfile.TemporaryDirectory(prefix="bench-langcheck-") as out:
        align_pages(site.pages, site.langs, out, workers=2)
        with open(Path(out) / "bitext.tsv", newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        stats = json.loads((Path(out) / "stats.json").read_text(encoding="utf-8"))
    dropped = {k.rsplit("/", 1)[1]: v for k, v in stats["align"].items()
               if k.startswith("bitext/bitext/dropped/")}
    long_rows = [r for r in rows if words(r["src_text"]) >= MIN_WORDS
                 and words(r["trg_text"]) >= MIN_WORDS]
    doubt = [r for r in long_rows if doubtful(model, r["src_text"], r["src_lang"])
             or doubtful(model, r["trg_text"], r["trg_lang"])]
    for r in doubt[:show]:
        print(f"  {name} | {r['src_text'][:90]} | {r['trg_text'][:90]}")
    return {"rows": len(rows), "long": len(long_rows), "doubtful": len(doubt),
            "dropped": dropped}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", nargs="*", default=list(SITES), choices=list(SITES))
    parser.add_argument("--show", type=int, default=0, help="doubtful rows printed per site")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        sys.exit(f"bench_langcheck: {DATA} not found (the real sites are needed)")
    model = load_model()
    print("| site | rows | rows ≥ 5 words a side | doubtful | dropped by the check |")
    print("|---|---:|---:|---:|---|")
    for name in args.sites:
        m = measure(name, model, args.show)
        drops = ", ".join(f"{k} {v}" for k, v in sorted(m["dropped"].items(),
                                                        key=lambda kv: -kv[1]))
        share = m["doubtful"] / m["long"] if m["long"] else 0.0
        print(f"| {name} | {m['rows']:,} | {m['long']:,} | {m['doubtful']} "
              f"({share:.1%}) | {drops or '—'} |", flush=True)


if __name__ == "__main__":
    main()
