"""Where a pair is decided: page records in, 1-1 page pairs out.

The closing pipeline of a crawl and ``scrapy align`` both call :func:`align_site`.
Per language pair (the first language of ``langs`` with each other one):

1. known pairs: URL patterns (Zhang, Yao & Kit), ``hreflang``, the entrance (the one
   link between the two languages' pages), parallel links (Shi et al. 2006);
2. every page seen without its language's template (``pages/template.py``);
3. candidates = known pairs + pairs proposed by shared rare evidence and cheap filters
   (``candidates.py``);
4. STRAND features and the structural EM model (Assylbekov et al.) give P(parallel);
5. LSI trained on the site's known and confident pairs gives content similarity
   (Germann 2016), and each page's nearest pages in the LSI space join the candidates;
6. internal similarity = λ·content + (1−λ)·structure (Liu et al. eq. 2), times the
   pair's share of the rare evidence its pages share (``anchors.py``), known evidence as
   a floor;
7. ETS over the content's link graph (Liu et al. Algorithms 1–2); steps 5–7 run twice,
   the first round's pairs teaching the second's LSI space;
8. the 1-1 decision: proven pairs first, then a global assignment with a margin
   (``extract.assignment``), not Liu et al.'s greedy Algorithm 3.

Before any of it, :func:`~bitextcrawl.pages.site.canonical_pages` makes the site's
records one per content, with every URL resolved through redirects and duplicates.
Each stage is one function below, adding to an explicit :class:`Evidence` object, so
that later stages see what earlier ones proved: proven pairs (credible URL pattern,
mutual hreflang) leave the extraction only to a rival with stronger evidence.

``stages`` switches stages off for the ablation benchmark.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from bitextcrawl.pages.compact import FullRecords
from bitextcrawl.pages.language import CJK_CHARS, LanguageIdentifier, base_lang
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.site import CONFIDENT, GUESSED, SitePages, canonical_pages
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.pages.template import SiteTemplate
from bitextcrawl.pages.variants import page_lang
from bitextcrawl.pairing.anchors import anchor_overlaps
from bitextcrawl.pairing.candidates import candidate_pairs, passes_cheap_filters
from bitextcrawl.pairing.ets import ETS, build_site_graph, internal_similarity
from bitextcrawl.pairing.extract import one_to_one_with_evidence
from bitextcrawl.pairing.lsi import LSIModel, lexicon_similarity, load_lexicon
from bitextcrawl.pairing.parallel_links import (
    PARALLEL_LINK_SOURCE,
    link_evidence,
    parallel_link_pairs,
)
from bitextcrawl.pairing.structural_em import StructuralEM
from bitextcrawl.pairing.structure import pair_features_matrix
from bitextcrawl.pairing.url_patterns import FLOOR_KINDS, UrlPatternLearner

logger = logging.getLogger(__name__)

ALL_STAGES = ("url_pattern", "hreflang", "entrance", "parallel_link", "structure", "content",
              "anchors", "ets")
# Known evidence (URL pattern, mutual hreflang) is a floor on internal similarity:
# strong, but ETS can still prefer a better-supported rival ([Liu 2014] gives it no bypass).
KNOWN_EVIDENCE_FLOOR = 0.9
ONE_WAY_HREFLANG = 0.75
# Rounds of content, ETS and the 1-1 decision: the second one's LSI space is taught by the
# pairs the first one chose.
CONTENT_ROUNDS = 2
# Structural pairs confident enough to teach the site's LSI space.
LSI_TRAINING_PROBABILITY = 0.99
LSI_MAX_TRAINING_PAIRS = 2000


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


def competitive(cands, proba: np.ndarray, llr: np.ndarray) -> np.ndarray:
    """P(parallel) discounted by how much less likely a pair is than its best rival.

    Rule (17) saturates at P ≈ 1 for every page built on the site's template, so P alone
    cannot tell a page's counterpart from its look-alikes. A page has one counterpart at
    most; among its candidates the posterior of each is proportional to its likelihood
    ratio, so each pair keeps P·exp(llr − max llr over the candidates of either page).
    """
    best1: dict[str, float] = {}
    best2: dict[str, float] = {}
    for (u1, u2), v in zip(cands, llr):
        if v > best1.get(u1, -np.inf):
            best1[u1] = v
        if v > best2.get(u2, -np.inf):
            best2[u2] = v
    best = np.array([max(best1[u1], best2[u2]) for u1, u2 in cands])
    return proba * np.exp(np.clip(llr - best, -50.0, 0.0))


def rival_ratio(cands, values: np.ndarray) -> np.ndarray:
    """Each pair's value over the best value among the candidates of either of its pages
    (1 where that best is 0: no evidence either way)."""
    best1: dict[str, float] = {}
    best2: dict[str, float] = {}
    for (u1, u2), v in zip(cands, values):
        best1[u1] = max(best1.get(u1, 0.0), v)
        best2[u2] = max(best2.get(u2, 0.0), v)
    best = np.array([max(best1[u1], best2[u2]) for u1, u2 in cands])
    out = np.ones(len(cands))
    ok = best > 0
    out[ok] = np.asarray(values, dtype=float)[ok] / best[ok]
    return out


def mutual_best(scored) -> set[tuple[str, str]]:
    """Pairs that are each other's best-scoring candidate."""
    best1: dict[str, tuple[float, str]] = {}
    best2: dict[str, tuple[float, str]] = {}
    for u1, u2, s in scored:
        if s > best1.get(u1, (-np.inf, ""))[0]:
            best1[u1] = (s, u2)
        if s > best2.get(u2, (-np.inf, ""))[0]:
            best2[u2] = (s, u1)
    return {(u1, u2) for u1, (_, u2) in best1.items() if best2.get(u2, (0, ""))[1] == u1}


