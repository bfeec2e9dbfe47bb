"""Text translation cost pieces of the DOM tree aligner ([Shi 2006 §4.1], Pr(text_u | text_v)).

bitextcrawl has no dictionary: a text pair is scored by a Gale–Church length model on
character lengths and by the language-independent anchors (numbers, names) the two texts
share. :mod:`bitextcrawl.trees.domtree` combines them into its node translation cost.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np
from scipy.special import log_ndtr

from bitextcrawl.pages.tokens import MARKS
from bitextcrawl.trees.tree_decoder import _Side

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(rf"[^\W\d_][\w'’\-{MARKS}]*", re.UNICODE)
_URLISH = re.compile(r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.]+", re.I)
# What every match of _URLISH holds (the same flags): texts without it are not searched.
_URL_HINT = re.compile(r"://|www\.|@", re.I)
_SENT_END_CHARS = frozenset(".!?:;。！？")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


# Bounded: a tree's texts are scored against every tree it is aligned with (EM included).
@lru_cache(maxsize=1 << 16)
def anchors(text: str) -> tuple[frozenset, frozenset]:
    """Language-independent anchors of a text: (numbers, names).

    Numbers keep their digits only (``3.5`` = ``3,5``, ``1,000`` = ``1 000``'s parts);
    names are URLs, e-mails, acronyms and capitalised words not at a sentence start, and
    Latin-script words inside CJK text, lower-cased.
    """
    # A number's only non-digits are its separators.
    nums = frozenset([m.replace(".", "").replace(",", "") for m in _NUMBER.findall(text)])
    names: set[str] = set()
    if _URL_HINT.search(text):   # (most texts have none: the e-mail pattern is slow)
        for m in _URLISH.findall(text):
            names.add(m.lower().rstrip(".,;:"))
    cjk = _CJK.search(text) is not None
    for m in _WORD.finditer(text):
        w = m.group()
        # A word with no capital is a name only inside CJK text.
        if len(w) < 2 or (not cjk and w.islower()):
            continue
        if cjk and w.isascii():
            names.add(w.lower())
        elif not w[1:].islower() and any(c.isupper() for c in w[1:]):
            names.add(w.lower())
        elif w[0].isupper() and not _at_sentence_start(text, m.start()):
            names.add(w.lower())
    return nums, frozenset(names)


def _at_sentence_start(text: str, start: int) -> bool:
    """``start`` is 0 or the last non-space character before it ends a sentence (a scan
    back, not ``text[:start].rstrip()``: that copy for every word was quadratic)."""
    k = start - 1
    while k >= 0 and text[k].isspace():
        k -= 1
    return start == 0 if k < 0 else text[k] in _SENT_END_CHARS


def length_cost(l1: np.ndarray, l2: np.ndarray, ratio: float, var: float) -> np.ndarray:
    """−log P(δ) of a Gale–Church length model on character lengths (G&C 1993, eq. for δ).

    Departure: lengths are put in common units with √ratio on each side, so that the cost
    is symmetric in the two languages (G&C's δ uses ratio c on one side only).
    """
    return _length_cost_pairs(np.asarray(l1, dtype=float)[:, None],
                              np.asarray(l2, dtype=float)[None, :], ratio, var)


def _length_cost_pairs(l1: np.ndarray, l2: np.ndarray, ratio: float,
                       var: float) -> np.ndarray:
    """:func:`length_cost` of the pairs (l1[k], l2[k]) (broadcast: all l1 × l2 there)."""
    r = math.sqrt(ratio)
    n1, n2 = l1 * r, l2 / r
    mean = np.maximum((n1 + n2) / 2.0, 1e-9)
    delta = np.abs(n2 - n1) / np.sqrt(var * mean)
    return -(math.log(2.0) + log_ndtr(-delta))


def pair_anchor_cost(t1: str, t2: str) -> float:
    """−log (shared anchors + ½) / (anchors + 1) of two texts, as the aligner scores them (§4.1)."""
    (n1, m1), (n2, m2) = anchors(t1), anchors(t2)
    shared_num = len(n1 & n2)
    shared_names = len(m1 & m2)
    total = len(n1) + len(n2) - shared_num + shared_names
    return -math.log((shared_num + shared_names + 0.5) / (total + 1.0))


def _side_anchors(side: _Side) -> tuple:
    """A tree's anchors, once per tree: per anchor, the rows (nodes with text, in order)
    that have it, numbers and names apart; and the count of numbers of each row."""
    got = side.memo.get("anchors")
    if got is None:
        nums: dict[str, list] = {}
        names: dict[str, list] = {}
        counts = []
        for row, i in enumerate(np.flatnonzero(side.lengths > 0)):
            found_nums, found_names = anchors(side.texts[i])
            counts.append(len(found_nums))
            for w in found_nums:
                nums.setdefault(w, []).append(row)
            for w in found_names:
                names.setdefault(w, []).append(row)
        got = (nums, names, np.array(counts, dtype=float))
        side.memo["anchors"] = got
    return got


def _shared_counts(rows1: dict, rows2: dict, shape: tuple) -> np.ndarray:
    """``out[i, j]``: anchors that rows i and j both have, from each side's rows per anchor
    (integers, exact in floating point)."""
    out = np.zeros(shape)
    for w, r1 in rows1.items():
        r2 = rows2.get(w)
        if r2 is not None:
            out[np.ix_(r1, r2)] += 1.0
    return out


def _doc_ratio(len1: float, len2: float) -> float:
    """Characters of side 2 per character of side 1 on a page pair, clipped to 0.2..5."""
    return float(np.clip(len2 / len1, 0.2, 5.0)) if len1 > 0 and len2 > 0 else 1.0
