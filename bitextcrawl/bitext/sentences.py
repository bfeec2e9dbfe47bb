"""Sentence splitting and Gale–Church sentence alignment inside aligned chunks.

[Shi 2006 §5]: the text chunks paired by DOM tree alignment are
sentence-aligned one chunk pair at a time, which is far more accurate than aligning whole
pages. The paper's aligner (Zhao et al. 2002) combines IBM model 1 with the length model of
Gale & Church; bitextcrawl has no dictionary, so it uses the length model alone: the
dynamic programme of

    W. A. Gale and K. W. Church (1993). A program for aligning sentences in bilingual
    corpora. Computational Linguistics 19(1):75–102.

with its bead priors (1-1: 0.89, 1-0 / 0-1: 0.0099, 2-1 / 1-2: 0.089, 2-2: 0.011), its
parameters c = 1 and s² = 6.8 on character lengths, and its distance
δ = (c·l1 − l2) / √(s²·(l1 + l2/c)/2), in log space (no underflow on long texts).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from itertools import accumulate
from typing import Iterable, Sequence

from scipy.special import log_ndtr

from bitextcrawl.pages.language import CJK_CHARS

# --------------------------------------------------------------------------------------
# Sentence splitting
# --------------------------------------------------------------------------------------

# Non-breaking prefixes (a period after them does not end a sentence), lower-case, without
# the final period. After the Moses tokenizer's nonbreaking_prefix lists, abridged.
_COMMON = {
    "etc", "e.g", "i.e", "cf", "vs", "viz", "approx", "ca", "no", "nos", "nr", "vol", "vols",
    "fig", "figs", "p", "pp", "ed", "eds", "dr", "prof", "st", "ph.d", "mr", "mrs", "ms",
    "jr", "sr", "inc", "ltd", "co", "corp", "dept", "univ", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "tel", "art", "ch", "sec",
}
ABBREVIATIONS = {
    "en": _COMMON | {"mt", "ft", "gen", "gov", "sen", "rep", "rev", "hon", "capt", "col",
                     "lt", "sgt", "est", "min", "max", "misc", "a.m", "p.m", "u.s", "u.k"},
    "fr": _COMMON | {"m", "mm", "mme", "mmes", "mlle", "mlles", "me", "pr", "mgr", "env",
                     "av", "bd", "boul", "chap", "éd", "coll", "p.ex", "ex", "n°", "réf",
                     "tél", "c.-à-d", "janv", "févr", "avr", "juil", "déc", "sept", "oct",
                     "s.v.p", "qc", "ste", "st-"},
    "de": _COMMON | {"z.b", "u.a", "bzw", "usw", "ggf", "vgl", "hr", "fr", "str", "abs",
                     "bspw", "d.h", "u.u", "evtl", "inkl", "zzgl", "ca", "s", "tel", "dipl",
                     "ing", "jh", "mio", "mrd", "nr", "o.ä", "sog", "u.v.m"},
    "es": _COMMON | {"sr", "sra", "srta", "sres", "ud", "uds", "dra", "lic", "pág", "núm",
                     "av", "avda", "c", "etc", "p.ej", "aprox", "admón"},
    "it": _COMMON | {"sig", "sigg", "sig.ra", "dott", "dott.ssa", "ing", "avv", "geom",
                     "pag", "ecc", "es", "n", "ca"},
    "pt": _COMMON | {"sr", "sra", "srs", "dra", "pág", "av", "ex", "núm", "aprox"},
    "nl": _COMMON | {"dhr", "mevr", "mw", "blz", "bijv", "bv", "enz", "o.a", "d.w.z", "nl",
                     "ca", "z.g.a.n"},
}
# Languages writing ordinals as "3." (a number before a period rarely ends a sentence).
_ORDINAL_DOT = {"de", "da", "nb", "nn", "no", "fi", "cs", "sk", "pl", "hu", "tr", "sl", "hr",
                "sr", "bs", "et", "lv", "lt", "is", "fo"}
CJK_LANGS = {"zh", "ja", "ko", "yue", "wuu", "lzh"}

_CLOSERS = "\"'”’»)]}」』）】〕〉》"
# A Latin-script terminator, its closing quotes/brackets, then whitespace.
# French sets a space before a closing guillemet: « Arrêtez. » Il est parti.
_LATIN_END = re.compile(r"(?P<term>\.\.\.|…|[.!?]+|[।॥؟۔])(?P<close>(?:\s?[" + re.escape(_CLOSERS)
                        + r"])*)(?P<space>\s+)")
# A CJK terminator needs no space after it (nor do ASCII !? followed by a CJK character).
_CJK_END = re.compile(r"(?P<term>[。！？｡．]+|[!?]+(?=[" + CJK_CHARS + r"]))(?P<close>["
                      + re.escape(_CLOSERS) + r"]*)\s*")
_CJK_RE = re.compile("[" + CJK_CHARS + "]")
# Every character either terminator pattern starts with: a line without one is not split.
_TERMINATOR = re.compile("[.…!?।॥؟۔。！？｡．]")
# Terminators that never stand inside a sentence (no abbreviation, decimal or ellipsis).
_UNAMBIGUOUS_END = frozenset("।॥؟۔")
_INITIAL = re.compile(r"^[^\W\d_]$")                 # "J." in "J. Smith"
_DOTTED = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")   # "U.S", "e.g", "z.B"


@lru_cache(maxsize=256)
def _lang(lang: str | None) -> str:
    return (lang or "und").lower().replace("_", "-").split("-")[0]


def _no_break_after(word: str, lang: str) -> bool:
    """True if a period after ``word`` does not end the sentence (abbreviation, initial)."""
    word = word.lstrip("([{\"'«“‘¿¡")
    if not word:
        return False
    low = word.lower()
    if low in ABBREVIATIONS.get(lang, _COMMON):
        return True
    if _INITIAL.match(word) and word.isupper():
        return True
    if _DOTTED.match(word):
        return True
    if lang in _ORDINAL_DOT and word.isdigit() and len(word) <= 2:
        return True
    return False


def _split_line(line: str, lang: str) -> list[str]:
    if _TERMINATOR.search(line) is None:   # most menu items, titles, code
        piece = line.strip()
        return [piece] if piece else []
    cuts: set[int] = set()
    for m in _CJK_END.finditer(line):
        end = m.end("close")
        nxt = line[m.end():m.end() + 1]
        # Japanese quotative particle after a closing quote: 「…。」と言った.
        if m.group("close") and nxt and nxt in "とっ":
            continue
        if m.end() < len(line):
            cuts.add(end)
    for m in _LATIN_END.finditer(line):
        if m.end() >= len(line):
            continue
        nxt = line[m.end()]
        term = m.group("term")
        # a lower-case word after a period, "!" or "?" goes on the sentence ("e.g. this");
        # the danda and the Arabic full stop and question mark end it whatever follows
        # (a Latin-script term in lower case starts the next sentence often)
        if nxt.islower() and term[0] not in _UNAMBIGUOUS_END:
            continue
        if term == ".":
            before = line[:m.start()]
            word = before.rsplit(None, 1)[-1] if before.strip() else ""
            if _no_break_after(word, lang):
                continue
        cuts.add(m.end("close"))
    out: list[str] = []
    start = 0
    for cut in sorted(cuts):
        piece = line[start:cut].strip()
        if piece:
            out.append(piece)
        start = cut
    piece = line[start:].strip()
    if piece:
        out.append(piece)
    return out


def split_sentences(text: str, lang: str = "und") -> list[str]:
    """Split a text into sentences (Latin and CJK punctuation; lines are breaks too).

    A period ends a sentence when whitespace and a non-lower-case character follow and the
    word before it is not a known abbreviation, an initial (``J. Smith``), a dotted
    abbreviation (``U.S.``) or, in languages writing ordinals so, a small number
    (``am 3. Oktober``); ``3.5`` never splits. CJK ``。！？`` end a sentence without a space.
    """
    lang = _lang(lang)
    out: list[str] = []
    for line in text.splitlines():
        line = " ".join(line.split())   # re.sub(r"\s+", " ", line).strip(), faster
        if line:
            out.extend(_split_line(line, lang))
    return out


# Menus, footers and notes recur in the chunks of a site's page pairs: each chunk is
# split once (bounded: the chunk's text is kept with its sentences; a tuple, shared by
# the callers of :func:`align_chunks`).
@lru_cache(maxsize=1 << 14)
def _sentences(text: str, lang: str) -> tuple[str, ...]:
    """:func:`split_sentences` of ``text``, as a tuple."""
    return tuple(split_sentences(text, lang))


# --------------------------------------------------------------------------------------
# Gale–Church alignment
# --------------------------------------------------------------------------------------

# Gale & Church (1993): prior probability of each bead (match) type.
BEAD_PRIORS = {
    (1, 1): 0.89,
    (1, 0): 0.0099,
    (0, 1): 0.0099,
    (2, 1): 0.089,
    (1, 2): 0.089,
    (2, 2): 0.011,
}
GC_C = 1.0     # expected characters of L2 per character of L1 (G&C 1993)
GC_S2 = 6.8    # variance per character (G&C 1993)
_LOG2 = math.log(2.0)
_BEADS = tuple((di, dj, -math.log(p)) for (di, dj), p in BEAD_PRIORS.items())


# Bounded: chunk pairs repeat lengths (a 1-0 bead's cost is its sentence's length's), and
# log_ndtr on one number costs a NumPy call.
@lru_cache(maxsize=1 << 16)
def length_cost(len1: int, len2: int, c: float = GC_C, s2: float = GC_S2) -> float:
    """−log P(δ | match) = −log 2(1 − Φ(|δ|)), the distance measure of Gale & Church (1993)."""
    if len1 == 0 and len2 == 0:
        return 0.0
    mean = (len1 + len2 / c) / 2.0
    z = (c * len1 - len2) / math.sqrt(s2 * mean)
    return -(_LOG2 + float(log_ndtr(-abs(z))))


# CJK characters with their punctuation and full-width forms: no space between them.
_CJK_TEXT = re.compile("[" + CJK_CHARS + "\u3000-\u303f\uff00-\uffef]")


def _joiner(a: str, b: str) -> str:
    return "" if a and b and _CJK_TEXT.match(a[-1]) and _CJK_TEXT.match(b[0]) else " "


def _join(sents: Sequence[str]) -> str:
    out = sents[0]
    for s in sents[1:]:
        out += _joiner(out, s) + s
    return out


def _units(c: float, s2: float) -> float:
    # s² is a variance in L2 characters per L1 character at c = 1; a c ≠ 1 (e.g. Chinese
    # vs English characters) is a change of units of L2, which scales the variance by c².
    return s2 * c * c


def align_sentences(sents1: Sequence[str], sents2: Sequence[str], *, c: float = GC_C,
                    s2: float = GC_S2, band: int | None = None
                    ) -> list[tuple[str, str, float]]:
    """Gale & Church (1993) dynamic-programming sentence alignment, in log space.

    Returns the 1-1, 1-2, 2-1 and 2-2 beads as (text1, text2, score) in order, two
    sentences of a side joined by a space (none between CJK characters); 1-0 and 0-1 beads
    are dropped. ``score`` = 2(1 − Φ(|δ|)) in 0..1, the probability of a length
    discrepancy at least as large as the bead's under the G&C length model. Above 250 000
    cells the search is restricted to a diagonal band (``band`` sentences wide).
    """
    n, m = len(sents1), len(sents2)
    if n == 0 or m == 0:
        return []
    l1 = [len(s) for s in sents1]
    l2 = [len(s) for s in sents2]
    var = _units(c, s2)
    if n == 1 and m == 1:
        return _one_to_one(sents1[0], sents2[0], c, var)
    if band is None and n * m > 250_000:
        band = max(50, abs(n - m) + 20)
    cum1, cum2 = [0, *accumulate(l1)], [0, *accumulate(l2)]
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        if band is not None:
            centre = i * m / n
            lo, hi = max(0, int(centre - band)), min(m, int(centre + band) + 1)
        else:
            lo, hi = 0, m
        row = cost[i]
        for j in range(lo, hi + 1):
            if i == 0 and j == 0:
                continue
            best, arg = inf, None
            for di, dj, prior in _BEADS:
                if di > i or dj > j:
                    continue
                prev = cost[i - di][j - dj]
                if prev == inf:
                    continue
                # sum(l1[i - di:i]), sum(l2[j - dj:j]): whole numbers, the same sums
                a = cum1[i] - cum1[i - di]
                b = cum2[j] - cum2[j - dj]
                v = prev + prior + length_cost(a, b, c, var)
                if v < best:
                    best, arg = v, (di, dj)
            row[j] = best
            back[i][j] = arg
    beads = []
    i, j = n, m
    while i > 0 or j > 0:
        di, dj = back[i][j]
        beads.append((i - di, i, j - dj, j))
        i, j = i - di, j - dj
    beads.reverse()
    out = []
    for a0, a1, b0, b1 in beads:
        if a1 > a0 and b1 > b0:
            la, lb = sum(l1[a0:a1]), sum(l2[b0:b1])
            score = math.exp(-length_cost(la, lb, c, var))
            out.append((_join(sents1[a0:a1]), _join(sents2[b0:b1]), min(1.0, score)))
    return out


def _one_to_one(sent1: str, sent2: str, c: float, var: float) -> list:
    """:func:`align_sentences` of one sentence against one (most chunk pairs): the DP's
    three paths to cell (1, 1), summed in its order; the 1-1 bead unless 1-0 + 0-1 is
    strictly cheaper (G&C 1993)."""
    l1, l2 = len(sent1), len(sent2)
    p11, p10, p01 = _BEADS[0][2], _BEADS[1][2], _BEADS[2][2]
    one = length_cost(l1, l2, c, var)
    cost = 0.0 + p11 + one
    if (0.0 + p01 + length_cost(0, l2, c, var)) + p10 + length_cost(l1, 0, c, var) < cost:
        return []
    if (0.0 + p10 + length_cost(l1, 0, c, var)) + p01 + length_cost(0, l2, c, var) < cost:
        return []
    return [(sent1, sent2, min(1.0, math.exp(-one)))]


def estimate_ratio(text_pairs: Iterable[Sequence]) -> float:
    """Characters of side 2 per character of side 1 over chunk pairs, clipped to 0.2..5."""
    n1 = n2 = 0
    for pair in text_pairs:
        n1 += len(pair[0])
        n2 += len(pair[1])
    if n1 == 0 or n2 == 0:
        return GC_C
    return min(5.0, max(0.2, n2 / n1))


def align_chunks(text_pairs: Iterable[Sequence], lang1: str = "und", lang2: str = "und", *,
                 c: float | None = None, s2: float = GC_S2
                 ) -> list[tuple[str, str, float]]:
    """Sentence-align inside each aligned chunk pair ([Shi 2006 §5], cascaded alignment).

    ``text_pairs`` holds (text1, text2) or (text1, text2, chunk_score) as in
    ``Alignment.text_pairs``. Each chunk is split with :func:`split_sentences` and the
    sentences aligned with :func:`align_sentences`. ``c=None`` estimates the length ratio
    over all the chunk pairs (≈ 1 for European pairs, as G&C assume; ≈ 0.3 for Chinese
    against English). The score of a sentence pair is its bead score times the chunk
    score, when given.
    """
    pairs = [tuple(p) for p in text_pairs]
    if c is None:
        c = estimate_ratio(pairs)
    out: list[tuple[str, str, float]] = []
    for pair in pairs:
        t1, t2 = pair[0], pair[1]
        chunk_score = float(pair[2]) if len(pair) > 2 and pair[2] is not None else 1.0
        s1 = _sentences(t1, lang1)
        s2_ = _sentences(t2, lang2)
        for a, b, score in align_sentences(s1, s2_, c=c, s2=s2):
            out.append((a, b, score * chunk_score))
    return out


__all__ = ["split_sentences", "align_sentences", "align_chunks", "length_cost",
           "estimate_ratio", "BEAD_PRIORS", "GC_C", "GC_S2", "ABBREVIATIONS"]