def content_candidates(lsi: LSIModel, pages1: dict, pages2: dict, cands: list, known: list,
                       training: list, top_k: int) -> list[tuple[str, str]]:
    """Pairs of each page with its ``top_k`` nearest pages in the site's LSI space [Germann 2016], not yet candidates.

    [Germann 2016] compares every page of a site with every other; the cheap candidate
    filters (``candidates.py``) only see shared numbers, images, links and lengths,
    so on a site whose translations share none of them a page's counterpart can be
    missing from its candidates. Pages of a settled pair (``known``: URL pattern,
    hreflang, parallel links found twice or more) are left alone; the length and chunk
    filters still apply (â from the LSI training pairs).
    """
    if lsi.mode_ != "lsi" or top_k <= 0:
        return []
    urls1, urls2 = list(pages1), list(pages2)
    in_known1 = {a for a, _ in known}
    in_known2 = {b for _, b in known}
    rows1 = [i for i, u in enumerate(urls1) if u not in in_known1]
    rows2 = [j for j, u in enumerate(urls2) if u not in in_known2]
    near = lsi.nearest_pairs([p.text for p in pages1.values()], [p.text for p in pages2.values()],
                             top_k, rows1=rows1, rows2=rows2)
    have = set(cands)
    fresh = sorted((i, j) for i, j, _ in near if (urls1[i], urls2[j]) not in have)
    idx1 = {u: i for i, u in enumerate(urls1)}
    idx2 = {u: i for i, u in enumerate(urls2)}
    ok = passes_cheap_filters(list(pages1.values()), list(pages2.values()), fresh,
                              [(idx1[a], idx2[b]) for a, b in training])
    return [(urls1[i], urls2[j]) for (i, j), keep in zip(fresh, ok) if keep]


def _timed(result: AlignResult, name: str, start: float) -> None:
    result.timings[name] = round(result.timings.get(name, 0.0) + time.perf_counter() - start, 3)


@dataclass
class _Scores:
    """Candidate pairs of one language pair and their per-stage scores (aligned arrays)."""

    cands: list
    X: np.ndarray
    llr: np.ndarray
    p_struct: np.ndarray
    content: np.ndarray
    em: object = None
    anchor: np.ndarray | None = None
    p_raw: np.ndarray | None = None     # rule (17)'s P(parallel), before rivals

    def extend(self, new: list, strand1: dict, strand2: dict) -> None:
        self.cands = self.cands + new
        self.X = np.vstack([self.X, pair_features_matrix(strand1, strand2, new)])
        if self.em is not None:
            self.llr = self.em.log_likelihood_ratio(self.X)
            self.p_raw = self.em.predict_proba(self.X)
            self.p_struct = competitive(self.cands, self.p_raw, self.llr)
        else:
            self.llr, self.p_struct = np.zeros(len(self.cands)), np.zeros(len(self.cands))


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


