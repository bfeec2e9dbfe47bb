"""Verified page pairs -> aligned sentences (``bitext.tsv``, ``bitext.tmx``) and parallel links.

Each pair's two pages become document trees, the tree aligner is trained on the
site's own pairs (Viterbi EM, [Shi 2006 §4.2]) and aligns each pair (§4.3); the aligned
text chunks are sentence-aligned (Gale–Church) and the aligned hyperlinks are kept
as candidate pairs (§3, step 5).

Text translation probability (§4.1, Pr(t_F | t_E)). The paper trains IBM model 1 on
LDC data; bitextcrawl has no dictionary, and the tree aligner scores texts by a
Gale–Church length model and shared numbers/names. ``text_similarity`` adds a content
term: per language pair, a callable ``(text_1, text_2) -> [0, 1]`` multiplied into
Pr(text). :func:`lsi_text_similarity` makes one from the site's LSI space ([Germann 2016], the
model the ETS stage fits), :func:`lexicon_text_similarity` from a user's bilingual
lexicon, :func:`site_text_similarity` fits the site's LSI space on the verified pairs
themselves (for callers that do not keep the ETS stage's model). It is optional and
off by default: ``bench/bench_bitext.py`` measures what it changes (see docs/benchmarks.md).
"""

from __future__ import annotations

import gc
import logging
import math
import os
from collections import Counter, defaultdict, deque
from contextlib import contextmanager
from functools import partial, wraps
from itertools import islice
from typing import Callable, Mapping, NamedTuple

import numpy as np

from bitextcrawl.bitext.langcheck import FACTS_KEY, RowChecks
from bitextcrawl.bitext.rows import RowSpill
from bitextcrawl.bitext.sentences import GC_S2, align_chunks, estimate_ratio, length_cost
from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.jsonl import JsonlSink
from bitextcrawl.formats.tmx import dedup_key, iter_clean_rows, write_tmx
from bitextcrawl.formats.tsv import HEADER as TSV_HEADER
from bitextcrawl.formats.tsv import tsv_line
from bitextcrawl.pages.tokens import as_lexicon, lexicon_similarity, segment, tokenize
from bitextcrawl.pairing.lsi import LSIModel
from bitextcrawl.processes import ProcessPool, start_forkserver, tune_collector
from bitextcrawl.trees.dom import TreeCache, preorder, release
from bitextcrawl.trees.domtree import (
    EM_SAMPLE,
    FIT_ITERATIONS,
    TRAINING_PAIRS,
    TreeAligner,
    anchors,
    build_tree,
    e_step_counts,
    fit_aligner,
    pair_anchor_cost,
)

logger = logging.getLogger(__name__)

# A worker costs one to three seconds to start (imports, compiled code), 20 to 100 pairs'
# work: fewer pairs than this each, fewer workers (bench_align --scale: 18 pairs took
# 0.7 s in one process, 3.3 s with two).
MIN_PAIRS_PER_WORKER = 50
# Allocations between two young-generation collections during the stage (Python: 700).
# The trees' nodes die with their pair (dom.release): fewer collections promote fewer of them.
GC_YOUNG_THRESHOLD = 20_000
# Sentence pairs per page pair kept for the report's samples.
SAMPLE_ROWS = 3
# Page pairs a pool is given at a time, and chunks of them in flight: the tasks carry the
# pages' HTML, read from the page store as the pairs come (``ordered_map``).
CHUNK_PAIRS = 4
CHUNKS_AHEAD = 16

TextSimilarity = Callable[[str, str], float]
# What ``write_bitext(text_similarity=...)`` accepts: None, a mapping
# (lang_1, lang_2) -> TextSimilarity, or a callable (lang_1, lang_2) -> TextSimilarity | None.
TextSimilaritySource = (Mapping[tuple, TextSimilarity]
                        | Callable[[str, str], TextSimilarity | None] | None)

# Calibration of a chunk pair's LSI cosine into a factor of Pr(text): a logistic curve,
# 0.5 at cos = LSI_MIDPOINT. On generated sites, translated sentences have a cosine of
# 0.91 (5th percentile) to 0.99 in the site's space, unrelated sentences 0.11 (median)
# to 0.39 (95th percentile): the curve gives ≈1 to the former, ≈0.05–0.5 to the latter.
LSI_MIDPOINT = 0.35
LSI_SLOPE = 12.0
# A chunk with fewer known terms than this carries no content evidence (factor 1):
# "Home"/"Accueil", numbers, names are the length model's and the anchors' business.
LSI_MIN_TERMS = 3
# Lexicon: share of lexicon-covered words translated (lsi.lexicon_similarity), 0.5 at
# LEXICON_MIDPOINT. Not tuned on real data (no lexicon at hand): a plausible default.
LEXICON_MIDPOINT = 0.2
LEXICON_SLOPE = 15.0
LEXICON_MIN_WORDS = 2
# Gap repair of chunk pairs (chunk_pairs): an aligned chunk pair takes in unaligned
# sibling chunks when its text cost (length + anchors, in nats) drops by more than this.
GAP_MIN_GAIN = 0.5
# ...and unaligned runs on both sides between two aligned pairs become a chunk pair when
# their text cost is at most this (a length discrepancy of P(δ) ≈ 0.1 with no anchors).
GAP_MAX_COST = 3.0


