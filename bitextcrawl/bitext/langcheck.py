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

Where they run: what one sentence pair gives (:class:`SentenceFacts`: the fastText
readings, the scripts, the language-name test) is read where the pair is aligned, in the
bitext pool's workers; :class:`RowChecks` adds up, in the main process, what needs all of
a language pair's rows, and judges each row at the end.

Pure functions over strings: no Scrapy.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from bitextcrawl.pages.language import base_lang, load_model
from bitextcrawl.pages.switches import switch_language
from bitextcrawl.pages.tokens import WORD
from bitextcrawl.processes import shared_instance

# Texts with fewer letters than this carry no language ("2 615 060", "N/A", "v4.0").
MIN_LETTERS = 3
# A text of fewer words is short: it fails only when read as the pair's other language.
SHORT_WORDS = 4
# How sure fastText must be: of the pair's other language (long / short texts), and of a
# third language (long texts only). Measured on nginx.org en–ru and WET en–fr (docs/formats.md, "Bitext").
OTHER_LANG_PROB = 0.5
OTHER_LANG_PROB_SHORT = 0.9
THIRD_LANG_PROB = 0.9
# A script is one of a language's scripts from this share of its letters on (Japanese:
# kanji, hiragana and katakana; Russian: Cyrillic, not the Latin of code and names).
SCRIPT_MIN_SHARE = 0.2
# Rows in a row of one page pair whose two sides read as the same language: a block left
# untranslated (one_language). Measured on the real sites (docs/formats.md, "Bitext").
UNTRANSLATED_RUN = 3
# Predictions kept by a SentenceLanguageCheck (texts; cleared when full), and sentence
# pairs' facts (pairs; cleared when full: a kilobyte or two each, the texts kept).
PREDICTIONS_KEPT = 1 << 16
FACTS_KEPT = 1 << 14
_WORD = re.compile(WORD)
_WS = re.compile(r"\s+")
_NOISE = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|@\w+|\S*[/_=<>{}$#\\]\S*"
                    r"|\S+\.\S+\.\S+|\d[\d.:,\-/]*")


# A bitext row's key for its SentenceFacts (read where the row's page pair is aligned).
FACTS_KEY = "_facts"


class SentenceFacts(NamedTuple):
    """What the checks need of one sentence pair, read where the pair is aligned (the
    bitext pool's workers): each side's fastText reading, and its letters per script;
    whether the two sides name two languages. The checks that need a language pair's
    rows together (:func:`language_scripts`, :func:`interface_rows`) then only add up."""

    reading_1: tuple | None      # SentenceLanguageCheck.read
    reading_2: tuple | None
    language_names: bool         # is_language_name_pair
    scripts_1: dict              # text_scripts, as a plain dict (pickled: a tenth of the time)
    scripts_2: dict
    key: bytes                   # the digests of the pair (crosswise rows, RowChecks)
    reverse_key: bytes           # ... and of the pair the other way round


def sentence_facts(text_1: str, text_2: str, lang_check=None) -> SentenceFacts:
    """The :class:`SentenceFacts` of a sentence pair; no readings without ``lang_check``
    (a :class:`SentenceLanguageCheck`)."""
    read = lang_check.read if lang_check is not None else _no_reading
    s1, s2 = text_1.strip(), text_2.strip()
    return SentenceFacts(read(text_1), read(text_2), is_language_name_pair(s1, s2),
                         dict(text_scripts(text_1)), dict(text_scripts(text_2)),
                         _pair_key(s1, s2), _pair_key(s2, s1))


def _no_reading(text: str) -> None:
    return None