def internal_scores(scores: _Scores, stages: set, lam: float) -> dict:
    """Internal similarity (Liu et al., eq. 2), λ·content + (1 − λ)·structure, times
    the pair's share of the rare evidence its pages share with their candidates.

    Structure is rule (17)'s P(parallel) of the pages without their template
    (``pages.template``). Discounted by rivals (:func:`competitive`) it lost a third of
    the true pairs of short real pages, whose siblings' likelihood ratios are higher than
    their translations' (outdated translations have other blocks); here the rivals are
    weighed by content, by rare evidence and by the 1-1 decision.

    The evidence is what translation leaves alone (names, identifiers, code, outside
    links; ``anchors.py``), weighted by how rare it is on the site, relative to the best
    such overlap among the rivals of either page (:func:`rival_ratio`): a sibling of one
    template shares fewer identifiers with a page than its translation does, and a page
    whose candidates all share nothing (prose) keeps its internal similarity. Departure
    from Liu et al., whose eq. 2 has only content and structure: on short pages of one
    template both tie between a page's translation and its siblings.
    """
    content = ({pair: v for pair, v in zip(scores.cands, scores.content)}
               if "content" in stages else {})
    # Where content or rare evidence weigh a page's rivals, structure says how parallel a
    # pair is (rule (17)); alone, it weighs the rivals itself (:func:`competitive`).
    alone = not ({"content", "anchors"} & stages)
    p = scores.p_struct if alone else scores.p_raw
    if p is not None and scores.anchor is not None:
        # rare evidence that vouches for a pair overrules structure's "not parallel"
        p = np.where(anchor_vouched(scores), 1.0, p)
    structure = ({pair: v for pair, v in zip(scores.cands, p)}
                 if "structure" in stages and p is not None else {})
    internal = internal_similarity(scores.cands, content, structure, lam=lam,
                                   max_size_ratio=None)
    if scores.anchor is None:
        return internal
    share = rival_ratio(scores.cands, scores.anchor)
    return {pair: v * r for (pair, v), r in zip(internal.items(), share)}


def structure_stage(cands: list, strand1: dict, strand2: dict, use: bool, result: AlignResult,
                    key: str) -> _Scores:
    """[Assylbekov 2015]: STRAND features and the unsupervised structural model (Algorithm 1)."""
    X = pair_features_matrix(strand1, strand2, cands)
    scores = _Scores(cands, X, np.zeros(len(cands)), np.zeros(len(cands)), np.zeros(len(cands)))
    if use:
        # Several starts (the paper's and two from the data), the best likelihood (16) kept.
        em = StructuralEM(init="best").fit(X)
        scores.em = em
        scores.llr = em.log_likelihood_ratio(X)
        scores.p_raw = em.predict_proba(X)
        scores.p_struct = competitive(cands, scores.p_raw, scores.llr)
        report = em.report()
        result.models.setdefault(key, {})["structural_em"] = report
        result.counts[f"bitext/align/{key}/structural_em_degenerate"] = int(report["degenerate"])
    return scores


def content_stage(scores: _Scores, settled: list, pages1: dict, pages2: dict,
                  strand1: dict, strand2: dict, config: AlignConfig, result: AlignResult,
                  key: str, lexicon=None, use_structure: bool = True) -> None:
    """[Germann 2016]: LSI trained on the site's settled and confidently structural pairs; each
    page's nearest pages in the LSI space join the candidates (scored by structure too)."""
    train = set(settled)
    if use_structure:
        # Rule (17) is permissive on one-template sites: only mutual-best pairs by
        # log-likelihood ratio, among the confident ones, teach the LSI space.
        confident = [(a, b, float(v)) for (a, b), p, v in
                     zip(scores.cands, scores.p_struct, scores.llr)
                     if p >= LSI_TRAINING_PROBABILITY]
        train.update(mutual_best(confident))
    training = sorted(train)
    if len(training) > LSI_MAX_TRAINING_PAIRS:
        # A rank-100 space is learned from a couple of thousand pairs; more only make
        # the SVD slower (the cost grew 25x for 10x pages before this cap).
        step = len(training) / LSI_MAX_TRAINING_PAIRS
        training = [training[int(i * step)] for i in range(LSI_MAX_TRAINING_PAIRS)]
    texts1 = [p.text for p in pages1.values()]
    texts2 = [p.text for p in pages2.values()]
    lsi = LSIModel().fit([(pages1[a].text, pages2[b].text) for a, b in training],
                         texts1 + texts2)
    new = content_candidates(lsi, pages1, pages2, scores.cands, settled, training,
                             config.content_top_k)
    result.counts[f"bitext/align/{key}/content_candidates"] = len(new)
    if new:
        scores.extend(new, strand1, strand2)
    idx1 = {u: i for i, u in enumerate(pages1)}
    idx2 = {u: i for i, u in enumerate(pages2)}
    content = np.asarray(lsi.pair_similarities(
        texts1, texts2, [(idx1[a], idx2[b]) for a, b in scores.cands]), dtype=float)
    content = np.clip(content, 0.0, 1.0)
    if lexicon:
        lex = np.array([lexicon_similarity(pages1[a].text, pages2[b].text, lexicon)
                        for a, b in scores.cands])
        content = 0.5 * content + 0.5 * lex
    scores.content = content
    result.models.setdefault(key, {})["lsi"] = lsi.report()
    result.counts[f"bitext/align/{key}/lsi_training_pairs"] = len(train)


