"""Verified page pairs -> aligned sentences (``bitext.tsv``, ``bitext.tmx``) and parallel links.

Each pair's two pages become document trees, the tree aligner is trained on the
site's own pairs (Viterbi EM, [Shi 2006 §4.2]) and aligns each pair (§4.3); the aligned
text chunks are sentence-aligned (Gale–Church) and the aligned hyperlinks are kept
as candidate pairs (§3, step 5).

The parts: the tree aligner's content term (:mod:`.similarity`), one pair's chunks and
sentences (:mod:`.chunks`), the process pool (:mod:`.pool`); here, the stage that runs them
over a site's pairs and writes the files.
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict
from functools import partial
from typing import NamedTuple

from bitextcrawl.bitext.calibration import DEFAULT_PRECISION, RowProbability
from bitextcrawl.bitext.chunks import PageTrees, align_pair, pair_sentences
from bitextcrawl.bitext.langcheck import FACTS_KEY, RowChecks
from bitextcrawl.bitext.pool import _gc_frozen, _run_chunk, ordered_map, pool_size, worker_pool
from bitextcrawl.bitext.rows import RowSpill
from bitextcrawl.bitext.similarity import TextSimilaritySource, _resolve_similarity
from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.jsonl import JsonlSink
from bitextcrawl.formats.tmx import dedup_key, iter_clean_rows, write_tmx
from bitextcrawl.formats.tsv import HEADER as TSV_HEADER
from bitextcrawl.formats.tsv import tsv_line
from bitextcrawl.pages.urls import page_name
from bitextcrawl.trees.dom import TreeCache, release
from bitextcrawl.trees.domtree import (
    EM_SAMPLE,
    FIT_ITERATIONS,
    TRAINING_PAIRS,
    TreeAligner,
    e_step_counts,
    fit_aligner,
)

logger = logging.getLogger(__name__)

# Sentence pairs per page pair kept for the report's samples.
SAMPLE_ROWS = 3


def _identity(x, *args, **kwargs):
    return x


def _pair_result(aligner, alignment, t1, t2, l1: str, l2: str, lang_check=None,
                 known_links: tuple = ()) -> tuple:
    """(method, sentence pairs, link pairs, what was left out or matched apart) of one
    aligned page pair; with ``lang_check``, each sentence pair ``(s1, s2, score)`` has its
    ``SentenceFacts`` as a fourth item (None for a pair whose sides are the same text,
    which is no bitext). ``known_links``: the pages' links to known page pairs
    (:func:`known_link_pairs`), by which lists ordered differently are paired
    (``chunks.reordered_lists``). The last item counts chunk pairs of code left out
    (``code``), lists matched as sets (``reordered_lists``) and their items that
    nothing paired (``list_items_unmatched``)."""
    skipped: Counter = Counter()
    sentences = pair_sentences(alignment, t1, t2, l1, l2, aligner.min_score, skipped,
                               known_links)
    if lang_check is not None:
        sentences = [(s1, s2, score,
                      None if s1.strip() == s2.strip() else lang_check.facts(s1, s2))
                     for s1, s2, score in sentences]
    return alignment.method, sentences, list(alignment.link_pairs), dict(skipped)


class PairTask(NamedTuple):
    """A page pair for a pool worker: its pages' URLs and HTML, or None where the worker
    reads the HTML from the page store itself; ``size`` (characters) schedules EM.
    ``known_links``: the pair's links to known page pairs (:func:`known_link_pairs`),
    which travel with the task to whichever process aligns it (a pool's, a distributed
    crawl's other worker)."""

    url_1: str
    html_1: str | None
    url_2: str
    html_2: str | None
    size: int
    known_links: tuple = ()


def _read_html(reader, url: str) -> str:
    """The page's HTML read by ``reader`` (KeyError: not stored)."""
    return reader([url])[url]


def _align_task(aligner, l1: str, l2: str, lang_check, page_trees, reader, task: PairTask):
    """Align one page pair from its HTML: a pool worker's job (trees built here too, the
    HTML read with ``reader`` where the task has none).

    Returns :func:`_pair_result`'s tuple, or the error's text when the pair cannot be
    aligned (one bad page never stops the rest).
    """
    url_1, html_1, url_2, html_2, _, known = task
    try:
        if html_1 is None or html_2 is None:
            got = reader([url_1, url_2])
            html_1, html_2 = got[url_1], got[url_2]
        t1, t2 = page_trees(html_1, url_1, l1), page_trees(html_2, url_2, l2)
        out = _pair_result(aligner, aligner.align(t1, t2), t1, t2, l1, l2, lang_check, known)
        release(t1)
        release(t2)
        return out
    except KeyError as exc:
        return f"not in the page store: {exc}"
    except (ValueError, RecursionError) as exc:
        return str(exc)


def _e_step_task(aligner, l1: str, l2: str, lang_check, page_trees, reader, final: bool,
                 task: PairTask):
    """One training pair's E-step in a pool worker (§4.2): its counts, and in EM's last
    iteration (``final``: every training pair decoded, the alignments kept) its result
    (:func:`_pair_result`); None otherwise, which has the pair decoded again after EM."""
    url_1, html_1, url_2, html_2, _, known = task
    read = partial(_read_html, reader)
    t1 = _TRAINING_TREES.get(url_1, html_1, read, partial(page_trees, lang=l1))
    t2 = _TRAINING_TREES.get(url_2, html_2, read, partial(page_trees, lang=l2))
    if t1.size > aligner.max_nodes or t2.size > aligner.max_nodes:
        return None, None
    alignment = aligner.align(t1, t2)
    return e_step_counts(alignment, t2), (
        _pair_result(aligner, alignment, t1, t2, l1, l2, lang_check, known)
        if final else None)


# A pool worker's trees of training pages: EM sends each training pair once an iteration.
_TRAINING_TREES = TreeCache(4 * TRAINING_PAIRS)


def _page_url(page_index, url: str) -> str:
    """The URL of ``url``'s page record (its canonical one), its HTML not read."""
    compact = getattr(page_index, "compact", None)
    return (compact(url) if compact is not None else page_index[url]).url


def _html_tasks(lang_pairs, page_index, known: dict):
    """Each pair's :class:`PairTask`: without its HTML where ``page_index`` (a
    ``pages.compact.FullRecords``) has a reader of the page store for the pool's workers,
    which then read the HTML themselves (sized by text), not this process. ``known``:
    :func:`known_link_pairs`."""
    reader = getattr(page_index, "html_reader", None)
    for pair in lang_pairs:
        links = known.get((pair.url_1, pair.url_2), ())
        if reader is not None:
            p1, p2 = page_index.compact(pair.url_1), page_index.compact(pair.url_2)
            yield PairTask(p1.url, None, p2.url, None, len(p1.text) + len(p2.text), links)
        else:
            p1, p2 = page_index[pair.url_1], page_index[pair.url_2]
            yield PairTask(p1.url, p1.html, p2.url, p2.html, len(p1.html) + len(p2.html),
                           links)


def known_link_pairs(pairs, page_index) -> dict:
    """``(url_1, url_2)`` of each page pair -> its pages' links to a known page pair: the
    sorted ``(URL linked from page 1, URL linked from page 2)`` where the two URLs are
    the two pages (or their aliases) of a pair of ``pairs`` in the same languages. A
    summary list's items are identified across languages by them
    (``chunks.reordered_lists``); most page pairs have a few (their menus), sent with
    the pair's task rather than the whole site's pairs with each task.

    Reads the records' ``links`` (pages without them give none: ``outputs.run_bitext``
    makes this before it drops them)."""
    record = getattr(page_index, "compact", None) or page_index.__getitem__
    partners: dict = defaultdict(dict)      # (l1, l2) -> URL 1 -> its pages' URLs 2
    for pair in pairs:
        if pair.url_1 not in page_index or pair.url_2 not in page_index:
            continue
        p1, p2 = record(pair.url_1), record(pair.url_2)
        names2 = frozenset(map(page_name, (pair.url_2, p2.url, *(p2.aliases or ()))))
        got = partners[(pair.lang_1, pair.lang_2)]
        for name in map(page_name, (pair.url_1, p1.url, *(p1.aliases or ()))):
            got[name] = got[name] | names2 if name in got else names2
    out = {}
    for pair in pairs:
        partner = partners.get((pair.lang_1, pair.lang_2))
        if not partner or pair.url_1 not in page_index or pair.url_2 not in page_index:
            continue
        # (a link to a directory index document is to the page its folder names)
        links1 = [link["url"] for link in record(pair.url_1).links or ()]
        links2: dict = {}   # page name -> the URLs linking it from page 2
        for link in record(pair.url_2).links or ():
            links2.setdefault(page_name(link["url"]), set()).add(link["url"])
        found = {(a, b) for a in links1 for name in partner.get(page_name(a), ())
                 for b in links2.get(name, ())}
        if found:
            out[(pair.url_1, pair.url_2)] = tuple(sorted(found))
    return out


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


def _fit(lang_pairs, page_index: dict, trees: dict, similarity, l1, l2, pool, lang_check,
         page_trees, known: dict):
    """The language pair's aligner, trained on its first ``TRAINING_PAIRS`` pairs, and
    what EM kept of them (``TreeAligner.alignments_``).

    With a pool (and no caller's similarity, a closure that cannot be pickled), each
    EM iteration's alignments are made in the pool's processes; they give the same
    counts in the same order as here, so the same model.
    """
    training = lang_pairs[:TRAINING_PAIRS]
    if pool is not None and similarity is None:
        tasks = list(_html_tasks(training, page_index, known))
        reader = getattr(page_index, "html_reader", None)

        def e_step(aligner, limit=None):
            # Largest pages first, so that no worker is left with a large one while the
            # other waits at the end of the iteration; the results in the pairs' order.
            order = sorted(range(len(tasks[:limit])), key=lambda k: -tasks[k].size)
            # (with a sample, only the last iteration decodes every pair: fit_with)
            task = partial(_e_step_task, aligner, l1, l2, lang_check, page_trees, reader,
                           limit is None)
            done = pool.map(task, [tasks[k] for k in order])
            out = [None] * len(order)
            for k, result in zip(order, done):
                out[k] = result
            return out

        aligner = TreeAligner(n_iter=FIT_ITERATIONS, em_sample=EM_SAMPLE).fit_with(e_step)
    else:
        for pair in training:
            for page in (page_index[pair.url_1], page_index[pair.url_2]):
                trees[page.url] = page_trees(page.html, page.url, page.lang)
        aligner = fit_aligner([(trees[p.url_1], trees[p.url_2]) for p in training],
                              similarity)
    return aligner, aligner.__dict__.pop("alignments_", None) or []


def _pair_results(aligner, similarity, lang_pairs, page_index, trees, fitted, l1, l2, pool,
                  lang_check, page_trees, known: dict):
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
            results[k] = _pair_result(aligner, kept, t1, t2, l1, l2, lang_check,
                                      known.get((pair.url_1, pair.url_2), ()))
        else:
            todo.append(k)
    if pool is None or similarity is not None:
        def run(k):
            p1, p2 = page_index[lang_pairs[k].url_1], page_index[lang_pairs[k].url_2]
            try:
                alignment, t1, t2 = align_pair(aligner, p1, p2, trees, similarity,
                                               page_trees)
            except (ValueError, RecursionError) as exc:
                return str(exc)
            pair = lang_pairs[k]
            out = _pair_result(aligner, alignment, t1, t2, l1, l2, lang_check,
                               known.get((pair.url_1, pair.url_2), ()))
            for page, tree in ((p1, t1), (p2, t2)):
                if page.url not in trees:
                    release(tree)
            return out
        done = map(run, todo)
    else:
        tasks = _html_tasks([lang_pairs[k] for k in todo], page_index, known)
        reader = getattr(page_index, "html_reader", None)
        done = ordered_map(pool, partial(_align_task, aligner, l1, l2, lang_check,
                                         page_trees, reader), tasks)
    done = iter(done)
    for k in range(len(lang_pairs)):
        yield next(done) if results[k] is None else results[k]


@_gc_frozen
def bitext_rows(pairs, page_index: dict, counts: Counter, progress=_identity,
                text_similarity: TextSimilaritySource = None, lang_check=None, pool=None,
                links=None, new_rows=list, page_trees: PageTrees | None = None,
                known_links: dict | None = None):
    """Bitext rows (dicts) and parallel links; one language pair at a time.

    Returns ``{(lang_1, lang_2): (rows, aligner, checks)}`` and the links. ``lang_check``:
    a :class:`~bitextcrawl.bitext.langcheck.SentenceLanguageCheck`, or None to keep
    every row; with it, each row carries its sentence facts, read where the pair was
    aligned, and ``checks`` is the ``RowChecks`` each row was added to, which
    :func:`checked_rows` asks. ``pool``: an executor whose processes align the page
    pairs once the aligner is fitted (None: this process); rows come out in the pairs'
    order either way. ``new_rows()``: an empty sequence a language pair's rows are
    appended to (a list, or a ``rows.RowSpill`` on disk). ``page_trees``: builds each
    page's document tree (:class:`~bitextcrawl.bitext.chunks.PageTrees`: without the
    site's navigation template; None: the whole document). ``known_links``:
    :func:`known_link_pairs` of ``pairs`` (None: made here, from the records' links)."""
    page_trees = page_trees or PageTrees()
    if known_links is None:
        known_links = known_link_pairs(pairs, page_index)
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
                               lang_check, page_trees, known_links)
        rows = new_rows()
        # what the checks need of all the rows is added up as they come, while the
        # workers align the next pairs
        checks = RowChecks(lang_check) if lang_check is not None else None
        outputs = _pair_results(aligner, similarity, lang_pairs, page_index, trees, fitted,
                                l1, l2, pool, lang_check, page_trees, known_links)
        for pair, out in zip(lang_pairs, progress(outputs, f"bitext {l1}-{l2}",
                                                  len(lang_pairs))):
            url_1, url_2 = _page_url(page_index, pair.url_1), _page_url(page_index, pair.url_2)
            if isinstance(out, str):
                counts["bitext/bitext/failed_pairs"] += 1
                logger.warning("cannot align %s / %s: %s", url_1, url_2, out)
                continue
            method, sentences, link_pairs, apart = out
            counts[f"bitext/bitext/method/{method}"] += 1
            counts["bitext/bitext/code_chunks_skipped"] += apart.get("code", 0)
            if apart.get("reordered_lists"):
                counts["bitext/bitext/reordered_lists"] += apart["reordered_lists"]
                counts["bitext/bitext/list_items_unmatched"] += apart["list_items_unmatched"]
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