@dataclass
class SentenceLanguageCheck:
    """``reason(text, lang, other_lang)``: None when ``text`` may be ``lang``, else why not
    (``other_lang``: the text reads as the pair's other language; ``third_lang``).

    Pickled, it is remade in the receiving process once per parameters
    (``processes.shared_instance``): a pool's tasks share its readings of repeated texts."""

    model_file: str | None = None
    min_letters: int = MIN_LETTERS
    short_words: int = SHORT_WORDS
    other_prob: float = OTHER_LANG_PROB
    other_prob_short: float = OTHER_LANG_PROB_SHORT
    third_prob: float = THIRD_LANG_PROB

    def __post_init__(self):
        self.model = load_model(self.model_file)
        self._predictions: dict[str, tuple[str, float]] = {}
        self._facts: dict[tuple[str, str], SentenceFacts] = {}

    def __reduce__(self):
        return shared_instance, (SentenceLanguageCheck, self.model_file, self.min_letters,
                                 self.short_words, self.other_prob, self.other_prob_short,
                                 self.third_prob)

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

    def read(self, text: str) -> tuple[str, float, bool] | None:
        """(fastText's language, its probability, whether ``text`` is short), or None
        for a text with too few letters to carry a language. What is read is the
        text's words (:func:`language_words`)."""
        words = language_words(text)
        if not _has_letters(words, self.min_letters):
            return None
        top, prob = self.predict(words)
        return top, prob, len(_WORD.findall(words)) < self.short_words

    def facts(self, text_1: str, text_2: str) -> SentenceFacts:
        """The :class:`SentenceFacts` of a sentence pair, made once per pair (bounded):
        menus, footers and notes that the template leaves give the same sentence pairs
        on many page pairs (two of three on WET). The facts are a function of the two
        texts; those kept are shared, and read only."""
        key = (text_1, text_2)
        got = self._facts.get(key)
        if got is None:
            got = sentence_facts(text_1, text_2, self)
            if len(self._facts) >= FACTS_KEPT:
                self._facts.clear()
            self._facts[key] = got
        return got

    def reason(self, text: str, lang: str, other_lang: str) -> str | None:
        return self.judge(self.read(text), lang, other_lang)

    def judge(self, reading: tuple | None, lang: str, other_lang: str) -> str | None:
        """:meth:`reason` from the text's :meth:`read`. A variant (``pt-br``) is read
        as its base language: fastText knows no variants."""
        if reading is None:
            return None
        top, prob, short = reading
        lang, other_lang = base_lang(lang), base_lang(other_lang)
        if top == lang:
            return None
        if top == other_lang:
            return "other_lang" if prob >= (self.other_prob_short if short
                                            else self.other_prob) else None
        if not short and prob >= self.third_prob:
            return "third_lang"
        return None


def one_language(facts: SentenceFacts, lang_1: str, lang_2: str) -> bool | None:
    """Whether both sides of a sentence pair read as the same one of its two languages
    (``English`` / ``English`` on an English–French pair: text left untranslated on the
    translated page, aligned with other text of the original); None where neither side
    was read surely enough to tell (no letters, or short). One such row is often a
    translation fastText misreads (``Start Visual Studio Code:`` / ``Inicia Visual
    Studio Code:`` reads English twice); a run of :data:`UNTRANSLATED_RUN` in one page
    pair is a block the translator left alone (a changelog kept in English)."""
    if set(facts.scripts_1) ^ set(facts.scripts_2):
        # a side in a script the other does not write is translated text (Korean around
        # an English name reads as English)
        return False
    r1, r2 = (r if r is not None and not r[2] else None
              for r in (facts.reading_1, facts.reading_2))
    if r1 is None and r2 is None:
        return None
    l1, l2 = base_lang(lang_1), base_lang(lang_2)
    # the second side reads as the first's language, or the first as the second's; the
    # other side, where read, agrees
    return ((r2 is not None and r2[0] == l1 and (r1 is None or r1[0] == l1))
            or (r1 is not None and r1[0] == l2 and (r2 is None or r2[0] == l2)))