def _identity(x, *args, **kwargs):
    return x


def _logistic(x: float, midpoint: float, slope: float) -> float:
    z = slope * (x - midpoint)
    if z < -50:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def lsi_text_similarity(model, *, midpoint: float = LSI_MIDPOINT, slope: float = LSI_SLOPE,
                        min_terms: int = LSI_MIN_TERMS) -> TextSimilarity:
    """Chunk text similarity from a fitted :class:`~bitextcrawl.pairing.lsi.LSIModel`.

    Both texts are folded into the site's latent space [Germann 2016] and compared by plain
    cosine (``cos``: the site-centred ``lcos`` is meant for whole pages, whose mean is
    the site's boilerplate; a chunk is far from that mean). The cosine is mapped to
    0..1 by a logistic curve (``midpoint``, ``slope``). A chunk with fewer than
    ``min_terms`` terms of the model's vocabulary, or a model in its degenerate
    shared-token mode, gives 1.0: no evidence, Pr(text) unchanged. Folded vectors are
    cached per text.
    """
    if getattr(model, "mode_", None) != "lsi":
        return lambda t1, t2: 1.0
    vocab = model.vocabulary_
    cache: dict[str, np.ndarray | None] = {}


    def vector(text: str):
        v = cache.get(text, False)
        if v is False:
            if sum(1 for t in tokenize(text) if t in vocab) < min_terms:
                v = None
            else:
                v = model.transform([text])[0]
                n = float(np.linalg.norm(v))
                v = v / n if n > 0 else None
            cache[text] = v
        return v

    def similarity(t1: str, t2: str) -> float:
        v1, v2 = vector(t1), vector(t2)
        if v1 is None or v2 is None:
            return 1.0
        return _logistic(float(v1 @ v2), midpoint, slope)

    similarity.model = model
    return similarity


def lexicon_text_similarity(lexicon, *, midpoint: float = LEXICON_MIDPOINT,
                            slope: float = LEXICON_SLOPE,
                            min_words: int = LEXICON_MIN_WORDS) -> TextSimilarity:
    """Chunk text similarity from a user's bilingual lexicon (``word1<TAB>word2``).

    :func:`~bitextcrawl.pages.tokens.lexicon_similarity` (share of lexicon-covered words
    whose translation is on the other side) through a logistic curve; chunks with fewer
    than ``min_words`` lexicon words on both sides give 1.0 (no evidence).
    """
    lex = as_lexicon(lexicon)

    def similarity(t1: str, t2: str) -> float:
        n1 = sum(1 for w in segment(t1, lex.sources, lex.src_maxlen) if w in lex.sources)
        n2 = sum(1 for w in segment(t2, lex.targets, lex.tgt_maxlen) if w in lex.targets)
        if min(n1, n2) < min_words:
            return 1.0
        return _logistic(lexicon_similarity(t1, t2, lex), midpoint, slope)

    return similarity


def combine_similarities(*functions) -> TextSimilarity | None:
    """Geometric mean of several text similarities (None entries skipped)."""
    fns = [f for f in functions if f is not None]
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]

    def similarity(t1: str, t2: str) -> float:
        logs = [math.log(max(float(f(t1, t2)), 1e-6)) for f in fns]
        return math.exp(sum(logs) / len(logs))

    return similarity


def site_text_similarity(pairs, page_index: dict, lexicon=None,
                         lsi: bool = True) -> dict[tuple, TextSimilarity]:
    """Per language pair, the text similarity of the site's LSI space and/or a lexicon.

    The LSI space is fitted as the ETS stage fits it ([Germann 2016]: each training document
    is the concatenation of a known pair's two pages; the idf population is the site's
    pages of the two languages), here on the verified pairs themselves. For callers
    that keep the ETS stage's fitted model, ``lsi_text_similarity(model)`` is cheaper.
    """
    by_langs = defaultdict(list)
    for pair in pairs:
        if pair.url_1 in page_index and pair.url_2 in page_index:
            by_langs[(pair.lang_1, pair.lang_2)].append(pair)
    out = {}
    for (l1, l2), lang_pairs in by_langs.items():
        fn_lsi = None
        if lsi:
            texts = [p.text for p in page_index.values() if p.lang in (l1, l2)]
            model = LSIModel().fit([(page_index[p.url_1].text, page_index[p.url_2].text)
                                    for p in lang_pairs], texts)
            fn_lsi = lsi_text_similarity(model)
        fn_lex = lexicon_text_similarity(lexicon) if lexicon else None
        fn = combine_similarities(fn_lsi, fn_lex)
        if fn is not None:
            out[(l1, l2)] = fn
    return out