def _sampled(rows, samples: dict):
    """``rows``, the first few of each page pair copied to ``samples`` on the way."""
    for r in rows:
        got = samples.setdefault((r["url_1"], r["url_2"]), [])
        if len(got) < SAMPLE_ROWS:
            got.append((r["sentence_1"], r["sentence_2"]))
        yield r


class _Texts:
    """``(sentence 1, sentence 2, aligner score)`` of rows, read anew each iteration."""

    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return ((r["sentence_1"], r["sentence_2"], r["score"]) for r in self.rows)


def calibrated(rows, l1: str, l2: str, counts: Counter, output_dir: str,
               precision: float = DEFAULT_PRECISION):
    """``rows`` (cleaned, one language pair's) with ``score`` the probability that the
    row is a translation (``calibration.RowProbability`` fitted on them); the
    threshold the report suggests (the estimated precision of the rows at or above it
    at least ``precision``), that precision and the share of right rows estimated in
    ``counts`` (``bitext/bitext/<l1>-<l2>/suggested_threshold``, ``.../estimated_precision``,
    ``.../estimated_right_share``). The rows are kept on disk in ``output_dir`` while
    the model is fitted."""
    kept = RowSpill(output_dir)
    try:
        for r in rows:
            kept.append(r)
        model = RowProbability(target_precision=precision).fit(_Texts(kept))
        counts[f"bitext/bitext/{l1}-{l2}/suggested_threshold"] = model.threshold_
        counts[f"bitext/bitext/{l1}-{l2}/estimated_precision"] = round(model.precision_, 4)
        counts[f"bitext/bitext/{l1}-{l2}/estimated_right_share"] = round(
            model.right_share_, 4)
        for r, p in zip(kept, model.proba_.tolist()):
            r["score"] = round(p, 4)
            yield r
    finally:
        kept.close()


