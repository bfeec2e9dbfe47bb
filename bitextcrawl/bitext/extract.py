"""Verified page pairs -> aligned sentences (``bitext.tsv``, ``bitext.tmx``) and parallel links.

Each pair's two pages become document trees, the tree aligner is trained on the
site's own pairs (Viterbi EM, seed 001 §4.2) and aligns each pair (§4.3); the aligned
text chunks are sentence-aligned (Gale–Church) and the aligned hyperlinks are kept
as candidate pairs (§3, step 5).
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict

from bitextcrawl.bitext.domtree import TreeAligner, build_tree
from bitextcrawl.bitext.sentences import align_chunks
from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.formats.tmx import write_tmx
from bitextcrawl.formats.tsv import write_bitext_tsv

logger = logging.getLogger(__name__)

# Enough pairs to estimate tag mapping and deletion rates; more only costs time.
TRAINING_PAIRS = 25


def _identity(x, *args, **kwargs):
    return x


def align_pair(aligner: TreeAligner, page1, page2, trees: dict):
    t1 = trees.get(page1.url)
    t2 = trees.get(page2.url)
    if t1 is None:
        t1 = build_tree(page1.html, page1.url)
    if t2 is None:
        t2 = build_tree(page2.html, page2.url)
    return aligner.align(t1, t2)


def bitext_rows(pairs, page_index: dict, counts: Counter, progress=_identity):
    """Yield bitext rows (dicts) and collect parallel links; one language pair at a time."""
    by_langs = defaultdict(list)
    for pair in pairs:
        if pair.url_1 in page_index and pair.url_2 in page_index:
            by_langs[(pair.lang_1, pair.lang_2)].append(pair)
    links: list[dict] = []
    results = {}
    for (l1, l2), lang_pairs in by_langs.items():
        trees = {}
        training = []
        for pair in lang_pairs[:TRAINING_PAIRS]:
            p1, p2 = page_index[pair.url_1], page_index[pair.url_2]
            trees[p1.url] = build_tree(p1.html, p1.url)
            trees[p2.url] = build_tree(p2.html, p2.url)
            training.append((trees[p1.url], trees[p2.url]))
        aligner = TreeAligner(n_iter=3).fit(training)
        rows = []
        for pair in progress(lang_pairs, f"bitext {l1}-{l2}", len(lang_pairs)):
            p1, p2 = page_index[pair.url_1], page_index[pair.url_2]
            try:
                alignment = align_pair(aligner, p1, p2, trees)
            except (ValueError, RecursionError) as exc:  # one bad page never stops the rest
                counts["bitext/bitext/failed_pairs"] += 1
                logger.warning("cannot align %s / %s: %s", p1.url, p2.url, exc)
                continue
            counts[f"bitext/bitext/method/{alignment.method}"] += 1
            for s1, s2, score in align_chunks(alignment.text_pairs, l1, l2):
                if s1.strip() == s2.strip():  # untranslated text is not bitext
                    counts["bitext/bitext/identical_skipped"] += 1
                    continue
                rows.append({"url_1": p1.url, "url_2": p2.url, "sentence_1": s1,
                             "sentence_2": s2, "score": round(score * pair.score, 4)})
            for h1, h2 in alignment.link_pairs:
                if h1 != h2:
                    links.append({"url_1": h1, "url_2": h2, "lang_1": l1, "lang_2": l2,
                                  "from": [p1.url, p2.url]})
        results[(l1, l2)] = (rows, aligner)
    return results, links


def write_bitext(pairs, page_index: dict, output_dir: str, progress=_identity) -> dict:
    """Write bitext.tsv, bitext.tmx (bitext.<l1>-<l2>.tmx for further pairs), parallel_links.jsonl."""
    counts: Counter = Counter()
    results, links = bitext_rows(pairs, page_index, counts, progress)
    all_rows = []
    for i, ((l1, l2), (rows, aligner)) in enumerate(sorted(results.items())):
        name = "bitext.tmx" if i == 0 else f"bitext.{l1}-{l2}.tmx"
        counts[f"bitext/bitext/{l1}-{l2}/tmx_units"] = write_tmx(
            os.path.join(output_dir, name), rows, l1, l2)
        all_rows.extend(rows)
    counts["bitext/bitext/sentence_pairs"] = write_bitext_tsv(
        os.path.join(output_dir, "bitext.tsv"), all_rows, header=False)
    if not results:  # keep the output contract: the files exist, empty
        write_tmx(os.path.join(output_dir, "bitext.tmx"), [], "und", "und")
    counts["bitext/bitext/parallel_links"] = write_jsonl(
        os.path.join(output_dir, "parallel_links.jsonl"), links)
    return dict(counts)
