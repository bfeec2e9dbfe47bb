"""tldr with untranslated copies: one in four English command pages that a language does
not translate is served under that language's URL all the same, inside a translated
page's template under a notice (``testkit.real_sites.tldr_copies``), then made
opaque by the data's own script. The copies are the closest pairs there are (the same
structure, length and words); they and their originals must pair nothing, and teach the
length ratio, the structural model and the LSI space nothing (``align.without_copies``).
Offline: records built by the crawl's own code, fastText included."""

from __future__ import annotations

import pytest

from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate_silver
from testkit import real_sites
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("lang", ["ja", "ru"])
def test_opaque_tldr_with_copies_pairs_as_well_as_without(lang, tmp_path):
    if not (SHARED_DATA / "tldr" / "site").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA / 'tldr'} (../shared/data beside "
                    f"the project)")
    site = real_sites.tldr_copies(SHARED_DATA, lang=lang, workdir=str(tmp_path), opaque=True)
    result = align_site(site.pages, AlignConfig(langs=site.langs), redirects=site.redirects)
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    scores = evaluate_silver(site.gold, pairs, unpaired=site.unpaired)
    print(lang, scores, result.counts[f"bitext/align/en-{lang}/copies"])
    assert len(site.unpaired) > 300
    assert result.counts[f"bitext/align/en-{lang}/copies"] >= 0.9 * len(site.unpaired) / 2
    assert scores["recall"] >= 0.98, scores
    assert scores["f1"] >= 0.98, scores
