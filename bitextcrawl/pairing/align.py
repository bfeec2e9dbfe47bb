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
7. ETS over the content's link graph (Liu et al. Algorithms 1–2); steps 5–7 run in
   rounds, each round's pairs teaching the next round's LSI space and the site's lexicon
   of title words (``site_lexicon.py``), which the anchor overlap reads; at least two
   rounds, more while the lexicon learns new words;
8. the 1-1 decision: proven pairs first, then a global assignment with a margin
   (``extract.assignment``), not Liu et al.'s greedy Algorithm 3.

Before any of it, :func:`~bitextcrawl.pages.site.canonical_pages` makes the site's
records one per content, with every URL resolved through redirects and duplicates.
Each stage is one function (the known evidence: :mod:`bitextcrawl.pairing.evidence`; the
models: :mod:`bitextcrawl.pairing.stages`; the order and the decision: here), adding to an
explicit :class:`~bitextcrawl.pairing.evidence.Evidence` object, so that later stages see
what earlier ones proved: proven pairs (credible URL pattern,
mutual hreflang) leave the extraction only to a rival with stronger evidence.

``stages`` switches stages off for the ablation benchmark.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import Counter

import numpy as np

from bitextcrawl.pages.language import LanguageIdentifier, base_lang
from bitextcrawl.pages.prose import (
    is_copy,
    prose,
    prose_lines,
    prose_words,
    same_prose,
    same_title,
    site_title_words,
    title_words,
)
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.site import (
    CONFIDENT,
    GUESSED,
    SITE_LANGUAGE_PAGES,
    SitePages,
    canonical_pages,
)
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.pages.template import SiteTemplate
from bitextcrawl.pages.variants import declaring_languages, page_lang
from bitextcrawl.pairing.anchors import (
    anchor_idf,
    anchor_overlaps,
    anchor_weights,
    page_anchors,
    weighted_overlap,
)
from bitextcrawl.pairing.candidates import candidate_pairs
from bitextcrawl.pairing.evidence import (
    KNOWN_EVIDENCE_FLOOR,
    AlignConfig,
    AlignResult,
    Evidence,
    Pair,
    _timed,
    known_evidence,
)
from bitextcrawl.pairing.lsi import load_lexicon
from bitextcrawl.pairing.page_graph import build_site_graph
from bitextcrawl.pairing.site_lexicon import SiteLexicon
from bitextcrawl.pairing.stages import (
    ANCHOR_VOUCHES,
    _Scores,
    anchor_vouched,
    content_stage,
    ets_stage,
    internal_scores,
    structure_stage,
)

logger = logging.getLogger(__name__)

# Rounds of content, ETS and the 1-1 decision: each round's LSI space and site lexicon are
# taught by the pairs the round before chose. Two rounds at least; more, up to the most,
# while the lexicon learns words (a lexicon grows from the homes' titles to the terms of
# every title in three or four rounds, each round's pairs teaching the next).
CONTENT_ROUNDS = 2
MOST_CONTENT_ROUNDS = 4


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


