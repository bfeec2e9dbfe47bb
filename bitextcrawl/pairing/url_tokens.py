"""URL tokens and the patterns of [Zhang 2013 §2.1] (see :mod:`.url_patterns`): a URL split into
tokens and separators, the single-token difference of two URLs cut to its character-level
core (:func:`_diff`), the pattern kinds and data classes (:class:`Pattern`, :class:`UrlPair`,
:func:`pattern_id`), and the candidate patterns of an inverted index over the URLs of two
languages (token patterns: :func:`_candidates`; id-anchored markers:
:func:`_marker_candidates`); a learned pattern applied to a URL (:class:`_Applier`) and the
language its tokens vote for (:class:`_LanguageVoter`). Pure, used by
:class:`.url_patterns.UrlPatternLearner`.

The ``id_marker`` rule (not in the paper; a generalisation of its single-token difference).
Some CMSs give a page and its translations URLs such as ``/17-1-About-Albania.html`` (en) and
``/17-0-Ueber-Albanien.html`` (de): ``<page id>-<language number>-<translated slug>``. The pair
differs in many tokens (the slug), so it never is a single-token candidate. Its invariant is a
different one: the *numeric* tokens are equal but for one, the language number. So URLs with
at least two numeric tokens (whole tokens of digits) are also indexed by (scheme+host, path
depth, the numeric tokens with one position masked); two URLs of different languages sharing a
key differ, among their numbers, only at the masked position, whatever their words. Their two
values there form a candidate pattern ⟨1, 0⟩ of kind ``id_marker``, which then competes with the
token patterns in the same competition (a tie goes to the token pattern), with the same
N(p,w), C(p,w) = N/|w| and local threshold. What keeps it from pairing page numbers and other
ids (its departures from the paper's rule, each for that reason):

* id-anchored: at least one other numeric token (the page id) must be shared, so ``list-1`` /
  ``liste-2`` (no anchor) is never a candidate;
* unique on both sides: in a bucket, a value must be carried by one URL of each language only;
  buckets with more than ``max_bucket`` cross-language candidates are skipped (as for tokens);
* language-consistent: at that numeric position (scheme+host, depth, number of numeric tokens,
  position), each side's value must belong to its language in ``marker_purity`` (0.8) of the
  URLs of the two languages carrying it, so numbers that occur in both languages alike (page
  numbers, photo numbers, years) are no marker;
* at least ``min_marker_pairs`` (3) pairs, on top of C(p,w) > the local threshold;
* no rescue by C(p): language numbers are site-specific codes (``0`` is German here and
  anything elsewhere), so summing them over sites would mix unrelated schemes. The pattern is
  still recorded in the :class:`~bitextcrawl.pairing.pattern_db.PatternDB` like the others.

Such a pattern cannot generate a counterpart URL (deep page recovery, §2.2) since the slug of
the other language is unknown: :meth:`~bitextcrawl.pairing.url_patterns.UrlPatternLearner.counterparts` and
:meth:`~bitextcrawl.pairing.url_patterns.UrlPatternLearner.language_of` ignore it.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Iterable

from bitextcrawl.pages.tokens import WORD

#: Kit & Ng (2007) / [Zhang 2013 §2.1, §3.2]: C(p, w) > 0.1.
DEFAULT_LOCAL_THRESHOLD = 0.1
#: [Zhang 2013 §2.1, §3.2]: weak local keys with C(p) > 500 are rescued. C(p) sums C(p,w)·N(p,w)
#: over sites, so 500 is, e.g., one fully paired 500-page site, or 20 fully paired 25-page
#: sites, having used the pattern.
DEFAULT_RESCUE_THRESHOLD = 500.0
#: A bucket of the inverted index holding more cross-language candidates than this is an id
#: position (every page differs there), not a language marker: it is skipped (keeps it linear).
DEFAULT_MAX_BUCKET = 16

TOKEN = "token"
SLUG_ID = "slug_id"
#: Translated path segments around a shared identifier (:mod:`.url_segments`); like
#: ``slug_id`` a floor for the later stages, not a proof.
SEGMENT_ID = "segment_id"
#: Kinds whose pairs are floors, not proofs (one learned word may be wrong): the later
#: stages may undo them without a stronger rival.
FLOOR_KINDS = frozenset({SLUG_ID, SEGMENT_ID})
ID_MARKER = "id_marker"
#: An ``id_marker`` pattern must put at least this many pairs together ("consistently over many
#: pairs"): one or two id-anchored differences are as likely an accident as a scheme.
DEFAULT_MIN_MARKER_PAIRS = 3
# Score of a pair whose key was rescued as the site's own language markers: as sure as a
# one-way hreflang declaration (the key is right; it explains little of the site).
LANGUAGE_TOKEN_SCORE = 0.75
#: An ``id_marker`` side's value must be this language's in at least this share of the URLs of
#: that language pair carrying the value at that position (language ID may be a bit noisy).
DEFAULT_MARKER_PURITY = 0.8

SEPARATORS = "/.-_?&="
# _SPLIT.split(url): tokens (even indices) and separators (odd); "".join() gives the URL back.
_SPLIT = re.compile(r"([/.\-_?&=])")
# scheme, //host, path, query
_URL_PARTS = re.compile(r"^([^:/?#]*:)?(//[^/?#]*)?([^?#]*)(?:\?([^#]*))?")
# Separators that may join the two tokens of a locale code such as zh_TW, en-us, tc_chi.
_RUN_JOINERS = frozenset("-_")
_MASK = "\x00"
_SHAPE = re.compile(rf"[0-9]+|{WORD}")
_MAX_CONTEXTS = 12
_MAX_EXAMPLES = 5


# ----------------------------------------------------------------------------- data classes


@dataclass
class Pattern:
    """One URL pairing pattern ⟨lang1_token, lang2_token⟩, directional per language pair."""

    lang1: str
    lang1_token: str
    lang2: str
    lang2_token: str
    kind: str = TOKEN
    candidates: int = 0            # candidate pairs before competition (the competition score)
    support: int = 0               # N(p, w): pages put into pairs by this pattern
    local_credibility: float = 0.0   # C(p, w) = N(p, w) / |w|
    global_credibility: float = 0.0  # C(p) from the PatternDB (includes past runs)
    credible: bool = False         # C(p, w) > local threshold, or rescued
    rescued: bool = False          # weak local key kept for its global credibility
    rescued_by: str = ""           # "global" (C(p)) or "language_tokens" (see _judge)
    examples: list[tuple[str, str]] = field(default_factory=list)
    # (separator before, shape of stripped prefix, shape of stripped suffix, separator after)
    contexts: Counter = field(default_factory=Counter, repr=False)
    # marker-unit kinds: the unit texts of each side (tokens are their "+" joins)
    units: tuple | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return pattern_id(self.kind, self.lang1, self.lang1_token, self.lang2, self.lang2_token)

    @property
    def pairs(self) -> int:
        return self.support // 2


@dataclass(frozen=True)
class UrlPair:
    url_1: str      # in lang_1 (the earlier language of ``langs``)
    url_2: str
    pattern: str    # Pattern.id
    score: float    # 0..1, a confidence derived from the pattern's credibility (not calibrated)
    lang_1: str = ""
    lang_2: str = ""


def pattern_id(kind: str, lang1: str, token1: str, lang2: str, token2: str) -> str:
    """Stable id shared across sites (the key of C(p)): ``en:en|fr:fr``, ``slug_id:en:en|fr:fr``.

    The two sides are put in language-code order, so the same pattern learned with
    ``langs=("fr","en")`` counts for the same C(p).
    """
    if lang2 < lang1:
        lang1, token1, lang2, token2 = lang2, token2, lang1, token1
    base = f"{lang1}:{token1}|{lang2}:{token2}"
    return base if kind == TOKEN else f"{kind}:{base}"


# ----------------------------------------------------------------------------- tokens


def _shape(s: str) -> str:
    """Digits -> 9, letters -> a (runs collapsed), other characters kept: ``1`` and ``12`` agree."""
    return _SHAPE.sub(lambda m: "9" if m.group()[0].isdigit() else "a", s)


def _shape_regex(shape: str) -> str:
    out = []
    for ch in shape:
        if ch == "9":
            out.append("[0-9]+")
        elif ch == "a":
            out.append(r"[^\W\d_]+")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _mask_keys(url: str) -> list[str]:
    """Inverted-index keys [Zhang 2013 §2.1 item 2]: the URL with one token (or locale run) masked."""
    parts = _SPLIT.split(url)
    n = len(parts)
    keys = []
    start = 0
    for k in range(0, n, 2):
        tok = parts[k]
        end = start + len(tok)
        if tok:
            keys.append(url[:start] + _MASK + url[end:])
            # Locale-like runs (zh_TW, en-us, tc_chi): a departure from the paper's one-token
            # rule, needed for its own <english, tc_chi> (Table 2) once "_" splits tokens.
            if k + 2 < n and parts[k + 1] in _RUN_JOINERS and parts[k + 2]:
                keys.append(url[:start] + _MASK + url[end + 1 + len(parts[k + 2]):])
        if k + 1 < n:
            start = end + len(parts[k + 1])
    return keys


def _char_class(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.islower() else 2 if c.isupper() else 3


def _cut(left: str, right: str) -> bool:
    """May a pattern core start/end between these two characters (a class change, not Ab)?"""
    a, b = _char_class(left), _char_class(right)
    return a != b and not (a == 2 and b == 1)


def _diff(u: str, v: str) -> tuple[str, str, tuple[str, str, str, str]] | None:
    """Character-level difference of two URLs that differ in one token span [Zhang 2013 §2.1 item 1].

    Returns (core of u, core of v, context), or None for a difference that is no pairing
    pattern. Within one token the cores are the differing characters (``1en``/``1tc`` ->
    ``en``/``tc``), cut where the character class changes; when one side would be empty
    (``en``/``eng``) the whole tokens are kept, since an empty core cannot be applied. A span of two tokens (``zh_TW``, ``tc_chi``,
    ``en-us``) is kept whole and only accepted when each of its tokens has at most 4
    characters: locale codes, not two words of a translated file name (``License-en`` ↔
    ``Licence-fr``).
    """
    lu, lv = len(u), len(v)
    p = len(os.path.commonprefix((u, v)))
    limit = min(lu, lv) - p
    s = 0
    while s < limit and u[lu - 1 - s] == v[lv - 1 - s]:
        s += 1
    # token boundaries around the differing region (same in both URLs: common prefix/suffix)
    lb = p
    while lb > 0 and u[lb - 1] not in SEPARATORS:
        lb -= 1
    rb = s  # characters of the common suffix that belong to the span's last token
    while rb > 0 and u[lu - rb] not in SEPARATORS:
        rb -= 1
    su, sv = u[lb:lu - rb], v[lb:lv - rb]
    sep_b = u[lb - 1] if lb > 0 else "^"
    sep_a = u[lu - rb] if rb > 0 else "$"
    multi = False
    for span in (su, sv):
        toks = _SPLIT.split(span)
        if len(toks) > 1:
            multi = True
            if any(len(t) > 4 for t in toks[::2]):
                return None
    if multi or p >= lu - s or p >= lv - s:  # several tokens, or an empty core (en/eng)
        return su, sv, (sep_b, "", "", sep_a)
    # Cut only where the character class changes in both URLs (1|en, about|E), never inside a
    # run of letters: <english, french>, not <englis, frenc> around a shared "h".
    while p > lb and not (_cut(u[p - 1], u[p]) and _cut(v[p - 1], v[p])):
        p -= 1
    while s > rb and not (_cut(u[lu - s - 1], u[lu - s]) and _cut(v[lv - s - 1], v[lv - s])):
        s -= 1
    cu, cv = u[p:lu - s], v[p:lv - s]
    return cu, cv, (sep_b, _shape(u[lb:p]), _shape(u[lu - s:lu - rb]), sep_a)


def _cross_language_groups(bucket: list, lang_of, max_bucket: int):
    """The entries of an index bucket split by language, for each pair of languages
    present: ``(la, lb, entries_la, entries_lb)``; buckets where every entry has one
    language, and pairs of groups with more than ``max_bucket`` combinations, are skipped."""
    first = lang_of(bucket[0])
    if all(lang_of(e) == first for e in bucket):
        return
    by_lang: dict[int, list] = defaultdict(list)
    for e in bucket:
        by_lang[lang_of(e)].append(e)
    present = sorted(by_lang)
    for a, la in enumerate(present):
        for lb in present[a + 1:]:
            g1s, g2s = by_lang[la], by_lang[lb]
            if len(g1s) * len(g2s) <= max_bucket:
                yield la, lb, g1s, g2s


def _candidates(urls: list[str], ulang: list[int], max_bucket: int,
                mask_keys=None) -> dict[tuple, list]:
    """Cross-language URL pairs differing by one token, by an inverted index [Zhang 2013 §2.1, 2.].

    Key = the URL with one token masked: URLs sharing a key differ only there, so the work is
    linear in the number of URLs (times tokens per URL), never all pairs. Returns
    ``(lang_i, core_i, lang_j, core_j, "token") -> [(url_i index, url_j index, context), ...]``,
    i < j.
    """
    # The largest language only probes the index (a key no other language has cannot make a
    # cross-language pair): about half the insertions saved.
    sizes = Counter(li for li in ulang if li >= 0)
    probe = sizes.most_common(1)[0][0] if len(sizes) > 1 else -2
    index: dict[str, int | list[int]] = {}
    mask_keys = mask_keys or _mask_keys   # (an online learner's memo of them)
    for g, url in enumerate(urls):
        li = ulang[g]
        if li < 0 or li == probe:
            continue
        for key in mask_keys(url):
            bucket = index.get(key)
            if bucket is None:
                index[key] = g          # most keys are unique: no list for them
            elif type(bucket) is int:
                index[key] = [bucket, g]
            else:
                bucket.append(g)
    for g, url in enumerate(urls):
        if ulang[g] != probe:
            continue
        for key in mask_keys(url):
            bucket = index.get(key)
            if bucket is None:
                continue
            if type(bucket) is int:
                index[key] = [bucket, g]
            else:
                bucket.append(g)

    cands: dict[tuple, list] = defaultdict(list)
    seen: set[tuple[int, int]] = set()
    for bucket in index.values():
        if type(bucket) is int:
            continue
        for la, lb, g1s, g2s in _cross_language_groups(bucket, ulang.__getitem__, max_bucket):
            for g1 in g1s:
                for g2 in g2s:
                    if (g1, g2) in seen:
                        continue
                    seen.add((g1, g2))
                    diff = _diff(urls[g1], urls[g2])
                    if diff is not None:
                        c1, c2, ctx = diff
                        cands[(la, c1, lb, c2, TOKEN)].append((g1, g2, ctx))
    return cands


# Cheap filter: a URL with fewer than two runs of digits has no id-anchored number.
_DIGIT_RUNS = re.compile(r"[0-9][^0-9]+[0-9]")
# A whole token of ASCII digits: separator (or start) before, separator (or end) after.
_NUM_TOKEN = re.compile(r"(?<![^/.\-_?&=])[0-9]+(?![^/.\-_?&=])")


def _numeric_tokens(url: str) -> tuple[tuple, list[tuple]]:
    """((scheme, host, path depth), [(segment, digits, start, end), ...]) of path and query.

    ``segment`` is the index of the path segment (``"?"`` in the query); ``start``/``end`` the
    token's span in ``url``. Digits inside a word (``item5``, ``wcag21``) are names, not numbers.
    """
    m = _URL_PARTS.match(url)
    p0, q0 = m.end(2) if m.group(2) else m.end(1) if m.group(1) else 0, m.end(3)
    out = []
    for t in _NUM_TOKEN.finditer(url, p0, m.end()):
        a = t.start()
        out.append((url.count("/", p0, a) if a < q0 else "?", t.group(), a, t.end()))
    return (m.group(1), m.group(2), url.count("/", p0, q0)), out


def _context(url: str, a: int, b: int) -> tuple[str, str, str, str]:
    """A numeric token's context, in the format of a token pattern's."""
    return (url[a - 1] if a else "^", "", "", url[b] if b < len(url) else "$")


def _marker_candidates(urls: list[str], ulang: list[int], max_bucket: int,
                       purity: float) -> dict[tuple, list]:
    """Id-anchored language numbers (the ``id_marker`` rule, see the module docstring).

    Inverted index keyed by (position, the other numeric tokens): URLs sharing a key have the
    same numbers but at the masked position, whatever their words. Linear in the number of
    URLs times numeric tokens per URL. Returns ``(lang_i, value_i, lang_j, value_j,
    "id_marker") -> [(url_i index, url_j index, context), ...]``, i < j, only for values that are
    unique in their bucket and language-consistent at their position.
    """
    slots: dict[tuple, int] = {}       # (scheme+host+depth, #numbers, position, segment) -> id
    at_slot: dict[tuple, int] = {}     # (slot id, value, lang) -> URLs: value/language agreement
    parsed = []
    for g, url in enumerate(urls):
        li = ulang[g]
        if li < 0 or not _DIGIT_RUNS.search(url):
            continue
        base, nums = _numeric_tokens(url)
        n = len(nums)
        if n < 2:  # no id to anchor a language number
            continue
        ids = []
        for k, (seg, v, _, _) in enumerate(nums):
            sk = (base, n, k, seg)
            slot = slots.get(sk)
            if slot is None:
                slot = slots[sk] = len(slots)
            ck = (slot, v, li)
            at_slot[ck] = at_slot.get(ck, 0) + 1
            ids.append(ck)
        parsed.append((g, li, nums, ids))
    langs = {li for (_, _, li) in at_slot}

    def consistent(slot, v, li, lj) -> bool:
        c = at_slot.get((slot, v, li), 0)
        return c >= purity * (c + at_slot.get((slot, v, lj), 0))

    # values consistent with their language against some other language: only they are masked,
    # so numbers both languages use alike (ids, categories, years) keep the index small
    marks = {ck for ck in at_slot
             if any(lj != ck[2] and consistent(ck[0], ck[1], ck[2], lj) for lj in langs)}
    # inverted index: (slot id, the other numbers) -> [(lang, url, value, span), ...]
    index: dict[tuple, list] = {}
    for g, li, nums, ids in parsed:
        values = None
        for k, ck in enumerate(ids):
            if ck not in marks:
                continue
            if values is None:
                values = [(seg, v) for seg, v, _, _ in nums]
            key = (ck[0], tuple(values[:k] + values[k + 1:]))
            entry = (li, g, ck[1], nums[k][2], nums[k][3])
            bucket = index.get(key)
            if bucket is None:
                index[key] = [entry]
            else:
                bucket.append(entry)

    cands: dict[tuple, list] = defaultdict(list)
    for (slot, _), bucket in index.items():
        if len(bucket) < 2:
            continue
        for la, lb, e1s, e2s in _cross_language_groups(bucket, itemgetter(0), max_bucket):
            n1 = [e[2] for e in e1s]  # (small lists: count() beats a Counter)
            n2 = [e[2] for e in e2s]
            for _, g1, v1, a, b in e1s:
                if n1.count(v1) != 1 or not consistent(slot, v1, la, lb):
                    continue
                for _, g2, v2, _, _ in e2s:
                    if v2 != v1 and n2.count(v2) == 1 and consistent(slot, v2, lb, la):
                        cands[(la, v1, lb, v2, ID_MARKER)].append(
                            (g1, g2, _context(urls[g1], a, b)))
    return cands


class _Applier:
    """Finds a pattern side's token in a URL in one of its learned contexts, and substitutes it."""

    def __init__(self, token: str, other: str, contexts: Iterable[tuple[str, str, str, str]]):
        self.other = other
        alts = []
        for sep_b, pre, post, sep_a in contexts:
            left = "^" if sep_b == "^" else f"(?<={re.escape(sep_b)})"
            right = "$" if sep_a == "$" else f"(?={re.escape(sep_a)})"
            alts.append(f"{left}{_shape_regex(pre)}({re.escape(token)}){_shape_regex(post)}{right}")
        self.regex = re.compile("|".join(f"(?:{a})" for a in alts)) if alts else None

    def matches(self, url: str) -> bool:
        return self.regex is not None and self.regex.search(url) is not None

    def apply(self, url: str) -> list[str]:
        if self.regex is None:
            return []
        out = []
        for m in self.regex.finditer(url):
            g = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i) is not None)
            out.append(url[:m.start(g)] + self.other + url[m.end(g):])
        return out


class _LanguageVoter:
    """Infers a URL's language from pattern tokens found in their contexts, weighted by strength."""

    def __init__(self) -> None:
        self._rules: list[tuple[_Applier, str, float]] = []

    def add(self, lang1, token1, lang2, token2, contexts, weight: float) -> None:
        self._rules.append((_Applier(token1, token2, contexts), lang1, weight))
        self._rules.append((_Applier(token2, token1, contexts), lang2, weight))

    def __bool__(self) -> bool:
        return bool(self._rules)

    def vote(self, url: str) -> str | None:
        votes: dict[str, float] = defaultdict(float)
        for applier, lang, weight in self._rules:
            if applier.matches(url):
                votes[lang] += weight
        if not votes:
            return None
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        if len(ranked) > 1 and ranked[1][1] >= ranked[0][1]:
            return None
        return ranked[0][0]
