"""Untranslated pages served as copies of their original, at URLs that name no language.

The generated multilingual manual (``testkit/multilingual.py``) in five languages, each
translating part of its pages and serving the English original for the rest: byte for
byte (content negotiation), or inside its own template under a notice (a static site
generator's fallback). Opaque: nothing in the URLs or the markup names a language. The
original and its copies are one page to pairing, under the original's URL; one alignment
of every language pairs each as well as its own. Offline, fastText included."""

from __future__ import annotations

import pytest

from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate
from testkit import real_sites
from testkit.multilingual import ManualSpec, generate_manual, manual_records

pytestmark = pytest.mark.integration

LANGS = ("en", "fr", "de", "ja", "ru")


@pytest.mark.parametrize("fallback", ["bytes", "notice"])
@pytest.mark.parametrize("opaque", [True, False])
def test_copies_pair_nothing_and_leave_the_original_its_pairs(fallback, opaque):
    site = generate_manual(ManualSpec(n_pages=40, seed=3, fallback=fallback, langs=LANGS), 8080)
    records, redirects, url = manual_records(site, real_sites.identifier(), opaque=opaque)
    result = align_site(records, AlignConfig(langs=LANGS), redirects=redirects)
    copies = {url[u] for u in site.fallback_urls}
    assert copies
    for lang in LANGS[1:]:
        gold = [(url[a], url[b]) for a, b in site.gold_pairs[lang]]
        pairs = [(p.url_1, p.url_2) for p in result.pairs if p.lang_2 == lang]
        scores = evaluate(gold, pairs)
        print(fallback, opaque, lang, scores)
        assert scores["f1"] >= 0.98, (lang, scores)
        assert not copies & {u for pair in pairs for u in pair}, lang


def test_a_copy_outside_its_originals_candidates_pairs_nothing():
    """Ten languages, copies under a notice, opaque: the Korean copy of a long page is not
    among its original's candidates (their nearest pages are others), and is still found
    as a copy (the two share their prose line for line) and pairs with no other page."""
    langs = ("en", "fr", "de", "es", "zh", "ru", "it", "ko", "pt", "ja")
    site = generate_manual(ManualSpec(n_pages=40, seed=3, fallback="notice", langs=langs), 8080)
    records, redirects, url = manual_records(site, real_sites.identifier(), opaque=True)
    result = align_site(records, AlignConfig(langs=("en", "ko")), redirects=redirects)
    copies = {url[u] for u in site.fallback_urls}
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    scores = evaluate([(url[a], url[b]) for a, b in site.gold_pairs["ko"]], pairs)
    print(scores)
    assert not copies & {u for pair in pairs for u in pair}
    assert scores["f1"] >= 0.98, scores
