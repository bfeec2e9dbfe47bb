"""Checks of aligned sentence pairs before they become bitext rows.

* **Language** (:class:`SentenceLanguageCheck`): each side is run through fastText
  lid.176 and must read as its page's language. fastText is unreliable on a few words
  ("Browser" comes out Macedonian at 0.93, "Non calculé" Italian at 0.99), so the page's
  language is the prior and only the failure that happens on real sites is looked for
  on short texts: a side that reads as the *other* language of the pair (a French page's
  untranslated English string, a switch anchor paired crosswise). Longer texts fail on
  any other language fastText is sure of. Texts with almost no letters (numbers, dates)
  carry no language and pass.
* **Script** (:func:`language_scripts`): where the two languages are written in
  different scripts (English and Russian, not English and French), a side with no letter
  in the script its language has and the other has not fails whatever its length: fastText cannot tell what
  ``proxy_cache_valid`` is, but it is not Russian. Each language's scripts are taken
  from the rows themselves (the page-level language as prior), with no table.
* **Interface strings** (:func:`interface_rows`): rows whose two sides name two different
  languages (``English`` / ``Français``: a language switch aligned with itself;
  ``English`` / ``Anglais`` is a translation and stays), and pairs
  of strings that also occur the other way round in the same language pair
  (``a ↔ b`` and ``b ↔ a``): a translation does not swap sides, menus aligned
  crosswise do.

Pure functions over strings: no Scrapy.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache

from bitextcrawl.pages.language import load_model
from bitextcrawl.sites.detect import switch_language

# Texts with fewer letters than this carry no language ("2 615 060", "N/A", "v4.0").
MIN_LETTERS = 3
# A text of fewer words is short: it fails only when read as the pair's other language.
SHORT_WORDS = 4
# How sure fastText must be: of the pair's other language (long / short texts), and of a
# third language (long texts only). Measured on nginx.org en–ru and WET en–fr (README).
OTHER_LANG_PROB = 0.5
OTHER_LANG_PROB_SHORT = 0.9
THIRD_LANG_PROB = 0.9
# A script is one of a language's scripts from this share of its letters on (Japanese:
# kanji, hiragana and katakana; Russian: Cyrillic, not the Latin of code and names).
SCRIPT_MIN_SHARE = 0.2
# Predictions kept by a SentenceLanguageCheck (texts; cleared when full).
PREDICTIONS_KEPT = 1 << 16
_WORD = re.compile(r"[^\W\d_]+")
_WS = re.compile(r"\s+")


@dataclass
class SentenceLanguageCheck:
    """``reason(text, lang, other_lang)``: None when ``text`` may be ``lang``, else why not
    (``other_lang``: the text reads as the pair's other language; ``third_lang``)."""

    model_file: str | None = None
    min_letters: int = MIN_LETTERS
    short_words: int = SHORT_WORDS
    other_prob: float = OTHER_LANG_PROB
    other_prob_short: float = OTHER_LANG_PROB_SHORT
    third_prob: float = THIRD_LANG_PROB

    def __post_init__(self):
        self.model = load_model(self.model_file)
        self._predictions: dict[str, tuple[str, float]] = {}

    def predict(self, text: str) -> tuple[str, float]:
        # Menus and footers repeat on every page: each text is read once (bounded).
        got = self._predictions.get(text)
        if got is None:
            labels, probs = self.model.predict(_WS.sub(" ", text).strip(), k=1)
            got = labels[0].replace("__label__", ""), float(min(1.0, probs[0]))
            if len(self._predictions) >= PREDICTIONS_KEPT:
                self._predictions.clear()
            self._predictions[text] = got
        return got

    def prefetch(self, text: str) -> None:
        """Read ``text`` now if :meth:`reason` would (its prediction is kept)."""
        if _has_letters(text, self.min_letters):
            self.predict(text)

    def prefetch_pair(self, text_1: str, text_2: str) -> None:
        """Read a sentence pair now as the check of its row will (:meth:`reason` of both
        sides, :func:`is_language_name_pair`): the readings are kept, and the check,
        which needs every row of the language pair, finds them made."""
        self.prefetch(text_1)
        self.prefetch(text_2)
        is_language_name_pair(text_1.strip(), text_2.strip())

    def reason(self, text: str, lang: str, other_lang: str) -> str | None:
        if not _has_letters(text, self.min_letters):
            return None
        top, prob = self.predict(text)
        if top == lang:
            return None
        short = len(_WORD.findall(text)) < self.short_words
        if top == other_lang:
            return "other_lang" if prob >= (self.other_prob_short if short
                                            else self.other_prob) else None
        if not short and prob >= self.third_prob:
            return "third_lang"
        return None


def _has_letters(text: str, n: int) -> bool:
    """``text`` has at least ``n`` letters (counted up to ``n``)."""
    if n <= 0:
        return True
    for c in text:
        if c.isalpha():
            n -= 1
            if not n:
                return True
    return False


@lru_cache(maxsize=1 << 14)
def script(char: str) -> str:
    """A letter's script, by the first word of its Unicode name (LATIN, CYRILLIC, CJK…)."""
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


_ASCII_LETTERS = bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1))


