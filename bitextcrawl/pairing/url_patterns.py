"""Unsupervised bilingual URL pairing patterns (seed 003, Zhang, Yao & Kit, §2.1–2.2).

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
  on their own.

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
a second competition among the credible patterns only; the ``id_marker`` and ``slug_id``
rules; language of unlabelled URLs from pattern tokens (the paper has page language ID).

Markers on one side only, glued to a word, or in two places at once are the *marker-unit*
kinds (``one_sided``, ``glued``, ``two_place``): see the section "marker units" below; they
compete, are judged and recorded like the others, and generate counterparts. Not handled (left
to the later stages: hreflang, structure, content): translated file names without shared ids
and without a language marker (``License-en.html`` ↔ ``Licence-fr.html``).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Iterable

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.pages.urls import site_of

logger = logging.getLogger(__name__)

#: Kit & Ng (2007) / seed 003 §2.1, §3.2: C(p, w) > 0.1.
DEFAULT_LOCAL_THRESHOLD = 0.1
#: Seed 003 §2.1, §3.2: weak local keys with C(p) > 500 are rescued. C(p) sums C(p,w)·N(p,w)
#: over sites, so 500 is, e.g., one fully paired 500-page site, or 20 fully paired 25-page
#: sites, having used the pattern.
DEFAULT_RESCUE_THRESHOLD = 500.0
#: A bucket of the inverted index holding more cross-language candidates than this is an id
#: position (every page differs there), not a language marker: it is skipped (keeps it linear).
DEFAULT_MAX_BUCKET = 16

TOKEN = "token"
SLUG_ID = "slug_id"
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
# Separators that may join the two tokens of a locale code such as zh_TW, en-us, tc_chi.
_RUN_JOINERS = frozenset("-_")
_MASK = "\x00"
_SHAPE = re.compile(r"[0-9]+|[^\W\d_]+")
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
    """Inverted-index keys (seed 003 §2.1 item 2): the URL with one token (or locale run) masked."""
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
    """Character-level difference of two URLs that differ in one token span (seed 003 §2.1 item 1).

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


# ----------------------------------------------------------------------------- pattern DB


