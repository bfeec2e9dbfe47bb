"""Pages in scripts that write vowels as combining marks (Hindi, Bengali).

A generated glossary (``testkit/glossary.py``) at opaque URLs, each language's sidebar in
its own order: with the rare evidence (shared names) left out, the pairs rest on the
words of the two languages' texts, which must be read whole (``pages/tokens.py``), not as
the letters between their vowel signs. Offline: records built by the crawl's own code,
fastText included."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate
from bitextcrawl.pairing.evidence import ALL_STAGES
from testkit import real_sites
from testkit.glossary import glossary_site

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("stages", ["all", "without anchors", "without ets"])
def test_a_hindi_glossary_pairs_without_one_stage(stages):
    langs = ("en", "hi")
    site = glossary_site(langs=langs)
    identify = real_sites.identifier()
    pages = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
    left_out = {"all": (), "without anchors": ("anchors",), "without ets": ("ets",)}[stages]
    config = AlignConfig(langs=langs, stages=tuple(s for s in ALL_STAGES if s not in left_out))
    result = align_site(pages, config)
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold],
                      [(p.url_1, p.url_2) for p in result.pairs])
    print(stages, scores)
    assert scores["f1"] >= 0.95, scores