def write_rows(results: dict, output_dir: str, gz: str, counts: Counter,
               samples: dict | None = None, precision: float = DEFAULT_PRECISION) -> None:
    """``bitext.tsv`` and each language pair's TMX from :func:`bitext_rows`' results, in
    language-pair order: checked (:func:`checked_rows`), cleaned and deduplicated
    (``formats.tmx.iter_clean_rows``), scored (:func:`calibrated`: ``score`` becomes
    the probability that the row is a translation, ``precision`` the estimated
    precision the suggested threshold keeps), written to the pair's TMX and to
    ``bitext.tsv``, which also skips the sentence pairs an earlier language pair had.
    The same files as ``write_tmx`` for each pair and ``write_bitext_tsv`` over them
    all, with the rows checked and cleaned once (kept on disk while the model is fitted)."""
    tsv_seen: set = set()
    with atomic_open(os.path.join(output_dir, "bitext.tsv" + gz)) as tsv:
        tsv.write(TSV_HEADER)
        for i, ((l1, l2), (rows, _, checks)) in enumerate(sorted(results.items())):
            kept = rows if checks is None else checked_rows(rows, checks, counts)
            if samples is not None:
                kept = _sampled(kept, samples)

            def written(kept=kept, l1=l1, l2=l2):
                for r in calibrated(iter_clean_rows(kept), l1, l2, counts, output_dir,
                                    precision):
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


