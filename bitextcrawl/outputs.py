"""The closing step, page records -> the output dir: pairs.jsonl, patterns.json, bitext,
report.html, stats.json. No Scrapy here: the crawl's :class:`ClosingPipeline
<bitextcrawl.pipelines.closing.ClosingPipeline>` and ``scrapy align`` both call
:func:`run_closing`.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections import Counter, defaultdict

from bitextcrawl.bitext.calibration import DEFAULT_PRECISION
from bitextcrawl.bitext.chunks import PageTrees
from bitextcrawl.bitext.extract import known_link_pairs, write_bitext
from bitextcrawl.bitext.langcheck import SentenceLanguageCheck
from bitextcrawl.bitext.pool import warm_pool
from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.pages.compact import FullRecords, Interner, compact, drop_pairing_features
from bitextcrawl.pages.site import label_variants
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.html_features import HTML_FEATURES
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.report import figures
from bitextcrawl.report.html import ReportData, write_report

logger = logging.getLogger(__name__)


def progress(iterable, desc: str, total: int | None = None):
    """tqdm where a terminal is attached, log lines otherwise."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(iterable, desc=desc, total=total)
        return
    step = max(1, (total or 0) // 10)
    for i, item in enumerate(iterable, 1):
        if total and (i % step == 0 or i == total):
            logger.info("%s: %d/%d", desc, i, total)
        yield item


def write_json(path: str, obj) -> None:
    with atomic_open(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=True, default=str)



# Full records (HTML) the bitext stage keeps at a time: pairs are aligned in order and
# a page recurs in nearby ones (``bitext.pool.ordered_map`` has up to 64 pairs in flight).
BITEXT_RECORDS_KEPT = 512


def read_sites(pages) -> tuple[dict, object]:
    """Site -> its records, and ``load(urls) -> {url: record}`` for the full records.

    From a page store (anything with ``get_many``, see :mod:`bitextcrawl.store`), the
    records are read once and kept :func:`~bitextcrawl.pages.compact.compact` (no HTML),
    and ``load`` is the store's ``get_many``; from any other iterable they are kept as
    they are and ``load`` is None.
    """
    load = getattr(pages, "get_many", None)
    intern = Interner()
    by_site = defaultdict(list)
    for page in pages:
        by_site[page.site].append(page if load is None else compact(page, intern, HTML_FEATURES))
    return by_site, load


def run_bitext(pairs, by_site: dict, load, config: AlignConfig, output_dir: str,
               samples: dict, workers: int, html_reader=None, shared_pool=None,
               navigation: dict | None = None,
               sentence_precision: float = DEFAULT_PRECISION) -> dict:
    """The bitext files of ``pairs`` (``bitext.extract.write_bitext``); its counts.
    ``html_reader``: the page store's, with which the pool's workers read the HTML;
    ``shared_pool``: a distributed crawl's executor shared by its workers;
    ``navigation``: site -> the template its trees lose (``AlignResult.navigation``)."""
    lang_check = None
    if config.sentence_lang_check:
        lang_check = SentenceLanguageCheck()
    logger.info("Bitext: aligning the sentences of %d page pairs (a first run compiles the "
                "sentence aligner's kernels first: about 20 s)", len(pairs))
    page_index = {p.url: p for site_pages in by_site.values() for p in site_pages}
    # the sites heavy with a template: their trees aligned without its navigation
    page_trees = PageTrees(navigation)
    # the pairs' links to known pairs, read before the records lose their links
    known_links = known_link_pairs(pairs, page_index)
    if load is not None:
        for page in page_index.values():   # the most memory held from here on
            drop_pairing_features(page)
        page_index = FullRecords(page_index, load, keep=BITEXT_RECORDS_KEPT,
                                 html_reader=html_reader)
    return write_bitext(pairs, page_index, output_dir, progress=progress,
                        lang_check=lang_check, compress=config.compress,
                        samples=samples, workers=workers, shared_pool=shared_pool,
                        page_trees=page_trees, known_links=known_links,
                        precision=sentence_precision)


def run_closing(pages, config: AlignConfig, output_dir: str, pattern_db: PatternDB | None = None,
                crawl_stats: dict | None = None, bitext: bool = True,
                redirects: dict | None = None, timeline: list | None = None,
                workers: int = 1, sentence_precision: float = DEFAULT_PRECISION,
                shared_pool=None) -> dict:
    """Align every site's pages and write pairs.jsonl, patterns.json, bitext, report, stats.json.

    ``pages``: a page store, read once, whose HTML is read a pair at a time when aligned
    (the memory held is the site's records without HTML), or an iterable of records.

    ``redirects``: requested URL -> target, as the crawl saw them (the page store keeps them).
    ``timeline``: the crawl's ``[seconds, responses, pages, pairs]`` points, for the report.
    With ``config.compress``, pairs.jsonl and the bitext files are written ``.gz``.
    ``workers``: processes that align the page pairs for the bitext (``BITEXT_WORKERS``).
    ``sentence_precision``: the estimated precision of the rows the report's suggested
    aligner_score filter keeps, per language pair (``bitext.calibration``).
    ``shared_pool``: a distributed crawl's executor for the bitext stage, shared by its
    workers (:mod:`bitextcrawl.store.redis_pool`); the files are the same.
    """
    gz = ".gz" if config.compress else ""
    os.makedirs(output_dir, exist_ok=True)
    start = time.perf_counter()
    by_site, load = read_sites(pages)
    for site in by_site:
        # each page's language as the languages asked for count it (a variant: pt-br),
        # for the bitext and the report as for the alignment (which does it again)
        by_site[site] = label_variants(by_site[site], config.langs)[0]
    if bitext and by_site:
        warm_pool(workers, max(map(len, by_site.values())))
    pairs, patterns, models, em_points, scores, rejected = [], {}, {}, {}, {}, {}
    navigation = {}
    counts: Counter = Counter()
    timings: Counter = Counter()
    for site, site_pages in progress(sorted(by_site.items()), "align sites", len(by_site)):
        result = align_site(site_pages, config, pattern_db=pattern_db, redirects=redirects,
                            load=load)
        pairs.extend(result.pairs)
        patterns[site] = result.patterns
        models[site] = result.models
        em_points[site] = result.em_points
        scores[site] = result.scores
        rejected[site] = result.rejected
        navigation[site] = result.navigation
        counts.update(result.counts)
        timings.update(result.timings)
    if pattern_db is not None:
        pattern_db.save()

    write_jsonl(os.path.join(output_dir, "pairs.jsonl" + gz), (p.to_dict() for p in pairs))
    write_json(os.path.join(output_dir, "patterns.json"), patterns)

    samples = {}
    if bitext:
        t = time.perf_counter()
        reader = getattr(pages, "html_reader", None) if load is not None else None
        counts.update(run_bitext(pairs, by_site, load, config, output_dir, samples, workers,
                                 reader() if reader is not None else None, shared_pool,
                                 navigation, sentence_precision))
        timings["bitext"] += round(time.perf_counter() - t, 3)

    langs = tuple(config.langs)
    unpaired = figures.unpaired_pages((p for ps in by_site.values() for p in ps), pairs,
                                      rejected, langs)
    tsv = os.path.join(output_dir, "bitext.tsv" + gz)
    thresholds, precisions = figures.suggested_filters(counts)
    sentence_scores = (figures.sentence_score_bands(figures.read_bitext_scores(tsv),
                                                    thresholds, precisions)
                       if bitext and os.path.exists(tsv) else {})
    crawl = crawl_stats or {}
    stats = {
        "crawl": crawl,
        "report": {"failures": dict(figures.failures(crawl)),
                   "links_not_followed": dict(figures.links_not_followed(crawl)),
                   "other_language_links": figures.other_language_links(crawl),
                   "unpaired": unpaired, "sentence_scores": sentence_scores},
        "sentence_precision_target": sentence_precision,
        "sentence_thresholds": thresholds,
        "sentence_precision": precisions,
        "align": dict(counts),
        "timings_s": dict(timings),
        "models": models,
        "pages": sum(len(v) for v in by_site.values()),
        "pairs": len(pairs),
        "seconds": round(time.perf_counter() - start, 3),
        "timeline": timeline or [],
        "threshold": config.threshold,
        "langs": list(config.langs),
    }
    write_json(os.path.join(output_dir, "stats.json"), stats)
    write_report(os.path.join(output_dir, "report.html"),
                 ReportData(pairs=pairs, pages_by_site=by_site, stats=stats,
                            em_points=em_points, scores=scores, rejected=rejected,
                            samples=samples, patterns=patterns, unpaired=unpaired,
                            sentence_scores=sentence_scores))
    logger.info("Closing pipeline: %d pairs from %d pages in %.1fs -> %s",
                len(pairs), stats["pages"], stats["seconds"], output_dir)
    return stats