def _resolve_similarity(source: TextSimilaritySource, l1: str, l2: str):
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get((l1, l2))
    return source(l1, l2)


def align_pair(aligner: TreeAligner, page1, page2, trees: dict, text_similarity=None):
    """(alignment, tree 1, tree 2) of a page pair; trees from ``trees`` when there."""
    t1 = trees.get(page1.url)
    t2 = trees.get(page2.url)
    if t1 is None:
        t1 = build_tree(page1.html, page1.url)
    if t2 is None:
        t2 = build_tree(page2.html, page2.url)
    return aligner.align(t1, t2, text_similarity), t1, t2


def _repaired_groups(found: list, chunks1: list, chunks2: list, min_gain: float,
                     max_cost: float) -> tuple[list, list]:
    """The anchors' chunk groups with one-sided gaps joined, and the new pairs of two-sided
    gaps as ``(gap index, (chunks 1, chunks 2))`` (see :func:`chunk_pairs`)."""
    groups = [([a[0]], [a[1]]) for a in found]
    extra: list = []   # (gap index, (chunks 1, chunks 2)): new pairs from two-sided gaps
    monotone = all(found[k][0] < found[k + 1][0] and found[k][1] < found[k + 1][1]
                   for k in range(len(found) - 1))
    if monotone:
        c = estimate_ratio([(chunks1[a].text, chunks2[b].text) for a, b, _ in found])
        var = GC_S2 * c * c

        def _shares_anchor(idx1, idx2) -> bool:
            (n1, m1) = anchors("\n".join(chunks1[i].text for i in idx1))
            (n2, m2) = anchors("\n".join(chunks2[j].text for j in idx2))
            return bool(n1 & n2 or m1 & m2)

        def fit(group) -> float:
            t1 = "\n".join(chunks1[i].text for i in group[0])
            t2 = "\n".join(chunks2[j].text for j in group[1])
            return length_cost(len(t1), len(t2), c, var) + pair_anchor_cost(t1, t2)

        bounds = [(-1, -1)] + [(a, b) for a, b, _ in found] + [(len(chunks1), len(chunks2))]
        for k in range(len(bounds) - 1):
            gap1 = list(range(bounds[k][0] + 1, bounds[k + 1][0]))
            gap2 = list(range(bounds[k][1] + 1, bounds[k + 1][1]))
            if not gap1 and not gap2:
                continue
            if gap1 and gap2:
                # Unaligned on both sides (a paragraph merged from two, neither piece close
                # enough alone): one chunk against two or three siblings, as one chunk
                # pair, if they fit as such and share a number or a name.
                if min(len(gap1), len(gap2)) == 1 and max(len(gap1), len(gap2)) <= 3 and \
                        len({id(chunks1[i].parent) for i in gap1}) == 1 and \
                        len({id(chunks2[j].parent) for j in gap2}) == 1 and \
                        _shares_anchor(gap1, gap2) and fit((gap1, gap2)) <= max_cost:
                    extra.append((k, (gap1, gap2)))
                continue
            side, gap, chunks = (0, gap1, chunks1) if gap1 else (1, gap2, chunks2)
            best = None
            for g, at_end in ((k - 1, True), (k, False)):   # anchor before / after the gap
                if not 0 <= g < len(groups):
                    continue
                members = groups[g][side]
                edge = chunks[members[-1] if at_end else members[0]]
                if any(chunks[i].parent is not edge.parent for i in gap):
                    continue
                joined = list(groups[g])
                joined[side] = members + gap if at_end else gap + members
                gain = fit(groups[g]) - fit(joined)
                if gain > min_gain and (best is None or gain > best[0]):
                    best = (gain, g, joined[side])
            if best is not None:
                groups[best[1]][side][:] = best[2]
    return groups, extra


