"""Words and the tokens a translation leaves alone, shared by pairing and bitext (no Scrapy).

Tokenisation (:func:`tokenize`) is language independent: NFKC, lower case, words of
letters (two letters or more; a word's combining marks, the vowel signs of Devanagari,
Bengali and the other Brahmic scripts, inside it), digit runs as tokens of their own (``1,234.5`` and
``1.234,5`` both give ``1 234 5``: the same tokens whatever the number format of the
language), and runs of scripts written without spaces (Chinese, Japanese, Thai, Lao,
Khmer, Myanmar) as overlapping character bigrams. :func:`anchor_tokens`: what a translation
keeps unchanged (numbers, codes, URLs, e-mail addresses, names). :class:`Lexicon` and
:func:`lexicon_similarity`: the content-based similarity of [Liu 2014 §3.2].
"""

from __future__ import annotations

import gzip
import math
import re
import unicodedata
from collections import Counter
from typing import Iterable, Mapping

# Scripts written without spaces between words: CJK ideographs (+ radicals,
# compatibility, extension B+), kana, bopomofo; Thai, Lao, Myanmar, Khmer.
# Hangul is written with spaces, so it is tokenised as words.
_NOSPACE = ("\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf"
            "\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
            "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff")
# A word's letters: word characters but digits, "_" and the no-space scripts, as one class
# (a lookahead per character took 2.8 times as long; the same matches over all of Unicode).
_LETTERS = rf"[^\W\d_{_NOSPACE}]"


def _mark_ranges() -> str:
    """The combining marks of the Basic Multilingual Plane (Unicode categories Mn, Mc, Me)
    outside the no-space scripts, as the inside of a regex class. Python's ``\\w`` leaves
    them out, so without them "हिन्दी" would read as the letters between its vowel signs."""
    ranges: list[tuple[int, int]] = []
    nospace = re.compile(rf"[{_NOSPACE}]")
    for cp in range(0x10000):
        c = chr(cp)
        if unicodedata.category(c)[0] != "M" or nospace.match(c):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


# Combining marks and the zero-width (non-)joiner written inside words, as the inside of a
# regex class (``[{MARKS}]``).
MARKS = _mark_ranges() + "\u200c\u200d"
# A word: a letter, then letters and combining marks (the word patterns of other modules),
# and a word of two characters or more (one letter alone is no word of a title or a row).
WORD = rf"[^\W\d_](?:[^\W\d_]|[{MARKS}])*"
WORD_OF_TWO = rf"[^\W\d_](?:[^\W\d_]|[{MARKS}])+"
_TOKEN_RE = re.compile(
    rf"([{_NOSPACE}]+)"                        # 1: no-space script run -> bigrams
    rf"|(\d+)"                                 # 2: digit run
    rf"|({_LETTERS}+)"                          # 3: word of letters
)
# The same where a text has combining marks (a word keeps its marks). Most texts have
# none once NFKC has composed Latin, Greek and Cyrillic accents, and the pattern above
# runs faster.
_MARK_RE = re.compile(rf"[{MARKS}]")
_TOKEN_MARKS_RE = re.compile(
    rf"([{_NOSPACE}]+)|(\d+)|({_LETTERS}+(?:[{MARKS}]{_LETTERS}*)*)")
_NOSPACE_RE = re.compile(rf"[{_NOSPACE}]")


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "")


def tokenize(text: str) -> list[str]:
    """Language-independent tokens: lower-cased words (2+ letters), digit runs, CJK/Thai bigrams."""
    return list(tokens_of(text or ""))


def tokens_of(text: str) -> tuple[str, ...]:
    """The tokens of :func:`tokenize`, as a tuple."""
    out: list[str] = []
    append = out.append
    text = _normalise(text).lower()
    pattern = _TOKEN_RE if _MARK_RE.search(text) is None else _TOKEN_MARKS_RE
    for run, digits, word in pattern.findall(text):
        if run:
            if len(run) == 1:
                append(run)
            else:
                out.extend(run[i:i + 2] for i in range(len(run) - 1))
        elif digits:
            append(digits)
        elif len(word) > 1:
            append(word)
    return tuple(out)


# --------------------------------------------------------------------------------------
# Shared (untranslated) tokens
# --------------------------------------------------------------------------------------

_URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>\"'()\[\]{}]+", re.IGNORECASE)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Codes: ASCII letters and digits mixed (A320, covid-19, ISO-9001), hyphens inside.
_CODE_RE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])"
                      r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9-])")
_DIGITS_RE = re.compile(r"\d+")
_WORD_RE = re.compile(rf"{_LETTERS}+")
_SENTENCE_END = set(".!?:;\n\r\t•·|>»\"“”«'([")


def anchor_tokens(text: str) -> list[str]:
    """Tokens a translation leaves as they are: URLs, e-mails, numbers, codes, capitalised names.

    Lower-cased. Numbers are digit runs (format-independent); codes are words mixing
    letters and digits (``A320``, ``covid-19``); names are capitalised words that do not
    start a sentence or block, and all-capital acronyms of 2+ letters anywhere.
    """
    text = _normalise(text)
    out: list[str] = []
    for m in _URL_RE.finditer(text):
        out.append(m.group().rstrip(".,;:!?").lower().split("://", 1)[-1])
    for m in _EMAIL_RE.finditer(text):
        out.append(m.group().lower())
    text = _EMAIL_RE.sub(" ", _URL_RE.sub(" ", text))
    out.extend(_DIGITS_RE.findall(text))
    out.extend(m.group().lower() for m in _CODE_RE.finditer(text))
    for m in _WORD_RE.finditer(text):
        w = m.group()
        if len(w) < 2 or not w[0].isupper():
            continue
        if w.isupper():
            out.append(w.lower())
            continue
        j = m.start() - 1
        while j >= 0 and text[j] == " ":
            j -= 1
        if j < 0 or text[j] in _SENTENCE_END:
            continue  # sentence- or block-initial: capitalised by position, not a name
        out.append(w.lower())
    return out


