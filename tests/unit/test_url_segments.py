"""Translated URL segments around a shared identifier (the ``segment_id`` kind)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bitextcrawl.pairing.url_pairs import pair_urls
from bitextcrawl.pairing.url_patterns import (
    FLOOR_KINDS,
    KINDS,
    SEGMENT_ID,
    SLUG_ID,
    UrlPatternLearner,
)
from bitextcrawl.pairing.url_segments import case_evidence
from tests.conftest import PROJECT_ROOT

H = "https://www.canada.example"


def fit(en, fr, **kw):
    return UrlPatternLearner(("en", "fr")).fit({"en": en, "fr": fr}, **kw)


def pairs_of(lr) -> dict[str, str]:
    return {p.url_1: p.url_2 for p in lr.pairs()}


def kinds_of(lr) -> set[str]:
    kinds = {p.id: p.kind for p in lr.patterns_}
    return {kinds[p.pattern] for p in lr.pairs()}


def test_translated_segments_around_a_shared_query_id():
    ids = ["0189", "0190", "0193", "0201", "0214"]
    en = [f"{H}/media/news/releases?id={i}" for i in ids] + [
        f"{H}/media/news/speeches?id=0300", f"{H}/media/news/speeches?id=0301",
        f"{H}/media/news/releases?id=0400"]                     # never translated
    fr = [f"{H}/presse/nouvelles/communiques?id={i}" for i in ids] + [
        f"{H}/presse/nouvelles/discours?id=0300", f"{H}/presse/nouvelles/discours?id=0301"]
    lr = fit(en, fr)
    got = pairs_of(lr)
    want = {f"{H}/media/news/releases?id={i}": f"{H}/presse/nouvelles/communiques?id={i}"
            for i in ids}
    want.update({f"{H}/media/news/speeches?id={i}": f"{H}/presse/nouvelles/discours?id={i}"
                 for i in ("0300", "0301")})
    assert got == want
    assert kinds_of(lr) == {SEGMENT_ID}
    assert lr.segment_tables_["en", "fr"] == {"media": "presse", "news": "nouvelles",
                                              "releases": "communiques",
                                              "speeches": "discours"}
    assert lr.segment_folded_["en", "fr"] is False
    # a floor, not a proof: weaker than any credible token pattern's score (> 0.5)
    assert all(0 < p.score <= 0.5 for p in lr.pairs())
    assert SEGMENT_ID in FLOOR_KINDS and SLUG_ID in FLOOR_KINDS
    rep = lr.report()
    assert rep["pairs_by_kind"] == {**{k: 0 for k in KINDS}, SEGMENT_ID: 7}
    seg = [p for p in rep["patterns"] if p["kind"] == SEGMENT_ID]
    assert {(p["lang1_token"], p["lang2_token"]) for p in seg} == {
        ("media+news+releases", "presse+nouvelles+communiques"),
        ("media+news+speeches", "presse+nouvelles+discours")}


def test_translated_segments_around_a_shared_numeric_segment():
    years = range(2015, 2021)
    en = [f"{H}/corporate/news/{y}/" for y in years] + [f"{H}/corporate/news/"]
    fr = [f"{H}/entreprise/nouvelles/{y}/" for y in years] + [f"{H}/entreprise/actualites/"]
    lr = fit(en, fr)
    assert pairs_of(lr) == {f"{H}/corporate/news/{y}/": f"{H}/entreprise/nouvelles/{y}/"
                            for y in years}
    assert kinds_of(lr) == {SEGMENT_ID}


def test_translated_segments_around_a_shared_file_name():
    names = ["budget.pdf", "strategic-plan.pdf", "audit.xlsx", "glossary.html"]
    en = [f"{H}/corporate/reports/{n}" for n in names] + [
        f"{H}/corporate/reports/index.html", f"{H}/corporate/staff/index.html",
        f"{H}/corporate/contact/index.html"]
    fr = [f"{H}/entreprise/rapports/{n}" for n in names] + [
        f"{H}/entreprise/rapports/index.html", f"{H}/entreprise/personnel/index.html",
        f"{H}/entreprise/coordonnees/index.html"]
    lr = fit(en, fr)
    want = {f"{H}/corporate/reports/{n}": f"{H}/entreprise/rapports/{n}" for n in names}
    # index.html is in every folder (3 > max_name_urls): no identifier, no pair
    assert pairs_of(lr) == want
    assert lr.segment_tables_["en", "fr"] == {"corporate": "entreprise", "reports": "rapports"}


def test_case_only_differences_are_compared_case_insensitively():
    pages = ["About", "Contact", "Services", "Careers", "Sitemap"]
    en = [f"{H}/En/{x}.aspx" for x in pages]
    fr = [f"{H}/fr/{x.lower()}.aspx" for x in pages]
    lr = fit(en, fr)
    assert lr.segment_folded_["en", "fr"] is True
    assert pairs_of(lr) == {f"{H}/En/{x}.aspx": f"{H}/fr/{x.lower()}.aspx" for x in pages}
    assert kinds_of(lr) == {SEGMENT_ID}


def test_case_evidence_from_the_site_itself():
    both = [f"{H}/Media/News.aspx", f"{H}/media/news.aspx", f"{H}/fr/presse.aspx"]
    assert case_evidence(both, [0, 0, 1], 0, 1, 2)
    # one case-only pair is no evidence; different paths are none either
    one = [f"{H}/En/About.aspx", f"{H}/fr/about.aspx", f"{H}/en/x.aspx", f"{H}/fr/y.aspx"]
    assert not case_evidence(one, [0, 1, 0, 1], 0, 1, 2)
    # a case-sensitive site: the same shapes without the second case pair stay unpaired
    en, fr = [one[0], f"{H}/En/Contact.aspx"], [one[1], f"{H}/fr/contact.aspx"]
    lr = UrlPatternLearner(("en", "fr"), min_segment_pairs=3).fit({"en": en, "fr": fr})
    assert lr.segment_folded_["en", "fr"] is False and lr.pairs() == []
    # a proven pair that differs only by case is evidence enough
    lr = fit(en + [f"{H}/En/Help.aspx"], fr + [f"{H}/fr/aide.aspx"],
             known_pairs=[(f"{H}/En/Help.aspx", f"{H}/fr/aide.aspx"),
                          (one[0], one[1])])
    assert lr.segment_folded_["en", "fr"] is True
    assert pairs_of(lr) == {en[1]: fr[1]}


def test_no_shared_identifier_no_pair():
    ids = ["11", "12", "13"]
    en = [f"{H}/media/news/releases?id={i}" for i in ids] + [
        f"{H}/media/news/releases", f"{H}/media/news/releases/archive"]
    fr = [f"{H}/presse/nouvelles/communiques?id={i}" for i in ids] + [
        f"{H}/presse/nouvelles/communiques", f"{H}/presse/nouvelles/communiques/archives"]
    lr = fit(en, fr)
    # the table is learned (three id pairs), but the pages without an id are not paired
    assert lr.segment_tables_["en", "fr"]["media"] == "presse"
    got = pairs_of(lr)
    assert f"{H}/media/news/releases" not in got
    assert f"{H}/media/news/releases/archive" not in got
    assert len(got) == 3
    # translated segments with per-language ids and nothing else shared: nothing learned
    en2 = [f"{H}/products/item?id={i}" for i in range(5)]
    fr2 = [f"{H}/blogue/article-{i}" for i in range(5)]
    lr2 = fit(en2, fr2)
    assert lr2.pairs() == [] and lr2.segment_tables_["en", "fr"] == {}


def test_one_to_many_segment_mapping_is_refused():
    en = [f"{H}/media/news?id={i}" for i in range(1, 5)]
    fr = ([f"{H}/presse/nouvelles?id={i}" for i in (1, 2)]
          + [f"{H}/medias/nouvelles?id={i}" for i in (3, 4)])
    lr = fit(en, fr)
    assert "media" not in lr.segment_tables_["en", "fr"]
    assert lr.pairs() == []
    # one-to-one again: the same site with every French page under /presse/
    fr_ok = [f"{H}/presse/nouvelles?id={i}" for i in range(1, 5)]
    assert len(fit(en, fr_ok).pairs()) == 4


def test_a_translation_needs_two_pairs_or_a_proven_one():
    en = [f"{H}/media/news?id=7", f"{H}/media/news/"]
    fr = [f"{H}/presse/nouvelles?id=7", f"{H}/presse/nouvelles/"]
    assert fit(en, fr).pairs() == []
    assert fit(en, fr, known_pairs=None).pairs() == []
    # the proven pair (hreflang, say) teaches media->presse and news->nouvelles
    known = [(f"{H}/presse/nouvelles/", f"{H}/media/news/")]   # either order
    lr = fit(en, fr, known_pairs=known)
    assert pairs_of(lr) == {f"{H}/media/news?id=7": f"{H}/presse/nouvelles?id=7"}
    # pairs of unknown URLs are ignored
    assert fit(en, fr, known_pairs=[(f"{H}/x", f"{H}/y")]).pairs() == []


def test_known_pairs_absent_leave_every_kind_as_it_was():
    ids = range(10, 16)
    en = [f"{H}/en/page{i}.html" for i in ids] + [f"{H}/media/news?id={i}" for i in ids]
    fr = [f"{H}/fr/page{i}.html" for i in ids] + [f"{H}/presse/nouvelles?id={i}" for i in ids]
    a = fit(en, fr)
    b = UrlPatternLearner(("en", "fr"), segment_ids=False).fit({"en": en, "fr": fr})
    seg = [p for p in a.pairs() if p.pattern.startswith(SEGMENT_ID)]
    assert [p for p in a.pairs() if p not in seg] == b.pairs()
    assert len(seg) == 6 and len(b.pairs()) == 6


def test_pair_urls_many_sites_with_segments():
    other = "http://www.other.example"
    lines = ([f"en\t{H}/media/news/releases?id={i}" for i in range(3)]
             + [f"fr\t{H}/presse/nouvelles/communiques?id={i}" for i in range(3)]
             + [f"en\t{other}/about/team", f"fr\t{other}/apropos/equipe"])
    got = pair_urls(lines, langs=("en", "fr"))
    assert got == [(f"{H}/media/news/releases?id={i}", f"{H}/presse/nouvelles/communiques?id={i}")
                   for i in range(3)]


@pytest.mark.integration
def test_urlpairs_command_pairs_translated_segments(tmp_path):
    en = [f"{H}/media/news/releases?id={i}" for i in ("0189", "0190", "0191")]
    fr = [f"{H}/presse/nouvelles/communiques?id={i}" for i in ("0189", "0190", "0191")]
    en += [f"{H}/En/About.aspx", f"{H}/En/Contact.aspx"]
    fr += [f"{H}/fr/about.aspx", f"{H}/fr/contact.aspx"]
    f = tmp_path / "urls.txt"
    f.write_text("\n".join([f"en\t{u}" for u in en] + [f"fr\t{u}" for u in fr]) + "\n",
                 encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    run = subprocess.run([sys.executable, "-m", "scrapy", "urlpairs", str(f), "--langs", "en,fr"],
                         cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.splitlines()) == sorted(f"{a}\t{b}" for a, b in zip(en, fr))
