"""Precision and recall of ``scrapy urlpairs`` (URL-only pairing) on every real site.

    python bench/bench_urlpairs_real.py                 # this checkout
    python bench/bench_urlpairs_real.py --root ../main  # another checkout (e.g. a baseline)

Runs the command itself (``python -m scrapy urlpairs FILE --langs en,XX`` from the root of
the checkout under test, in a subprocess) on URL lists built from the site folders of
``../shared/data`` (nothing is printed but a message when it is absent):

* ``wet/``: every ``*.html``, labelled ``en``/``fr`` by the ``-en``/``-fr`` suffix, the rest
  unlabelled; gold ``wet-gold.tsv`` (silver and partial: only pairs touching a gold URL are
  judged).
* ``nginx/site``: every ``*.html``, labelled by the language folder, root pages unlabelled;
  gold ``nginx/gold/en-XX.tsv`` (complete: every pair is judged).
* ``tldr/site``: every ``*.html``, labelled by the language folder; gold
  ``tldr/gold/en-XX.tsv`` plus the home and platform index pages of both languages
  (``/en/index.html`` ↔ ``/XX/index.html``, ``/en/common/index.html`` ↔
  ``/XX/common/index.html``, ...), which the gold leaves out and which are translations of
  each other; every pair is judged.
* ``lett/v2.lett.gz``: the URLs of its records, labelled by its language column; gold
  ``lett/expected`` (Bitextor's expected output, partial: pairs touching it are judged).

Every line of one list is given to one command (all languages of the site at once), once per
language pair of its gold.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = HERE.parent / "shared" / "data"
BASE = "http://127.0.0.1:8000"


def _gold(path: Path, prefix: str) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            a, b = line.split("\t")[:2]
            out[prefix + a.strip()] = prefix + b.strip()
    return out


def _folder_lines(site: Path, langs: set[str]) -> list[str]:
    lines = []
    for f in sorted(site.rglob("*.html")):
        rel = f.relative_to(site).as_posix()
        top = rel.split("/", 1)[0]
        url = f"{BASE}/{rel}"
        lines.append(f"{top}\t{url}" if top in langs else url)
    return lines


def cases(data: Path):
    """(name, URL lines, (lang_1, lang_2), gold url_1 -> url_2, partial gold?)"""
    wet, wgold = data / "wet", data / "wet-gold.tsv"
    if wet.is_dir() and wgold.is_file():
        lines = []
        for f in sorted(wet.rglob("*.html")):
            rel = f.relative_to(wet).as_posix()
            lang = next((x for x in ("en", "fr") if rel.endswith(f"-{x}.html")), None)
            lines.append(f"{lang}\t{BASE}/{rel}" if lang else f"{BASE}/{rel}")
        yield "wet en-fr", lines, ("en", "fr"), _gold(wgold, f"{BASE}/"), True
    nginx = data / "nginx"
    if (nginx / "site").is_dir():
        langs = ("en", "ru", "cn", "it", "tr", "ja", "he")
        lines = _folder_lines(nginx / "site", set(langs))
        for lang in langs[1:]:
            g = nginx / "gold" / f"en-{lang}.tsv"
            if g.is_file():
                yield f"nginx en-{lang}", lines, ("en", lang), _gold(g, BASE), False
    tldr = data / "tldr"
    if (tldr / "site").is_dir():
        langs = ("en", "fr", "de", "es", "ru", "zh", "ja", "ko", "pt-br")
        site = tldr / "site"
        lines = _folder_lines(site, set(langs))
        for lang in langs[1:]:
            g = tldr / "gold" / f"en-{lang}.tsv"
            if not g.is_file():
                continue
            gold = _gold(g, BASE)
            for idx in ("index.html", "common/index.html", "linux/index.html"):
                if (site / "en" / idx).is_file() and (site / lang / idx).is_file():
                    gold[f"{BASE}/en/{idx}"] = f"{BASE}/{lang}/{idx}"
            yield f"tldr en-{lang}", lines, ("en", lang), gold, False
    lett, expected = data / "lett" / "v2.lett.gz", data / "lett" / "expected"
    if lett.is_file() and expected.is_file():
        yield "lett en-de", lett_lines(lett), ("en", "de"), _gold(expected, ""), True


def lett_lines(lett: Path) -> list[str]:
    """``lang<TAB>url`` of each record of a ``.lett`` file."""
    lines = []
    with gzip.open(lett, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 4 and fields[3].startswith("http"):
                lines.append(f"{fields[0].strip().lower()}\t{fields[3].strip()}")
    return lines


def urlpairs(root: Path, lines: list[str], langs: tuple[str, str]) -> list[tuple[str, str]]:
    """The pairs ``scrapy urlpairs`` prints, run from ``root``."""
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "urls.txt"
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(root)}
        run = subprocess.run([sys.executable, "-m", "scrapy", "urlpairs", str(f),
                              "--langs", ",".join(langs)], cwd=root, env=env,
                             capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"scrapy urlpairs failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return [tuple(line.split("\t")[:2]) for line in run.stdout.splitlines() if "\t" in line]


def score(pairs, gold: dict[str, str], partial: bool) -> tuple[int, int, int]:
    """(right, judged, gold size); with a partial gold only pairs touching it are judged."""
    urls = set(gold) | set(gold.values())
    judged = [(a, b) for a, b in pairs if not partial or a in urls or b in urls]
    return sum(gold.get(a) == b for a, b in judged), len(judged), len(gold)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=HERE,
                    help="checkout whose `scrapy urlpairs` runs (default: this one)")
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--wrong", action="store_true", help="print the wrong pairs")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"real data absent ({args.data}): nothing to measure, skipped")
        return 0
    root = args.root.resolve()
    print(f"scrapy urlpairs from {root}\n")
    print(f"{'site':<14} {'precision':>9} {'recall':>7} {'right':>6} {'judged':>6} "
          f"{'gold':>6} {'s':>6}")
    for name, lines, langs, gold, partial in cases(args.data):
        t = time.perf_counter()
        pairs = urlpairs(root, lines, langs)
        dt = time.perf_counter() - t
        c, j, g = score(pairs, gold, partial)
        p = c / j if j else 1.0
        print(f"{name:<14} {p:9.3f} {c / g:7.3f} {c:>6} {j:>6} {g:>6} {dt:6.1f}"
              + ("  (partial gold)" if partial else ""))
        if args.wrong:
            urls = set(gold) | set(gold.values())
            for a, b in pairs:
                if gold.get(a) != b and (not partial or a in urls or b in urls):
                    print(f"    wrong: {a}\t{b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