def language_words(text: str) -> str:
    """``text`` without what carries no language: URLs, e-mail addresses, @handles,
    identifiers and paths (a token with ``/ _ = < > { } $ # \\``, or two dots), numbers
    and dates. fastText reads them as English: ``Plus d'informations :
    https://manned.org/apg.`` reads English at 0.31 whole and French without the URL,
    and an untranslated changelog line's author and date hide its English."""
    return _WS.sub(" ", _NOISE.sub(" ", text)).strip()


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
    checks = RowChecks(min_share=min_share)
    for r in rows:
        checks.add(r)
    return checks.scripts()


def own_scripts(scripts: frozenset | None, other: frozenset | None) -> frozenset:
    """The scripts a language has and the other language of the pair has not."""
    return (scripts or frozenset()) - (other or frozenset())


def in_own_script(found: dict, scripts: frozenset | None, other: frozenset | None) -> bool:
    """A text's letters (``found``: :func:`text_scripts`) include some in a script its
    language has and the other language has not."""
    return bool(found.keys() & own_scripts(scripts, other))


def _main_scripts(counts: dict, min_share: float) -> frozenset:
    """The scripts of at least ``min_share`` of the letters counted."""
    total = sum(counts.values())
    return frozenset(s for s, n in counts.items() if total and n >= min_share * total)


def wrong_script(text: str, scripts: frozenset, other: frozenset,
                 found: dict | None = None) -> bool:
    """``text`` has letters, none in the scripts its language has and the other language
    has not (Russian's Cyrillic beside English, not the Latin of the code both carry).
    Languages with no script of their own (English beside French) are never wrong.
    ``found``: ``text_scripts(text)`` if known."""
    own = own_scripts(scripts, other)
    if not own:
        return False
    if found is None:
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
    checks = RowChecks()
    for r in rows:
        checks.add(r)
    return {i: reason for i, r in enumerate(rows)
            if (reason := checks.interface_reason(r, checks.facts(r)))}