def copied_pairs(cands, pages1: dict, pages2: dict, shared_lines: bool = True) -> set:
    """Candidates one of whose pages is the other's prose, line for line, without its
    template (:func:`~bitextcrawl.pages.prose.is_copy`): an untranslated copy served under
    the other language's URL, whatever its label and its URL rule say.

    A page too short for a line to compare is a copy where nearly all its words are the
    other's, its links' texts aside (:func:`~bitextcrawl.pages.prose.same_prose`: a copy's
    links carry their targets' titles, translated where the targets are). The site's name around both titles, localised on the
    copy, is left out of the title test.

    Not in the seeds, whose sites translate every page they serve: a copy shares its
    original's structure, names and numbers, so every model and a proven URL rule pair
    it; only its words say that nothing was translated. A copy pairs nothing, whatever
    a URL rule or a model says, unless the site declares the two pages each other's
    version (mutual hreflang or language toggle); counted in ``bitext/align/*/copies``.

    Besides ``cands``, every two pages that share a line of prose or a title word are
    asked: a copy need not be among its original's candidates (a page of a pair its
    evidence settled meets no other, and a long page's ten nearest may all be other
    pages), and still pairs nothing else. ``shared_lines=False`` asks ``cands`` only.
    """
    # the site's name around its titles, localised on an untranslated page all the same
    ignore = (site_title_words(p.title for p in pages1.values())
              | site_title_words(p.title for p in pages2.values()))
    lines: dict = {}
    words: dict = {}
    linked: dict = {}

    def of(cache, url, pages, read):
        got = cache.get(url)
        if got is None:
            got = cache[url] = read(pages[url])
        return got

    def link_words(page):
        return prose_words(" ".join((link.get("text") if isinstance(link, dict) else "") or ""
                                    for link in page.links or ()))

    def copied(a, b):
        p1, p2 = pages1[a], pages2[b]
        if not same_title(p1.title, p2.title, ignore):
            return False
        return (is_copy(of(lines, a, pages1, lambda p: prose_lines(p.text)),
                        of(lines, b, pages2, lambda p: prose_lines(p.text)))
                or same_prose(of(words, a, pages1, lambda p: prose_words(p.text)),
                              of(words, b, pages2, lambda p: prose_words(p.text)),
                              of(linked, a, pages1, link_words),
                              of(linked, b, pages2, link_words)))

    if not shared_lines:
        return {(a, b) for a, b in cands if copied(a, b)}
    sharing = _sharing({a: of(lines, a, pages1, lambda p: prose_lines(p.text)) for a in pages1},
                       {b: of(lines, b, pages2, lambda p: prose_lines(p.text)) for b in pages2})
    # and every two pages whose titles share a word: a short page's copy may share no
    # line long enough to compare
    sharing |= _sharing({a: title_words(p.title, ignore) for a, p in pages1.items()},
                        {b: title_words(p.title, ignore) for b, p in pages2.items()})
    return {(a, b) for a, b in sharing.union(cands) if copied(a, b)}


def _sharing(keys1: dict, keys2: dict) -> set:
    """Pairs (a, b) whose keys (lines of prose, title words) share one that is on no more
    than :data:`COPY_LINE_PAGES` pages of the first side."""
    having: dict = {}
    for a, keys in keys1.items():
        for k in keys:
            having.setdefault(k, []).append(a)
    return {(a, b) for b, keys in keys2.items() for k in keys
            if len(having.get(k, ())) <= COPY_LINE_PAGES for a in having.get(k, ())}


def without_copies(copies: set, pages1: dict, pages2: dict,
                   evidence: Evidence) -> tuple[dict, dict, Evidence]:
    """``pages1``, ``pages2`` and ``evidence`` without the pages of ``copies``; a page the
    site declares another page's version of (a mutual hreflang) stays."""
    declared = {u for k, v in evidence.hreflang.items() if v >= 1.0 for u in k}
    gone1 = {a for a, _ in copies} - declared
    gone2 = {b for _, b in copies} - declared

    def kept(found: dict) -> dict:
        return {k: v for k, v in found.items() if k[0] not in gone1 and k[1] not in gone2}

    return ({u: p for u, p in pages1.items() if u not in gone1},
            {u: p for u, p in pages2.items() if u not in gone2},
            Evidence(url_pattern=kept(evidence.url_pattern), hreflang=kept(evidence.hreflang),
                     entrance=kept(evidence.entrance),
                     parallel_link=kept(evidence.parallel_link)))


# A line of prose (or a title word) on more pages of one language than this is the
# site's (a notice, a boilerplate sentence): it finds no page's copies, and asking every
# pair it joins would cost pages² on a large site.
COPY_LINE_PAGES = 10


def lexicon_candidates(site_lexicon: SiteLexicon, scores: _Scores, settled: list,
                       pages1: dict, pages2: dict, strand1: dict, strand2: dict,
                       result: AlignResult, key: str) -> None:
    """Pages whose titles the site lexicon translates meet the pages of the nearest titles
    (``SiteLexicon.nearest``), pages of the pairs in ``settled`` aside; counted in
    ``bitext/align/*/site_lexicon_candidates``."""
    in_settled = {a for a, _ in settled} | {b for _, b in settled}
    have = set(scores.cands)
    near = [(a, b) for a, b in site_lexicon.nearest(pages1, pages2)
            if (a, b) not in have and a not in in_settled and b not in in_settled]
    if near:
        scores.extend(near, strand1, strand2)
    name = f"bitext/align/{key}/site_lexicon_candidates"
    result.counts[name] = result.counts.get(name, 0) + len(near)


# An anchor in more than this share of a side's pages says nothing of one page.
RIVAL_ANCHOR_SHARE = 0.1


