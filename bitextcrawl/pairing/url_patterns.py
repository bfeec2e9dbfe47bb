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

The ``id_marker`` rule (not in the paper; a generalisation of its single-token difference:
URLs equal in their numbers but for a language number, whatever their words) is described
with its candidates in :mod:`.url_tokens`.

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
from collections import Counter, defaultdict
from typing import Iterable

from bitextcrawl.pairing.pattern_db import PatternDB, _pattern_dict
from bitextcrawl.pairing.url_id_rules import IdRules
from bitextcrawl.pairing.url_segments import (
    DEFAULT_MAX_NAME_URLS,
    DEFAULT_MIN_SEGMENT_PAIRS,
)
from bitextcrawl.pairing.url_tokens import (
    _MAX_CONTEXTS,
    _MAX_EXAMPLES,
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
    _Applier,
    _candidates,
    _LanguageVoter,
    _marker_candidates,
    pattern_id,
)
from bitextcrawl.pairing.url_units import (
    GLUED,
    KINDS,
    ONE_SIDED,
    TWO_PLACE,
    UNIT_KINDS,
    _majority_site,
    _slug_candidates,
    _unit_candidates,
    _UnitApplier,
    _url_parts,
)

# The learner is here; its parts are in url_tokens (tokens, differences, token and id_marker
# candidates, applying a pattern), url_units (marker units, slug_id), url_id_rules (slug_id
# and segment_id pairing), pattern_db (C(p) across runs); URL-only pairing of many sites is
# url_pairs. These names are this module's public ones, wherever they are defined.
__all__ = [
    "DEFAULT_LOCAL_THRESHOLD", "DEFAULT_RESCUE_THRESHOLD", "FLOOR_KINDS", "GLUED", "ID_MARKER",
    "KINDS", "ONE_SIDED", "SEGMENT_ID", "SLUG_ID", "TOKEN", "TWO_PLACE", "UNIT_KINDS", "Pattern",
    "PatternDB",
    "UrlPair", "UrlPatternLearner", "pattern_id",
]

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- applying patterns


# ----------------------------------------------------------------------------- learner


class UrlPatternLearner(IdRules):
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

