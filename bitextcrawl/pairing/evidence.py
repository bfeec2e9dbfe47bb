"""What a language pair's alignment knows before any model, and the types its stages share:
the configuration (:class:`AlignConfig`), the known evidence stage by stage
(:class:`Evidence`: URL patterns [Zhang 2013], ``hreflang``, the entrance, parallel links
[Shi 2006 §3]), a decided :class:`Pair`, a site's :class:`AlignResult`."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from bitextcrawl.pages.compact import FullRecords
from bitextcrawl.pages.site import SitePages
from bitextcrawl.pairing.parallel_links import (
    PARALLEL_LINK_SOURCE,
    link_evidence,
    parallel_link_pairs,
)
from bitextcrawl.pairing.url_patterns import FLOOR_KINDS, UrlPatternLearner

ALL_STAGES = ("url_pattern", "hreflang", "entrance", "parallel_link", "structure", "content",
              "anchors", "ets")
# Known evidence (URL pattern, mutual hreflang) is a floor on internal similarity:
# strong, but ETS can still prefer a better-supported rival ([Liu 2014] gives it no bypass).
KNOWN_EVIDENCE_FLOOR = 0.9
ONE_WAY_HREFLANG = 0.75


@dataclass
class AlignConfig:
    langs: tuple
    threshold: float = 0.5
    ets_iterations: int = 3
    lam: float = 0.6            # λ of [Liu 2014 eq. 2] (the paper's best value)
    top_k: int = 10
    content_top_k: int = 5
    pattern_local_threshold: float = 0.1
    pattern_rescue_threshold: float = 500.0
    lexicon_path: str = ""
    lid_model: str = ""                # fastText model (BITEXT_LID_MODEL; default lid.176)
    stages: tuple = ALL_STAGES
    sentence_lang_check: bool = True   # bitext rows: each side read as its language
    compress: bool = False             # .gz outputs

    @classmethod
    def from_settings(cls, settings, langs, **overrides) -> "AlignConfig":
        """The ``BITEXT_`` settings that shape the alignment (any object with ``getfloat``…)."""
        values = dict(langs=tuple(langs), threshold=settings.getfloat("BITEXT_PAIR_THRESHOLD"),
                      ets_iterations=settings.getint("BITEXT_ETS_ITERATIONS"),
                      pattern_local_threshold=settings.getfloat("BITEXT_PATTERN_LOCAL_THRESHOLD"),
                      pattern_rescue_threshold=settings.getfloat(
                          "BITEXT_PATTERN_RESCUE_THRESHOLD"),
                      lexicon_path=settings.get("BITEXT_LEXICON") or "",
                      lid_model=settings.get("BITEXT_LID_MODEL") or "",
                      sentence_lang_check=settings.getbool("BITEXT_SENTENCE_LANG_CHECK_ENABLED", True),
                      compress=settings.getbool("BITEXT_COMPRESS_ENABLED", False))
        values.update(overrides)
        return cls(**values)


@dataclass
class Evidence:
    """What the stages found about the pairs of one language pair, stage by stage."""

    url_pattern: dict = field(default_factory=dict)    # pair -> (score, pattern id, kind)
    hreflang: dict = field(default_factory=dict)       # pair -> 1.0 mutual, 0.75 one-way
    entrance: dict = field(default_factory=dict)       # pair -> 1.0 both ways, 0.75 one way
    parallel_link: dict = field(default_factory=dict)  # pair -> distinct pairs proposing it

    def known(self) -> dict:
        """pair -> strength of its strongest known evidence (the floor of eq. 2 below)."""
        out = {k: s for k, (s, _, _) in self.url_pattern.items()}
        for k, s in (*self.hreflang.items(), *self.entrance.items()):
            out[k] = max(out.get(k, 0.0), s)
        for k, n in self.parallel_link.items():
            out[k] = max(out.get(k, 0.0), link_evidence(n))
        return out

    def settled(self) -> list:
        """Pairs strong enough to keep their pages out of other candidates and to teach LSI."""
        return sorted(k for k, v in self.known().items() if v >= ONE_WAY_HREFLANG)

    def proven(self) -> dict:
        """pair -> strength, for pairs only a stronger rival may undo: a credible token or
        id-marker URL pattern, a mutual hreflang. (Slug ids, translated segments around an
        id, and one-way declarations are floors, not proofs.)"""
        out = {k: s for k, (s, _, kind) in self.url_pattern.items() if kind not in FLOOR_KINDS}
        for k, s in self.hreflang.items():
            if s >= 1.0:
                out[k] = max(out.get(k, 0.0), s)
        return out

    def sources(self, pair) -> list:
        return [name for name, found in (("url_pattern", self.url_pattern),
                                         ("hreflang", self.hreflang),
                                         ("entrance", self.entrance),
                                         (PARALLEL_LINK_SOURCE, self.parallel_link))
                if pair in found]


@dataclass
class Pair:
    url_1: str
    url_2: str
    lang_1: str
    lang_2: str
    score: float
    sources: list
    features: dict

    def to_dict(self) -> dict:
        return {"url_1": self.url_1, "url_2": self.url_2, "lang_1": self.lang_1,
                "lang_2": self.lang_2, "score": round(float(self.score), 4),
                "sources": self.sources, "features": self.features}


@dataclass
class AlignResult:
    pairs: list = field(default_factory=list)
    patterns: dict = field(default_factory=dict)     # lang pair -> learner report
    models: dict = field(default_factory=dict)       # lang pair -> {structural_em, lsi, ets}
    counts: Counter = field(default_factory=Counter)  # bitext/align/* numbers
    timings: dict = field(default_factory=dict)
    em_points: dict = field(default_factory=dict)    # lang pair -> (m, n, p) arrays for the report
    learned_patterns: list = field(default_factory=list)  # every language pair's, for the DB
    scores: dict = field(default_factory=dict)       # lang pair -> final candidate scores (report)
    rejected: dict = field(default_factory=dict)     # lang pair -> best candidates not kept (report)
    navigation: object = None    # the template the bitext's trees lose (SiteTemplate.navigation)


def hreflang_pairs(pages1: dict, pages2: dict, l1: str, l2: str) -> dict:
    """(url_1, url_2) -> evidence strength, from declared alternates and language toggles.

    Mutual declarations are strong. A one-way declaration counts only where the target
    declares no counterpart of its own: untranslated pages often toggle to the other
    language's home page, whose own toggle points back to the real home page.
    """
    out: dict[tuple[str, str], float] = {}
    for u1, p1 in pages1.items():
        t = p1.hreflang.get(l2)
        if t in pages2:
            back = pages2[t].hreflang.get(l1)
            if back == u1:
                out[(u1, t)] = 1.0
            elif back is None:
                out[(u1, t)] = ONE_WAY_HREFLANG
    for u2, p2 in pages2.items():
        t = p2.hreflang.get(l1)
        if t in pages1 and (t, u2) not in out and pages1[t].hreflang.get(l2) is None:
            out[(t, u2)] = ONE_WAY_HREFLANG
    return out


def entrance_pairs(pages1: dict, pages2: dict) -> dict:
    """(url_1, url_2) -> evidence strength, where the two languages meet at one page each.

    A site without language switches often links its languages only at their home pages
    (a list of languages on each home page, one link from one home to the other). Where
    every link from the pages of one language into the other goes from one page to one
    page, those two are the language's entrances: the same page in both languages. Both
    directions agreeing is strong (as a mutual hreflang); one direction, a floor.
    Not in the papers: Shi et al. 2006 find bilingual sites by such links; here the link
    itself pairs its two ends.
    """
    def entrance(src: dict, dst: dict):
        ends = {(u, link["url"]) for u, p in src.items() for link in p.links or ()
                if link["url"] in dst and link["url"] != u}
        return next(iter(ends)) if len(ends) == 1 else None

    forth = entrance(pages1, pages2)
    back = entrance(pages2, pages1)
    out: dict = {}
    if forth:
        out[forth] = 1.0 if back == forth[::-1] else ONE_WAY_HREFLANG
    if back and back[::-1] not in out:
        out[back[::-1]] = ONE_WAY_HREFLANG
    return out


def _timed(result: AlignResult, name: str, start: float) -> None:
    result.timings[name] = round(result.timings.get(name, 0.0) + time.perf_counter() - start, 3)


def url_pattern_stage(pages1: dict, pages2: dict, l1: str, l2: str, site: SitePages,
                      config: AlignConfig, result: AlignResult, pattern_db=None) -> dict:
    """[Zhang 2013 §2.1]: pairs of credible URL patterns, with |w| = the site's distinct pages."""
    learner = UrlPatternLearner(langs=(l1, l2), local_threshold=config.pattern_local_threshold,
                                rescue_threshold=config.pattern_rescue_threshold,
                                pattern_db=pattern_db)
    learner.fit({l1: list(pages1), l2: list(pages2)}, site_size=site.size,
                token_langs=site.token_langs)
    kinds = {p.id: p.kind for p in learner.patterns_}
    result.patterns[f"{l1}-{l2}"] = learner.report()
    result.learned_patterns.extend(learner.patterns_)
    return {(p.url_1, p.url_2): (p.score, p.pattern, kinds.get(p.pattern, ""))
            for p in learner.pairs()}