@lru_cache(maxsize=1 << 14)
def text_scripts(text: str) -> Counter:
    """Letters per script (shared between calls with the same text: do not modify)."""
    if text.isascii():   # (its letters are A–Z and a–z: LATIN; counted without a lookup each)
        raw = text.encode("ascii")
        n = len(raw) - len(raw.translate(None, _ASCII_LETTERS))
        return Counter({"LATIN": n}) if n else Counter()
    return Counter(map(script, filter(str.isalpha, text)))


def language_scripts(rows, min_share: float = SCRIPT_MIN_SHARE) -> dict[str, frozenset]:
    """lang -> the scripts of at least ``min_share`` of its letters in ``rows``."""
    letters: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        letters[r["lang_1"]].update(text_scripts(r["sentence_1"]))
        letters[r["lang_2"]].update(text_scripts(r["sentence_2"]))
    out = {}
    for lang, counts in letters.items():
        total = sum(counts.values())
        out[lang] = frozenset(s for s, n in counts.items() if n >= min_share * total)
    return out


def wrong_script(text: str, scripts: frozenset, other: frozenset) -> bool:
    """``text`` has letters, none in the scripts its language has and the other language
    has not (Russian's Cyrillic beside English, not the Latin of the code both carry).
    Languages with no script of their own (English beside French) are never wrong."""
    own = (scripts or frozenset()) - (other or frozenset())
    if not own:
        return False
    found = text_scripts(text)
    return bool(found) and not (found.keys() & own)


# Menus and language switches repeat on every page: each text is read once (bounded).
# A cache of its own (not the crawl's cache of anchor texts): clear_caches() empties it.
_switch_language = lru_cache(maxsize=1 << 16)(switch_language.__wrapped__)


def clear_caches() -> None:
    """Forget the readings kept across calls (scripts, language names): the next bitext
    stage starts as in a fresh process (``bench_align`` runs two in one)."""
    for cached in (script, text_scripts, _switch_language):
        cached.cache_clear()


def is_language_name_pair(text_1: str, text_2: str) -> bool:
    """The sides name two different languages ("English" / "Français", "EN" / "FR")."""
    lang_1 = _switch_language(text_1)
    if lang_1 is None:   # most sentences: the other side is not read
        return False
    lang_2 = _switch_language(text_2)
    return lang_2 is not None and lang_1 != lang_2


def _pair_key(s1: str, s2: str) -> bytes:
    """A 16-byte digest of the pair (s1, s2), not of (s2, s1): the rows' sentences are
    not held twice (745,000 rows on a 100,000-page site)."""
    return hashlib.blake2b(f"{len(s1)}:{s1}{s2}".encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


def interface_rows(rows) -> dict[int, str]:
    """Indexes of rows (dicts with lang_1, lang_2, sentence_1, sentence_2) that are
    interface strings, with the reason: ``language_names`` or ``crosswise``. ``rows``
    is read twice, in the same order."""
    out: dict[int, str] = {}
    seen = defaultdict(set)   # (lang_1, lang_2) -> {digest of (s1, s2)}
    for r in rows:
        seen[r["lang_1"], r["lang_2"]].add(_pair_key(r["sentence_1"].strip(),
                                                     r["sentence_2"].strip()))
    for i, r in enumerate(rows):
        s1, s2 = r["sentence_1"].strip(), r["sentence_2"].strip()
        if is_language_name_pair(s1, s2):
            out[i] = "language_names"
        elif _pair_key(s2, s1) in seen[r["lang_1"], r["lang_2"]]:
            out[i] = "crosswise"
    return out
