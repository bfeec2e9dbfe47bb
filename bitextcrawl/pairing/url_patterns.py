"""Unsupervised bilingual URL pairing patterns [Zhang 2013 §2.1–2.2].

PupSniffer's idea (after Kit & Ng 2007): web masters give a page and its translation URLs
that differ by a single token (``/en/`` ↔ ``/fr/``, ``-en.html`` ↔ ``-fr.html``,
``?lang=en`` ↔ ``?lang=fr``, ``en.example.org`` ↔ ``fr.example.org``). Every cross-language
pair of URLs of one site that differs by one token yields a candidate pattern; patterns
compete (the one matching more candidate pairs takes its URLs first, each URL in at most one
pair); a pattern is kept when its *local credibility* ``C(p,w) = N(p,w)/|w|`` exceeds a
threshold (0.1), or, if it is a weak local key, when its *global credibility*
``C(p) = Σ_w C(p,w)·N(p,w)`` over all sites ever crawled (kept in a :class:`PatternDB`)
exceeds a rescue threshold (the paper's ``C(p) > 500``). Credible patterns then generate
counterpart URLs for unpaired pages (deep page recovery, §2.2).

Definitions used here, exactly:

* Tokens: a URL is split at ``/ . - _ ? & =`` with the separators kept, so host labels,
  path segments, file-name parts and query keys/values are all tokens.
* Candidate pairs are found in linear time with an inverted index keyed by the URL with one
  token masked (and, for locale codes such as ``zh_TW``/``en-us``, a run of two tokens joined
  by ``-``/``_`` masked): two URLs sharing a key differ in that token only. No all-pairs loop.
* A pattern is character-level: the two differing spans with their common prefix/suffix
  stripped (``1en``/``1tc`` → ``<en,tc>``), as in the paper's re-implementation (§2.1, item 1).
  Its identity is ``(lang1, token1, lang2, token2, kind)``; where it occurred (separators
  around it and the shape of the stripped affixes) is kept as its *contexts*, used to apply it.
* ``N(p,w)`` = number of pages (URLs) that ``p`` put into pairs in site ``w`` (2 per pair).
* ``|w|`` = number of distinct URLs of the site given to :meth:`UrlPatternLearner.fit`, in
  every language (also languages outside ``langs`` and unlabelled ones): the paper's "size of w
  in number of webpages", counted over the pages recorded so far.
* ``kind``: ``"token"`` for single-token patterns; ``"id_marker"`` for id-anchored language
  markers (below); ``"slug_id"`` for the weaker last rule (translated slugs sharing numeric ids,
  applied after a credible token pattern), kept apart so that their precision can be reported
  on their own; ``"segment_id"`` for translated path segments around a shared identifier
  (:mod:`.url_segments`, applied last: an extension of the paper's rule, with its departures
  stated there).

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
  still recorded in the :class:`PatternDB` like the others.

Such a pattern cannot generate a counterpart URL (deep page recovery, §2.2) since the slug of
the other language is unknown: :meth:`UrlPatternLearner.counterparts` and
:meth:`UrlPatternLearner.language_of` ignore it.

Departures from the paper, each for a stated reason at its place in the code: two-token locale
runs (``zh_TW``, ``tc_chi``: the paper's own ⟨english, tc_chi⟩ needs them once ``_`` splits
tokens); character-level cores cut only where the character class changes
(⟨english, french⟩, not ⟨englis, frenc⟩); inverted-index buckets with more than
``max_bucket`` cross-language candidates skipped (id positions, and it keeps the work linear);
a second competition among the credible patterns only; the ``id_marker``, ``slug_id`` and
``segment_id`` rules; language of unlabelled URLs from pattern tokens (the paper has page
language ID); a weak key whose two tokens are the site's own markers of its two languages
rescued without C(p) (``UrlPatternLearner._judge``: a partial translation of a multilingual
site is under C(p,w) > 0.1 whatever its key).

Markers on one side only, glued to a word, or in two places at once are the *marker-unit*
kinds (``one_sided``, ``glued``, ``two_place``): see :mod:`.url_units`; they
compete, are judged and recorded like the others, and generate counterparts. Not handled (left
to the later stages: hreflang, structure, content): translated file names without shared ids
and without a language marker (``License-en.html`` ↔ ``Licence-fr.html``).
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from typing import Iterable

from bitextcrawl.pages.language import LANG_ALIASES
from bitextcrawl.pages.site import site_url_tokens, token_languages
from bitextcrawl.pages.urls import site_of
from bitextcrawl.pairing.pattern_db import PatternDB, _pattern_dict
from bitextcrawl.pairing.url_segments import (
    DEFAULT_MAX_NAME_URLS,
    DEFAULT_MIN_SEGMENT_PAIRS,
    segment_pairs,
)
from bitextcrawl.pairing.url_tokens import (
    _MAX_CONTEXTS,
    _MAX_EXAMPLES,
    _SPLIT,
    DEFAULT_LOCAL_THRESHOLD,
    DEFAULT_MARKER_PURITY,
    DEFAULT_MAX_BUCKET,
    DEFAULT_MIN_MARKER_PAIRS,
    DEFAULT_RESCUE_THRESHOLD,
    FLOOR_KINDS,
    ID_MARKER,
    LANGUAGE_TOKEN_SCORE,
    SEGMENT_ID,
    SLUG_ID,
    TOKEN,
    Pattern,
    UrlPair,
    _candidates,
    _marker_candidates,
    _shape_regex,
    pattern_id,
)
from bitextcrawl.pairing.url_units import (
    GLUED,
    KINDS,
    ONE_SIDED,
    TWO_PLACE,
    UNIT_KINDS,
    _id_signature,
    _majority_site,
    _slug_candidates,
    _unit_candidates,
    _UnitApplier,
    _url_parts,
)

# The learner is here; its parts are in url_tokens (tokens, differences, token and id_marker
# candidates), url_units (marker units, slug_id) and pattern_db (C(p) across runs). These
# names are this module's public ones, wherever they are defined.
__all__ = [
    "DEFAULT_LOCAL_THRESHOLD", "DEFAULT_RESCUE_THRESHOLD", "FLOOR_KINDS", "GLUED", "ID_MARKER",
    "KINDS", "ONE_SIDED", "SEGMENT_ID", "SLUG_ID", "TOKEN", "TWO_PLACE", "UNIT_KINDS", "Pattern",
    "PatternDB",
    "UrlPair", "UrlPatternLearner", "pair_urls", "parse_url_lines", "pattern_id",
]

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- applying patterns


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


# ----------------------------------------------------------------------------- learner


class UrlPatternLearner:
    """Learns credible URL pairing patterns of one site and pairs its URLs [Zhang 2013 §2.1–2.2].

    Parameters
    ----------
    langs: the languages to pair; patterns are learned for every pair ``(langs[i], langs[j])``,
        ``i < j``, with ``langs[i]`` as side 1.
    local_threshold: a pattern is locally credible when C(p,w) = N(p,w)/|w| exceeds it (0.1).
    rescue_threshold: a weak local key whose global credibility C(p) (from ``pattern_db``)
        exceeds it is kept anyway ("rescued"; the paper uses C(p) > 500).
    pattern_db: the cross-site history of C(p); ``None`` = no rescue. ``fit`` only reads it;
        record a fitted site with ``pattern_db.update(learner.site_, learner.patterns_,
        learner.site_size_)``.
    max_bucket: inverted-index buckets with more cross-language candidate pairs than this are
        skipped (a varying id there, not a language marker).
    slug_ids: enable the weaker ``slug_id`` rule (translated slugs sharing numeric ids).
    id_markers: enable the ``id_marker`` rule (id-anchored language numbers, see the module).
    min_marker_pairs, marker_purity: its minimum number of pairs and language consistency
        (also those of a marker unit, below; ``marker_purity`` also that of each side of a
        segment translation).
    marker_units: enable the marker-unit patterns (kinds ``one_sided``, ``glued``,
        ``two_place``: a marker on one side only, glued to a word, or two places at once).
    keep_parsed: keep the parsed URLs for the next fit (an online learner, re-fitted as
        pages arrive).
    segment_ids: enable the ``segment_id`` rule (translated path segments around a shared
        identifier, :mod:`.url_segments`), applied last to what every other kind left.
    min_segment_pairs: a segment translation needs this many distinct supporting URL pairs
        (or one proven pair, see ``fit(known_pairs=)``).
    max_name_urls: a file name is an identifier when at most this many URLs of each language
        carry it.

    Fitted attributes: ``site_``, ``site_size_`` (|w|), ``patterns_`` (every pattern that won at
    least one pair in the competition, strongest first, credible or not: see ``.credible``),
    ``pairs_`` (the 1-1 pairs of credible patterns), ``segment_tables_`` (per language pair
    ``(lang1, lang2)``: side-1 slot -> side-2 slot, the learned segment translations) and
    ``segment_folded_`` (per language pair: were paths compared case-insensitively).
    """

    def __init__(self, langs=("en", "fr"), local_threshold: float = DEFAULT_LOCAL_THRESHOLD,
                 rescue_threshold: float = DEFAULT_RESCUE_THRESHOLD,
                 pattern_db: PatternDB | None = None, max_bucket: int = DEFAULT_MAX_BUCKET,
                 slug_ids: bool = True, id_markers: bool = True,
                 min_marker_pairs: int = DEFAULT_MIN_MARKER_PAIRS,
                 marker_purity: float = DEFAULT_MARKER_PURITY, marker_units: bool = True,
                 keep_parsed: bool = False, segment_ids: bool = True,
                 min_segment_pairs: int = DEFAULT_MIN_SEGMENT_PAIRS,
                 max_name_urls: int = DEFAULT_MAX_NAME_URLS):
        self.langs = tuple(langs)
        self.keep_parsed = keep_parsed
        self.local_threshold = local_threshold
        self.rescue_threshold = rescue_threshold
        self.pattern_db = pattern_db
        self.max_bucket = max_bucket
        self.slug_ids = slug_ids
        self.id_markers = id_markers
        self.min_marker_pairs = min_marker_pairs
        self.marker_purity = marker_purity
        self.marker_units = marker_units
        self.segment_ids = segment_ids
        self.min_segment_pairs = min_segment_pairs
        self.max_name_urls = max_name_urls

    # -- fit
    def fit(self, urls_by_lang: dict[str, list[str]], site_size: int | None = None,
            token_langs: dict[str, str] | None = None,
            known_pairs: Iterable[tuple[str, str]] | None = None) -> "UrlPatternLearner":
        """Competition of single-token candidate patterns, then C(p,w) / C(p) selection (§2.1).

        ``site_size``: |w|, the site's distinct pages in all languages [Zhang 2013], where the
        caller knows it (duplicates folded, other languages counted); else the URLs given.
        ``token_langs``: URL token -> the language it names on this site (learned from its
        confidently identified pages); rescues weak language-marker keys (see ``_judge``).
        ``known_pairs``: ``(url, url)`` pairs proven by other evidence (hreflang, parallel
        links), in either order; only the ``segment_id`` rule reads them: each is a proven
        example of its segment translations, and its URLs are left to it (not paired again).
        Pairs of URLs not given to ``fit``, or not of two of ``langs``, are ignored.
        """
        self.token_langs_ = {k.lower(): v for k, v in (token_langs or {}).items()}
        langs = self.langs
        urls, ulang = self._distinct_urls(urls_by_lang)
        self.urls_ = urls
        self.url_langs_ = ulang
        self.site_size_ = max(len(urls), int(site_size or 0))
        self.site_ = _majority_site(urls)
        cands = self._candidates(urls, ulang)

        # 3. competition: stronger patterns (more candidate pairs) take their URLs first; on a
        #    tie a token pattern goes first (``/doc/7-1.html`` ↔ ``/doc/7-0.html`` is both)
        # slug_id candidates only take what every other kind left (their weaker evidence)
        order = sorted(cands, key=lambda k: (k[4] == SLUG_ID, -len(cands[k]), k[4] != TOKEN, k))
        won = self._compete(order, cands)
        site_size = max(1, self.site_size_)
        patterns: dict[tuple, Pattern] = {}
        for key in order:
            if not won[key]:
                continue
            la, c1, lb, c2, kind = key
            p = Pattern(langs[la], c1, langs[lb], c2, kind, candidates=len(cands[key]))
            p.units = self.unit_texts_.get(key)
            self._set_support(p, won[key], site_size)
            p.global_credibility = self._global(p.id)
            self._judge(p)
            patterns[key] = p

        # 4. the credible patterns compete again without the weak ones that were dropped,
        #    so URLs a dropped accidental pattern took can still be paired.
        credible_order = [k for k in order if k in patterns and patterns[k].credible]
        final = self._compete(credible_order, cands)
        pairs: list[UrlPair] = []
        paired: dict[tuple[int, int], set[int]] = defaultdict(set)  # per language pair
        for key in credible_order:
            p = patterns[key]
            self._set_support(p, final[key], site_size)
            if not self._judge(p):  # (rare) lost pairs to a stronger pattern this round
                continue
            score = self._score(p) * (0.5 if p.kind == SLUG_ID else 1.0)
            for g1, g2, _ in final[key]:
                pairs.append(UrlPair(urls[g1], urls[g2], p.id, score, p.lang1, p.lang2))
                paired[key[0], key[2]].update((g1, g2))

        self.patterns_ = sorted(patterns.values(), key=lambda p: (-p.support, -p.candidates, p.id))
        self._build_appliers()

        # 5. the weaker slug+id rule on what is left
        if self.slug_ids:
            slug_patterns, slug_pairs = self._slug_pairs(paired, site_size)
            self.patterns_.extend(slug_patterns)
            pairs.extend(slug_pairs)
        # 6. translated segments around a shared identifier, on what is left
        self.segment_tables_: dict[tuple[str, str], dict[str, str]] = {}
        self.segment_folded_: dict[tuple[str, str], bool] = {}
        if self.segment_ids:
            seg_patterns, seg_pairs = self._segment_pairs(paired, site_size, known_pairs)
            self.patterns_.extend(seg_patterns)
            pairs.extend(seg_pairs)
        self.pairs_ = pairs
        return self

    def _distinct_urls(self, urls_by_lang: dict[str, list[str]]) -> tuple[list[str], list[int]]:
        """The URLs without fragments, each once, and the index of each one's language in
        ``langs`` (-1: another language, or none known)."""
        lang_index = {lang: i for i, lang in enumerate(self.langs)}
        urls: list[str] = []
        ulang: list[int] = []
        seen: set[str] = set()
        for lang, lst in urls_by_lang.items():
            li = lang_index.get(lang, -1)
            for url in lst:
                url = url.strip().split("#", 1)[0]
                if not url or url in seen:
                    continue
                seen.add(url)
                urls.append(url)
                ulang.append(li)
        return urls, ulang

    def _candidates(self, urls: list[str], ulang: list[int]) -> dict[tuple, list]:
        """Steps 1-2: candidate pairs (inverted index) and their character-level patterns;
        the id-anchored language numbers from a second inverted index; marker units and
        slug ids where they are on."""
        # parsed URLs: the last fit's, for these URLs only, when kept for the next one
        parts = None
        if self.keep_parsed:
            old = getattr(self, "url_parts_", {})
            parts = self.url_parts_ = {u: old[u] for u in urls if u in old}
        cands = _candidates(urls, ulang, self.max_bucket,
                            None if parts is None else (lambda url: _url_parts(url, parts)[2]))
        if self.id_markers:
            cands.update(_marker_candidates(urls, ulang, self.max_bucket, self.marker_purity))
        self.unit_texts_: dict[tuple, tuple] = {}
        if self.marker_units:
            unit_cands, self.unit_texts_ = _unit_candidates(
                urls, ulang, self.max_bucket, self.marker_purity, self.min_marker_pairs,
                self.token_langs_, self.langs, parts)
            cands.update(unit_cands)
        if self.slug_ids:
            cands.update(_slug_candidates(urls, ulang))
        return cands

    @staticmethod
    def _compete(order, cands):
        """Competition of [Zhang 2013 §2.1]: greedy 1-1 assignment, strongest pattern first.

        One URL in at most one pair per language pair (with 3+ languages a page can pair once
        with each other language).
        """
        used: dict[tuple[int, int], set[int]] = defaultdict(set)
        won: dict[tuple, list] = {}
        for key in order:
            taken = used[key[0], key[2]]
            got = []
            for g1, g2, ctx in cands[key]:
                if g1 in taken or g2 in taken:
                    continue
                taken.add(g1)
                taken.add(g2)
                got.append((g1, g2, ctx))
            won[key] = got
        return won

    def _set_support(self, p: Pattern, won: list, site_size: int) -> None:
        """N(p,w) = pages paired by p; C(p,w) = N(p,w)/|w| ([Zhang 2013 §2.1], local credibility)."""
        p.support = 2 * len(won)
        p.local_credibility = p.support / site_size
        p.contexts = Counter(ctx for _, _, ctx in won)
        p.examples = [(self.urls_[g1], self.urls_[g2]) for g1, g2, _ in won[:_MAX_EXAMPLES]]

    def _judge(self, p: Pattern) -> bool:
        """C(p,w) > local threshold [Zhang 2013 §2.1, §3.2], else rescue if C(p) > its threshold.

        ``id_marker``: C(p,w) > local threshold and at least ``min_marker_pairs`` pairs; never
        rescued (a language number is a site's own code, see the module docstring).
        """
        p.rescued = False
        p.rescued_by = ""
        if p.kind in (ID_MARKER, SLUG_ID):  # (SLUG_ID: never rescued either, see above)
            p.credible = (p.local_credibility > self.local_threshold
                          and p.pairs >= self.min_marker_pairs)
        elif p.kind in UNIT_KINDS:
            # Marker units: recurrence ("min_marker_pairs") on top of C(p,w), as for id_marker;
            # C(p) may rescue a one-sided or two-place key (``fr/`` recurs across sites), not a
            # glued one (a letter glued to a word is a site's own code, like a language number).
            if p.pairs < self.min_marker_pairs:
                p.credible = False
            elif p.local_credibility > self.local_threshold:
                p.credible = True
            elif p.kind != GLUED and p.global_credibility > self.rescue_threshold:
                p.credible = p.rescued = True
                p.rescued_by = "global"
            else:
                p.credible = False
        elif p.local_credibility > self.local_threshold:
            # Departure: two numbers (``page=4`` ↔ ``page=3``) are a language code only when
            # they recur, as for id_marker; on a small site one accidental pair passes C(p,w).
            p.credible = not (p.lang1_token.isdigit() and p.lang2_token.isdigit()
                              and p.pairs < self.min_marker_pairs)
        elif p.global_credibility > self.rescue_threshold:
            p.credible = p.rescued = True
            p.rescued_by = "global"
        elif self._names_its_languages(p):
            # Departure: [Zhang 2013] sets |w| for a bilingual site. On a multilingual one a
            # partial translation (5 Hebrew pages of nginx.org's 200) explains < 10% of |w|
            # however right its key is. The threshold is there to drop accidental keys; a
            # key whose two tokens are the site's own markers of exactly these two languages
            # is not accidental, so it is rescued like a key of strong global credibility.
            p.credible = p.rescued = True
            p.rescued_by = "language_tokens"
        else:
            p.credible = False
        return p.credible

    def _names_its_languages(self, p: Pattern) -> bool:
        """Both tokens name their side's language on this site, with ``min_marker_pairs``."""
        langs = getattr(self, "token_langs_", {})
        return (p.kind == TOKEN and p.pairs >= self.min_marker_pairs
                and langs.get(p.lang1_token.strip("/._-?=&").lower()) == p.lang1
                and langs.get(p.lang2_token.strip("/._-?=&").lower()) == p.lang2)

    def _global(self, pid: str) -> float:
        return self.pattern_db.global_credibility(pid) if self.pattern_db is not None else 0.0

    def _score(self, p: Pattern) -> float:
        # A monotone map of credibility to 0..1 (not a calibrated probability): a locally
        # credible pattern scores above 0.5 (0.5 at the threshold, ~1 when it pairs the whole
        # site); a rescued one 0.375..0.5, growing with C(p) / rescue threshold.
        if p.rescued_by == "language_tokens":
            return LANGUAGE_TOKEN_SCORE
        if p.rescued:
            t = self.rescue_threshold
            return 0.5 - 0.25 * (0.5 ** (p.global_credibility / t)) if t > 0 else 0.5
        t = self.local_threshold
        return 1.0 - 0.5 * (0.5 ** ((p.local_credibility - t) / t)) if t > 0 else 1.0

    def _build_appliers(self) -> None:
        self._appliers: list[tuple[Pattern, _Applier, _Applier]] = []
        self._voter = _LanguageVoter()
        for p in self.patterns_:
            if not p.credible:
                continue
            if p.kind in UNIT_KINDS and getattr(p, "units", None):
                # the slot combinations that hold at least a fifth of its pairs
                top = p.contexts.most_common(_MAX_CONTEXTS)
                ctxs = [c for c, n in top if 5 * n >= p.pairs]
                fwd = _UnitApplier(p.units[0], p.units[1], ctxs)
                back = _UnitApplier(p.units[1], p.units[0], ctxs, reverse=True)
                self._appliers.append((p, fwd, back))
                continue
            if p.kind != TOKEN:
                continue
            ctxs = [c for c, _ in p.contexts.most_common(_MAX_CONTEXTS)]
            fwd = _Applier(p.lang1_token, p.lang2_token, ctxs)
            back = _Applier(p.lang2_token, p.lang1_token, ctxs)
            self._appliers.append((p, fwd, back))
            self._voter.add(p.lang1, p.lang1_token, p.lang2, p.lang2_token, ctxs, p.support)

    # -- the slug + id rule
    def _slug_pairs(self, paired: dict[tuple[int, int], set[int]], site_size: int):
        """Translated slugs sharing ids: same host, path depth and numeric tokens (per segment)
        once a credible token pattern is applied; pairs only when unique on both sides.

        Not in the paper (its URL pairs differ by one token); kept as its own pattern kind.
        """
        urls, ulang = self.urls_, self.url_langs_
        patterns, pairs = [], []
        for base, fwd, back in self._appliers:
            l1, l2 = self.langs.index(base.lang1), self.langs.index(base.lang2)
            taken = paired[l1, l2]
            free = [g for g in range(len(urls)) if ulang[g] in (l1, l2) and g not in taken]
            side2: dict[tuple, list[int]] = defaultdict(list)
            for g in free:
                if ulang[g] == l2 and back.matches(urls[g]):
                    sig = _id_signature(urls[g])
                    if sig is not None:
                        side2[sig].append(g)
            side1: dict[tuple, list[int]] = defaultdict(list)
            for g in free:
                if ulang[g] == l1:
                    for cand in fwd.apply(urls[g]):
                        sig = _id_signature(cand)
                        if sig is not None and sig in side2:
                            side1[sig].append(g)
            won = []
            for sig, g1s in side1.items():
                g2s = side2[sig]
                g1 = g1s[0]
                if len(set(g1s)) == 1 and len(g2s) == 1 and g1 not in taken:
                    won.append((g1, g2s[0], None))
                    taken.update((g1, g2s[0]))
            if not won:
                continue
            p = Pattern(base.lang1, base.lang1_token, base.lang2, base.lang2_token, SLUG_ID,
                        candidates=len(won), credible=True)
            score = 0.5 * self._score(base)
            for g1, g2, _ in won:
                pairs.append(UrlPair(urls[g1], urls[g2], p.id, score, p.lang1, p.lang2))
            same = next((q for q in self.patterns_ if q.id == p.id), None)
            if same is not None:  # the slug_id index found some already: one pattern
                same.candidates += len(won)
                same.support += 2 * len(won)
                same.local_credibility = same.support / site_size
                continue
            self._set_support(p, won, site_size)
            p.contexts = Counter()
            p.global_credibility = self._global(p.id)
            patterns.append(p)
        return patterns, pairs

    # -- translated segments
    def _segment_pairs(self, paired: dict[tuple[int, int], set[int]], site_size: int,
                       known_pairs: Iterable[tuple[str, str]] | None):
        """The ``segment_id`` rule (:mod:`.url_segments`) for every language pair: learn the
        segment table, pair through it among the URLs still free.

        Extends [Zhang 2013 §2.1]: their key is one differing token; here a
        table of translated segments is learned from identifier pairs and proven pairs. One
        pattern per combination of translations used (``media+news`` ↔ ``presse+nouvelles``),
        credible by construction (each translation recurs and is one-to-one, see the module),
        without the C(p,w) threshold and never rescued by C(p): a site's vocabulary is its
        own, like a language number. Scored as a floor, at most 0.5 (as a slug_id pair):
        ``0.5 · (1 − 2^−n)``, n the support of its weakest translation.
        """
        urls, ulang = self.urls_, self.url_langs_
        where = {u: g for g, u in enumerate(urls)}
        known: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
        for a, b in known_pairs or ():
            ga = where.get(a.strip().split("#", 1)[0])
            gb = where.get(b.strip().split("#", 1)[0])
            if ga is None or gb is None or ulang[ga] < 0 or ulang[gb] < 0 \
                    or ulang[ga] == ulang[gb]:
                continue
            if ulang[ga] > ulang[gb]:
                ga, gb = gb, ga
            known[ulang[ga], ulang[gb]].append((ga, gb))
        present = sorted({li for li in ulang if li >= 0})
        patterns: dict[str, Pattern] = {}
        won: dict[str, list] = defaultdict(list)
        pairs: list[UrlPair] = []
        for a, la in enumerate(present):
            for lb in present[a + 1:]:
                l1, l2 = self.langs[la], self.langs[lb]
                taken = paired[la, lb]
                table, fold, found = segment_pairs(
                    urls, ulang, la, lb, taken | {g for kp in known[la, lb] for g in kp},
                    known[la, lb], self.min_segment_pairs, self.marker_purity,
                    self.max_name_urls)
                self.segment_tables_[l1, l2] = {x: y for x, (y, _, _) in table.items()}
                self.segment_folded_[l1, l2] = fold
                for g1, g2, used in found:
                    p = Pattern(l1, "+".join(x for x, _ in used), l2,
                                "+".join(y for _, y in used), SEGMENT_ID, credible=True)
                    p = patterns.setdefault(p.id, p)
                    # its weakest translation's pairs (a proven one counts as the minimum)
                    n = min(max(table[x][1], self.min_segment_pairs if table[x][2] else 0)
                            for x, _ in used)
                    score = 0.5 * (1.0 - 0.5 ** n)
                    won[p.id].append((g1, g2, (SEGMENT_ID, "", "", "")))
                    pairs.append(UrlPair(urls[g1], urls[g2], p.id, score, l1, l2))
                    taken.update((g1, g2))
        out = []
        for pid, p in patterns.items():
            self._set_support(p, won[pid], site_size)
            p.candidates = len(won[pid])
            p.contexts = Counter()
            p.global_credibility = self._global(pid)
            out.append(p)
        return out, pairs

    # -- using a fitted learner
    def _check_fitted(self) -> None:
        if not hasattr(self, "pairs_"):
            raise RuntimeError("UrlPatternLearner is not fitted yet: call fit() first")

    def pairs(self) -> list[UrlPair]:
        """The 1-1 pairs found by credible patterns (token, marker-unit and id_marker pairs,
        then slug_id, then segment_id)."""
        self._check_fitted()
        return list(self.pairs_)

    def counterparts(self, url: str, lang: str) -> list[tuple[str, str]]:
        """Deep page recovery [Zhang 2013 §2.2]: the counterpart URL under every credible pattern.

        Token patterns only: an ``id_marker`` or ``slug_id`` pattern cannot write the other
        language's translated slug, so it generates nothing. (A ``segment_id`` table could
        write a counterpart; it is not used for recovery yet.)
        """
        return [(target, pid) for target, pid, _ in self.counterpart_targets(url, lang)]

    def counterpart_targets(self, url: str, lang: str,
                            to_langs: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
        """:meth:`counterparts` with the language each counterpart should be in:
        ``(url, pattern id, language)``, only towards ``to_langs`` when given.

        With three languages or more a page of ``langs[1]`` has counterparts in ``langs[0]``
        and ``langs[2]``: the expected language is the pattern's other side, never a guess.
        """
        self._check_fitted()
        wanted = None if to_langs is None else set(to_langs)
        out: list[tuple[str, str, str]] = []
        seen = {url}
        for p, fwd, back in self._appliers:
            if lang == p.lang1:
                cands, other = fwd.apply(url), p.lang2
            elif lang == p.lang2:
                cands, other = back.apply(url), p.lang1
            else:
                continue
            if wanted is not None and other not in wanted:
                continue
            for cand in cands:
                if cand not in seen:
                    seen.add(cand)
                    out.append((cand, p.id, other))
        return out

    def language_of(self, url: str) -> str | None:
        """The language whose learned pattern tokens the URL carries (None if none or a tie).

        Not in the paper (it has page language ID); for URL-only input such as ``urlpairs``.
        """
        self._check_fitted()
        return self._voter.vote(url)

    def report(self, max_weak: int = 50) -> dict:
        """patterns.json: |w|, C(w), and each pattern's N(p,w), C(p,w), C(p), kind, examples."""
        self._check_fitted()
        credible = [p for p in self.patterns_ if p.credible]
        weak = [p for p in self.patterns_ if not p.credible][:max_weak]
        kinds = {p.id: p.kind for p in self.patterns_}
        return {
            "site": self.site_,
            "site_size": self.site_size_,
            "site_credibility": max((p.local_credibility for p in self.patterns_), default=0.0),
            "langs": list(self.langs),
            "local_threshold": self.local_threshold,
            "rescue_threshold": self.rescue_threshold,
            "pairs": len(self.pairs_),
            # pairs per pattern kind (token, id_marker, slug_id): their precision differs
            "pairs_by_kind": {kind: sum(1 for q in self.pairs_ if kinds.get(q.pattern) == kind)
                              for kind in KINDS},
            "patterns": [_pattern_dict(p) for p in credible + weak],
        }


# ----------------------------------------------------------------------------- many sites


def parse_url_lines(lines: Iterable[str]) -> list[tuple[str | None, str]]:
    """``url`` or ``lang<TAB>url`` lines -> (lang or None, url); blank and ``#`` lines skipped."""
    out = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            lang, url = line.split("\t", 1)
            out.append((lang.strip().lower() or None, url.strip()))
        else:
            out.append((None, line))
    return out


def pair_urls(lines: list[str], langs=("en", "fr"),
              local_threshold: float = DEFAULT_LOCAL_THRESHOLD,
              rescue_threshold: float = DEFAULT_RESCUE_THRESHOLD,
              pattern_db: PatternDB | None = None, max_bucket: int = DEFAULT_MAX_BUCKET,
              slug_ids: bool = True) -> list[tuple[str, str]]:
    """URL-only pairing of many sites: per-site patterns, cross-site C(p) rescue [Zhang 2013 §2.1].

    1. Learn each site from its labelled URLs and record it in the pattern DB.
    2. Give unlabelled URLs a language: the site's own patterns, else patterns with C(p) above the
       rescue threshold from any site, else (URL-only input has no language ID, unlike the
       paper) a token equal to a language code of ``langs`` or one of its aliases
       (``/en/``, ``-fr``, ``lang=en``; ``/cn/`` for zh: ``pages.language.LANG_ALIASES``).
    3. Re-learn every site with all URLs, record it, and learn once more so that every site's
       weak keys are judged against the C(p) of all sites (small sites get rescued).
    Every fit is given the site's URL language tokens, learned from its URLs' languages (the
    labels of the lines, then also those of step 2; see :func:`_site_token_langs`): a weak key
    whose two tokens are the site's markers of its two languages is rescued, as in a crawl.
    Returns ``(url_1, url_2)`` with url_1 in the earlier language of ``langs``; one URL in at
    most one pair. ``pattern_db`` (updated, not saved) brings the history of earlier runs.
    """
    langs = tuple(langs)
    db = pattern_db if pattern_db is not None else PatternDB(None)
    entries = parse_url_lines(lines)
    by_site: dict[str, list[tuple[str | None, str]]] = defaultdict(list)
    for lang, url in entries:
        by_site[site_of(url)].append((lang, url))
    logger.info("urlpairs: %d URLs from %d sites", len(entries), len(by_site))

    def learner() -> UrlPatternLearner:
        return UrlPatternLearner(langs, local_threshold, rescue_threshold, db,
                                 max_bucket=max_bucket, slug_ids=slug_ids)

    def group(items) -> dict[str, list[str]]:
        d: dict[str, list[str]] = defaultdict(list)
        for lang, url in items:
            d[lang if lang else ""].append(url)
        return d

    # 1. labelled URLs
    learners: dict[str, UrlPatternLearner] = {}
    for site, items in by_site.items():
        if sum(1 for lang, _ in items if lang in langs) >= 2:
            lr = learner().fit(group(items), token_langs=_site_token_langs(items))
            db.update(site, lr.patterns_, lr.site_size_)
            learners[site] = lr
    # 2. languages for unlabelled URLs
    global_voter = _LanguageVoter()
    for d in db.strong_patterns(rescue_threshold):
        if d["lang1"] in langs and d["lang2"] in langs:
            global_voter.add(d["lang1"], d["token1"], d["lang2"], d["token2"], d["contexts"],
                             d["global_credibility"])
    codes = {lang.lower(): lang for lang in langs}
    for alias, code in LANG_ALIASES.items():   # the codes sites use for them (/cn/: zh)
        if code in langs:
            codes.setdefault(alias, code)
    inferred = 0
    for site, items in by_site.items():
        lr = learners.get(site)
        for k, (lang, url) in enumerate(items):
            if lang:
                continue
            guess = lr.language_of(url) if lr is not None else None
            if guess is None and global_voter:
                guess = global_voter.vote(url)
            if guess is None:
                guess = _code_vote(url, codes)
            if guess is not None:
                items[k] = (guess, url)
                inferred += 1
    logger.info("urlpairs: inferred the language of %d unlabelled URLs", inferred)
    # 3. all URLs; then once more against the C(p) of every site
    site_tokens = {site: _site_token_langs(items) for site, items in by_site.items()}
    for site, items in by_site.items():
        lr = learner().fit(group(items), token_langs=site_tokens[site])
        db.update(site, lr.patterns_, lr.site_size_)
    out: list[tuple[str, str]] = []
    rescued = 0
    for n, (site, items) in enumerate(by_site.items(), 1):
        if n % 1000 == 0:
            logger.info("urlpairs: paired %d of %d sites", n, len(by_site))
        lr = learner().fit(group(items), token_langs=site_tokens[site])
        db.update(site, lr.patterns_, lr.site_size_)
        rescued += sum(1 for p in lr.patterns_ if p.rescued)
        for pair in lr.pairs():
            if (pair.lang_1, pair.lang_2) == langs[:2]:
                out.append((pair.url_1, pair.url_2))
    logger.info("urlpairs: %d pairs (%d rescued weak keys)", len(out), rescued)
    return out


def _site_token_langs(items: Iterable[tuple[str | None, str]]) -> dict[str, str]:
    """URL token -> the language it names on this site, from ``(lang, url)`` of its URLs.

    The crawl learns these tokens from the pages fastText labelled (``pages.site``) and gives
    them to every fit; ``urlpairs`` has no page text, so the languages of its URLs stand in
    for those labels: the ``lang`` column of its lines, and for URLs given alone the language
    step 2 of :func:`pair_urls` gave them. Without them ``UrlPatternLearner._judge`` could
    never rescue a key as the site's own language markers, and on a multilingual site every
    partial translation stayed below C(p,w) > 0.1 however plain its URLs: |w| counts the
    pages of all languages (Zhang, Yao & Kit's "size of w in number of webpages", [Zhang 2013]
    §2.1), so tldr's 175 German pages of 3,553 give ⟨en,de⟩ C(p,w) = 350/3553 = 0.099, and
    nginx.org's 5 Hebrew pages of 389 give 0.026; one site's C(p) is C(p,w)·N(p,w) < 35,
    far from the paper's rescue at C(p) > 500. The same learner and thresholds as the crawl's
    (``site_url_tokens``: 3 pages, 85% of them in one language, other languages seen without
    the token), over the URLs of every language of the site, not only the two asked: a token
    the other languages carry too (``org``, ``ar`` of ``/XX/common/ar.html``) is no
    language's marker. Unlabelled URLs teach nothing. A URL that step 2 labelled by its code
    token (``/de/``) teaches that token its own language; a key rescued on such labels alone
    is ⟨code of lang1, code of lang2⟩ itself (a URL carrying both codes gets no label), the
    evidence step 2 already takes for a language.
    """
    tokens = site_url_tokens()
    for lang, url in items:
        if lang:
            tokens.learn(url, lang)
    return token_languages(tokens)


def _code_vote(url: str, codes: dict[str, str]) -> str | None:
    found = {codes[t.lower()] for t in _SPLIT.split(url)[2::2] if t.lower() in codes}
    return found.pop() if len(found) == 1 else None
