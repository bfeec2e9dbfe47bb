"""The model stages of a language pair's alignment, each adding to the scores of its
candidates (:func:`bitextcrawl.pairing.align.align_language_pair` runs them in order):
STRAND structure and the structural EM [Assylbekov 2015], LSI content similarity
[Germann 2016] with each page's nearest pages as more candidates, the internal similarity
of [Liu 2014 eq. 2] with the known evidence as a floor, ETS over the site graph [Liu 2014
§3], and the rivals' ranks the 1-1 decision reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bitextcrawl.pairing.candidates import passes_cheap_filters
from bitextcrawl.pairing.ets import ETS, internal_similarity
from bitextcrawl.pairing.evidence import KNOWN_EVIDENCE_FLOOR, AlignConfig, AlignResult, Evidence
from bitextcrawl.pairing.extract import one_to_one_with_evidence
from bitextcrawl.pairing.lsi import LSIModel, SiteTerms, lexicon_similarity
from bitextcrawl.pairing.structural_em import StructuralEM
from bitextcrawl.pairing.structure import pair_features_matrix

# Structural pairs confident enough to teach the site's LSI space.
LSI_TRAINING_PROBABILITY = 0.99
LSI_MAX_TRAINING_PAIRS = 2000
# A pair is kept where no other way of pairing its pages comes within this of it
# (``extract.assignment``): look-alike pages nothing tells apart give no pair.
DECISION_MARGIN = 1e-3


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
    # the pages' tokens and idf, and the last LSI space with the training pairs it was
    # fitted on: each content round fits its space on the same pages (``content_stage``)
    terms: SiteTerms | None = None
    lsi: tuple | None = None
    # ``anchor_vouched`` of the candidates and anchor overlaps it was made of (the
    # internal scores, the known pairs' floor and the structural rejects of a round read it)
    vouched: tuple | None = None

    def extend(self, new: list, strand1: dict, strand2: dict) -> None:
        self.cands = self.cands + new
        self.X = np.vstack([self.X, pair_features_matrix(strand1, strand2, new)])
        if self.em is not None:
            self.llr = self.em.log_likelihood_ratio(self.X)
            self.p_raw = self.em.predict_proba(self.X)
            self.p_struct = competitive(self.cands, self.p_raw, self.llr)
        else:
            self.llr, self.p_struct = np.zeros(len(self.cands)), np.zeros(len(self.cands))
        # the content stage scores every candidate when it runs; without it, nothing
        self.content = np.concatenate([self.content, np.zeros(len(new))])


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
                  key: str, lexicon=None, use_structure: bool = True,
                  referee: np.ndarray | None = None, guessed: frozenset = frozenset()) -> None:
    """[Germann 2016]: LSI trained on the site's settled and confidently structural pairs; each
    page's nearest pages in the LSI space join the candidates (scored by structure too).

    ``guessed``: settled pairs whose pages meet their nearest pages all the same (a pair
    that a list's order alone settled: the order can be wrong, ``align.unrefuted``).

    ``referee``: the rare evidence the candidates share (``anchors.anchor_overlaps``),
    where that stage is on. A structural pair then teaches the space only where that
    evidence agrees (the pair is also the mutual best by it): on a site whose pages are
    one template around a few lines, structure's mutual best is the closest length, and a
    space taught by those pairs learns the wrong words. Not in the papers: Germann 2016
    trains on known pairs, and one model teaching another is ours.
    """
    train = set(settled)
    if use_structure:
        # Rule (17) is permissive on one-template sites: only mutual-best pairs by
        # log-likelihood ratio, among the confident ones, teach the LSI space.
        confident = [(a, b, float(v)) for (a, b), p, v in
                     zip(scores.cands, scores.p_struct, scores.llr)
                     if p >= LSI_TRAINING_PROBABILITY]
        taught = mutual_best(confident)
        if referee is not None:
            taught &= mutual_best([(a, b, float(v)) for (a, b), v in zip(scores.cands, referee)
                                   if v > 0])
        result.counts[f"bitext/align/{key}/lsi_structural_pairs"] = len(taught)
        train.update(taught)
    training = sorted(train)
    if len(training) > LSI_MAX_TRAINING_PAIRS:
        # A rank-100 space is learned from a couple of thousand pairs; more only make
        # the SVD slower (the cost grew 25x for 10x pages before this cap).
        step = len(training) / LSI_MAX_TRAINING_PAIRS
        training = [training[int(i * step)] for i in range(LSI_MAX_TRAINING_PAIRS)]
    texts1 = [p.text for p in pages1.values()]
    texts2 = [p.text for p in pages2.values()]
    pair_texts = [(pages1[a].text, pages2[b].text) for a, b in training]
    if scores.lsi is not None and scores.lsi[0] == pair_texts and scores.lsi[1] == texts1 + texts2:
        lsi = scores.lsi[2]        # the same training pairs over the same pages: the same space
    else:
        if scores.terms is None:
            scores.terms = SiteTerms(LSIModel().token_cache)
        lsi = LSIModel().fit(pair_texts, texts1 + texts2, site_terms=scores.terms)
        scores.lsi = (pair_texts, texts1 + texts2, lsi)
    new = content_candidates(lsi, pages1, pages2, scores.cands,
                             [k for k in settled if k not in guessed], training,
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


def sole_best(cands, values: np.ndarray, tie: float = 1e-9) -> np.ndarray:
    """Per candidate: its value is above every other candidate's of either of its pages
    (a tie, within ``tie`` relative, is no one's)."""
    top1: dict[str, list] = {}
    top2: dict[str, list] = {}
    for i, ((u1, u2), v) in enumerate(zip(cands, values)):
        for top, u in ((top1, u1), (top2, u2)):
            t = top.setdefault(u, [-np.inf, -1, -np.inf])   # best, its index, second best
            if v > t[0]:
                t[:] = [v, i, t[0]]
            elif v > t[2]:
                t[2] = v
    out = np.zeros(len(cands), dtype=bool)
    for i, ((u1, u2), v) in enumerate(zip(cands, values)):
        rivals = max(t[2] if t[1] == i else t[0] for t in (top1[u1], top2[u2]))
        out[i] = v > rivals + tie * max(abs(v), 1.0)
    return out


def anchor_vouched(scores: _Scores) -> np.ndarray:
    """Per candidate: its pages share more rare evidence with each other than with any
    other candidate, by at least :data:`ANCHOR_VOUCHES`. Two candidates of a page that
    share the same evidence with it (an outdated translation kept beside the current
    one) are vouched for by neither: structure and content choose between them."""
    if scores.anchor is None:
        return np.zeros(len(scores.cands), dtype=bool)
    made = scores.vouched
    if made is not None and made[0] is scores.cands and made[1] is scores.anchor:
        return made[2]
    vouched = (scores.anchor >= ANCHOR_VOUCHES) & sole_best(scores.cands, scores.anchor)
    vouched.flags.writeable = False
    scores.vouched = (scores.cands, scores.anchor, vouched)
    return vouched


def agreed_pairs(scores: _Scores) -> set:
    """Candidates that content and the rare evidence both make the sole best of both their
    pages (:func:`sole_best`): two of the page's own sources agree on its counterpart."""
    if scores.anchor is None:
        return set()
    agree = (sole_best(scores.cands, scores.content) & sole_best(scores.cands, scores.anchor)
             & (scores.content > 0) & (scores.anchor > 0))
    return {pair for pair, ok in zip(scores.cands, agree) if ok}


def neighbours_rank(final: dict, internal: dict, agreed: set = frozenset()) -> dict:
    """ETS where the neighbours decide between rivals; the internal similarity where they
    only disagree with a pair nothing rivals, or with a pair its pages' own sources agree
    on (``agreed``, :func:`agreed_pairs`).

    Departure from Liu et al., whose eq. 1 lets the neighbours lower any pair: a page
    whose translation links one page fewer (an outdated translation, a "see also" line
    left out) has near-certain internal similarity and falls under T_min, though no other
    page comes near it. Here a pair that is the best of both its pages by ETS keeps at
    least its internal similarity; between rivals, ETS decides as in the paper, except
    against a pair that content and rare evidence both choose: on a partly translated site
    the neighbours of a page and of its translation differ (links to untranslated pages
    are plain text on one side), and a rival that shares more linked neighbours by chance
    outranks the pair its words and names choose.
    """
    best1: dict = {}
    best2: dict = {}
    for (a, b), v in final.items():
        if v > best1.get(a, (-1.0, None))[0]:
            best1[a] = (v, b)
        if v > best2.get(b, (-1.0, None))[0]:
            best2[b] = (v, a)
    return {(a, b): max(v, internal.get((a, b), 0.0))
            if (best1[a][1] == b and best2[b][1] == a) or (a, b) in agreed else v
            for (a, b), v in final.items()}


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
        final = neighbours_rank(final, internal, agreed_pairs(scores))
    result.counts[f"bitext/align/{key}/structure_rejected"] = len(rejected)
    result.counts[f"bitext/align/{key}/marked_untranslated"] = len(untranslated)
    chosen = one_to_one_with_evidence(((a, b, s) for (a, b), s in final.items()),
                                      proven, config.threshold, margin=DECISION_MARGIN)
    result.counts[f"bitext/align/{key}/proven_pairs"] = len(proven)
    result.counts[f"bitext/align/{key}/proven_kept"] = sum((a, b) in proven
                                                            for a, b, _ in chosen)
    return chosen, final