class PatternDB:
    """Per-site N(p,w), C(p,w), |w| of every pattern across runs; C(p) of seed 003 §2.1.

    JSON file (``None`` = in memory), written atomically (temporary file + ``os.replace``).
    Re-crawling a site replaces its entry, so it is never counted twice. Not safe for two
    processes writing the same file at once (the last ``save`` wins).
    """

    VERSION = 1

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else None
        self._sites: dict[str, dict] = {}
        self._global: dict[str, float] = defaultdict(float)
        if self.path is not None and self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                sites = data["sites"]
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"pattern database {self.path} is not readable: {exc}") from exc
            for site, entry in sites.items():
                self._sites[site] = entry
                self._add(entry, +1)

    def _add(self, entry: dict, sign: int) -> None:
        for pid, rec in entry["patterns"].items():
            self._global[pid] += sign * rec["c"] * rec["n"]

    def update(self, site: str, patterns: Iterable, site_size: int | None = None,
               min_pairs: int = 2) -> None:
        """Record N(p,w), C(p,w) and |w| of ``site`` (replacing its previous entry).

        ``patterns``: :class:`Pattern` objects (e.g. ``learner.patterns_``) or the dicts of
        :meth:`UrlPatternLearner.report`. Credible patterns are always kept; weak ones only with
        at least ``min_pairs`` pairs (one-pair accidents would bloat the file for a C(p)
        contribution below 4/|w|). ``site_size`` defaults to N/C of a recorded pattern.
        """
        recs = {}
        size = site_size
        for p in patterns:
            d = p if isinstance(p, dict) else _pattern_dict(p)
            n = int(d["support"])
            if n <= 0 or (not d.get("credible") and n < 2 * min_pairs):
                continue
            c = float(d["local_credibility"])
            if size is None and c > 0:
                size = round(n / c)
            recs[d["id"]] = {"kind": d["kind"], "lang1": d["lang1"], "token1": d["lang1_token"],
                             "lang2": d["lang2"], "token2": d["lang2_token"], "n": n, "c": c,
                             "contexts": [list(x) for x in d.get("contexts", [])][:_MAX_CONTEXTS]}
        old = self._sites.pop(site, None)
        if old is not None:
            self._add(old, -1)
        entry = {"size": int(size or 0), "patterns": recs}
        self._sites[site] = entry
        self._add(entry, +1)

    def global_credibility(self, pattern_id: str) -> float:
        """C(p) = Σ_w C(p,w)·N(p,w) over all recorded sites (seed 003 §2.1)."""
        return max(0.0, self._global.get(pattern_id, 0.0))

    def site_credibility(self, site: str) -> float:
        """C(w) = max_p C(p,w) (seed 003 §2.1), 0 for an unknown site."""
        entry = self._sites.get(site)
        if not entry or not entry["patterns"]:
            return 0.0
        return max(rec["c"] for rec in entry["patterns"].values())

    def sites(self) -> list[str]:
        return list(self._sites)

    def kinds(self) -> dict[str, str]:
        """Pattern id -> its kind (``token``, ``one_sided``, ``glued``, ...) over all sites."""
        return {pid: rec["kind"] for entry in self._sites.values()
                for pid, rec in entry["patterns"].items()}

    def site_size(self, site: str) -> int:
        entry = self._sites.get(site)
        return entry["size"] if entry else 0

    def strong_patterns(self, min_global: float) -> list[dict]:
        """Token patterns with C(p) > ``min_global``: id, langs, tokens, C(p), contexts seen."""
        found: dict[str, dict] = {}
        for entry in self._sites.values():
            for pid, rec in entry["patterns"].items():
                if rec["kind"] != TOKEN or self.global_credibility(pid) <= min_global:
                    continue
                d = found.setdefault(pid, {"id": pid, "kind": rec["kind"], "lang1": rec["lang1"],
                                           "token1": rec["token1"], "lang2": rec["lang2"],
                                           "token2": rec["token2"], "contexts": Counter(),
                                           "global_credibility": self.global_credibility(pid)})
                d["contexts"].update(tuple(c) for c in rec.get("contexts", []))
        out = []
        for d in found.values():
            d["contexts"] = [c for c, _ in d["contexts"].most_common(_MAX_CONTEXTS)]
            out.append(d)
        return sorted(out, key=lambda d: (-d["global_credibility"], d["id"]))

    def save(self) -> None:
        """Write the file atomically (same-directory temporary file, fsync, os.replace)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": self.VERSION, "sites": self._sites}
        with atomic_open(self.path) as fh:
            json.dump(data, fh, ensure_ascii=False, sort_keys=True)


def _pattern_dict(p: Pattern) -> dict:
    return {"id": p.id, "kind": p.kind, "lang1": p.lang1, "lang1_token": p.lang1_token,
            "lang2": p.lang2, "lang2_token": p.lang2_token, "support": p.support,
            "pairs": p.pairs, "candidates": p.candidates,
            "local_credibility": p.local_credibility, "global_credibility": p.global_credibility,
            "credible": p.credible, "rescued": p.rescued, "rescued_by": p.rescued_by,
            "examples": [list(e) for e in p.examples],
            "contexts": [list(c) for c, _ in p.contexts.most_common(_MAX_CONTEXTS)]}


# ----------------------------------------------------------------------------- learner


class UrlPatternLearner:
    """Learns credible URL pairing patterns of one site and pairs its URLs (seed 003 §2.1–2.2).

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
        (also those of a marker unit, below).
    marker_units: enable the marker-unit patterns (kinds ``one_sided``, ``glued``,
        ``two_place``: a marker on one side only, glued to a word, or two places at once).
    keep_parsed: keep the parsed URLs for the next fit (an online learner, re-fitted as
        pages arrive).

    Fitted attributes: ``site_``, ``site_size_`` (|w|), ``patterns_`` (every pattern that won at
    least one pair in the competition, strongest first, credible or not: see ``.credible``),
    ``pairs_`` (the 1-1 pairs of credible patterns).
    """

    def __init__(self, langs=("en", "fr"), local_threshold: float = DEFAULT_LOCAL_THRESHOLD,
                 rescue_threshold: float = DEFAULT_RESCUE_THRESHOLD,
                 pattern_db: PatternDB | None = None, max_bucket: int = DEFAULT_MAX_BUCKET,
                 slug_ids: bool = True, id_markers: bool = True,
                 min_marker_pairs: int = DEFAULT_MIN_MARKER_PAIRS,
                 marker_purity: float = DEFAULT_MARKER_PURITY, marker_units: bool = True,
                 keep_parsed: bool = False):
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

    # -- fit
    def fit(self, urls_by_lang: dict[str, list[str]], site_size: int | None = None,
            token_langs: dict[str, str] | None = None) -> "UrlPatternLearner":
        """Competition of single-token candidate patterns, then C(p,w) / C(p) selection (§2.1).

        ``site_size``: |w|, the site's distinct pages in all languages (seed 003), where the
        caller knows it (duplicates folded, other languages counted); else the URLs given.
        ``token_langs``: URL token -> the language it names on this site (learned from its
        confidently identified pages); rescues weak language-marker keys (see ``_judge``).
        """
        self.token_langs_ = {k.lower(): v for k, v in (token_langs or {}).items()}
        langs = self.langs
        lang_index = {lang: i for i, lang in enumerate(langs)}
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
        self.urls_ = urls
        self.url_langs_ = ulang
        self.site_size_ = max(len(urls), int(site_size or 0))
        self.site_ = _majority_site(urls)
        # parsed URLs: the last fit's, for these URLs only, when kept for the next one
        parts = None
        if self.keep_parsed:
            old = getattr(self, "url_parts_", {})
            parts = self.url_parts_ = {u: old[u] for u in urls if u in old}

        # 1-2. candidate pairs (inverted index) and their character-level patterns; the
        #      id-anchored language numbers from a second inverted index
        cands = _candidates(urls, ulang, self.max_bucket, parts)
        if self.id_markers:
            cands.update(_marker_candidates(urls, ulang, self.max_bucket, self.marker_purity))
        self.unit_texts_: dict[tuple, tuple] = {}
        if self.marker_units:
            unit_cands, self.unit_texts_ = _unit_candidates(
                urls, ulang, self.max_bucket, self.marker_purity, self.min_marker_pairs,
                self.token_langs_, langs, parts)
            cands.update(unit_cands)
        if self.slug_ids:
            cands.update(_slug_candidates(urls, ulang))

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
        self.pairs_ = pairs
        return self

    @staticmethod
    def _compete(order, cands):
        """Competition of seed 003 §2.1: greedy 1-1 assignment, strongest pattern first.

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
        """N(p,w) = pages paired by p; C(p,w) = N(p,w)/|w| (seed 003 §2.1, local credibility)."""
        p.support = 2 * len(won)
        p.local_credibility = p.support / site_size
        p.contexts = Counter(ctx for _, _, ctx in won)
        p.examples = [(self.urls_[g1], self.urls_[g2]) for g1, g2, _ in won[:_MAX_EXAMPLES]]

    def _judge(self, p: Pattern) -> bool:
        """C(p,w) > local threshold (seed 003 §2.1, §3.2), else rescue if C(p) > its threshold.

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
            # Departure: seed 003 sets |w| for a bilingual site. On a multilingual one a
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

    # -- using a fitted learner
    def _check_fitted(self) -> None:
        if not hasattr(self, "pairs_"):
            raise RuntimeError("UrlPatternLearner is not fitted yet: call fit() first")

    def pairs(self) -> list[UrlPair]:
        """The 1-1 pairs found by credible patterns (token and id_marker pairs, then slug_id)."""
        self._check_fitted()
        return list(self.pairs_)

    def counterparts(self, url: str, lang: str) -> list[tuple[str, str]]:
        """Deep page recovery (seed 003 §2.2): the counterpart URL under every credible pattern.

        Token patterns only: an ``id_marker`` or ``slug_id`` pattern cannot write the other
        language's translated slug, so it generates nothing.
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
                parts: dict | None = None) -> dict[tuple, list]:
    """Cross-language URL pairs differing by one token, by an inverted index (seed 003 §2.1, 2.).

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
    mask_keys = _mask_keys if parts is None else (lambda url: _url_parts(url, parts)[2])
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



# ----------------------------------------------------------------------------- marker units
#
# Seed 003 §2.1 pairs URLs differing by one token on both sides. Real sites also use a marker
# on one side only (/about.html ↔ /about_fr.html, /x ↔ /fr/x, ?id=7 ↔ ?id=7&lang=fr), a
# marker glued to a word (history.htm ↔ historyf.htm) and two differences at once
# (/en/guide_e.html ↔ /fr/guide_f.html). The generalisation (a departure, for those schemes):
# a *unit* is a removable piece of a URL at a *slot* (a host label, a path segment, the last
# token(s) of a segment with their separator, the first token of a segment, 1-2 letters glued
# to the end of the file name's stem, a query parameter). A unit is a *marker* of language L
# on a site when at least ``min_marker_pairs`` URLs of L carry it and ``marker_purity`` of the
# labelled URLs carrying it are in L (as for id_marker: a recurring, language-consistent
# piece). Each URL is indexed by itself with 0, 1 or 2 of its own language's markers deleted
# (an inverted index, a bounded number of keys per URL: linear); URLs of two languages sharing
# a key differ by those markers only. The candidate pattern is (markers deleted on side 1,
# markers deleted on side 2), which then competes with the token patterns, with the same
# N(p,w), C(p,w) and threshold. The two sides may be one marker at one slot each (the token
# index's case, skipped here), nothing against a marker (one-sided), or two places.

ONE_SIDED = "one_sided"
GLUED = "glued"
TWO_PLACE = "two_place"
#: Pattern kinds of the marker-unit index (see above).
UNIT_KINDS = (ONE_SIDED, GLUED, TWO_PLACE)
#: All pattern kinds, in the order reports list them.
KINDS = (TOKEN, ONE_SIDED, GLUED, TWO_PLACE, ID_MARKER, SLUG_ID)
# At most this many of a URL's markers are considered (the strongest): keys per URL stay
# bounded (1 + 4 + 6).
_MAX_MARKERS = 4
# A unit whose tokens have at most this many characters is code-like (fr, eng, e, zh_TW, 1).
_CODE_LEN = 3
_EXT = re.compile(r"[A-Za-z][A-Za-z0-9]{0,4}")


def _parse(url: str):
    """[head, host labels | None, path segments, query params | None] of a URL."""
    m = _URL_PARTS.match(url)
    head = (m.group(1) or "") + ("//" if m.group(2) is not None else "")
    host = m.group(2)[2:].split(".") if m.group(2) is not None else None
    query = m.group(4)
    return [head, host, m.group(3).split("/"),
            query.split("&") if query is not None else None, url[m.end():]]


def _url_parts(url: str, memo: dict) -> tuple:
    """(parsed URL, its units, its mask keys), made once per URL in ``memo``: an online
    learner re-fits on the same URLs and a few more, and these were half of a fit.
    Callers copy a parsed URL before changing it."""
    got = memo.get(url)
    if got is None:
        p = _parse(url)
        got = memo[url] = (p, _units(p), _mask_keys(url))
    return got


def _copy(p) -> list:
    return [p[0], None if p[1] is None else list(p[1]), list(p[2]),
            None if p[3] is None else list(p[3]), p[4]]


def _unparse(p) -> str:
    head, host, segs, params, tail = p
    path = "/".join(segs)
    if host is not None and path and not path.startswith("/"):
        path = "/" + path
    out = head + (".".join(host) if host is not None else "") + path
    if params:
        out += "?" + "&".join(params)
    return out + tail


def _stem_index(toks: list[str]) -> int:
    """Index (in the token/separator list) of a file name's stem token (before a short
    extension), else of its last token."""
    n = len(toks)
    if n >= 3 and toks[n - 2] == "." and _EXT.fullmatch(toks[n - 1]):
        return n - 3
    return n - 1


def _units(p) -> list[tuple[tuple, str]]:
    """The removable units of a parsed URL: (slot, text); the slot says where the unit sits
    (so that it can be deleted and inserted again), the text what it is."""
    _, host, segs, params, _ = p
    out: list[tuple[tuple, str]] = []
    if host is not None and len(host) >= 3 and host[0]:
        out.append((("host",), host[0] + "."))
    nseg = len(segs)
    for i in range(1, nseg):
        s = segs[i]
        if not s:
            continue
        neg = i - nseg
        if "." not in s or i < nseg - 1:
            out.append((("seg", i - 1), s + "/"))
        toks = _SPLIT.split(s)
        n = len(toks)
        if n >= 3:
            last = _stem_index(toks) if i == nseg - 1 else n - 1
            if toks[0] and last > 0:
                out.append((("tok0", neg), toks[0] + toks[1]))
            for t in (last, last - 2):
                if t >= 2 and toks[t]:
                    out.append((("tok", neg, (n - 1 - t) // 2), toks[t - 1] + toks[t]))
        if i == nseg - 1:  # glued to the file name's stem: history|f.htm, 2019|e.pdf
            t = _stem_index(toks)
            st = toks[t]
            for k in (1, 2):
                suf = st[-k:]
                if len(st) - k >= 3 and suf.isalpha() and suf.islower():
                    out.append((("glued", neg, (n - 1 - t) // 2), suf))
    if params:
        for j, prm in enumerate(params):
            if prm:
                out.append((("q", j), prm))
    return out


def _delete(p, slot: tuple, text: str) -> bool:
    """Delete the unit ``text`` at ``slot`` from parsed URL ``p`` (in place); False if absent."""
    kind = slot[0]
    if kind == "host":
        if p[1] is None or len(p[1]) < 2 or p[1][0] + "." != text:
            return False
        del p[1][0]
        return True
    if kind == "q":
        params = p[3]
        j = slot[1]
        if not params or j >= len(params) or params[j] != text:
            return False
        del params[j]
        if not params:
            p[3] = None
        return True
    segs = p[2]
    if kind == "seg":
        i = slot[1] + 1
        if i >= len(segs) or segs[i] + "/" != text:
            return False
        del segs[i]
        if len(segs) == 1 and p[1] is not None:
            segs.append("")
        return True
    i = slot[1] + len(segs)
    if i < 1 or i >= len(segs):
        return False
    toks = _SPLIT.split(segs[i])
    n = len(toks)
    if kind == "tok0":
        if n < 3 or toks[0] + toks[1] != text:
            return False
        segs[i] = "".join(toks[2:])
        return True
    t = n - 1 - 2 * slot[2]
    if kind == "tok":
        if t < 2 or toks[t - 1] + toks[t] != text:
            return False
        del toks[t - 1:t + 1]
    elif kind == "glued":
        if t < 0 or len(toks[t]) - len(text) < 3 or not toks[t].endswith(text):
            return False
        toks[t] = toks[t][:-len(text)]
    else:
        return False
    segs[i] = "".join(toks)
    return True


def _insert(p, slot: tuple, text: str) -> bool:
    """Insert the unit ``text`` at ``slot`` into parsed URL ``p`` (in place); False if no place."""
    kind = slot[0]
    if kind == "host":
        if p[1] is None:
            return False
        p[1].insert(0, text[:-1])
        return True
    if kind == "q":
        if p[3] is None:
            p[3] = []
        p[3].insert(min(slot[1], len(p[3])), text)
        return True
    segs = p[2]
    if kind == "seg":
        i = slot[1] + 1
        if i > len(segs) or (i == len(segs) and p[1] is not None and len(segs) > 1):
            return False
        segs.insert(i, text[:-1])
        if len(segs) == 2 and p[1] is not None:  # "http://h" + seg -> "http://h/fr/"
            segs.append("")
        return True
    i = slot[1] + len(segs)
    if i < 1 or i >= len(segs) or not segs[i]:
        return False
    toks = _SPLIT.split(segs[i])
    if kind == "tok0":
        segs[i] = text + segs[i]
        return True
    t = len(toks) - 1 - 2 * slot[2]  # the token the unit goes after
    if t < 0:
        return False
    if kind == "tok":
        toks.insert(t + 1, text)
    elif kind == "glued":
        toks[t] += text
    else:
        return False
    segs[i] = "".join(toks)
    return True


def _slot_str(slot: tuple) -> str:
    return ":".join(str(x) for x in slot)


def _slot_of(s: str) -> tuple:
    parts = s.split(":")
    return (parts[0], *(int(x) for x in parts[1:]))


def _unit_kind(side1: tuple, side2: tuple) -> str | None:
    """Kind of a marker-unit pattern (units: ((slot, text), ...)), None for the token index's."""
    if len(side1) == 1 and len(side2) == 1 and side1[0][0] == side2[0][0] \
            and side1[0][0][0] != "glued":
        return None  # one unit at the same slot on each side: a single-token difference
    if any(s[0] == "glued" for s, _ in side1 + side2):
        return GLUED
    if not side1 or not side2:
        return ONE_SIDED
    return TWO_PLACE


