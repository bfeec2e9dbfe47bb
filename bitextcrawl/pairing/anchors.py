"""Anchor overlap: what a page and its translation share that translation leaves alone.

Two pages of one template (generated reference pages of a documentation site) look
parallel to STRAND [Assylbekov 2015] whichever of them is the counterpart: W, M, N and the
lengths are all alike. What tells the counterpart from a sibling is the part of the
text a translator does not translate: names and identifiers (``proxy_pass``,
``ngx_http_core_module``, ``getElementById``), version and other numbers (``1.25.3``),
commands and code (the content of ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``,
``<tt>``, ``<var>``), and the targets of links that leave the site (the same outside
URL in both languages; links inside the site differ when the URLs of the two languages
do). [Liu 2014 §3.2] and [Germann 2016] compare the *translated* text; this compares the
untranslated residue, like the shared numbers and image names of the candidate
filters (``candidates.py``), but weighted and as a score in [0, 1].

A page's anchors are a set of strings (``t:`` text identifier, ``h:`` title word,
``c:`` code token, ``o:`` outside link). Two pages score the idf-weighted Jaccard overlap
Σ_{a∈A∩B} idf(a) / Σ_{a∈A∪B} idf(a), idf(a) = log(1 + N / df(a)) over the site's
pages, so that anchors found everywhere (the site's own name, the template's
outside links) weigh little. Pure functions over page records (``PageRecord`` or
dicts with ``url``, ``title``, ``text``, ``html``, ``links``); linear in the site.
"""

from __future__ import annotations

import html as htmlmod
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

import numpy as np

from bitextcrawl.pages.compact import derived_feature, html_feature
from bitextcrawl.pages.variants import without_language

__all__ = ["page_anchors", "anchor_idf", "anchor_overlap", "anchor_overlaps", "weighted_overlap"]

