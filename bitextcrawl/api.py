"""bitextcrawl from Python, without a crawl: read pages, align them into pairs, extract the
bitext of two pages, score pairs against a gold.

Each function is a thin layer over what the crawl and the commands run (the same code
path, the same defaults of :mod:`bitextcrawl.defaults`)::

    from bitextcrawl import read_pages, align_pages, extract_bitext, score_pairs

- :func:`read_pages`: page records from a crawl's ``pages.jsonl``, a WMT16 ``.lett`` or a
  ``.warc`` (what ``scrapy align`` reads);
- :func:`page_from_html`: the page record of one HTML page;
- :func:`align_pages`: page records -> page pairs and the output dir of a crawl
  (``pairs.jsonl``, ``bitext.tsv``, ``bitext.tmx``, ``report.html``, ``stats.json``): the
  closing pipeline, as ``scrapy align`` runs it;
- :func:`extract_bitext`: the sentence pairs of two HTML pages that translate each other
  (DOM tree alignment, then sentence alignment inside the aligned chunks);
- :func:`score_pairs`: precision, recall, F1 of pairs against a gold (``scrapy evaluate``).

Examples (``docs/api.md`` has longer ones, run as tests):

>>> from bitextcrawl import extract_bitext
>>> en = "<html><body><h1>Downloads</h1><p>The latest stable version is 1.26.</p></body></html>"
>>> fr = "<html><body><h1>Téléchargements</h1><p>La dernière version stable est 1.26.</p></body></html>"
>>> rows = extract_bitext(en, fr, langs=("en", "fr"), check_languages=False)
>>> [(r["sentence_1"], r["sentence_2"]) for r in rows]
[('Downloads', 'Téléchargements'), ('The latest stable version is 1.26.', 'La dernière version stable est 1.26.')]

>>> from bitextcrawl import score_pairs
>>> gold = [("http://s/en/a", "http://s/fr/a"), ("http://s/en/b", "http://s/fr/b")]
>>> found = [{"url_1": "http://s/en/a", "url_2": "http://s/fr/a"}]
>>> scores = score_pairs(gold, found)
>>> scores["precision"], scores["recall"], round(scores["f1"], 3)
(1.0, 0.5, 0.667)
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections import Counter
from typing import Iterable, Iterator

from bitextcrawl.bitext.extract import bitext_rows, checked_rows
from bitextcrawl.bitext.langcheck import SentenceLanguageCheck
from bitextcrawl.config import pattern_db_path
from bitextcrawl.defaults import DEFAULTS
from bitextcrawl.formats.jsonl import iter_jsonl
from bitextcrawl.outputs import run_closing
from bitextcrawl.pages.language import LanguageIdentifier, parse_langs
from bitextcrawl.pages.record import PageRecord, build_record
from bitextcrawl.pairing.align import AlignConfig, Pair
from bitextcrawl.pairing.evaluate import evaluate, read_gold, read_pairs_jsonl
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.store.inputs import read_input
from bitextcrawl.store.sqlite import SQLitePageStore

__all__ = ["read_pages", "page_from_html", "align_pages", "extract_bitext", "score_pairs"]


def _identifier():
    return LanguageIdentifier(DEFAULTS["BITEXT_LID_MODEL"] or None,
                              DEFAULTS["BITEXT_LID_MIN_PROB"])


def read_pages(path: str | os.PathLike, *, identify: bool = True,
               stats: Counter | None = None) -> Iterator[PageRecord]:
    """The page records of a file, by its name: a crawl's ``pages.jsonl`` (``.gz`` too), a
    WMT16 ``.lett``/``.lett.gz`` or a ``.warc``/``.warc.gz``.

    ``identify``: fastText (lid.176) decides the language of each lett/WARC page, as in a
    crawl; False: the page's own declarations do (``<html lang>``, ``Content-Language``),
    else ``und``. A ``pages.jsonl`` keeps the languages it holds. Records that are not
    HTML pages, or broken, are skipped and counted in ``stats`` (a :class:`Counter`).
    Raises ValueError for a file name of no known kind, OSError for a file that cannot
    be read."""
    return read_input(path, identify=_identifier().identify if identify else None,
                      stats=stats)


def page_from_html(url: str, html: str, lang: str | None = None) -> PageRecord:
    """The page record of ``html`` served at ``url``. ``lang``: its language; None:
    fastText decides, as in a crawl (with ``<html lang>`` for short texts)."""
    record = build_record(url, html, None if lang else _identifier().identify)
    return dataclasses.replace(record, lang=lang) if lang else record


def align_pages(pages: Iterable[PageRecord], langs: Iterable[str] = ("en", "fr"),
                output_dir: str | os.PathLike | None = None, *, bitext: bool = True,
                settings: dict | None = None, workers: int = 1) -> list[dict]:
    """Pair translated pages: the closing pipeline of a crawl (``scrapy align``).

    ``pages``: page records (:func:`read_pages`, :func:`page_from_html`) of one site or
    many; each site is aligned on its own. ``langs``: the first language pairs with each
    of the others. The files of a crawl's output dir (``pairs.jsonl``, ``bitext.tsv``,
    ``bitext.tmx``, ``parallel_links.jsonl``, ``patterns.json``, ``report.html``,
    ``stats.json``) go to ``output_dir`` (None: a temporary folder, removed); ``bitext``
    False: page pairs only. ``settings``: ``BITEXT_`` settings over the defaults (e.g.
    ``{"BITEXT_PAIR_THRESHOLD": 0.6}``). ``workers``: processes aligning the bitext.

    Returns the pairs, as the lines of ``pairs.jsonl``: dicts with ``url_1`` (in the first
    language), ``url_2``, ``lang_1``, ``lang_2``, ``score``, ``sources``, ``features``."""
    from scrapy.settings import BaseSettings

    values = BaseSettings({**DEFAULTS, **(settings or {})})
    langs = parse_langs(",".join(langs), values.get("BITEXT_LID_MODEL") or None, name="langs")
    config = AlignConfig.from_settings(values, langs)
    with tempfile.TemporaryDirectory(prefix="bitextcrawl-") as tmp:
        out = os.fspath(output_dir) if output_dir is not None else os.path.join(tmp, "out")
        # As ``scrapy align``: the pages in a store on disk, the first record of a URL kept;
        # the closing step holds them without their HTML.
        store = SQLitePageStore(tmp)
        try:
            for page in pages:
                store.add(page)
            run_closing(store, config, out, pattern_db=PatternDB(pattern_db_path(values, out)),
                        bitext=bitext, workers=workers)
        finally:
            store.close()
        pairs_file = os.path.join(out, "pairs.jsonl.gz" if config.compress else "pairs.jsonl")
        return list(iter_jsonl(pairs_file))


def extract_bitext(html_1: str, html_2: str, langs: tuple[str, str] = ("en", "fr"), *,
                   url_1: str = "page-1", url_2: str = "page-2",
                   check_languages: bool = True) -> list[dict]:
    """The sentence pairs of two HTML pages that translate each other (``html_1`` in
    ``langs[0]``, ``html_2`` in ``langs[1]``), as the rows of ``bitext.tsv``.

    The pages' DOM trees are aligned [Shi 2006 §4] by an aligner trained on this one pair,
    and the sentences of each aligned chunk pair are aligned by length (Gale–Church).
    ``check_languages``: drop the sentence pairs whose sides fastText reads as another
    language, and interface strings such as language names (as a crawl does). Text the
    two pages share unchanged is no bitext and is left out.

    Returns dicts with ``sentence_1``, ``sentence_2``, ``score`` (0..1), ``url_1``,
    ``url_2``, ``lang_1``, ``lang_2``, in document order."""
    lang_1, lang_2 = langs
    pages = {url_1: build_record(url_1, html_1), url_2: build_record(url_2, html_2)}
    lang_check = None
    if check_languages:
        lang_check = SentenceLanguageCheck()
    counts: Counter = Counter()
    results, _ = bitext_rows([Pair(url_1, url_2, lang_1, lang_2, 1.0, [], {})], pages, counts,
                             lang_check=lang_check)
    rows, _, checks = results.get((lang_1, lang_2), ([], None, None))
    return list(checked_rows(rows, checks, counts)) if checks is not None else list(rows)


def score_pairs(gold, pairs, *, base: str | None = None,
                directory_index: str | None = None) -> dict:
    """Precision, recall, F1 and WMT16 1-1 recall of ``pairs`` against ``gold``, as
    ``scrapy evaluate`` prints them.

    ``gold``: a gold file (``url_1<TAB>url_2`` lines; ``base`` prefixes relative paths)
    or ``(url_1, url_2)`` tuples. ``pairs``: a ``pairs.jsonl`` file, or ``(url_1, url_2)``
    tuples, or pair dicts (:func:`align_pages`). ``directory_index``: a URL ending in ``/``
    means this file (``index.html``)."""
    if isinstance(gold, (str, os.PathLike)):
        gold = read_gold(gold, base=base)
    if isinstance(pairs, (str, os.PathLike)):
        pairs = read_pairs_jsonl(pairs)
    else:
        pairs = [(p["url_1"], p["url_2"]) if isinstance(p, dict) else tuple(p) for p in pairs]
    return evaluate([tuple(g) for g in gold], pairs, directory_index=directory_index)
