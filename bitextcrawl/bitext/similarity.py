"""The content term of the tree aligner's text translation probability (§4.1,
Pr(t_F | t_E)) [Shi 2006]. The paper trains IBM model 1 on LDC data; bitextcrawl has no
dictionary, and the tree aligner scores texts by a Gale–Church length model and shared
numbers/names. ``text_similarity`` adds a content term: per language pair, a callable
``(text_1, text_2) -> [0, 1]`` multiplied into Pr(text). :func:`lsi_text_similarity` makes
one from the site's LSI space ([Germann 2016], the model the ETS stage fits),
:func:`lexicon_text_similarity` from a user's bilingual lexicon,
:func:`site_text_similarity` fits the site's LSI space on the verified pairs themselves
(for callers that do not keep the ETS stage's model). It is optional and off by default:
``bench/bench_bitext.py`` measures what it changes (see docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Callable, Mapping

import numpy as np

from bitextcrawl.pages.tokens import as_lexicon, lexicon_similarity, segment, tokenize
from bitextcrawl.pairing.lsi import LSIModel

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