class RowChecks:
    """The checks of bitext rows (dicts with lang_1, lang_2, sentence_1, sentence_2, and
    their :class:`SentenceFacts` under ``FACTS_KEY`` where read already), those that
    need every row of a language pair included: each row is added as it is made
    (:meth:`add` keeps its pair's digest and its letters per script), then each is
    judged (:meth:`reason`). Rows without facts are read here, by ``lang_check`` (None:
    no fastText check).

    A row whose sentence pair (stripped) an earlier row of its language pair had gets
    that row's verdict whatever the other rows (every check reads the pair's text, not
    its page), and the files write a sentence pair once: :meth:`add` says so, and counts
    the copy for the first row's drop (:meth:`copies`), so that only first rows need
    to be kept and judged (menus: two rows of three on WET)."""

    def __init__(self, lang_check: SentenceLanguageCheck | None = None,
                 min_share: float = SCRIPT_MIN_SHARE):
        self.lang_check = lang_check
        self.min_share = min_share
        self._seen = defaultdict(set)   # (lang_1, lang_2) -> {digest of (s1, s2)}
        self._copies: Counter = Counter()   # (lang_1, lang_2, digest) -> later rows
        self._letters: dict[str, dict] = defaultdict(dict)
        self._scripts: dict[str, frozenset] | None = None
        # untranslated runs: the current page pair's run of rows read in one language
        self._run_pages: tuple | None = None
        self._run: list[bytes] = []
        self._untranslated: set[bytes] = set()

    def facts(self, row) -> SentenceFacts:
        facts = row.get(FACTS_KEY)
        if facts is None:
            facts = sentence_facts(row["sentence_1"], row["sentence_2"], self.lang_check)
        return facts

    def add(self, row) -> bool:
        """Add ``row``; False if an earlier row of its language pair had its sentence pair."""
        facts = self.facts(row)
        for lang, found in ((row["lang_1"], facts.scripts_1), (row["lang_2"], facts.scripts_2)):
            letters = self._letters[lang]
            for name, n in found.items():
                letters[name] = letters.get(name, 0) + n
        self._scripts = None
        seen = self._seen[row["lang_1"], row["lang_2"]]
        if facts.key in seen:
            self._copies[row["lang_1"], row["lang_2"], facts.key] += 1
            return False
        seen.add(facts.key)
        self._follow_run(row, facts)
        return True

    def _follow_run(self, row, facts: SentenceFacts) -> None:
        """Extend or close the page pair's run of rows whose two sides read as one of
        the pair's languages (:func:`one_language`); rows of short texts neither
        extend nor close it (fastText is unsure of them)."""
        pages = (row.get("url_1"), row.get("url_2"))
        if pages != self._run_pages:
            self._close_run()
            self._run_pages = pages
        verdict = one_language(facts, row["lang_1"], row["lang_2"])
        if verdict is None:
            return
        if verdict:
            self._run.append(facts.key)
        else:
            self._close_run()

    def _close_run(self) -> None:
        if len(self._run) >= UNTRANSLATED_RUN:
            self._untranslated.update(self._run)
        self._run = []

    def copies(self, row) -> int:
        """Rows added after ``row`` with its sentence pair."""
        return self._copies.get((row["lang_1"], row["lang_2"], self.facts(row).key), 0)

    def scripts(self) -> dict[str, frozenset]:
        """lang -> the scripts of at least ``min_share`` of its letters in the rows added.

        A script the other languages also write (the Latin of commands and names on
        Japanese pages) is shared; the language's own scripts are then those of
        ``min_share`` of its letters *outside* the shared ones: Japanese keeps kanji,
        hiragana and katakana even where Latin letters are half of its rows' letters."""
        if self._scripts is None:
            shares = {lang: _main_scripts(counts, self.min_share)
                      for lang, counts in self._letters.items()}
            self._scripts = {}
            for lang, counts in self._letters.items():
                shared = frozenset().union(*(v for k, v in shares.items() if k != lang))
                outside = {s: n for s, n in counts.items() if s not in shared}
                # letters outside the shared scripts must be a script's share themselves
                # (English's few kanji quoted from Japanese are no script of its own)
                own = (_main_scripts(outside, self.min_share)
                       if sum(outside.values()) >= self.min_share * sum(counts.values())
                       else frozenset())
                self._scripts[lang] = own | (shares[lang] & shared)
        return self._scripts

    def interface_reason(self, row, facts: SentenceFacts) -> str | None:
        """``language_names``, ``crosswise`` (the pair was also added the other way
        round) or None."""
        if facts.language_names:
            return "language_names"
        if facts.reverse_key in self._seen[row["lang_1"], row["lang_2"]]:
            return "crosswise"
        return None

    def reason(self, row) -> str | None:
        """Why ``row`` is no bitext (an interface string, a side in the wrong script or
        read as another language), or None."""
        facts = self.facts(row)
        reason = self.interface_reason(row, facts)
        if reason is not None:
            return reason
        self._close_run()
        if facts.key in self._untranslated:
            return "untranslated"
        l1, l2 = row["lang_1"], row["lang_2"]
        scripts = self.scripts()
        s1, s2 = scripts.get(l1), scripts.get(l2)
        if (wrong_script(row["sentence_1"], s1, s2, facts.scripts_1)
                or wrong_script(row["sentence_2"], s2, s1, facts.scripts_2)):
            return "script"
        if self.lang_check is None:
            return None
        # A side with letters in a script only its language writes is that language as
        # far as the reading goes: fastText reads Korean around an English name as
        # English (``새로운 Amplify 앱 생성:``); an untranslated side has none of them
        # and fails the script check above.
        for reading, found, lang, other, own, theirs in (
                (facts.reading_1, facts.scripts_1, l1, l2, s1, s2),
                (facts.reading_2, facts.scripts_2, l2, l1, s2, s1)):
            reason = (None if in_own_script(found, own, theirs)
                      else self.lang_check.judge(reading, lang, other))
            if reason is not None:
                return reason
        return None
