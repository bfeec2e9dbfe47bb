"""Bitext rows judged right or wrong by the blocks they come from: prints a table per
language pair, with and without the pages' links to known pairs.

    python bench/bench_rows.py                       # the generated summaries site, ~1 min
    python bench/bench_rows.py --site tldr --langs fr ja ru     # ../shared/data/tldr
    python bench/bench_rows.py --site tldr-reordered --langs fr ja --links on

Each site goes through the closing pipeline (``outputs.run_closing``: pairing, then the
bitext stage, one process) for each language pair, and the rows of ``bitext.tsv`` kept
at the report's suggested filter are judged: ``aligner_score`` at or above the language
pair's threshold in ``stats.json`` (``sentence_thresholds``; ``sentence_threshold``, one
value for every pair, where a tree has no such map):

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
  ``index``: the rows of the index pages, whose items read ``name — description``: a
  row both of whose sides are such an item is right where the two names are the same
  (a command's name is not translated).
* ``tldr-reordered``: the same, the second language's pages with their link lists
  (sidebars, index lists) in that language's own order (``testkit.real_sites``).
* ``glossary``: the generated glossary of ``testkit/glossary.py`` in English and each
  second language (written from the manual's parallel text, URLs ``/<lang>/<slug>``,
  sidebars in each language's own order); the rows judged by the manual's units
  (``glossary.judge_rows``): the line's kind is ``all``.
* ``nginx``: the real nginx.org documentation in English and each second language
  (``--langs cn ja``: its folder names, ``cn`` Chinese), with no judge: ``unjdg``
  counts the kept rows, which ``--rows FILE`` writes out to be read by hand.

``links``: ``on`` is the bitext stage as it is; ``off`` gives it no known link pairs
(``outputs.known_link_pairs`` returns none), every list aligned by the tree alignment
alone. ``ms/row``: seconds of the bitext stage (``timings_s``) per row of ``bitext.tsv``.
``thr``: the threshold the rows were kept at; ``kept/pp``: rows kept per page pair (all
the language pair's rows); ``right/pp``: rows of the line's kind judged right per page pair;
``estP``: the precision the report estimates for the kept rows (``sentence_precision``
in ``stats.json``, where the tree estimates it).
"""

from __future__ import annotations

import argparse
import os
import re
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
from testkit.glossary import glossary_site  # noqa: E402
from testkit.glossary import judge_rows as judge_glossary  # noqa: E402
from testkit.summaries_site import judge_rows, summaries_site  # noqa: E402

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
MIN_SCORE = 0.3


def threshold(stats: dict, pair: str) -> float:
    """The aligner_score the report suggests keeping ``pair``'s rows at."""
    return float((stats.get("sentence_thresholds") or {}).get(
        pair, stats.get("sentence_threshold", MIN_SCORE)))


def kept(rows: list, stats: dict, pair: str) -> list:
    """The rows at or above the suggested threshold."""
    at = threshold(stats, pair)
    return [r for r in rows if float(r["score"]) >= at]


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


_INDEX_ITEM = re.compile(r"^(\S.{0,60}?) — ")


def judge_tldr(pages: dict, rows: list) -> dict:
    """``rows`` (kept already) judged by the command pages' blocks (``command``) and
    the index pages' items (``index``)."""
    got = {"right": 0, "wrong": 0, "unjudged": 0}
    index = {"right": 0, "wrong": 0}
    blocks: dict = {}
    for r in rows:
        n1, n2 = _INDEX_ITEM.match(r["sentence_1"]), _INDEX_ITEM.match(r["sentence_2"])
        if n1 and n2:
            index["right" if n1.group(1) == n2.group(1) else "wrong"] += 1
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
    return {"command": got, "index": index}


def run_summaries(langs: list, seed: int, modes=(False, True)) -> list:
    site = summaries_site(seed=seed, langs=("en", *langs))
    table = []
    # once first, unmeasured: a process's first bitext stage loads the compiled kernels
    closing([build_record(u, h) for u, h in site.pages.items()
             if site.langs[u] in ("en", langs[0])], ("en", langs[0]))
    for other in langs:
        for links in modes:
            records = [build_record(u, h) for u, h in site.pages.items()
                       if site.langs[u] in ("en", other)]
            rows, stats = closing(records, ("en", other), links=links)
            got = kept(rows, stats, f"en-{other}")
            judged = judge_rows(site, got, 0.0)
            for kind in ("summary", "entry", "home"):
                j = judged.get(kind, {"right": 0, "wrong": 0, "template": 0})
                table.append((f"en-{other}", "on" if links else "off", kind, j["right"],
                              j["wrong"], j["template"], None, stats, len(rows), len(got)))
    return table