def shared_token_similarity(text1: str, text2: str,
                            idf: Mapping[str, float] | None = None) -> float:
    """Cosine of the sets of anchor tokens (numbers, URLs, names) of two pages, in [0, 1].

    With ``idf`` (token -> weight), a weighted cosine, so that tokens every page of
    the site has (the phone number in the footer) count little. 0.0 when either page
    has no anchor token.
    """
    a, b = set(anchor_tokens(text1)), set(anchor_tokens(text2))
    if not a or not b:
        return 0.0
    if idf is None:
        return len(a & b) / math.sqrt(len(a) * len(b))
    w = lambda t: idf.get(t, 1.0) ** 2  # noqa: E731
    num = sum(w(t) for t in a & b)
    den = math.sqrt(sum(w(t) for t in a) * sum(w(t) for t in b))
    return float(num / den) if den > 0 else 0.0


# --------------------------------------------------------------------------------------
# Bilingual lexicon [Liu 2014 §3.2]
# --------------------------------------------------------------------------------------

class Lexicon(dict):
    """``word1 -> {word2, ...}`` with what segmentation needs (built by :func:`load_lexicon`).

    A plain ``dict[str, set[str]]`` works too (it is wrapped on first use).
    """

    def __init__(self, entries: Mapping[str, Iterable[str]] | None = None):
        super().__init__()
        for k, vs in (entries or {}).items():
            key = _normalise(k).lower().strip()
            if key:
                self.setdefault(key, set()).update(
                    v2 for v2 in (_normalise(v).lower().strip() for v in vs) if v2)
        self._prepare()

    def _prepare(self) -> None:
        self.targets: frozenset[str] = frozenset(v for vs in self.values() for v in vs)
        self.sources: frozenset[str] = frozenset(self.keys())
        self.src_maxlen = max((len(k) for k in self.sources if _NOSPACE_RE.search(k)), default=1)
        self.tgt_maxlen = max((len(v) for v in self.targets if _NOSPACE_RE.search(v)), default=1)


def load_lexicon(path: str) -> Lexicon:
    """Read a bilingual lexicon: ``word1<TAB>word2`` a line (``.gz`` allowed; ``#`` comments).

    Several lines may give several translations of a word. Words are NFKC and lower-cased.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    entries: dict[str, set[str]] = {}
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#") or "\t" not in line:
                continue
            w1, w2 = line.split("\t")[:2]
            if w1.strip() and w2.strip():
                entries.setdefault(w1, set()).add(w2)
    return Lexicon(entries)


_lexicon_cache: dict[int, tuple[Mapping, Lexicon]] = {}


def as_lexicon(lexicon: Mapping[str, Iterable[str]]) -> Lexicon:
    if isinstance(lexicon, Lexicon):
        return lexicon
    hit = _lexicon_cache.get(id(lexicon))
    if hit is not None and hit[0] is lexicon:
        return hit[1]
    lex = Lexicon(lexicon)
    if len(_lexicon_cache) > 8:
        _lexicon_cache.clear()
    _lexicon_cache[id(lexicon)] = (lexicon, lex)  # keeps the key object alive: id stays valid
    return lex


def segment(text: str, vocab: frozenset[str], maxlen: int) -> list[str]:
    """Words of ``text``; runs of no-space scripts cut by forward maximum matching on ``vocab``."""
    out: list[str] = []
    for run, digits, word in _TOKEN_RE.findall(_normalise(text).lower()):
        if digits or word:
            out.append(digits or word)
            continue
        i, n = 0, len(run)
        while i < n:
            for size in range(min(maxlen, n - i), 0, -1):
                piece = run[i:i + size]
                if size == 1 or piece in vocab:
                    out.append(piece)
                    i += size
                    break
    return out


def lexicon_similarity(text1: str, text2: str, lexicon: Mapping[str, Iterable[str]]) -> float:
    """Content-based translation similarity with a bilingual lexicon [Liu 2014 §3.2], in [0, 1].

    For each word of page 1 that the lexicon knows, look for one of its translations
    among the words of page 2 (each word of page 2 used once). The similarity is the
    number of translated words over the number of lexicon-covered words of the longer
    side (words of page 1 that are lexicon entries, words of page 2 that are lexicon
    translations). The paper gives "the percentage of translation word pairs" without
    a denominator; normalising by the larger covered side keeps the measure symmetric
    in the pages' lengths (a short page inside a long one does not score 1).
    Chinese/Japanese/Thai text is segmented by forward maximum matching on the
    lexicon's own words. A plain dict is normalised once and cached by identity:
    pass a :class:`Lexicon` (or a new dict) after changing its entries.
    """
    lex = as_lexicon(lexicon)
    if not lex:
        return 0.0
    words1 = Counter(w for w in segment(text1, lex.sources, lex.src_maxlen) if w in lex.sources)
    words2 = Counter(w for w in segment(text2, lex.targets, lex.tgt_maxlen) if w in lex.targets)
    covered = max(sum(words1.values()), sum(words2.values()))
    if covered == 0:
        return 0.0
    matched = 0
    # Most specific words first (fewest translations), then alphabetical: deterministic.
    for w in sorted(words1, key=lambda k: (len(lex[k]), k)):
        need = words1[w]
        for t in sorted(lex[w]):
            have = words2.get(t, 0)
            if have:
                take = min(need, have)
                words2[t] = have - take
                need -= take
                matched += take
                if not need:
                    break
    return matched / covered