def _unit_context(side1: tuple, side2: tuple) -> tuple[str, str, str, str]:
    """A unit pattern's context, in the 4-string format of a token pattern's (JSON-able)."""
    return ("units", "+".join(_slot_str(s) for s, _ in side1),
            "+".join(_slot_str(s) for s, _ in side2), "")


def _code_like(text: str) -> str | None:
    """The unit's core, lowercased, if it looks like a language code (each token of at most
    ``_CODE_LEN`` characters: ``fr``, ``e``, ``zh_TW``, ``1``; of a query parameter, the value),
    else None."""
    core = text.split("=", 1)[1] if "=" in text else text
    toks = [t for t in _SPLIT.split(core)[::2] if t]
    if toks and all(len(t) <= _CODE_LEN for t in toks):
        return core.strip(SEPARATORS).lower()
    return None


def _unit_candidates(urls: list[str], ulang: list[int], max_bucket: int, purity: float,
                     min_count: int, names: dict[str, str] | None = None,
                     langs: tuple = (), parts: dict | None = None
                     ) -> tuple[dict[tuple, list], dict[tuple, tuple]]:
    """Marker-unit candidate pairs (see the section comment), by an inverted index.

    Departure (precision): a side's units must include a language marker, i.e. a code-like
    unit (:func:`_code_like`) or a word that ``names`` (the site's tokens naming a language,
    learned from identified pages) gives to that side's language. Recurring translated words
    (``archive/list-3`` ↔ ``archives/liste-3``) are no language marker: such pages are left to
    the content stages, as translated slugs are.

    Returns (``(lang_i, text_i, lang_j, text_j, kind) -> [(url_i, url_j, context), ...]``,
    ``key -> (unit texts of side 1, unit texts of side 2)``).
    """
    parsed: list = [None] * len(urls)
    counts: dict[tuple, Counter] = defaultdict(Counter)
    for g, url in enumerate(urls):
        li = ulang[g]
        if li < 0:
            continue
        if parts is None:
            p = _parse(url)
            us = _units(p)
        else:
            p, us, _ = _url_parts(url, parts)
        parsed[g] = (p, us)
        for slot, text in us:
            counts[slot[0], text][li] += 1

    names = {k.lower(): v for k, v in (names or {}).items()}

    def marker_of(slot, text, li) -> int:
        c = counts[slot[0], text]
        n = c[li]
        return n if n >= min_count and n >= purity * sum(c.values()) else 0

    def names_language(side, li) -> bool:
        return not side or any(
            _code_like(t) is not None
            or (li < len(langs) and names.get(t.strip(SEPARATORS).lower()) == langs[li])
            for _, t in side)

    index: dict[str, list] = {}
    for g, item in enumerate(parsed):
        if item is None:
            continue
        p, us = item
        li = ulang[g]
        marks = []
        for slot, text in us:
            n = marker_of(slot, text, li)
            if n:
                marks.append((n, slot, text))
        marks.sort(key=lambda m: -m[0])
        marks = [(s, t) for _, s, t in marks[:_MAX_MARKERS]]
        subsets: list[tuple] = [()]
        subsets += [(m,) for m in marks]
        subsets += [(a, b) for k, a in enumerate(marks) for b in marks[k + 1:]]
        for sub in subsets:
            if sub:
                q = _copy(p)
                # delete right to left so that the slots of the others still hold
                ok = all(_delete(q, s, t) for s, t in sorted(sub, key=_slot_order, reverse=True))
                if not ok:
                    continue
                key = _unparse(q)
            else:
                key = urls[g]
            index.setdefault(key, []).append((li, g, tuple(sorted(sub, key=_slot_order))))

    cands: dict[tuple, list] = defaultdict(list)
    units: dict[tuple, tuple] = {}
    seen: set = set()
    for bucket in index.values():
        if len(bucket) < 2:
            continue
        for la, lb, e1s, e2s in _cross_language_groups(bucket, itemgetter(0), max_bucket):
            for _, g1, s1 in e1s:
                for _, g2, s2 in e2s:
                    kind = _unit_kind(s1, s2)
                    if kind is None or (g1, g2, s1, s2) in seen or not (
                            names_language(s1, la) and names_language(s2, lb)):
                        continue
                    seen.add((g1, g2, s1, s2))
                    t1 = tuple(t for _, t in s1)
                    t2 = tuple(t for _, t in s2)
                    key = (la, "+".join(t1), lb, "+".join(t2), kind)
                    units[key] = (t1, t2)
                    cands[key].append((g1, g2, _unit_context(s1, s2)))
    return cands, units


