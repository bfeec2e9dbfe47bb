"""Sentence alignment with and without DOM tree alignment [Shi 2006 Table 2]: prints figures.

    python bench/bench_bitext.py                 # 3 sites x 2 conditions, ~1-2 min
    python bench/bench_bitext.py --pairs 80 --seeds 0 1 2 3 --schemes prefix mixed

Shi et al. compare sentence alignment "with and without DOM tree alignment support": in
the latter, all the text of the pages is sent to the sentence aligner. Here, on generated
sites whose sentence alignment is known (``GeneratedSite.sentence_gold``), the page pairs
are the gold pairs (the verification step is not under test) and each method aligns them:

  (a) tree        DOM tree alignment ([Shi 2006 §4], trained on the site's pairs), then
                  Gale–Church inside each aligned chunk pair (§5), with the repair of
                  merged/split paragraphs of ``bitext.chunks.chunk_pairs`` — what bitext.tsv holds;
  (a') tree-raw   the same on the tree's chunk pairs as they are (no repair);
  (b) page-main   Gale–Church over the whole main text (``PageRecord.text``: the text of
                  <main>, boilerplate removed), split into sentences;
  (b') page-all   Gale–Church over all the visible text of the page (every chunk of the
                  document tree in document order, menus and footers included): the paper's
                  "all the texts in the web pages";
  (c) tree+lsi    (a) with the text translation probability multiplied by the similarity
                  of the two chunks in the site's LSI space (``bitext.similarity.site_text_similarity``:
                  LSI fitted on the site's pairs as the ETS stage fits it).

Scoring, per page pair (u1, u2): gold = the pair's main-text sentence pairs; an output
row is *judged* when its sentence_1 is one or more whole sentences of a <main> paragraph
of u1, or its sentence_2 of u2 (other rows — titles, menus, list items, table cells,
captions, footers — have no gold and are counted as "other"). P = correct judged rows /
judged rows, R = gold pairs output / gold pairs, exact match after whitespace
normalisation. Rows of identical text on both sides are dropped, as bitext.tsv does.

Conditions: "generated" = the pages as the generator writes them (8% of articles have a
paragraph only one side has, 10% a picture only one side has); "perturbed" = in addition,
each French article is, with probability 1/2, changed by one of: two adjacent paragraphs
merged into one (the translator joined them), a paragraph of 2+ sentences split in two,
or the article wrapped in an extra <div> (template drift). Gold is unchanged by these.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


from bitextcrawl.bitext.chunks import pair_sentences  # noqa: E402
from bitextcrawl.bitext.sentences import align_chunks, align_sentences, split_sentences  # noqa: E402
from bitextcrawl.bitext.similarity import site_text_similarity  # noqa: E402
from bitextcrawl.demo.generator import SiteSpec, generate_site  # noqa: E402
from bitextcrawl.pages.record import build_record  # noqa: E402
from bitextcrawl.pairing.align import Pair  # noqa: E402
from bitextcrawl.trees.domtree import build_tree, fit_aligner  # noqa: E402
from testkit.sentence_gold import main_paragraphs, norm, whole_sentences_of  # noqa: E402

METHODS = ("tree", "tree-raw", "page-main", "page-all", "tree+lsi")


# ---- perturbations of the French side ----------------------------------------------------

_ARTICLE = re.compile(r"(<article>\n<h1>.*?</div>\n)(.*?)(</article>)", re.S)
_P = re.compile(r"<p>(.*?)</p>\n")


def perturb(html: str, rng: random.Random) -> tuple[str, str]:
    m = _ARTICLE.search(html)
    if not m or rng.random() < 0.5:
        return html, "none"
    head, body, tail = m.group(1), m.group(2), m.group(3)
    paras = list(_P.finditer(body))
    kind = rng.choice(("merge", "split", "wrap"))
    if kind == "merge":
        # two paragraphs adjacent in the source (nothing between them)
        adj = [i for i in range(len(paras) - 1) if paras[i].end() == paras[i + 1].start()]
        if not adj:
            return html, "none"
        i = rng.choice(adj)
        a, b = paras[i], paras[i + 1]
        body = body[:a.start()] + f"<p>{a.group(1)} {b.group(1)}</p>\n" + body[b.end():]
    elif kind == "split":
        cands = [p for p in paras if len(split_sentences(p.group(1), "fr")) >= 2]
        if not cands:
            return html, "none"
        p = rng.choice(cands)
        sents = split_sentences(p.group(1), "fr")
        cut = rng.randint(1, len(sents) - 1)
        body = (body[:p.start()] + f"<p>{' '.join(sents[:cut])}</p>\n<p>{' '.join(sents[cut:])}"
                "</p>\n" + body[p.end():])
    else:
        body = f'<div class="article-body">\n{body}</div>\n'
    return html[:m.start()] + head + body + tail + html[m.end():], kind


# ---- the methods ---------------------------------------------------------------------------

def run_methods(site, pages, pairs, methods):
    """{method: {pair: [(s1, s2)]}}, {method: seconds}."""
    out = {m: {} for m in methods}
    seconds = defaultdict(float)
    trees = {}
    for p in pairs:
        for u in (p.url_1, p.url_2):
            if u not in trees:
                trees[u] = build_tree(pages[u].html, u)
    for method in methods:
        t = time.perf_counter()
        if method.startswith("tree"):
            sim = None
            if method == "tree+lsi":
                sim = site_text_similarity(pairs, pages)[("en", "fr")]
            aligner = fit_aligner([(trees[p.url_1], trees[p.url_2]) for p in pairs], sim)
            for p in pairs:
                t1, t2 = trees[p.url_1], trees[p.url_2]
                al = aligner.align(t1, t2, sim)
                if method == "tree-raw":   # the tree's chunk pairs as they are
                    rows = align_chunks(al.text_pairs, "en", "fr")
                else:                      # what bitext.tsv holds (gap repair included)
                    rows = pair_sentences(al, t1, t2, "en", "fr", aligner.min_score)
                out[method][(p.url_1, p.url_2)] = [(a, b) for a, b, _ in rows]
        else:
            for p in pairs:
                if method == "page-main":
                    s1 = split_sentences(pages[p.url_1].text, "en")
                    s2 = split_sentences(pages[p.url_2].text, "fr")
                else:
                    s1 = [s for c in trees[p.url_1].chunks() for s in split_sentences(c, "en")]
                    s2 = [s for c in trees[p.url_2].chunks() for s in split_sentences(c, "fr")]
                out[method][(p.url_1, p.url_2)] = [(a, b) for a, b, _ in align_sentences(s1, s2)]
        seconds[method] += time.perf_counter() - t
    return out, seconds


def score(site, pages, rows_by_pair, totals):
    paragraphs = {}
    for (u1, u2), rows in rows_by_pair.items():
        gold = {(norm(a), norm(b)) for a, b in site.sentence_gold[(u1, u2)]}
        for u in (u1, u2):
            if u not in paragraphs:
                paragraphs[u] = main_paragraphs(pages[u].html)
        seen = set()
        for a, b in rows:
            a, b = norm(a), norm(b)
            if a == b or (a, b) in seen:
                continue
            seen.add((a, b))
            if any(whole_sentences_of(a, p) for p in paragraphs[u1]) or \
                    any(whole_sentences_of(b, p) for p in paragraphs[u2]):
                totals["judged"] += 1
                totals["correct"] += (a, b) in gold
            else:
                totals["other"] += 1
        totals["gold"] += len(gold)
        totals["found"] += len(gold & seen)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=60, help="article pairs per site")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--schemes", nargs="+", default=["prefix", "mixed", "opaque"])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = ap.parse_args(argv)

    print(f"{'condition':10} {'method':10} {'P':>6} {'R':>6} {'F1':>6} {'judged':>7} "
          f"{'gold':>6} {'other':>6} {'sec':>6}")
    for condition in ("generated", "perturbed"):
        totals = {m: defaultdict(int) for m in args.methods}
        seconds = defaultdict(float)
        kinds = defaultdict(int)
        for i, seed in enumerate(args.seeds):
            scheme = args.schemes[i % len(args.schemes)]
            site = generate_site(SiteSpec(scheme=scheme, n_pairs=args.pairs, third_lang=None,
                                          seed=seed), 8000)
            rng = random.Random(seed)
            pages = {}
            for url, lang in site.page_langs.items():
                if url in site.robots_disallowed:
                    continue
                html = site.resources[url].body.decode("utf-8")
                if condition == "perturbed" and lang == "fr" and site.page_kinds[url] == "article":
                    html, kind = perturb(html, rng)
                    kinds[kind] += 1
                pages[url] = build_record(url, html)
            pairs = [Pair(a, b, "en", "fr", 1.0, ["gold"], {}) for a, b in site.gold_pairs]
            outputs, secs = run_methods(site, pages, pairs, args.methods)
            for m in args.methods:
                score(site, pages, outputs[m], totals[m])
                seconds[m] += secs[m]
        for m in args.methods:
            t = totals[m]
            p = t["correct"] / t["judged"] if t["judged"] else 0.0
            r = t["found"] / t["gold"] if t["gold"] else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            print(f"{condition:10} {m:10} {p:6.3f} {r:6.3f} {f:6.3f} {t['judged']:7d} "
                  f"{t['gold']:6d} {t['other']:6d} {seconds[m]:6.1f}")
        if condition == "perturbed":
            print(f"  (French articles perturbed: {dict(kinds)})")
    print(f"sites: {len(args.seeds)} ({', '.join(args.schemes)}), {args.pairs} article pairs "
          f"each + navigation pairs; page pairs = gold pairs")


if __name__ == "__main__":
    main()