# Rule (17) of [Assylbekov 2015] marks look-alikes parallel; when even it says "not parallel",
# content alone does not make a pair.
STRUCTURE_REJECTS_BELOW = 0.5


def structure_rejects(scores: _Scores, evidence: Evidence) -> set:
    """Pairs without known evidence that the structural model rejects: P(parallel) < 0.5
    by rule (17), before rivals are weighed.

    Departure from [Liu 2014]'s eq. 2, a weighted sum in which content ≥ 0.83 alone passes
    T_min: the LSI space of a real site is learned from a few dozen pairs (19 on nginx.org's
    Italian side), and between short or unrelated pages its cosine is near 1 (the 404 page
    and a Russian module page: 0.99; an Italian page with no English original and an
    English one on another subject: 0.89). On WET, nginx.org and the lett file every such
    pair was wrong; on generated sites where translations share nothing but words no true
    pair is lost (``bench/bench_align.py --ablation``). (Rejecting also pairs a rival makes
    100 times likelier would remove two more wrong pairs on opaque nginx.org, and 5 of 164
    true pairs on the generated anchorless site: not done.)
    """
    known = evidence.known()
    vouched = anchor_vouched(scores)
    return {pair for pair, raw, v in zip(scores.cands, scores.p_raw, vouched)
            if pair not in known and raw < STRUCTURE_REJECTS_BELOW and not v}


# Shared rare evidence (``anchors.py``) of at least this overlap, where it is the best of
# both pages' candidates, outweighs a structural "not parallel": an outdated translation
# has another number of blocks than its original, and still the same commands, names and
# outside links. (Wrong pairs' overlap: 90% under 0.05-0.12 on the real sites.)
ANCHOR_VOUCHES = 0.15


def anchor_vouched(scores: _Scores) -> np.ndarray:
    """Per candidate: its pages share more rare evidence with each other than with any
    other candidate, by at least :data:`ANCHOR_VOUCHES`."""
    if scores.anchor is None:
        return np.zeros(len(scores.cands), dtype=bool)
    return (scores.anchor >= ANCHOR_VOUCHES) & (rival_ratio(scores.cands, scores.anchor) >= 1.0)


def marked_untranslated(cands, pages1: dict, pages2: dict, l1: str, l2: str,
                        evidence: Evidence) -> set:
    """Pairs without known evidence one of whose pages says, in its language switch, that
    the other language has no version of it (a language named there without a link).

    Not in the seeds: the site's own word outranks a similarity. On nginx.org an Italian
    page with no English original (``<a class="notrans">english</a>`` in its switch bar)
    was paired with an English page on another subject at 0.91: the LSI space of 19 pairs
    and the shared template said yes, and nothing the papers model said no.
    """
    known = evidence.known()
    langs = (l1, l2)
    return {(a, b) for a, b in cands if (a, b) not in known
            and (l2 in page_named_unlinked(pages1[a], langs)
                 or l1 in page_named_unlinked(pages2[b], langs))}


# A pair is kept where no other way of pairing its pages comes within this of it
# (``extract.assignment``): look-alike pages nothing tells apart give no pair.
DECISION_MARGIN = 1e-3