def rare_rivals(pairs: list, pages1: dict, pages2: dict, have: set) -> list:
    """For each page of ``pairs``, the page of the other side that shares the most of its
    rare evidence (``anchors.py``), where that is another page than its partner, by
    :data:`~bitextcrawl.pairing.stages.ANCHOR_VOUCHES` at least; not in ``have``."""
    if not pairs:
        return []
    a1 = {u: page_anchors(p) for u, p in pages1.items()}
    a2 = {u: page_anchors(p) for u, p in pages2.items()}
    idf = anchor_idf(list(a1.values()) + list(a2.values()))
    w1, w2 = anchor_weights(a1, idf), anchor_weights(a2, idf)

    def index(anchors: dict) -> dict:
        having: dict = {}
        for u, got in anchors.items():
            for a in got:
                having.setdefault(a, []).append(u)
        most = max(2, RIVAL_ANCHOR_SHARE * len(anchors))
        return {a: us for a, us in having.items() if len(us) <= most}

    def best(got, weight, anchors, weights, having, partner):
        met = {u for a in got for u in having.get(a, ())}
        scored = max(((weighted_overlap(got, anchors[u], idf, (weight, weights[u])), u)
                      for u in met), default=None)
        if scored and scored[0] >= ANCHOR_VOUCHES and scored[1] != partner:
            return scored[1]
        return None

    having1, having2 = index(a1), index(a2)
    out = set()
    for a, b in pairs:
        rival = best(a1[a], w1[a], a2, w2, having2, b)
        if rival is not None:
            out.add((a, rival))
        rival = best(a2[b], w2[b], a1, w1, having1, a)
        if rival is not None:
            out.add((rival, b))
    return sorted(out - have)


