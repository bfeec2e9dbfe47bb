"""Bitext rows judged right or wrong by the blocks they come from: prints a table per
language pair, with and without the pages' links to known pairs.

    python bench/bench_rows.py                       # the generated summaries site, ~1 min
    python bench/bench_rows.py --site tldr --langs fr ja ru     # ../shared/data/tldr

Each site goes through the closing pipeline (``outputs.run_closing``: pairing, then the
bitext stage, one process) for each language pair, and the rows of ``bitext.tsv`` kept
at ``aligner_score`` ≥ 0.3 are judged:

* ``summaries``: the generated glossary of ``testkit/summaries_site.py``, whose page of
  all entries lists their summaries in each language's own order; the generator knows
  which blocks correspond (``judge_rows``). ``right``: both sides inside one
  corresponding block; ``template``: inside one block of the menu or footer; ``wrong``:
  the rest.
* ``tldr``: the real command-help site. A command page is its heading, its description
  paragraphs and its examples (``<article class="command">``); where the two pages of a
  pair have as many of each, block k corresponds to block k. ``right``/``wrong`` as
  above for the rows of such pairs whose side 1 is in the article; other rows (page
  titles, breadcrumbs, pairs whose pages differ in examples) are ``unjudged``.

``links``: ``on`` is the bitext stage as it is; ``off`` gives it no known link pairs
(``outputs.known_link_pairs`` returns none), every list aligned by the tree alignment
alone. ``ms/row``: seconds of the bitext stage (``timings_s``) per row of ``bitext.tsv``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import lxml.html  # noqa: E402

from bitextcrawl import outputs  # noqa: E402
from bitextcrawl.formats.tsv import read_bitext_tsv  # noqa: E402
from bitextcrawl.pages.record import build_record  # noqa: E402
from bitextcrawl.pairing.align import AlignConfig  # noqa: E402
from testkit import real_sites  # noqa: E402
from testkit.summaries_site import judge_rows, summaries_site  # noqa: E402

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
MIN_SCORE = 0.3


def closing(pages, langs, redirects=None, links: bool = True) -> tuple[list, dict]:
    """bitext.tsv's rows and stats.json of the closing pipeline on ``pages``."""
    made = outputs.known_link_pairs
    if not links:
        outputs.known_link_pairs = lambda pairs, index: {}   # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as out:
            stats = outputs.run_closing(pages, AlignConfig(langs=langs), out,
                                        redirects=redirects)
            return read_bitext_tsv(os.path.join(out, "bitext.tsv")), stats
    finally:
        outputs.known_link_pairs = made


def _norm(text: str) -> str:
    return " ".join(text.split())


def tldr_blocks(html: str) -> list | None:
    """A command page's blocks in order, as (kind, text), or None without an article."""
    doc = lxml.html.fromstring(html)
    art = doc.xpath('//article[contains(@class, "command")]')
    if not art:
        return None
    out = [("h1", _norm(h.text_content())) for h in art[0].xpath(".//h1")]
    out += [("desc", _norm(p.text_content()))
            for p in art[0].xpath('.//div[contains(@class, "description")]/p')]
    out += [("example", _norm(li.text_content()))
            for li in art[0].xpath('.//ul[contains(@class, "examples")]/li')]
    return out


def judge_tldr(pages: dict, rows: list) -> dict:
    got = {"right": 0, "wrong": 0, "unjudged": 0}
    blocks: dict = {}
    for r in rows:
        if float(r["score"]) < MIN_SCORE:
            continue
        for u in (r["url_1"], r["url_2"]):
            if u not in blocks:
                blocks[u] = tldr_blocks(pages[u].html) if u in pages else None
        b1, b2 = blocks[r["url_1"]], blocks[r["url_2"]]
        s1, s2 = _norm(r["sentence_1"]), _norm(r["sentence_2"])
        if not b1 or not b2 or [k for k, _ in b1] != [k for k, _ in b2] \
                or not any(s1 in t for _, t in b1):
            got["unjudged"] += 1
            continue
        right = any(s1 in t1 and s2 in t2 for (_, t1), (_, t2) in zip(b1, b2))
        got["right" if right else "wrong"] += 1
    return got


def run_summaries(langs: list, seed: int) -> list:
    site = summaries_site(seed=seed, langs=("en", *langs))
    table = []
    # once first, unmeasured: a process's first bitext stage loads the compiled kernels
    closing([build_record(u, h) for u, h in site.pages.items()
             if site.langs[u] in ("en", langs[0])], ("en", langs[0]))
    for other in langs:
        for links in (False, True):
            records = [build_record(u, h) for u, h in site.pages.items()
                       if site.langs[u] in ("en", other)]
            rows, stats = closing(records, ("en", other), links=links)
            judged = judge_rows(site, rows, MIN_SCORE)
            for kind in ("summary", "entry", "home"):
                j = judged.get(kind, {"right": 0, "wrong": 0, "template": 0})
                table.append((f"en-{other}", "on" if links else "off", kind, j["right"],
                              j["wrong"], j["template"], None, stats, len(rows)))
    return table


def run_tldr(langs: list) -> list:
    table = []
    for other in langs:
        site = real_sites.tldr(SHARED_DATA, other)
        pages = {p.url: p for p in site.pages}
        for links in (False, True):
            rows, stats = closing(site.pages, site.langs, site.redirects, links=links)
            j = judge_tldr(pages, rows)
            table.append((f"en-{other}", "on" if links else "off", "command", j["right"],
                          j["wrong"], None, j["unjudged"], stats, len(rows)))
    return table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", choices=("summaries", "tldr"), default="summaries")
    ap.add_argument("--langs", nargs="+", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.site == "summaries":
        table = run_summaries(args.langs or ["fr", "ja", "ru"], args.seed)
    else:
        if not (SHARED_DATA / "tldr" / "site").is_dir():
            sys.exit(f"tldr not found under {SHARED_DATA}")
        table = run_tldr(args.langs or ["fr", "ja", "ru"])
    print(f"{'pair':7} {'links':5} {'pages':8} {'right':>6} {'wrong':>6} {'templ':>6} "
          f"{'unjdg':>6} {'P':>6} {'rows':>6} {'lists':>6} {'ms/row':>7}")
    for pair, links, kind, right, wrong, templ, unjudged, stats, n in table:
        p = right / (right + wrong) if right + wrong else 0.0
        align = stats["align"]
        ms = 1000 * stats["timings_s"].get("bitext", 0.0) / max(1, n)
        print(f"{pair:7} {links:5} {kind:8} {right:6d} {wrong:6d} "
              f"{'-' if templ is None else templ:>6} {'-' if unjudged is None else unjudged:>6} "
              f"{p:6.3f} {n:6d} {align.get('bitext/bitext/reordered_lists', 0):6d} {ms:7.2f}")


if __name__ == "__main__":
    main()