def run_tldr(langs: list, modes=(False, True), reordered: bool = False) -> list:
    table = []
    for code in langs:
        lang = code.split("-")[0]     # pt-br: fastText's pt
        load = real_sites.tldr_reordered if reordered else real_sites.tldr
        site = load(SHARED_DATA, lang, code)
        pages = {p.url: p for p in site.pages}
        for links in modes:
            rows, stats = closing(site.pages, site.langs, site.redirects, links=links)
            got = kept(rows, stats, f"en-{lang}")
            judged = judge_tldr(pages, got)
            for kind, j in judged.items():
                table.append((f"en-{lang}", "on" if links else "off", kind, j["right"],
                              j["wrong"], None, j.get("unjudged"), stats, len(rows),
                              len(got)))
    return table


def run_glossary(langs: list, seed: int, modes=(False, True)) -> list:
    table = []
    identify = real_sites.identifier()
    for other in langs:
        if other == "fr":
            # an en/fr glossary is written by the demo's sentence model, not the
            # manual's units the judge reads
            print("glossary: en-fr has no judge, left out", file=sys.stderr)
            continue
        site = glossary_site(seed=seed, langs=("en", other), opaque=False)
        pages = [build_record(site.url(p), h, identify) for p, h in sorted(site.pages.items())]
        for links in modes:
            rows, stats = closing(pages, ("en", other), links=links)
            got = kept(rows, stats, f"en-{other}")
            j = judge_glossary(other, got)
            table.append((f"en-{other}", "on" if links else "off", "all", j["right"],
                          j["wrong"], None, None, stats, len(rows), len(got)))
    return table


def run_nginx(codes: list, modes=(False, True), rows_out: str | None = None) -> list:
    table = []
    for code in codes:
        lang = {"cn": "zh"}.get(code, code)
        site = real_sites.nginx(SHARED_DATA, code, lang)
        for links in modes:
            rows, stats = closing(site.pages, site.langs, site.redirects, links=links)
            got = kept(rows, stats, f"en-{lang}")
            if rows_out:
                with open(f"{rows_out}.en-{lang}.{'on' if links else 'off'}.tsv", "w",
                          encoding="utf-8") as fh:
                    fh.writelines(f"{r['score']}\t{r['sentence_1']}\t{r['sentence_2']}\n"
                                  for r in got)
            table.append((f"en-{lang}", "on" if links else "off", "all", 0, 0, None,
                          len(got), stats, len(rows), len(got)))
    return table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", choices=("summaries", "tldr", "tldr-reordered", "glossary",
                                       "nginx"),
                    default="summaries")
    ap.add_argument("--langs", nargs="+", default=None,
                    help="second languages (tldr: its folder names, e.g. pt-br)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--links", choices=("both", "on", "off"), default="both",
                    help="the bitext stage with the known link pairs, without, or both")
    ap.add_argument("--rows", default=None,
                    help="nginx: write the kept rows to FILE.en-<lang>.<links>.tsv")
    args = ap.parse_args(argv)
    modes = {"both": (False, True), "on": (True,), "off": (False,)}[args.links]
    if args.site == "summaries":
        table = run_summaries(args.langs or ["fr", "ja", "ru"], args.seed, modes)
    elif args.site == "glossary":
        table = run_glossary(args.langs or ["zh", "ja"], args.seed, modes)
    elif args.site == "nginx":
        table = run_nginx(args.langs or ["cn", "ja"], modes, args.rows)
    else:
        if not (SHARED_DATA / "tldr" / "site").is_dir():
            sys.exit(f"tldr not found under {SHARED_DATA}")
        table = run_tldr(args.langs or ["fr", "ja", "ru"], modes,
                         reordered=args.site == "tldr-reordered")
    print(f"{'pair':7} {'links':5} {'pages':8} {'right':>6} {'wrong':>6} {'templ':>6} "
          f"{'unjdg':>6} {'P':>6} {'thr':>5} {'estP':>5} {'rows':>6} {'kept':>6} "
          f"{'kept/pp':>7} {'right/pp':>8} {'lists':>6} {'ms/row':>7}")
    for pair, links, kind, right, wrong, templ, unjudged, stats, n, n_kept in table:
        p = right / (right + wrong) if right + wrong else 0.0
        align = stats["align"]
        ms = 1000 * stats["timings_s"].get("bitext", 0.0) / max(1, n)
        est = (stats.get("sentence_precision") or {}).get(pair)
        print(f"{pair:7} {links:5} {kind:8} {right:6d} {wrong:6d} "
              f"{'-' if templ is None else templ:>6} {'-' if unjudged is None else unjudged:>6} "
              f"{p:6.3f} {threshold(stats, pair):5.2f} "
              f"{'-' if est is None else format(est, '.3f'):>5} {n:6d} {n_kept:6d} "
              f"{n_kept / max(1, stats.get('pairs', 0)):7.2f} "
              f"{right / max(1, stats.get('pairs', 0)):8.2f} "
              f"{align.get('bitext/bitext/reordered_lists', 0):6d} {ms:7.2f}")


if __name__ == "__main__":
    main()
