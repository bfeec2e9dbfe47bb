"""Evidence on the links into outside sites: languages named, parallel links,
diminishing returns, and the ΣLinkEvidence ranking."""

from __future__ import annotations

import pytest

from bitextcrawl.sites.evidence import evidence_level, link_evidence, url_languages
from bitextcrawl.sites.expansion import Expansion, SiteResult

EN = ("en", "fr")


def page(url, links, lang="en"):
    return {"url": url, "lang": lang,
            "links": [dict({"text": "", "hreflang": None}, **link) for link in links]}


def test_url_languages_reads_tokens_and_aliases_of_wanted_languages_only():
    assert url_languages("http://x.org/fr/a.html", EN) == {"fr"}
    assert url_languages("http://x.org/page.php?id=3&lang=fra", EN) == {"fr"}
    assert url_languages("http://x.org/doc-en.html", EN) == {"en"}
    assert url_languages("http://fr.x.org/a", EN) == {"fr"}
    assert url_languages("http://x.org/de/a", EN) == set()
    assert url_languages("http://x.org/docs/intro.html", EN) == set()


def test_boilerplate_counts_pages_not_links_and_names_nothing():
    hub = [{"url": f"http://hub.org/docs/{k}"} for k in range(50)]
    pages = [page(f"http://s.org/en/{i}", hub) for i in range(40)]
    ev = link_evidence(pages, EN)["http://s.org"]["http://hub.org"]
    assert ev.pages == 40 and ev.links == 2000
    assert ev.langs == set() and ev.parallel == 0
    assert ev.volume == pytest.approx(1.0)
    one = link_evidence(pages[:1], EN)["http://s.org"]["http://hub.org"]
    three = link_evidence(pages[:3], EN)["http://s.org"]["http://hub.org"]
    assert (one.volume, three.volume) == (0.5, 0.875)


def test_parallel_links_need_urls_naming_different_languages():
    pairs = [("http://s.org/en/a", "http://s.org/fr/a"), ("http://s.org/en/b", "http://s.org/fr/b")]
    pages = [page("http://s.org/en/a", [{"url": "http://x.org/en/a"}]),
             page("http://s.org/fr/a", [{"url": "http://x.org/fr/a"}], "fr"),
             # a "related" box different on each page of a pair: not parallel
             page("http://s.org/en/b", [{"url": "http://hub.org/q/1"}]),
             page("http://s.org/fr/b", [{"url": "http://hub.org/q/2"}], "fr")]
    ev = link_evidence(pages, EN, pairs)["http://s.org"]
    assert ev["http://x.org"].parallel == 1 and ev["http://x.org"].langs == {"en", "fr"}
    assert ev["http://hub.org"].parallel == 0 and ev["http://hub.org"].langs == set()


def test_anchor_text_and_hreflang_name_languages():
    pages = [page("http://s.org/a", [{"url": "http://x.org/", "text": "Version française"},
                                     {"url": "http://y.org/", "hreflang": "en-GB"},
                                     {"url": "http://z.org/", "text": "Deutsch"}])]
    ev = link_evidence(pages, EN)["http://s.org"]
    assert ev["http://x.org"].langs == {"fr"} and ev["http://y.org"].langs == {"en"}
    assert ev["http://z.org"].langs == set()


def test_evidence_level():
    assert evidence_level([], 0) == 0
    assert evidence_level(["en"], 0) == 1
    assert evidence_level(["en", "fr"], 0) == 2
    assert evidence_level([], 1) == 2


def _expansion(criterion):
    """Two seeds; a hub linked 30 links from 30 pages of each (one language named by its
    /en/ URLs); a bilingual site linked by one page pair of seed a in parallel."""
    exp = Expansion(criterion=criterion, top_k=2)
    pages = {"http://a.org": [], "http://b.org": []}
    for s in pages:
        for i in range(30):
            pages[s].append(page(f"{s}/en/{i}", [{"url": f"http://hub.org/en/{k}"}
                                                 for k in range(30)] + [{"url": "http://b.org/"
                                                                         if s.endswith("a.org")
                                                                         else "http://a.org/"}]))
    pages["http://a.org"] += [page("http://a.org/en/p", [{"url": "http://bi.org/en/x"}]),
                              page("http://a.org/fr/p", [{"url": "http://bi.org/fr/x"}], "fr")]
    pairs = {"http://a.org": [("http://a.org/en/p", "http://a.org/fr/p")], "http://b.org": []}
    from bitextcrawl.sites.expansion import outlink_counts
    for s, ps in pages.items():
        exp.record(SiteResult(s, 0, True, seed=True, credibility=0.8),
                   outlink_counts(ps)[s], link_evidence(ps, EN, pairs[s])[s])
    return exp


def test_link_evidence_ranks_the_evidenced_site_above_the_hub_the_paper_puts_first():
    paper = _expansion("weighted_pagerank").rank(1)
    assert [r["site"] for r in paper] == ["http://hub.org", "http://bi.org"]
    ours = _expansion("link_evidence").rank(1)
    assert [r["site"] for r in ours] == ["http://bi.org", "http://hub.org"]
    bi, hub = ours
    assert bi["evidence_level"] == 2 and hub["evidence_level"] == 1
    assert 2 < bi["sum_link_evidence"] < 3 and 1 < hub["sum_link_evidence"] < 2
    assert hub["links_in"] == 1800 and hub["link_pages"] == 60
    assert bi["parallel_links"] == 1 and bi["link_langs"] == ["en", "fr"]


def test_next_candidate_skips_sites_tried():
    exp = _expansion("link_evidence")
    exp.rank(1)
    assert exp.next_candidate(1, []) == "http://bi.org"
    assert exp.next_candidate(1, ["http://bi.org"]) == "http://hub.org"
    exp.record(SiteResult("http://hub.org", 1, False, failed="robots.txt forbids it"))
    assert exp.next_candidate(1, ["http://bi.org"]) is None
    rows = {r["site"]: r for r in exp.rows(1)}
    assert rows["http://hub.org"]["failed"] == "robots.txt forbids it"
    assert not rows["http://hub.org"]["crawled"] and rows["http://hub.org"]["bilingual"] is None