def unrefuted(known: dict, proven: dict, scores: _Scores) -> dict:
    """The known pairs whose evidence stands: all the proven ones (URL rule, mutual
    hreflang), and the others (parallel links, the entrance) but where a page of the pair
    shares its rare evidence with another candidate, which is the best of both its pages
    by it (``stages.anchor_vouched``), and not with this one.

    A parallel link is a list's item aligned by position where one item of the list
    confirmed the order; on a list in each language's own order, the rest of it is
    mostly wrong. The names, numbers and places a page shares with its counterpart
    outweigh that guess. Not in Shi et al. 2006, whose lists are in one order."""
    vouched = anchor_vouched(scores)
    if not vouched.any():
        return known
    pages1 = {a for (a, _), v in zip(scores.cands, vouched) if v}
    pages2 = {b for (_, b), v in zip(scores.cands, vouched) if v}
    held = {pair for pair, v in zip(scores.cands, vouched) if v}
    return {k: v for k, v in known.items()
            if k in proven or k in held or (k[0] not in pages1 and k[1] not in pages2)}


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
    # Structure, content and the candidate filters compare the pages without the template.
    template = template or SiteTemplate().fit(site.pages)
    pages1, pages2 = template.views(pages1), template.views(pages2)
    # An untranslated copy and its original pair nothing (``copied_pairs``): they leave
    # the language pair before anything is fitted. Left in, each copy is a pair of
    # identical structure, length and words, and the length ratio, the structural model
    # and the LSI space learn from it what a translation of this site looks like.
    def undeclared_copies(cands, shared_lines: bool = True) -> set:
        # the site's own declaration (a mutual hreflang or toggle) stands
        return {k for k in copied_pairs(cands, pages1, pages2, shared_lines)
                if evidence.hreflang.get(k, 0.0) < 1.0}

    copies = undeclared_copies(())
    if copies:
        pages1, pages2, evidence = without_copies(copies, pages1, pages2, evidence)
    known = evidence.known()
    settled = evidence.settled()

    t = time.perf_counter()
    # Pages of a settled pair get no other candidates; a single parallel-link proposal
    # (evidence 0.5) is a guess, and its pages keep their own candidates.
    cands = candidate_pairs(list(pages1.values()), list(pages2.values()),
                            known_pairs=settled, top_k=config.top_k)
    have = set(cands)
    cands += sorted(k for k in known if k not in have)
    # A pair that parallel links alone settled meets the rival its pages' rare evidence
    # points at, and in the rounds below the pages nearest in the LSI space and by title
    # words: a list's order can be wrong (``unrefuted``).
    listed = [k for k in settled if k in evidence.parallel_link
              and k not in evidence.url_pattern and k not in evidence.hreflang]
    cands += rare_rivals(listed, pages1, pages2, set(cands))
    guessed = frozenset(listed)
    unlisted = [k for k in settled if k not in guessed]
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
    asked = 0      # candidates asked whether they are copies of short pages (by words)
    chosen: list = []
    learned: dict = {}
    for round_ in range(MOST_CONTENT_ROUNDS if "content" in stages else 1):
        # From round 2: the pairs the round before chose teach the site's LSI space too
        # (Germann 2016 trains it on the site's known pairs; on a site without URL evidence
        # the pairs the other evidence agrees on are the known pairs there are).
        taught = sorted(set(settled) | {(a, b) for a, b, s in chosen if s >= config.threshold})
        translate = None
        if "anchors" in stages:
            site_lexicon = SiteLexicon().fit((pages1[a], pages2[b]) for a, b in taught)
            if round_ >= CONTENT_ROUNDS and site_lexicon.translations_.items() <= learned.items():
                break
            learned = site_lexicon.translations_
            translate = site_lexicon.translate
            # the pages of a pair that lists alone settled meet the pages their titles
            # translate to, as they meet the rival their rare evidence names
            lexicon_candidates(site_lexicon, scores, unlisted, pages1, pages2, strand1,
                               strand2, result, key)
        elif round_ >= CONTENT_ROUNDS:
            break
        # the rare evidence of the candidates so far referees the content stage's teachers;
        # the candidates it adds are scored after it (an overlap is the pair's alone)
        overlaps = (anchor_overlaps(pages1, pages2, scores.cands, translate)
                    if "anchors" in stages else None)
        t = time.perf_counter()
        if "content" in stages:
            content_stage(scores, taught, pages1, pages2, strand1, strand2, config, result,
                          key, lexicon, use_structure="structure" in stages, referee=overlaps,
                          guessed=guessed)
        _timed(result, "content", t)
        if overlaps is not None:
            added = scores.cands[len(overlaps):]
            scores.anchor = (np.concatenate([overlaps, anchor_overlaps(pages1, pages2, added,
                                                                       translate)])
                             if added else overlaps)
        internal = internal_scores(scores, stages, config.lam)
        floored = unrefuted(known, evidence.proven(), scores)
        internal = {k: max(v, KNOWN_EVIDENCE_FLOOR * floored[k]) if k in floored else v
                    for k, v in internal.items()}
        t = time.perf_counter()
        copies |= undeclared_copies(scores.cands[asked:], shared_lines=False)
        asked = len(scores.cands)
        result.counts[f"bitext/align/{key}/copies"] = len(copies)
        # a copy and its original pair nothing else either: the site served the copy
        # because that language has no translation of the original
        copied1 = {a for a, _ in copies}
        copied2 = {b for _, b in copies}
        untranslated = marked_untranslated(scores.cands, pages1, pages2, l1, l2,
                                           evidence) | copies | {
            (a, b) for a, b in scores.cands if (a in copied1 or b in copied2)
            and evidence.hreflang.get((a, b), 0.0) < 1.0}
        chosen, final = ets_stage(scores, internal, evidence, graph, "ets" in stages, config,
                                  result, key, untranslated)
        _timed(result, "ets", t)
    result.counts[f"bitext/align/{key}/site_lexicon_words"] = len(learned)
    if scores.em is not None:
        result.em_points[key] = (scores.X[:, 1].tolist(), scores.X[:, 2].tolist(),
                                 scores.p_struct.tolist())

    result.scores[key] = sorted(round(float(v), 4) for v in final.values())
    result.rejected[key] = best_rejected(final, chosen, config.threshold) + [
        {"url_1": a, "url_2": b, "score": round(float(internal.get((a, b), 0.0)), 4),
         "why": "copy"} for a, b in sorted(copies or ())]
    index = {pair: i for i, pair in enumerate(scores.cands)}
    out = [_pair_record(u1, u2, score, l1, l2, scores, index[(u1, u2)], evidence, internal,
                        final, stages) for u1, u2, score in chosen]
    result.counts[f"bitext/align/{key}/pairs"] = len(out)
    return out


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
    declaring = declaring_languages(site.pages) if any(
        base_lang(x) != x for x in langs) else frozenset()
    n = 0
    for i in unsure:
        page = site.pages[i]
        lang, prob = lid.predict(f"{page.title}\n{prose(template.text(page))}")
        if lang in site_langs and lang != base_lang(page.lang) and prob > page.lang_prob:
            page = dataclasses.replace(page, lang=lang, lang_prob=round(prob, 4),
                                       lang_method="content")
            site.pages[i] = dataclasses.replace(page, lang=page_lang(page, langs,
                                                                     declaring=declaring))
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
    result.navigation = template.navigation(site.pages)
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
