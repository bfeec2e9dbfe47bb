"""Where a pair is decided: page records in, 1-1 page pairs out.

The closing pipeline of a crawl and ``scrapy align`` both call :func:`align_site`.
Per language pair (the first language of ``langs`` with each other one):

1. URL patterns (seed 003) and ``hreflang`` give known pairs;
2. candidates = known pairs + pairs proposed by cheap filters (``candidates.py``);
3. STRAND features and the structural EM model (seed 000) give P(parallel);
4. LSI trained on the site's confident pairs gives content similarity (seed 002),
   and each page's nearest pages in the LSI space join the candidates;
5. internal similarity = λ·content + (1−λ)·structure, known evidence as a floor;
6. ETS over the site graph and greedy 1-1 extraction (seed 004, Algorithms 1–3).

``stages`` switches stages off for the ablation benchmark.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from bitextcrawl.bitext.links import PARALLEL_LINK_SOURCE, link_evidence, parallel_link_pairs
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.candidates import candidate_pairs, passes_cheap_filters
from bitextcrawl.pairing.ets import ETS, build_site_graph
from bitextcrawl.pairing.extract import one_to_one
from bitextcrawl.pairing.lsi import LSIModel, lexicon_similarity, load_lexicon
from bitextcrawl.pairing.structural_em import StructuralEM
from bitextcrawl.pairing.structure import pair_features_matrix
from bitextcrawl.pairing.url_patterns import UrlPatternLearner

logger = logging.getLogger(__name__)

ALL_STAGES = ("url_pattern", "hreflang", "parallel_link", "structure", "content", "ets")
# Known evidence (URL pattern, mutual hreflang) is a floor on internal similarity:
# strong, but ETS can still prefer a better-supported rival (seed 004 gives it no bypass).
KNOWN_EVIDENCE_FLOOR = 0.9
ONE_WAY_HREFLANG = 0.75
# Structural pairs confident enough to teach the site's LSI space.
LSI_TRAINING_PROBABILITY = 0.99
LSI_MAX_TRAINING_PAIRS = 2000


@dataclass
class AlignConfig:
    langs: tuple
    threshold: float = 0.5
    ets_iterations: int = 3
    lam: float = 0.6            # λ of seed 004 eq. 2 (the paper's best value)
    top_k: int = 10
    content_top_k: int = 5
    pattern_local_threshold: float = 0.1
    pattern_rescue_threshold: float = 500.0
    lexicon_path: str = ""
    stages: tuple = ALL_STAGES


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
    """Pairs of each page with its ``top_k`` nearest pages in the site's LSI space (seed 002), not yet candidates.

    Seed 002 compares every page of a site with every other; the cheap candidate
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