def neighbours_rank(final: dict, internal: dict) -> dict:
    """ETS where the neighbours decide between rivals; the internal similarity where they
    only disagree with a pair nothing rivals.

    Departure from Liu et al., whose eq. 1 lets the neighbours lower any pair: a page
    whose translation links one page fewer (an outdated translation, a "see also" line
    left out) has near-certain internal similarity and falls under T_min, though no other
    page comes near it. Here a pair that is the best of both its pages by ETS keeps at
    least its internal similarity; between rivals, ETS decides as in the paper.
    """
    best1: dict = {}
    best2: dict = {}
    for (a, b), v in final.items():
        if v > best1.get(a, (-1.0, None))[0]:
            best1[a] = (v, b)
        if v > best2.get(b, (-1.0, None))[0]:
            best2[b] = (v, a)
    return {(a, b): max(v, internal.get((a, b), 0.0))
            if best1[a][1] == b and best2[b][1] == a else v for (a, b), v in final.items()}


def ets_stage(scores: _Scores, internal: dict, evidence: Evidence, graph, use: bool,
              config: AlignConfig, result: AlignResult, key: str, untranslated: set):
    """[Liu 2014 Algorithms 1-3] (or Algorithm 3 alone on the internal similarity), with the
    proven pairs extracted first (:func:`~bitextcrawl.pairing.extract.one_to_one_with_evidence`)."""
    if use:
        ets = ETS(n_iter=config.ets_iterations, threshold=config.threshold).fit(
            scores.cands, internal, graph)
        final = ets.scores_
        result.models.setdefault(key, {})["ets"] = ets.report()
    else:
        final = internal
    proven = evidence.proven()
    # A proven pair's score says what its evidence says, whatever its neighbours do.
    final = {k: max(v, KNOWN_EVIDENCE_FLOOR * proven[k]) if k in proven else v
             for k, v in final.items()}
    rejected = structure_rejects(scores, evidence) if scores.em is not None else set()
    final = {k: v for k, v in final.items() if k not in rejected and k not in untranslated}
    if use:
        final = neighbours_rank(final, internal)
    result.counts[f"bitext/align/{key}/structure_rejected"] = len(rejected)
    result.counts[f"bitext/align/{key}/marked_untranslated"] = len(untranslated)
    chosen = one_to_one_with_evidence(((a, b, s) for (a, b), s in final.items()),
                                      proven, config.threshold, margin=DECISION_MARGIN)
    result.counts[f"bitext/align/{key}/proven_pairs"] = len(proven)
    result.counts[f"bitext/align/{key}/proven_kept"] = sum((a, b) in proven
                                                            for a, b, _ in chosen)
    return chosen, final


# Rejected candidates kept for the report, per language pair: a bounded list.
REJECTED_KEPT = 10


def best_rejected(final: dict, chosen, threshold: float, n: int = REJECTED_KEPT) -> list[dict]:
    """The ``n`` best-scored candidates not kept, and why: ``below_threshold``, or
    ``rival`` (a page of it went to a better pair under the 1-1 rule)."""
    used = {u for a, b, _ in chosen for u in (a, b)}
    kept = {(a, b) for a, b, _ in chosen}
    rest = sorted(((s, a, b) for (a, b), s in final.items() if (a, b) not in kept),
                  key=lambda x: (-x[0], x[1], x[2]))[:n]
    return [{"url_1": a, "url_2": b, "score": round(float(s), 4),
             "why": "rival" if (a in used or b in used) and s >= threshold
             else "below_threshold"} for s, a, b in rest]


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


def _pair_record(u1: str, u2: str, score: float, l1: str, l2: str, scores: _Scores, i: int,
                 evidence: Evidence, internal: dict, final: dict, stages: set) -> Pair:
    """A chosen pair with the sources and features it was decided on."""
    w, m, n, l1_len, l2_len = (int(v) for v in scores.X[i])
    sources = evidence.sources((u1, u2))
    if scores.p_struct[i] >= 0.5:
        sources.append("structure")
    if "content" in stages and scores.content[i] >= 0.5:
        sources.append("content")
    if "ets" in stages:
        sources.append("ets")
    features = {
        "w": w, "m": m, "n": n, "l1": l1_len, "l2": l2_len,
        "p_structure": round(float(scores.p_struct[i]), 4),
        "llr": round(float(scores.llr[i]), 3),
        "content": round(float(scores.content[i]), 4),
        "internal": round(internal[(u1, u2)], 4),
        "ets": round(float(final.get((u1, u2), score)), 4),
    }
    if scores.anchor is not None:
        features["anchor"] = round(float(scores.anchor[i]), 4)
    if (u1, u2) in evidence.url_pattern:
        features["pattern"] = evidence.url_pattern[(u1, u2)][1]
    if (u1, u2) in evidence.parallel_link:
        features["parallel_links"] = evidence.parallel_link[(u1, u2)]
    return Pair(u1, u2, l1, l2, min(1.0, max(0.0, float(score))), sources, features)