def chunk_pairs(alignment, tree1, tree2, min_score: float = 0.5, *,
                min_gain: float = GAP_MIN_GAIN, max_cost: float = GAP_MAX_COST) -> list:
    """Aligned text chunks (text_1, text_2, score) for sentence alignment, gaps repaired.

    The tree alignment (§4) pairs one node with one node. When a translator merged two
    paragraphs into one, or split one in two, one of the two is left unaligned: its
    sentences are lost, and the aligned chunk pair holds sentences with no counterpart,
    which Gale–Church may pair wrongly. Departure from the paper, to recover them: the
    aligned chunk pairs (posterior ≥ ``min_score``) are anchors in document order; where
    the unaligned chunks between two anchors are on one side only and are siblings of
    an anchor's chunk on that side, they are joined to that anchor (before or after it)
    if that makes the anchor's text fit better by more than ``min_gain`` nats under the
    aligner's own text model: Gale–Church length cost (ratio estimated on the page
    pair's chunks) plus shared numbers and names. A split-off piece brings the lengths
    closer and the names and numbers the other side was missing; a paragraph only one
    version has brings neither, and stays out. Where one chunk on one side and two or
    three sibling chunks on the other are all unaligned between two anchors (neither
    piece of a merged paragraph was close enough alone), they become one chunk pair if
    their text cost is at most ``max_cost`` and they share a number or a name; its score
    is ``min_score``. Lines are kept apart (a chunk's sentences are split as before).
    ``bench/bench_bitext.py`` measures the effect.
    """
    chunks1 = [n for n in preorder(tree1) if n.is_chunk]
    chunks2 = [n for n in preorder(tree2) if n.is_chunk]
    pos1 = {id(n): i for i, n in enumerate(chunks1)}
    pos2 = {id(n): i for i, n in enumerate(chunks2)}
    found = [[pos1[id(u)], pos2[id(v)], score] for u, v, score in alignment.node_pairs
             if u.is_chunk and v.is_chunk and score >= min_score
             and id(u) in pos1 and id(v) in pos2]
    if not found:
        return []
    groups, extra = _repaired_groups(found, chunks1, chunks2, min_gain, max_cost)
    # In document order: the new pair of gap k goes before anchor k.
    ordered = [(k - 0.5, g, min_score) for k, g in extra]
    ordered += [(k, g, a[2]) for k, (g, a) in enumerate(zip(groups, found))]
    ordered.sort(key=lambda x: x[0])
    return [("\n".join(chunks1[i].text for i in idx1),
             "\n".join(chunks2[j].text for j in idx2), score)
            for _, (idx1, idx2), score in ordered]


def pair_sentences(alignment, tree1, tree2, lang_1: str, lang_2: str,
                   min_score: float = 0.5) -> list[tuple[str, str, float]]:
    """Sentence pairs of an aligned page pair (§5): Gale–Church inside each chunk pair."""
    return align_chunks(chunk_pairs(alignment, tree1, tree2, min_score), lang_1, lang_2)


def _pair_result(aligner, alignment, t1, t2, l1: str, l2: str, lang_check=None) -> tuple:
    """(method, sentence pairs, link pairs) of one aligned page pair; with ``lang_check``,
    each sentence pair ``(s1, s2, score)`` has its ``SentenceFacts`` as a fourth item
    (None for a pair whose sides are the same text, which is no bitext)."""
    sentences = pair_sentences(alignment, t1, t2, l1, l2, aligner.min_score)
    if lang_check is not None:
        sentences = [(s1, s2, score,
                      None if s1.strip() == s2.strip() else lang_check.facts(s1, s2))
                     for s1, s2, score in sentences]
    return alignment.method, sentences, list(alignment.link_pairs)


class PairTask(NamedTuple):
    """A page pair for a pool worker: its pages' URLs and HTML, or None where the worker
    reads the HTML from the page store itself; ``size`` (characters) schedules EM."""

    url_1: str
    html_1: str | None
    url_2: str
    html_2: str | None
    size: int


def _read_html(reader, url: str) -> str:
    """The page's HTML read by ``reader`` (KeyError: not stored)."""
    return reader([url])[url]


def _align_task(aligner, l1: str, l2: str, lang_check, reader, task: PairTask):
    """Align one page pair from its HTML: a pool worker's job (trees built here too, the
    HTML read with ``reader`` where the task has none).

    Returns :func:`_pair_result`'s tuple, or the error's text when the pair cannot be
    aligned (one bad page never stops the rest).
    """
    url_1, html_1, url_2, html_2, _ = task
    try:
        if html_1 is None or html_2 is None:
            got = reader([url_1, url_2])
            html_1, html_2 = got[url_1], got[url_2]
        t1, t2 = build_tree(html_1, url_1), build_tree(html_2, url_2)
        out = _pair_result(aligner, aligner.align(t1, t2), t1, t2, l1, l2, lang_check)
        release(t1)
        release(t2)
        return out
    except KeyError as exc:
        return f"not in the page store: {exc}"
    except (ValueError, RecursionError) as exc:
        return str(exc)