_SLOT_RANK = {"host": 0, "seg": 1, "tok0": 2, "tok": 3, "glued": 4, "q": 5}


def _slot_order(unit) -> tuple:
    slot = unit[0]
    return (_SLOT_RANK[slot[0]], slot[1:] if slot[0] != "tok" else (slot[1], -slot[2]))


class _UnitApplier:
    """Rewrites a URL by a marker-unit pattern: deletes one side's units, inserts the other's
    at their slots (deep page recovery, seed 003 §2.2, for the generalised patterns)."""

    def __init__(self, from_units: tuple, to_units: tuple,
                 contexts: Iterable[tuple[str, str, str, str]], reverse: bool = False):
        self.rules = []
        for ctx in contexts:
            s1 = [_slot_of(x) for x in ctx[1].split("+")] if ctx[1] else []
            s2 = [_slot_of(x) for x in ctx[2].split("+")] if ctx[2] else []
            if reverse:
                s1, s2 = s2, s1
            if len(s1) != len(from_units) or len(s2) != len(to_units):
                continue
            self.rules.append((sorted(zip(s1, from_units), key=_slot_order, reverse=True),
                               sorted(zip(s2, to_units), key=_slot_order)))

    def matches(self, url: str) -> bool:
        """Does the URL carry this side's units (a side without units matches any URL)?"""
        return bool(self.apply(url))

    def apply(self, url: str) -> list[str]:
        out = []
        for dels, ins in self.rules:
            p = _parse(url)
            if any(_insert_conflict(p, s, t) for s, t in ins):
                continue  # it carries the other side's marker already
            if all(_delete(p, s, t) for s, t in dels) and all(_insert(p, s, t) for s, t in ins):
                cand = _unparse(p)
                if cand != url and cand not in out:
                    out.append(cand)
        return out