def pairs_in(fn, args) -> int:
    """The page pairs of one task of the bitext stage's executor: a chunk
    (:func:`~bitextcrawl.bitext.pool._run_chunk`) or one training pair."""
    return len(args[1]) if fn is _run_chunk else 1


def write_bitext(pairs, page_index: dict, output_dir: str, progress=_identity,
                 text_similarity: TextSimilaritySource = None, lang_check=None,
                 compress: bool = False, samples: dict | None = None,
                 workers: int = 1, shared_pool=None,
                 page_trees: PageTrees | None = None, known_links: dict | None = None,
                 precision: float = DEFAULT_PRECISION) -> dict:
    """Write bitext.tsv, bitext.tmx (bitext.<l1>-<l2>.tmx for further pairs), parallel_links.jsonl.

    ``text_similarity``: optional content term of the tree aligner's text translation
    probability, per language pair (a mapping ``(l1, l2) -> callable`` or a callable
    ``(l1, l2) -> callable | None``); see the module docstring. ``lang_check``: see
    :func:`bitext_rows`. ``compress``: ``.gz`` files. ``samples``: if given, filled with
    the first few rows of each page pair, ``(url_1, url_2) -> [(s1, s2)]`` (the report's).
    ``workers``: processes that align the page pairs (see :func:`worker_pool`); the
    files are the same whatever their number. ``shared_pool``: a distributed crawl's
    executor shared by its workers (``store.redis_pool.RedisTaskPool``), used in place
    of the process pool when another worker is there to take tasks; each worker's share of
    the pairs is counted (``bitext/closing/pairs_aligned/<worker>``). ``page_trees``,
    ``known_links``: see :func:`bitext_rows`. ``precision``: the estimated precision of
    the rows the suggested threshold of each language pair keeps (:func:`calibrated`).
    """
    gz = ".gz" if compress else ""
    counts: Counter = Counter()
    links_path = os.path.join(output_dir, "parallel_links.jsonl" + gz)
    # Parallel links go to their file as they come: 220,000 on a 20,000-page site; the
    # rows to temporary files (745,000 on a 100,000-page site), read back to write.
    local = worker_pool(workers, len(pairs))
    opened = shared_pool.open(local) if shared_pool is not None else local
    with opened as pool, atomic_open(links_path) as fh:
        counts["bitext/bitext/workers"] = pool_size(workers, len(pairs))
        if pool is not None and getattr(page_index, "html_reader", None) is not None:
            counts["bitext/bitext/workers_read_store"] = 1    # not the HTML in the tasks
        links = JsonlSink(fh)
        results, _ = bitext_rows(pairs, page_index, counts, progress, text_similarity,
                                 lang_check, pool, links, partial(RowSpill, output_dir),
                                 page_trees, known_links)
        if pool is not None and pool.tasks_inline:
            counts["bitext/bitext/pool_broken_tasks"] = pool.tasks_inline
        if pool is not None and pool is shared_pool:
            counts["bitext/closing/workers"] = len(pool.shares)
            for worker, n in pool.shares.items():
                counts[f"bitext/closing/pairs_aligned/{worker}"] = n
    write_rows(results, output_dir, gz, counts, samples, precision)
    if not results:  # keep the output contract: the files exist, empty
        write_tmx(os.path.join(output_dir, "bitext.tmx" + gz), [], "und", "und")
    counts["bitext/bitext/parallel_links"] = links.n
    return dict(counts)