def _e_step_task(aligner, l1: str, l2: str, lang_check, reader, final: bool, task: PairTask):
    """One training pair's E-step in a pool worker (§4.2): its counts, and in EM's last
    iteration (``final``: every training pair decoded, the alignments kept) its result
    (:func:`_pair_result`); None otherwise, which has the pair decoded again after EM."""
    url_1, html_1, url_2, html_2, _ = task
    read = partial(_read_html, reader)
    t1, t2 = (_TRAINING_TREES.get(url_1, html_1, read), _TRAINING_TREES.get(url_2, html_2, read))
    if t1.size > aligner.max_nodes or t2.size > aligner.max_nodes:
        return None, None
    alignment = aligner.align(t1, t2)
    return e_step_counts(alignment, t2), (
        _pair_result(aligner, alignment, t1, t2, l1, l2, lang_check) if final else None)


# A pool worker's trees of training pages: EM sends each training pair once an iteration.
_TRAINING_TREES = TreeCache(4 * TRAINING_PAIRS)


def _page_url(page_index, url: str) -> str:
    """The URL of ``url``'s page record (its canonical one), its HTML not read."""
    compact = getattr(page_index, "compact", None)
    return (compact(url) if compact is not None else page_index[url]).url


def _html_tasks(lang_pairs, page_index):
    """Each pair's :class:`PairTask`: without its HTML where ``page_index`` (a
    ``pages.compact.FullRecords``) has a reader of the page store for the pool's workers,
    which then read the HTML themselves (sized by text), not this process."""
    reader = getattr(page_index, "html_reader", None)
    for pair in lang_pairs:
        if reader is not None:
            p1, p2 = page_index.compact(pair.url_1), page_index.compact(pair.url_2)
            yield PairTask(p1.url, None, p2.url, None, len(p1.text) + len(p2.text))
        else:
            p1, p2 = page_index[pair.url_1], page_index[pair.url_2]
            yield PairTask(p1.url, p1.html, p2.url, p2.html, len(p1.html) + len(p2.html))