def _insert_conflict(p, slot: tuple, text: str) -> bool:
    """Does the URL carry ``text`` at ``slot`` already (inserting it again would double it)?"""
    return _delete(_copy(p), slot, text)


def _majority_site(urls: list[str], sample: int = 50) -> str:
    # site_of is costly (public-suffix lookup): a sample decides.
    if not urls:
        return ""
    step = max(1, len(urls) // sample)
    return Counter(site_of(u) for u in urls[::step]).most_common(1)[0][0]


_URL_PARTS = re.compile(r"^([^:/?#]*:)?(//[^/?#]*)?([^?#]*)(?:\?([^#]*))?")


def _id_signature(url: str) -> tuple | None:
    """(scheme+host, path depth, ((segment, id), ...)), or None without ids in path/query.

    An id is a whole token of digits (``42`` in ``42-harbour-opens``, ``id=42``); digits inside
    a word (``item5``, ``wcag21``) are names, not ids.
    """
    scheme, host, path, query = _URL_PARTS.match(url).groups()
    segments = path.split("/")
    ids = tuple((i, t) for i, seg in enumerate(segments) for t in _SPLIT.split(seg)[::2]
                if t.isdigit())
    if query:
        ids += tuple(("?", t) for t in _SPLIT.split(query)[::2] if t.isdigit())
    if not ids:
        return None
    return (scheme, host, len(segments), ids)


def _slug_marker(u: str, v: str) -> tuple[str, str] | None:
    """The language marker of two URLs with translated slugs: the first token where they
    differ, from the start or else from the end, when both are code-like (``en``/``fr``)."""
    a, b = _SPLIT.split(u)[::2], _SPLIT.split(v)[::2]
    for aligned in (zip(a, b), zip(reversed(a), reversed(b))):
        for ta, tb in aligned:
            if ta != tb:
                if 0 < len(ta) <= _CODE_LEN and 0 < len(tb) <= _CODE_LEN:
                    return ta, tb
                break
    return None


def _slug_candidates(urls: list[str], ulang: list[int]) -> dict[tuple, list]:
    """Translated slugs sharing ids, found without a base pattern (the ``slug_id`` rule).

    Inverted index keyed by the id signature (host, path depth, ids with their segment, in
    the path or the query): a key carried by exactly one URL of each of two languages is a
    candidate when the two URLs also differ by a code-like language marker (``/en/`` ↔
    ``/fr/``, ``lang=en`` ↔ ``lang=fr``), which is the pattern's identity. Departure (the
    paper needs one differing token): it lets ``/en/news/12/green-energy`` ↔
    ``/fr/nouvelles/12/energie-verte`` pair on a site where every slug is translated; the
    marker requirement keeps per-language id spaces (French 12 ≠ English 12) from pairing
    unless a marker recurs, and these candidates compete after every other kind.
    """
    index: dict[tuple, list] = defaultdict(list)
    for g, url in enumerate(urls):
        if ulang[g] >= 0:
            sig = _id_signature(url)
            if sig is not None:
                index[sig].append(g)
    cands: dict[tuple, list] = defaultdict(list)
    for bucket in index.values():
        if len(bucket) < 2:
            continue
        by_lang: dict[int, list[int]] = defaultdict(list)
        for g in bucket:
            by_lang[ulang[g]].append(g)
        present = sorted(by_lang)
        for k, la in enumerate(present):
            for lb in present[k + 1:]:
                if len(by_lang[la]) == 1 and len(by_lang[lb]) == 1:
                    g1, g2 = by_lang[la][0], by_lang[lb][0]
                    m = _slug_marker(urls[g1], urls[g2])
                    if m is not None:
                        cands[(la, m[0], lb, m[1], SLUG_ID)].append(
                            (g1, g2, (SLUG_ID, "", "", "")))
    return cands


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
    """URL-only pairing of many sites: per-site patterns, cross-site C(p) rescue (seed 003 §2.1).

    1. Learn each site from its labelled URLs and record it in the pattern DB.
    2. Give unlabelled URLs a language: the site's own patterns, else patterns with C(p) above the
       rescue threshold from any site, else (URL-only input has no language ID, unlike the
       paper) a token equal to a language code of ``langs`` (``/en/``, ``-fr``, ``lang=en``).
    3. Re-learn every site with all URLs, record it, and learn once more so that every site's
       weak keys are judged against the C(p) of all sites (small sites get rescued).
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
            lr = learner().fit(group(items))
            db.update(site, lr.patterns_, lr.site_size_)
            learners[site] = lr
    # 2. languages for unlabelled URLs
    global_voter = _LanguageVoter()
    for d in db.strong_patterns(rescue_threshold):
        if d["lang1"] in langs and d["lang2"] in langs:
            global_voter.add(d["lang1"], d["token1"], d["lang2"], d["token2"], d["contexts"],
                             d["global_credibility"])
    codes = {lang.lower(): lang for lang in langs}
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
    for site, items in by_site.items():
        lr = learner().fit(group(items))
        db.update(site, lr.patterns_, lr.site_size_)
    out: list[tuple[str, str]] = []
    rescued = 0
    for n, (site, items) in enumerate(by_site.items(), 1):
        if n % 1000 == 0:
            logger.info("urlpairs: paired %d of %d sites", n, len(by_site))
        lr = learner().fit(group(items))
        db.update(site, lr.patterns_, lr.site_size_)
        rescued += sum(1 for p in lr.patterns_ if p.rescued)
        for pair in lr.pairs():
            if (pair.lang_1, pair.lang_2) == langs[:2]:
                out.append((pair.url_1, pair.url_2))
    logger.info("urlpairs: %d pairs (%d rescued weak keys)", len(out), rescued)
    return out


def _code_vote(url: str, codes: dict[str, str]) -> str | None:
    found = {codes[t.lower()] for t in _SPLIT.split(url)[2::2] if t.lower() in codes}
    return found.pop() if len(found) == 1 else None