_TOKEN = re.compile(r"[^\s\"'()\[\]{}<>«»“”„,;]+")
_TRIM = ".:!?…-–—*"
# identifier-like: a digit, an underscore, a camelCase hump, a dot or slash between
# word characters, a leading $ or - (variables, options)
_ANCHORISH = re.compile(r"\d|_|[a-z][A-Z]|\w[./]\w|^\$\w|^--?\w")
_CODE = re.compile(r"<(code|pre|kbd|samp|tt|var)\b[^>]*>(.*?)</\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_MIN_CODE_TOKEN = 2


def _get(page, name, default=None):
    return page.get(name, default) if isinstance(page, dict) else getattr(page, name, default)


@lru_cache(maxsize=1 << 16)       # a site's navigation links recur on every page
def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _tokens(text: str) -> Iterable[str]:
    for tok in _TOKEN.findall(text):
        tok = tok.strip(_TRIM)
        if tok:
            yield tok


def _text_anchors(text: str, search=_ANCHORISH.search) -> set[str]:
    """The identifier-like tokens of a text (``_ANCHORISH``), as ``t:`` anchors.

    A token of letters only in one case, or capitalised, has no digit, underscore, dot,
    slash, $ or leading dash, and no lowercase letter before an uppercase one: it is
    skipped without the regex (most words of a text)."""
    out = set()
    for tok in _tokens(text):
        if tok.isalpha() and (tok.islower() or tok.isupper() or tok.istitle()):
            continue
        if search(tok):
            out.add("t:" + tok.lower())
    return out


def _code_anchors(html: str) -> frozenset[str]:
    """The anchors of the code a page quotes (``<code>``, ``<pre>``)."""
    out = set()
    for m in _CODE.finditer(html):
        code = htmlmod.unescape(_TAG.sub(" ", m.group(2)))
        for tok in _tokens(code):
            if len(tok) >= _MIN_CODE_TOKEN:
                out.add("c:" + tok.lower())
    return frozenset(out)


def page_code_anchors(page) -> frozenset[str]:
    """:func:`_code_anchors` of a page record, made once (``pages.compact.html_feature``)."""
    return html_feature(page, "code_anchors", _code_anchors)


def _page_text_anchors(page) -> frozenset[str]:
    text = (_get(page, "title", "") or "") + "\n" + (_get(page, "text", "") or "")
    if not text.strip():
        text = "\n".join(_get(page, "chunks", None) or ())
    return frozenset(by_line(text, _line_anchors))


def by_line(text: str, of_line: Callable[[str], frozenset]) -> set:
    """``of_line`` of a text whose features no line break cuts (a token, a number): the
    union of its lines'. With ``of_line`` kept per line, a site's template lines are read
    once, and a page seen without its template (``pages.template.ContentView``: the
    page's lines but the template's) reads none again."""
    out: set = set()
    for line in text.split("\n"):
        if line:
            got = of_line(line)
            if got:
                out |= got
    return out


@lru_cache(maxsize=1 << 16)
def _line_anchors(line: str) -> frozenset[str]:
    return frozenset(_text_anchors(line))


def page_text_anchors(page) -> frozenset[str]:
    """The identifiers and numbers of a page's title and text, made once per record
    (``pages.compact.derived_feature``: by the record worker that parses the page)."""
    return derived_feature(page, "text_anchors", _page_text_anchors)


def _title_anchors(title: str) -> frozenset[str]:
    """Every word of a title, as ``h:`` anchors: a title names its subject, and the name
    of a command, a product or a person is kept in translation (``cat``, ``brew rm``);
    the words a title's template adds recur on every page and weigh little."""
    return frozenset("h:" + tok.lower() for tok in _tokens(title) if len(tok) >= 2)


def page_title_anchors(page) -> frozenset[str]:
    return _title_anchors(_get(page, "title", "") or "")


def page_anchors(page) -> frozenset[str]:
    """The anchors of one page: identifiers and numbers, title words, code tokens, outside
    link targets. (Not kept in ``derived``: records that share it, a page and its merged
    duplicates, have different links.)"""
    out: set[str] = set()
    out.update(page_text_anchors(page))
    out.update(page_title_anchors(page))
    out.update(page_code_anchors(page))
    own = _host(_get(page, "url", "") or "")
    lang = _get(page, "lang", None)
    for link in _get(page, "links", None) or ():
        url = link.get("url") if isinstance(link, dict) else getattr(link, "url", None)
        if url:
            host = _host(url)
            if host and host != own:
                out.add("o:" + url.split("#", 1)[0].rstrip("/"))
                # where it names the page's language, also as it reads in any language
                neutral = without_language(url, lang)
                if neutral:
                    out.add("ol:" + neutral)
    return frozenset(out)


def anchor_idf(anchor_sets: Iterable[frozenset[str]]) -> dict[str, float]:
    """idf(a) = log(1 + N / df(a)) over the pages whose anchor sets are given."""
    df: Counter = Counter()
    n = 0
    for s in anchor_sets:
        df.update(s)
        n += 1
    return {a: math.log1p(n / d) for a, d in df.items()}


def weighted_overlap(a: frozenset[str], b: frozenset[str],
                     idf: Mapping[str, float] | None,
                     weights: tuple[float, float] | None = None) -> float:
    """Weighted Jaccard of two anchor sets with ``idf`` (plain Jaccard without).
    ``weights``: the two sets' idf sums, where the caller has them."""
    if not a or not b:
        return 0.0
    if a is b or a == b:
        return 1.0
    if idf is None:
        inter = len(a & b)
        return inter / (len(a) + len(b) - inter)
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    inter = sum(idf.get(t, 0.0) for t in small if t in big)
    if inter == 0.0:
        return 0.0
    if weights is None:
        weights = (_weight(a, idf), _weight(b, idf))
    union = weights[0] + weights[1] - inter
    return inter / union if union > 0 else 0.0


def _weight(anchors: frozenset[str], idf: Mapping[str, float]) -> float:
    return sum(idf.get(t, 0.0) for t in anchors)


def anchor_weights(anchor_sets: Mapping[str, frozenset[str]],
                   idf: Mapping[str, float]) -> dict[str, float]:
    """Each set's idf sum (:func:`weighted_overlap`'s ``weights``), once per page."""
    return {k: _weight(a, idf) for k, a in anchor_sets.items()}


def anchor_overlap(page1, page2, idf: Mapping[str, float] | None = None) -> float:
    """Overlap in [0, 1] of the anchors of two pages: weighted Jaccard with ``idf``, plain without."""
    return weighted_overlap(page_anchors(page1), page_anchors(page2), idf)


def anchor_overlaps(pages1: Mapping[str, object], pages2: Mapping[str, object],
                    pairs: Sequence[tuple[str, str]],
                    translate: Callable[[frozenset[str]], frozenset[str]] | None = None
                    ) -> np.ndarray:
    """Anchor overlap of many candidate pairs (key1, key2), anchors found once per page, idf
    over both sides. ``translate``: adds to a page 2's anchors their language-1 forms
    (``site_lexicon.SiteLexicon.translate``)."""
    keys1 = {k for k, _ in pairs}
    keys2 = {k for _, k in pairs}
    a1 = {k: page_anchors(p) for k, p in pages1.items()}
    a2 = {k: page_anchors(p) for k, p in pages2.items()}
    if translate is not None:
        a2 = {k: translate(a) for k, a in a2.items()}
    missing = (keys1 - a1.keys()) | (keys2 - a2.keys())
    if missing:
        raise KeyError(f"pairs name pages not given: {sorted(missing)[:3]}")
    idf = anchor_idf(list(a1.values()) + list(a2.values()))
    # each page's idf sum once, not once per candidate
    w1 = {k: _weight(a1[k], idf) for k in keys1}
    w2 = {k: _weight(a2[k], idf) for k in keys2}
    return np.fromiter((weighted_overlap(a1[k1], a2[k2], idf, (w1[k1], w2[k2]))
                        for k1, k2 in pairs), dtype=np.float64, count=len(pairs))
