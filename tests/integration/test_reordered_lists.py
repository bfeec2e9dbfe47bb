"""Sites that list each language's entries in its own order (a translation's sidebar
sorted by its own titles, as static site generators do by default), and short pages that
share nothing rare across scripts: aligning two lists by position pairs the wrong pages,
and length is no guide to a counterpart. Generated glossaries (``testkit/glossary.py``)
with and without the trait, and a real site with its second language's lists reordered
(``testkit/reorder.py``). Offline: records built by the crawl's own code, fastText
included."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate
from testkit import real_sites
from testkit.glossary import glossary_site

pytestmark = pytest.mark.integration


def _glossary(lang: str, order: str):
    site = glossary_site(langs=("en", lang), sidebar_order=order)
    identify = real_sites.identifier()
    pages = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
    gold = [(site.url(a), site.url(b)) for a, b in site.gold]
    return real_sites.RealSite(f"glossary en-{lang} {order}", pages, gold, ("en", lang))


def _scores(site):
    result = align_site(site.pages, AlignConfig(langs=site.langs), redirects=site.redirects)
    return evaluate(site.gold, [(p.url_1, p.url_2) for p in result.pairs]), result


@pytest.mark.parametrize("lang, order", [("fr", "own"), ("fr", "same"), ("ja", "own"),
                                         ("ja", "same"), ("ru", "own"), ("zh", "own")])
def test_opaque_glossary_pairs_whatever_the_order_of_its_lists(lang, order):
    site = _glossary(lang, order)
    scores, _ = _scores(site)
    print(site.name, scores)
    assert scores["precision"] >= 0.98, scores
    assert scores["f1"] >= 0.94, scores


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_no_stage_left_out_does_better_on_the_glossary(lang):
    site = _glossary(lang, "own")
    rows = real_sites.leave_one_out(site)
    full = rows[0][1]
    for stage, f1 in rows[1:]:
        assert f1 <= full + 0.005, f"{site.name}: without {stage} {f1:.4f} > {full:.4f}"


def test_reordered_lists_on_the_opaque_real_site(shared_data, tmp_path):
    site = real_sites.nginx_opaque_reordered(shared_data, workdir=str(tmp_path))
    scores, _ = _scores(site)
    print(site.name, scores)
    assert scores["f1"] >= 0.99, scores