def align_language_pair(site: SitePages, l1: str, l2: str, config: AlignConfig,
                        result: AlignResult, pattern_db=None, graph=None,
                        lexicon=None, load=None, template=None) -> list[Pair]:
    """Every stage for one language pair of one site, in the order of the module docstring."""
    stages = set(config.stages)
    key = f"{l1}-{l2}"
    pages1 = {p.url: p for p in site.pages if p.lang == l1}
    pages2 = {p.url: p for p in site.pages if p.lang == l2}
    result.counts[f"bitext/align/{key}/pages_1"] = len(pages1)
    result.counts[f"bitext/align/{key}/pages_2"] = len(pages2)
    if not pages1 or not pages2:
        return []
    evidence = known_evidence(pages1, pages2, l1, l2, site, config, result, pattern_db, load)
    known = evidence.known()
    settled = evidence.settled()
    # Structure, content and the candidate filters compare the pages without the template.
    template = template or SiteTemplate().fit(site.pages)
    pages1, pages2 = template.views(pages1), template.views(pages2)

    t = time.perf_counter()
    # Pages of a settled pair get no other candidates; a single parallel-link proposal
    # (evidence 0.5) is a guess, and its pages keep their own candidates.
    cands = candidate_pairs(list(pages1.values()), list(pages2.values()),
                            known_pairs=settled, top_k=config.top_k)
    have = set(cands)
    cands += sorted(k for k in known if k not in have)
    _timed(result, "candidates", t)
    result.counts[f"bitext/align/{key}/candidates"] = len(cands)
    if not cands:
        return []

    t = time.perf_counter()
    strand1 = {u: p.strand for u, p in pages1.items()}
    strand2 = {u: p.strand for u, p in pages2.items()}
    scores = structure_stage(cands, strand1, strand2, "structure" in stages, result, key)
    _timed(result, "structure", t)

    if "ets" in stages and graph is None:
        graph = build_site_graph(site.pages, links=template.content_links)
    chosen: list = []
    for _ in range(CONTENT_ROUNDS if "content" in stages else 1):
        # Round 2: the pairs round 1 chose teach the site's LSI space too (Germann 2016
        # trains it on the site's known pairs; on a site without URL evidence the pairs
        # the other evidence agrees on are the known pairs there are).
        taught = sorted(set(settled) | {(a, b) for a, b, s in chosen if s >= config.threshold})
        t = time.perf_counter()
        if "content" in stages:
            content_stage(scores, taught, pages1, pages2, strand1, strand2, config, result,
                          key, lexicon, use_structure="structure" in stages)
        _timed(result, "content", t)
        if "anchors" in stages:
            scores.anchor = anchor_overlaps(pages1, pages2, scores.cands)
        internal = internal_scores(scores, stages, config.lam)
        internal = {k: max(v, KNOWN_EVIDENCE_FLOOR * known[k]) if k in known else v
                    for k, v in internal.items()}
        t = time.perf_counter()
        untranslated = marked_untranslated(scores.cands, pages1, pages2, l1, l2, evidence)
        chosen, final = ets_stage(scores, internal, evidence, graph, "ets" in stages, config,
                                  result, key, untranslated)
        _timed(result, "ets", t)
    if scores.em is not None:
        result.em_points[key] = (scores.X[:, 1].tolist(), scores.X[:, 2].tolist(),
                                 scores.p_struct.tolist())

    result.scores[key] = sorted(round(float(v), 4) for v in final.values())
    result.rejected[key] = best_rejected(final, chosen, config.threshold)
    index = {pair: i for i, pair in enumerate(scores.cands)}
    out = [_pair_record(u1, u2, score, l1, l2, scores, index[(u1, u2)], evidence, internal,
                        final, stages) for u1, u2, score in chosen]
    result.counts[f"bitext/align/{key}/pairs"] = len(out)
    return out


# What a language ID reads of a page of lists: words, not identifiers, paths or numbers.
_IDENTIFIER = re.compile(r"[_$\d/\\.:=<>{}()\[\]@#%&|*]")


