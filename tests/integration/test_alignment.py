"""The closing pipeline's pair decisions, offline over real page records (issues 4 and 5).

Records are built by the same code a crawl uses (fastText lid.176 included); only the
network is skipped, so each stage can be switched off and measured.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.candidates import candidate_pairs
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold
from bitextcrawl.pairing.evidence import ALL_STAGES
from bitextcrawl.pairing.structural_em import StructuralEM
from bitextcrawl.pairing.structure import pair_features_matrix
from testkit.records import directory_records, site_records
from tests.conftest import SHARED_DATA

# The whole closing pipeline over whole sites (about 100 s): not in the quick loop.
pytestmark = pytest.mark.integration

SHARED = SHARED_DATA
FULL = ("url_pattern", "hreflang", "structure", "content", "ets")


@pytest.fixture(scope="module")
def identify():
    return LanguageIdentifier().identify


def run(pages, stages, langs=("en", "fr")):
    return align_site(pages, AlignConfig(langs=langs, stages=stages))


def scores(site, result):
    return evaluate(site.gold_pairs, [(p.url_1, p.url_2) for p in result.pairs])


@pytest.mark.parametrize("scheme", ["opaque", "mixed"])
def test_structure_alone_on_useless_urls(identify, scheme):
    """Structure + EM alone, no URL, hreflang or content evidence: F1 >= 0.90."""
    site = generate_site(SiteSpec(scheme=scheme, n_pairs=120, third_lang=None,
                                  language_switch=False, seed=21), 8000)
    result = run(site_records(site, identify), ("structure",))
    s = scores(site, result)
    print(f"{scheme}: structure only {json.dumps(s)}")
    assert s["f1"] >= 0.90
    em = result.models["en-fr"]["structural_em"]
    assert 0 < em["q_par"] < em["q_npar"] < 1


@pytest.mark.parametrize("scheme", ["prefix", "subdomain", "query", "mixed", "opaque"])
def test_full_pipeline_f1(identify, scheme):
    """Every kind of evidence together, F1 >= 0.97 on generated sites."""
    site = generate_site(SiteSpec(scheme=scheme, n_pairs=100, third_lang="de",
                                  untranslated_fraction=0.15, seed=4), 8000)
    result = run(site_records(site, identify), FULL)
    s = scores(site, result)
    print(f"{scheme}: full {json.dumps(s)}")
    assert s["f1"] >= 0.97
    urls = [u for p in result.pairs for u in (p.url_1, p.url_2)]
    assert len(urls) == len(set(urls)), "a URL in two pairs"
    assert all(0.0 <= p.score <= 1.0 and p.sources and "ets" in p.sources for p in result.pairs)


def test_ets_beats_internal_similarity_on_anchorless_opaque_sites(identify):
    """Opaque URLs, no language switches, nothing shared but translated words.

    ETS (internal similarity + the neighbours of [Liu 2014]) reaches F1 >= 0.93 and beats
    every internal similarity used alone, on each of three sites, by a clear margin.
    """
    variants = {
        "structure": (("structure",), None),
        "content": (("content",), None),
        "content taught by structure": (("structure", "content"), 1.0),
        "internal": (("structure", "content"), None),
        "ets": (("structure", "content", "ets"), None),
    }
    gains = []
    for seed in (33, 34, 35):
        site = generate_site(SiteSpec(scheme="opaque", n_pairs=150, language_switch=False,
                                      anchors=False, seed=seed), 8000)
        # No number, date, price, code, name or place in any article sentence.
        sentences = [s for key, pairs in site.sentence_gold.items()
                     if site.page_kinds[key[0]] == "article" for pair in pairs for s in pair]
        assert sentences and not any(ch.isdigit() for s in sentences for ch in s)
        pages = site_records(site, identify)
        f1 = {}
        for name, (stages, lam) in variants.items():
            config = AlignConfig(langs=("en", "fr"), stages=stages)
            if lam is not None:
                config.lam = lam
            f1[name] = scores(site, align_site(pages, config))["f1"]
        best_internal = max(v for k, v in f1.items() if k != "ets")
        gains.append(f1["ets"] - best_internal)
        print(f"anchorless opaque site, seed {seed}: " + ", ".join(f"{k} {v:.3f}" for k, v in f1.items()))
        assert f1["ets"] >= 0.93
        # Each site: ETS ahead. (Seed 35 was +2.4 points before PG(·) kept only the
        # neighbours that could pair, a rule the real partly translated sites need; +1.8 now.)
        assert f1["ets"] - best_internal >= 0.01
    assert sum(gains) / len(gains) >= 0.04


def test_single_parallel_link_proposals_leave_pages_their_candidates(identify):
    """A page proposed once by a parallel link (a guess) still gets its other candidates.

    On this site one hreflang pair seeds 200 parallel-link proposals, many of them wrong
    (list positions of index pages that differ). When every proposal excluded its pages
    from candidate generation, recall fell to 0.72 with the stage on (0.92 without it).
    """
    site = generate_site(SiteSpec(scheme="opaque", n_pairs=150, language_switch=False,
                                  anchors=False, third_lang=None, seed=35), 8000)
    result = align_site(site_records(site, identify),
                        AlignConfig(langs=("en", "fr"), stages=ALL_STAGES))
    s = scores(site, result)
    print(f"anchorless opaque site, all stages: {json.dumps(s)}")
    assert result.counts["bitext/align/en-fr/parallel_link_pairs"] > 0
    assert s["precision"] >= 0.98 and s["recall"] >= 0.95


@pytest.fixture(scope="module")
def wet_pages():
    if not (SHARED / "wet").is_dir():
        pytest.skip(f"real data not found at {SHARED}")
    lid, agreement = LanguageIdentifier(), DeclarationAgreement()

    def identify(text, html_lang, content_language):  # as the crawl's middleware does
        return lid.identify(text, html_lang, content_language, agreement)

    return directory_records(SHARED / "wet", "http://wet.test", identify)


def test_wet_structural_precision_on_candidates(wet_pages):
    """How the structural model alone does on a real site's candidate set."""
    gold = set(read_gold(SHARED / "wet-gold.tsv", base="http://wet.test/"))
    gold_urls = {u for pair in gold for u in pair}
    en = [p for p in wet_pages if p.lang == "en"]
    fr = [p for p in wet_pages if p.lang == "fr"]
    cands = candidate_pairs(en, fr, top_k=10)
    X = pair_features_matrix({p.url: p.strand for p in en}, {p.url: p.strand for p in fr}, cands)
    em = StructuralEM().fit(X)
    rule = em.predict(X).astype(bool)
    judged = np.array([a in gold_urls or b in gold_urls for a, b in cands])
    right = np.array([pair in gold for pair in cands])
    covered = len(set(cands) & gold) / len(gold)
    precision_rule = right[rule & judged].sum() / max(1, (rule & judged).sum())
    result = align_site(wet_pages, AlignConfig(langs=("en", "fr"), stages=("structure",)))
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    precision_1to1 = evaluate_silver(list(gold), pairs)["precision"]
    print(f"wet: {len(cands)} candidates cover {covered:.3f} of gold; rule (17) marks "
          f"{rule.sum()} parallel, precision {precision_rule:.3f} on judged candidates; "
          f"structure-only 1-1 pairs: {len(pairs)}, precision {precision_1to1:.3f}")
    assert covered >= 0.95
    # Rule (17) alone is permissive on a one-template site (see docs/pairing.md); the 1-1
    # extraction over competitive structural scores is what the pipeline uses.
    assert precision_1to1 >= 0.9