def align_language_pair(pages: list[PageRecord], l1: str, l2: str, config: AlignConfig,
                        result: AlignResult, pattern_db=None, graph=None,
                        lexicon=None) -> list[Pair]:
    stages = set(config.stages)
    key = f"{l1}-{l2}"
    pages1 = {p.url: p for p in pages if p.lang == l1}
    pages2 = {p.url: p for p in pages if p.lang == l2}
    result.counts[f"bitext/align/{key}/pages_1"] = len(pages1)
    result.counts[f"bitext/align/{key}/pages_2"] = len(pages2)
    if not pages1 or not pages2:
        return []

    t = time.perf_counter()
    url_pairs: dict[tuple[str, str], tuple[float, str]] = {}
    if "url_pattern" in stages:
        learner = UrlPatternLearner(langs=(l1, l2), local_threshold=config.pattern_local_threshold,
                                    rescue_threshold=config.pattern_rescue_threshold,
                                    pattern_db=pattern_db)
        learner.fit({l1: list(pages1), l2: list(pages2)})
        for p in learner.pairs():
            url_pairs[(p.url_1, p.url_2)] = (p.score, p.pattern)
        result.patterns[key] = learner.report()
        result.learned_patterns.extend(learner.patterns_)
    _timed(result, "url_patterns", t)
    result.counts[f"bitext/align/{key}/url_pattern_pairs"] = len(url_pairs)

    hl_pairs = hreflang_pairs(pages1, pages2, l1, l2) if "hreflang" in stages else {}
    result.counts[f"bitext/align/{key}/hreflang_pairs"] = len(hl_pairs)
    known = {k: s for k, (s, _) in url_pairs.items()}
    for k, s in hl_pairs.items():
        known[k] = max(known.get(k, 0.0), s)

    # Parallel hyperlinks of known pairs (seed 001 §3 steps 3 and 5) propose more pairs.
    # DOM alignment costs about a second per pair on real pages, so this runs where URL
    # and hreflang evidence leave most of the site unpaired: where it is needed.
    pl_pairs: dict = {}
    few = len(known) < 0.5 * min(len(pages1), len(pages2))
    if "parallel_link" in stages and known and few:
        t = time.perf_counter()
        pl_pairs = parallel_link_pairs(sorted(known, key=known.get, reverse=True),
                                       {**pages1, **pages2}, recursive=True, max_pairs=200)
        _timed(result, "parallel_links", t)
        for k, n in pl_pairs.items():
            known[k] = max(known.get(k, 0.0), link_evidence(n))
    result.counts[f"bitext/align/{key}/parallel_link_pairs"] = len(pl_pairs)

    t = time.perf_counter()
    # Pages of a strong known pair get no other candidates; a single parallel-link
    # proposal (evidence 0.5) is a guess, and its pages keep their own candidates.
    settled = [k for k, v in known.items() if v >= ONE_WAY_HREFLANG]
    cands = candidate_pairs(list(pages1.values()), list(pages2.values()),
                            known_pairs=settled, top_k=config.top_k)
    have = set(cands)
    cands += [k for k in known if k not in have]
    _timed(result, "candidates", t)
    result.counts[f"bitext/align/{key}/candidates"] = len(cands)
    if not cands:
        return []

    # Structure: STRAND features + EM (seed 000).
    t = time.perf_counter()
    strand1 = {u: p.strand for u, p in pages1.items()}
    strand2 = {u: p.strand for u, p in pages2.items()}
    X = pair_features_matrix(strand1, strand2, cands)
    p_struct = np.zeros(len(cands))
    llr = np.zeros(len(cands))
    em = None
    if "structure" in stages:
        em = StructuralEM().fit(X)
        llr = em.log_likelihood_ratio(X)
        p_struct = competitive(cands, em.predict_proba(X), llr)
        result.models.setdefault(key, {})["structural_em"] = em.report()
    _timed(result, "structure", t)

    # Content: LSI trained on the site's own confident pairs (seed 002).
    t = time.perf_counter()
    content = np.zeros(len(cands))
    if "content" in stages:
        # Single link proposals (evidence 0.5) are too weak to teach the LSI space.
        train = {k for k, v in known.items() if v >= ONE_WAY_HREFLANG}
        if "structure" in stages:
            # Rule (17) is permissive on one-template sites: only mutual-best pairs by
            # log-likelihood ratio, among the confident ones, teach the LSI space.
            confident = [(cands[i][0], cands[i][1], float(llr[i]))
                         for i in range(len(cands)) if p_struct[i] >= LSI_TRAINING_PROBABILITY]
            train.update(mutual_best(confident))
        site_texts = [p.text for p in pages1.values()] + [p.text for p in pages2.values()]
        training = sorted(train)
        if len(training) > LSI_MAX_TRAINING_PAIRS:
            # A rank-100 space is learned from a couple of thousand pairs; more only make
            # the SVD slower (the cost grew 25x for 10x pages before this cap).
            step = len(training) / LSI_MAX_TRAINING_PAIRS
            training = [training[int(i * step)] for i in range(LSI_MAX_TRAINING_PAIRS)]
        training_texts = [(pages1[a].text, pages2[b].text) for a, b in training]
        lsi = LSIModel().fit(training_texts, site_texts)
        texts1 = [p.text for p in pages1.values()]
        texts2 = [p.text for p in pages2.values()]
        idx1 = {u: i for i, u in enumerate(pages1)}
        idx2 = {u: i for i, u in enumerate(pages2)}
        new = content_candidates(lsi, pages1, pages2, cands, settled, training,
                                 config.content_top_k)
        result.counts[f"bitext/align/{key}/content_candidates"] = len(new)
        if new:
            # Pages the cheap filters paired with look-alikes of the same length find
            # their counterpart by content; the structural model scores them too.
            cands = cands + new
            X = np.vstack([X, pair_features_matrix(strand1, strand2, new)])
            if em is not None:
                llr = em.log_likelihood_ratio(X)
                p_struct = competitive(cands, em.predict_proba(X), llr)
            else:
                llr, p_struct = np.zeros(len(cands)), np.zeros(len(cands))
        content = np.asarray(lsi.pair_similarities(
            texts1, texts2, [(idx1[a], idx2[b]) for a, b in cands]), dtype=float)
        content = np.clip(content, 0.0, 1.0)
        if lexicon:
            lex = np.array([lexicon_similarity(pages1[a].text, pages2[b].text, lexicon)
                            for a, b in cands])
            content = 0.5 * content + 0.5 * lex
        result.models.setdefault(key, {})["lsi"] = lsi.report()
        result.counts[f"bitext/align/{key}/lsi_training_pairs"] = len(train)
    _timed(result, "content", t)
    if em is not None:
        result.em_points[key] = (X[:, 1].tolist(), X[:, 2].tolist(), p_struct.tolist())

    # Internal similarity (seed 004 §3.2): λ·content + (1−λ)·structure.
    if "content" in stages and "structure" in stages:
        internal_arr = config.lam * content + (1 - config.lam) * p_struct
    elif "content" in stages:
        internal_arr = content
    elif "structure" in stages:
        internal_arr = p_struct
    else:
        internal_arr = np.zeros(len(cands))
    internal = {}
    for i, pair in enumerate(cands):
        value = float(internal_arr[i])
        if pair in known:
            value = max(value, KNOWN_EVIDENCE_FLOOR * known[pair])
        internal[pair] = value

    t = time.perf_counter()
    if "ets" in stages:
        if graph is None:
            graph = build_site_graph(pages)
        ets = ETS(n_iter=config.ets_iterations, threshold=config.threshold).fit(
            cands, internal, graph)
        chosen = ets.extract()
        final_scores = ets.scores_
        result.models.setdefault(key, {})["ets"] = ets.report()
    else:
        chosen = one_to_one(((a, b, s) for (a, b), s in internal.items()), config.threshold)
        final_scores = internal
    _timed(result, "ets", t)

    index = {pair: i for i, pair in enumerate(cands)}
    out = []
    for u1, u2, score in chosen:
        i = index[(u1, u2)]
        w, m, n, l1_len, l2_len = (int(v) for v in X[i])
        sources = []
        if (u1, u2) in url_pairs:
            sources.append("url_pattern")
        if (u1, u2) in hl_pairs:
            sources.append("hreflang")
        if (u1, u2) in pl_pairs:
            sources.append(PARALLEL_LINK_SOURCE)
        if p_struct[i] >= 0.5:
            sources.append("structure")
        if "content" in stages and content[i] >= 0.5:
            sources.append("content")
        if "ets" in stages:
            sources.append("ets")
        features = {
            "w": w, "m": m, "n": n, "l1": l1_len, "l2": l2_len,
            "p_structure": round(float(p_struct[i]), 4), "llr": round(float(llr[i]), 3),
            "content": round(float(content[i]), 4), "internal": round(internal[(u1, u2)], 4),
            "ets": round(float(final_scores.get((u1, u2), score)), 4),
        }
        if (u1, u2) in url_pairs:
            features["pattern"] = url_pairs[(u1, u2)][1]
        if (u1, u2) in pl_pairs:
            features["parallel_links"] = pl_pairs[(u1, u2)]
        out.append(Pair(u1, u2, l1, l2, min(1.0, max(0.0, float(score))), sources, features))
    result.counts[f"bitext/align/{key}/pairs"] = len(out)
    return out


def align_site(pages: list[PageRecord], config: AlignConfig, pattern_db=None) -> AlignResult:
    """All language pairs of one site's pages; each URL in at most one pair per language pair."""
    result = AlignResult()
    langs = config.langs
    lexicon = load_lexicon(config.lexicon_path) if config.lexicon_path else None
    graph = build_site_graph(pages) if "ets" in config.stages else None
    for other in langs[1:]:
        logger.info("Aligning %s-%s pages", langs[0], other)
        result.pairs.extend(align_language_pair(pages, langs[0], other, config, result,
                                                pattern_db=pattern_db, graph=graph,
                                                lexicon=lexicon))
    if pattern_db is not None and result.learned_patterns and pages:
        # One entry per site: PatternDB.update replaces a site's entry, so all language
        # pairs' patterns go in together (|w| counts every page of the site).
        pattern_db.update(pages[0].site, result.learned_patterns,
                          site_size=len({p.url for p in pages}))
    result.counts["bitext/align/pairs"] = len(result.pairs)
    return result