# Scripts written without spaces between words (and Thai): one "word" of them is a phrase.
_UNSEGMENTED = re.compile("[" + CJK_CHARS + "\u0e00-\u0e7f]")


def prose(text: str) -> str:
    """The words of a text that are prose: tokens without identifier characters, from
    lines that keep more than one such word (a line of one word is an entry of a list, a
    name: ``deny`` in an index of directives). In scripts written without spaces one
    token is a phrase and is kept."""
    out = []
    for line in text.split("\n"):
        words = [w for w in line.split() if not _IDENTIFIER.search(w)]
        if len(words) > 1 or (words and _UNSEGMENTED.search(words[0])):
            out.extend(words)
    return " ".join(out)


# A language the site is written in: this many of its pages are surely in it.
SITE_LANGUAGE_PAGES = 3


def settle_unsure_languages(site: SitePages, template: SiteTemplate, lid_model: str = "",
                            confident: float = CONFIDENT, langs=()) -> int:
    """Pages fastText was unsure of (p < ``confident``, no declaration decided) read again
    without their site's template and without identifiers: an index of directive names
    under a Russian heading, in a frame whose banner is English, is Russian. Relabelled
    where the second reading is surer than the first, into the language ``langs`` counts
    it as (a variant its declarations name, else the base language); how many were."""
    unsure = [i for i, p in enumerate(site.pages)
              if p.lang_method in GUESSED and p.lang_prob < confident and p.text]
    if not unsure:
        return 0
    # A second reading of a few words can name any language (a command page's prose,
    # "az config get", reads as Hungarian): it may name one the site is written in only.
    sure = Counter(base_lang(p.lang) for p in site.pages if p.lang_prob >= confident)
    site_langs = {lang for lang, n in sure.items() if n >= SITE_LANGUAGE_PAGES}
    lid = LanguageIdentifier(lid_model or None)
    n = 0
    for i in unsure:
        page = site.pages[i]
        lang, prob = lid.predict(f"{page.title}\n{prose(template.text(page))}")
        if lang in site_langs and lang != base_lang(page.lang) and prob > page.lang_prob:
            page = dataclasses.replace(page, lang=lang, lang_prob=round(prob, 4),
                                       lang_method="content")
            site.pages[i] = dataclasses.replace(page, lang=page_lang(page, langs))
            n += 1
    return n


def align_site(pages: list[PageRecord], config: AlignConfig, pattern_db=None,
               redirects: dict | None = None, load=None) -> AlignResult:
    """All language pairs of one site's pages; each URL in at most one pair per language pair.

    ``redirects`` (requested URL -> target) resolve URLs the way the crawl saw them.
    ``load(urls) -> {url: record}`` reads full records where ``pages`` are compact
    (:mod:`~bitextcrawl.pages.compact`: no HTML); None: ``pages`` carry their HTML."""
    result = AlignResult()
    langs = config.langs
    site = canonical_pages(pages, redirects=redirects, langs=langs)
    result.counts["bitext/align/site_pages"] = site.size
    result.counts["bitext/align/duplicates"] = site.duplicates
    result.counts["bitext/align/lang_from_url_token"] = site.relabelled
    result.counts["bitext/align/lang_variant"] = site.variants
    lexicon = load_lexicon(config.lexicon_path) if config.lexicon_path else None
    template = SiteTemplate().fit(site.pages)
    relabelled = settle_unsure_languages(site, template, config.lid_model, langs=langs)
    result.counts["bitext/align/lang_from_content"] = relabelled
    if relabelled:
        template = SiteTemplate().fit(site.pages)
    # ETS's neighbours are the pages linked from the content, not from the template
    graph = (build_site_graph(site.pages, links=template.content_links)
             if "ets" in config.stages else None)
    for other in langs[1:]:
        logger.info("Aligning %s-%s pages", langs[0], other)
        result.pairs.extend(align_language_pair(site, langs[0], other, config, result,
                                                pattern_db=pattern_db, graph=graph,
                                                lexicon=lexicon, load=load,
                                                template=template))
    if pattern_db is not None and result.learned_patterns and site.pages:
        # One entry per site: PatternDB.update replaces a site's entry, so all language
        # pairs' patterns go in together, with the same |w| their C(p,w) used.
        pattern_db.update(site.pages[0].site, result.learned_patterns, site_size=site.size)
    result.counts["bitext/align/pairs"] = len(result.pairs)
    return result