def test_wet_full_pipeline(wet_pages):
    """On the real site: F1 >= 0.97 on the pairs the silver gold can judge."""
    gold = read_gold(SHARED / "wet-gold.tsv", base="http://wet.test/")
    result = run(wet_pages, FULL)
    s = evaluate_silver(gold, [(p.url_1, p.url_2) for p in result.pairs])
    print(f"wet full pipeline: precision {s['precision']:.3f} on {s['judged']} judged pairs, "
          f"recall {s['recall']:.3f}, F1 {s['f1']:.3f}")
    assert s["f1"] >= 0.97


def test_lett_pairs_implied_by_urls(identify):
    """The closing pipeline over a real WMT16 .lett crawl (en-de)."""
    from bitextcrawl.formats.lett import iter_lett_pages

    path = SHARED / "lett" / "v2.lett.gz"
    if not path.exists():
        pytest.skip(f"real data not found at {path}")
    pages = list(iter_lett_pages(path, identify=identify))
    expected = read_gold(SHARED / "lett" / "expected")
    result = run(pages, FULL, langs=("en", "de"))
    s = evaluate(expected, [(p.url_1, p.url_2) for p in result.pairs])
    print(f"lett en-de vs expected: {json.dumps(s)}")
    assert s["tp"] >= 15
    expected_urls = {u for pair in expected for u in pair}
    touching = [(p.url_1, p.url_2) for p in result.pairs
                if p.url_1 in expected_urls or p.url_2 in expected_urls]
    assert set(touching) <= set(expected), set(touching) - set(expected)
    assert sum("url_pattern" in p.sources for p in result.pairs) >= 15  # the <1, 0> marker