def parallel_link_stage(evidence: Evidence, pages1: dict, pages2: dict,
                        resolve: dict, load=None) -> dict:
    """[Shi 2006 §3 steps 3 and 5]: hyperlinks aligned inside known pairs propose more pairs.

    DOM alignment costs about a second per pair on real pages, so this runs only where URL
    and hreflang evidence leave most of the site unpaired. Proposed URLs are resolved
    through redirects and duplicates (the HTML links the URL the site wrote).
    """
    known = evidence.known()
    if not known or len(known) >= 0.5 * min(len(pages1), len(pages2)):
        return {}
    index = {**pages1, **pages2}
    for alias, url in resolve.items():
        if url in index and alias not in index:
            index[alias] = index[url]
    if load is not None:  # compact records: the HTML of a page is read when aligned
        index = FullRecords(index, load)
    found = parallel_link_pairs(sorted(known, key=lambda k: (-known[k], k)), index,
                                recursive=True, max_pairs=200)
    out: dict = {}
    for (a, b), n in found.items():
        key = (resolve.get(a, a), resolve.get(b, b))
        if key[0] in pages1 and key[1] in pages2:
            out[key] = max(out.get(key, 0), n)
    return out


def known_evidence(pages1: dict, pages2: dict, l1: str, l2: str, site: SitePages,
                   config: AlignConfig, result: AlignResult, pattern_db=None,
                   load=None) -> Evidence:
    """Stages 1-3: URL patterns [Zhang 2013], hreflang, parallel links [Shi 2006 §3]."""
    stages = set(config.stages)
    evidence = Evidence()
    t = time.perf_counter()
    if "url_pattern" in stages:
        evidence.url_pattern = url_pattern_stage(pages1, pages2, l1, l2, site, config,
                                                 result, pattern_db)
    _timed(result, "url_patterns", t)
    if "hreflang" in stages:
        evidence.hreflang = hreflang_pairs(pages1, pages2, l1, l2)
    if "entrance" in stages:
        evidence.entrance = entrance_pairs(pages1, pages2)
    if "parallel_link" in stages:
        t = time.perf_counter()
        evidence.parallel_link = parallel_link_stage(evidence, pages1, pages2, site.resolve,
                                                     load)
        _timed(result, "parallel_links", t)
    for name in ("url_pattern", "hreflang", "entrance", "parallel_link"):
        result.counts[f"bitext/align/{l1}-{l2}/{name}_pairs"] = len(getattr(evidence, name))
    return evidence