def training_first(lang_pairs: list, page_index) -> list:
    """The pairs with the aligner's ``TRAINING_PAIRS`` first, then the others in their
    order. The training pairs: of the best-scored half, those whose content blocks align
    best (the pair's STRAND edit ratio W/(M+N), to two decimals), the ones with the most
    text on their shorter side first among equals.

    The best-scored pairs of a site can all be its shortest pages (one-line alias pages
    whose content and structure agree perfectly): an aligner trained on them learns
    nothing of a page's paragraphs and lists (tldr en-pt: 52 sentence pairs instead of
    473), nor does one trained on long pages whose blocks differ (94)."""
    if len(lang_pairs) <= TRAINING_PAIRS:
        return lang_pairs
    compact = getattr(page_index, "compact", None) or page_index.__getitem__

    def order(k):
        pair = best[k]
        f = pair.features or {}
        edit = f.get("w", 0) / max(1, f.get("m", 0) + f.get("n", 0))
        shorter = min(len(compact(pair.url_1).text or ""), len(compact(pair.url_2).text or ""))
        return round(edit, 2), -shorter, k

    best = lang_pairs[:max(TRAINING_PAIRS, len(lang_pairs) // 2)]
    chosen = sorted(range(len(best)), key=order)[:TRAINING_PAIRS]
    keep = set(chosen)
    return [best[k] for k in sorted(chosen)] + [p for k, p in enumerate(lang_pairs)
                                                 if k not in keep]


def _fit(lang_pairs, page_index: dict, trees: dict, similarity, l1, l2, pool, lang_check):
    """The language pair's aligner, trained on its first ``TRAINING_PAIRS`` pairs, and
    what EM kept of them (``TreeAligner.alignments_``).

    With a pool (and no caller's similarity, a closure that cannot be pickled), each
    EM iteration's alignments are made in the pool's processes; they give the same
    counts in the same order as here, so the same model.
    """
    training = lang_pairs[:TRAINING_PAIRS]
    if pool is not None and similarity is None:
        tasks = list(_html_tasks(training, page_index))
        reader = getattr(page_index, "html_reader", None)

        def e_step(aligner, limit=None):
            # Largest pages first, so that no worker is left with a large one while the
            # other waits at the end of the iteration; the results in the pairs' order.
            order = sorted(range(len(tasks[:limit])), key=lambda k: -tasks[k].size)
            # (with a sample, only the last iteration decodes every pair: fit_with)
            task = partial(_e_step_task, aligner, l1, l2, lang_check, reader, limit is None)
            done = pool.map(task, [tasks[k] for k in order])
            out = [None] * len(order)
            for k, result in zip(order, done):
                out[k] = result
            return out

        aligner = TreeAligner(n_iter=FIT_ITERATIONS, em_sample=EM_SAMPLE).fit_with(e_step)
    else:
        for pair in training:
            for page in (page_index[pair.url_1], page_index[pair.url_2]):
                trees[page.url] = build_tree(page.html, page.url)
        aligner = fit_aligner([(trees[p.url_1], trees[p.url_2]) for p in training],
                              similarity)
    return aligner, aligner.__dict__.pop("alignments_", None) or []


def _pair_results(aligner, similarity, lang_pairs, page_index, trees, fitted, l1, l2, pool,
                  lang_check):
    """Per page pair, in order: :func:`_align_task`'s result.

    Pairs that training decoded already (``fitted``) are not decoded again. The others
    go to ``pool`` (an executor, or None for this process); a caller's text similarity
    (a closure, not picklable) keeps the work in this process.
    """
    todo, results = [], [None] * len(lang_pairs)
    for k, pair in enumerate(lang_pairs):
        kept = fitted[k] if k < len(fitted) else None
        if isinstance(kept, tuple):          # made in the pool
            results[k] = kept
        elif kept is not None:
            t1, t2 = trees[pair.url_1], trees[pair.url_2]
            results[k] = _pair_result(aligner, kept, t1, t2, l1, l2, lang_check)
        else:
            todo.append(k)
    if pool is None or similarity is not None:
        def run(k):
            p1, p2 = page_index[lang_pairs[k].url_1], page_index[lang_pairs[k].url_2]
            try:
                alignment, t1, t2 = align_pair(aligner, p1, p2, trees, similarity)
            except (ValueError, RecursionError) as exc:
                return str(exc)
            out = _pair_result(aligner, alignment, t1, t2, l1, l2, lang_check)
            for page, tree in ((p1, t1), (p2, t2)):
                if page.url not in trees:
                    release(tree)
            return out
        done = map(run, todo)
    else:
        tasks = _html_tasks([lang_pairs[k] for k in todo], page_index)
        reader = getattr(page_index, "html_reader", None)
        done = ordered_map(pool, partial(_align_task, aligner, l1, l2, lang_check, reader),
                           tasks)
    done = iter(done)
    for k in range(len(lang_pairs)):
        yield next(done) if results[k] is None else results[k]


def _run_chunk(fn, chunk: list) -> list:
    return [fn(task) for task in chunk]


def ordered_map(pool, fn, tasks, chunk: int = CHUNK_PAIRS, ahead: int = CHUNKS_AHEAD):
    """``pool.map(fn, tasks)`` in order, taking ``tasks`` as it goes: ``Executor.map``
    submits every task at once, and each holds the HTML of two pages.

    The first ``ahead`` chunks are submitted when this is called, not when the first
    result is asked for: the caller may have other results to handle first (the pairs
    EM decoded), and the pool works meanwhile. A chunk's results are handed out after
    the next chunk is submitted."""
    tasks = iter(tasks)
    pending: deque = deque()

    def submit() -> None:
        batch = list(islice(tasks, chunk))
        if batch:
            pending.append(pool.submit(_run_chunk, fn, batch))

    for _ in range(ahead):
        submit()

    def results():
        while pending:
            done = pending.popleft().result()
            submit()
            yield from done

    return results()


def _gc_frozen(function):
    """``function`` with the objects that exist when it is called out of the cyclic garbage
    collector's sight (``gc.freeze``): the pages, records and caches of the caller are
    not scanned again by each full collection that the trees made here set off (on
    nginx.org, 11 full collections took 1.7 s of the stage's 15 s of CPU). What the
    function makes is collected as usual."""
    @wraps(function)
    def frozen(*args, **kwargs):
        # a crawl's process froze its own start-up already (extensions.collector): the
        # one unfreeze, of everything, is then the crawl's, when its engine stops
        unfreeze = gc.get_freeze_count() == 0
        threshold = tune_collector(GC_YOUNG_THRESHOLD)
        try:
            return function(*args, **kwargs)
        finally:
            gc.set_threshold(*threshold)
            if unfreeze:
                gc.unfreeze()
    return frozen


@_gc_frozen
def bitext_rows(pairs, page_index: dict, counts: Counter, progress=_identity,
                text_similarity: TextSimilaritySource = None, lang_check=None, pool=None,
                links=None, new_rows=list):
    """Bitext rows (dicts) and parallel links; one language pair at a time.

    Returns ``{(lang_1, lang_2): (rows, aligner, checks)}`` and the links. ``lang_check``:
    a :class:`~bitextcrawl.bitext.langcheck.SentenceLanguageCheck`, or None to keep
    every row; with it, each row carries its sentence facts, read where the pair was
    aligned, and ``checks`` is the ``RowChecks`` each row was added to, which
    :func:`checked_rows` asks. ``pool``: an executor whose processes align the page
    pairs once the aligner is fitted (None: this process); rows come out in the pairs'
    order either way. ``new_rows()``: an empty sequence a language pair's rows are
    appended to (a list, or a ``rows.RowSpill`` on disk)."""
    by_langs = defaultdict(list)
    for pair in pairs:
        if pair.url_1 in page_index and pair.url_2 in page_index:
            by_langs[(pair.lang_1, pair.lang_2)].append(pair)
    links = [] if links is None else links   # or a sink that writes them as they come
    results = {}
    for (l1, l2), lang_pairs in by_langs.items():
        similarity = _resolve_similarity(text_similarity, l1, l2)
        if similarity is not None:
            counts[f"bitext/bitext/{l1}-{l2}/text_similarity"] = 1
        trees: dict = {}
        lang_pairs = training_first(lang_pairs, page_index)
        aligner, fitted = _fit(lang_pairs, page_index, trees, similarity, l1, l2, pool,
                               lang_check)
        rows = new_rows()
        # what the checks need of all the rows is added up as they come, while the
        # workers align the next pairs
        checks = RowChecks(lang_check) if lang_check is not None else None
        outputs = _pair_results(aligner, similarity, lang_pairs, page_index, trees, fitted,
                                l1, l2, pool, lang_check)
        for pair, out in zip(lang_pairs, progress(outputs, f"bitext {l1}-{l2}",
                                                  len(lang_pairs))):
            url_1, url_2 = _page_url(page_index, pair.url_1), _page_url(page_index, pair.url_2)
            if isinstance(out, str):
                counts["bitext/bitext/failed_pairs"] += 1
                logger.warning("cannot align %s / %s: %s", url_1, url_2, out)
                continue
            method, sentences, link_pairs = out
            counts[f"bitext/bitext/method/{method}"] += 1
            for s1, s2, score, *facts in sentences:
                if s1.strip() == s2.strip():  # untranslated text is not bitext
                    counts["bitext/bitext/identical_skipped"] += 1
                    continue
                row = {"url_1": url_1, "url_2": url_2, "sentence_1": s1, "sentence_2": s2,
                       "score": round(score * pair.score, 4), "lang_1": l1, "lang_2": l2}
                if facts:   # for checked_rows, which drops them
                    row[FACTS_KEY] = facts[0]
                if checks is None or checks.add(row):   # (else: an earlier row's copy)
                    rows.append(row)
            for h1, h2 in link_pairs:
                if h1 != h2:
                    links.append({"url_1": h1, "url_2": h2, "lang_1": l1, "lang_2": l2,
                                  "from": [url_1, url_2]})
        results[(l1, l2)] = (rows, aligner, checks)
    return results, links


def checked_rows(rows, checks: RowChecks, counts: Counter):
    """The rows that pass ``checks`` (a ``langcheck.RowChecks`` every row was added to;
    ``rows``: those it took as first of their sentence pair), without their facts; each
    drop counted under ``bitext/bitext/dropped/<reason>``, with the first row's copies."""
    for r in rows:
        reason = checks.reason(r)
        if reason is None:
            r.pop(FACTS_KEY, None)
            yield r
        else:
            counts[f"bitext/bitext/dropped/{reason}"] += 1 + checks.copies(r)


def check_rows(rows, lang_check, counts: Counter) -> list:
    """The rows of one language pair without interface strings (language names, pairs
    seen both ways round) and without sides fastText reads as another language
    (``bitext.langcheck``), each sentence pair once: :func:`checked_rows`, as a list."""
    checks = RowChecks(lang_check)
    first = [r for r in rows if checks.add(r)]
    return list(checked_rows(first, checks, counts))


def pool_size(workers: int, n_pairs: int) -> int:
    """Processes :func:`worker_pool` starts for ``n_pairs`` page pairs (1: none)."""
    workers = workers or os.cpu_count() or 1
    return max(1, min(workers, n_pairs // MIN_PAIRS_PER_WORKER))


@contextmanager
def worker_pool(workers: int, n_pairs: int):
    """A process pool of ``workers`` (0: the machine's cores) for ``n_pairs`` page pairs,
    or None where one process does (one worker, or too few pairs to pay for starting more).
    Its processes come from the fork server (:mod:`bitextcrawl.processes`)."""
    workers = pool_size(workers, n_pairs)
    if workers <= 1:
        yield None
        return
    with ProcessPool(workers, _young_threshold, (GC_YOUNG_THRESHOLD,),
                     inline_if_broken=True) as pool:
        pool.start()
        yield pool


def _young_threshold(allocations: int) -> None:
    """A worker's collector as :func:`_gc_frozen` sets the stage's: its work is the same."""
    gc.set_threshold(allocations, *gc.get_threshold()[1:])


def warm_pool(workers: int, n_pages: int) -> bool:
    """Start the pool's fork server now if the bitext stage of a site of ``n_pages`` pages
    may use a pool (a language pair has at most ``n_pages // 2`` page pairs): its imports
    (the compiled kernels, about 1.5 s) then overlap pairing instead of delaying the stage.
    """
    if pool_size(workers, n_pages // 2) <= 1:
        return False
    start_forkserver()
    return True


def _sampled(rows, samples: dict):
    """``rows``, the first few of each page pair copied to ``samples`` on the way."""
    for r in rows:
        got = samples.setdefault((r["url_1"], r["url_2"]), [])
        if len(got) < SAMPLE_ROWS:
            got.append((r["sentence_1"], r["sentence_2"]))
        yield r


def write_rows(results: dict, output_dir: str, gz: str, counts: Counter,
               samples: dict | None = None) -> None:
    """``bitext.tsv`` and each language pair's TMX from :func:`bitext_rows`' results, in
    one pass over each language pair's rows, in language-pair order: checked
    (:func:`checked_rows`), cleaned and deduplicated (``formats.tmx.iter_clean_rows``),
    written to the pair's TMX and to ``bitext.tsv``, which also skips the sentence
    pairs an earlier language pair had. The same files as ``write_tmx`` for each pair
    and ``write_bitext_tsv`` over them all, with the rows read and cleaned once."""
    tsv_seen: set = set()
    with atomic_open(os.path.join(output_dir, "bitext.tsv" + gz)) as tsv:
        tsv.write(TSV_HEADER)
        for i, ((l1, l2), (rows, _, checks)) in enumerate(sorted(results.items())):
            kept = rows if checks is None else checked_rows(rows, checks, counts)
            if samples is not None:
                kept = _sampled(kept, samples)

            def written(kept=kept):
                for r in iter_clean_rows(kept):
                    key = dedup_key(r["sentence_1"], r["sentence_2"])
                    if key not in tsv_seen:
                        tsv_seen.add(key)
                        tsv.write(tsv_line(r))
                    yield r

            name = "bitext.tmx" if i == 0 else f"bitext.{l1}-{l2}.tmx"
            counts[f"bitext/bitext/{l1}-{l2}/tmx_units"] = write_tmx(
                os.path.join(output_dir, name + gz), written(), l1, l2, clean=False)
            if hasattr(rows, "close"):
                rows.close()
    counts["bitext/bitext/sentence_pairs"] = len(tsv_seen)


def write_bitext(pairs, page_index: dict, output_dir: str, progress=_identity,
                 text_similarity: TextSimilaritySource = None, lang_check=None,
                 compress: bool = False, samples: dict | None = None,
                 workers: int = 1) -> dict:
    """Write bitext.tsv, bitext.tmx (bitext.<l1>-<l2>.tmx for further pairs), parallel_links.jsonl.

    ``text_similarity``: optional content term of the tree aligner's text translation
    probability, per language pair (a mapping ``(l1, l2) -> callable`` or a callable
    ``(l1, l2) -> callable | None``); see the module docstring. ``lang_check``: see
    :func:`bitext_rows`. ``compress``: ``.gz`` files. ``samples``: if given, filled with
    the first few rows of each page pair, ``(url_1, url_2) -> [(s1, s2)]`` (the report's).
    ``workers``: processes that align the page pairs (see :func:`worker_pool`); the
    files are the same whatever their number.
    """
    gz = ".gz" if compress else ""
    counts: Counter = Counter()
    links_path = os.path.join(output_dir, "parallel_links.jsonl" + gz)
    # Parallel links go to their file as they come: 220,000 on a 20,000-page site; the
    # rows to temporary files (745,000 on a 100,000-page site), read back to write.
    with worker_pool(workers, len(pairs)) as pool, atomic_open(links_path) as fh:
        counts["bitext/bitext/workers"] = pool_size(workers, len(pairs))
        if pool is not None and getattr(page_index, "html_reader", None) is not None:
            counts["bitext/bitext/workers_read_store"] = 1    # not the HTML in the tasks
        links = JsonlSink(fh)
        results, _ = bitext_rows(pairs, page_index, counts, progress, text_similarity,
                                 lang_check, pool, links, partial(RowSpill, output_dir))
        if pool is not None and pool.tasks_inline:
            counts["bitext/bitext/pool_broken_tasks"] = pool.tasks_inline
    write_rows(results, output_dir, gz, counts, samples)
    if not results:  # keep the output contract: the files exist, empty
        write_tmx(os.path.join(output_dir, "bitext.tmx" + gz), [], "und", "und")
    counts["bitext/bitext/parallel_links"] = links.n
    return dict(counts)
