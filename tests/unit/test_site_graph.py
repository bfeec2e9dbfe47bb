"""Site expansion math of [Zhang 2013 §2.3]: Linkout, PageRank, WeightedPageRank and their sums."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pages.urls import site_of
from bitextcrawl.sites.graph import SiteGraph, rank_outside_sites


def graph_of(counts) -> SiteGraph:
    """A site graph from ``{(source_site, target_site): links}``."""
    g = SiteGraph()
    for (source, target), n in counts.items():
        g.add_links(source, target, n)
    return g


def graph_of_pages(pages) -> SiteGraph:
    """A site graph from page records or their dicts: each outlink of a page to another
    site is one link from the page's site to that site."""
    g = SiteGraph()
    for page in pages:
        url = page["url"] if isinstance(page, Mapping) else page.url
        links = page["links"] if isinstance(page, Mapping) else page.links
        source = site_of(url)
        g.add_site(source)
        for link in links or ():
            target_url = link["url"] if isinstance(link, Mapping) else link.url
            if target_url.startswith(("http://", "https://")):
                g.add_links(source, site_of(target_url), 1)
    return g


A, B, C, D = "http://a.org", "http://b.org", "http://c.org", "http://d.org"
X, Y, Z = "http://x.org", "http://y.org", "http://z.org"


def _graph() -> SiteGraph:
    return graph_of({
        (A, B): 1, (A, C): 1, (B, C): 1, (C, A): 1,      # among seeds
        (A, X): 3, (B, X): 1, (C, Y): 5, (A, Z): 1,      # to outside sites
        (A, A): 7,                                       # inside a site: ignored
    })


def _hand_pagerank():
    # PR(w) = r/N + (1-r) Σ PR(v)/Linkout(v), r = 0.15, N = 3, Linkout A=2, B=1, C=1:
    #   a = 0.05 + 0.85 c;  b = 0.05 + 0.425 a;  c = 0.05 + 0.425 a + 0.85 b
    # => c = 0.0925 + 0.78625 a  and  a = (0.05 + 0.85 * 0.0925) / (1 - 0.85 * 0.78625)
    a = (0.05 + 0.85 * 0.0925) / (1 - 0.85 * 0.78625)
    b = 0.05 + 0.425 * a
    c = 0.0925 + 0.78625 * a
    return {A: a, B: b, C: c}


def test_graph_weights_and_linkout():
    g = _graph()
    assert g.links(A, X) == 3 and g.links(A, A) == 0
    assert g.linkout(A) == 6 and g.linkout(A, within={A, B, C}) == 2
    assert g.linkout(C, within={A, B, C}) == 1 and g.linkout(X) == 0


def test_pagerank_matches_hand_computation():
    pr = _graph().pagerank([A, B, C], r=0.15)
    hand = _hand_pagerank()
    for site in (A, B, C):
        assert pr[site] == pytest.approx(hand[site], abs=1e-9)
    assert sum(pr.values()) == pytest.approx(1.0)  # no dangling seed: the paper's sum is 1


def test_r_is_the_teleport_probability():
    # Without links every seed gets exactly the random-jump term r/N (alpha = 1 - r).
    g = SiteGraph()
    for s in (A, B, C, D):
        g.add_site(s)
    assert g.pagerank(r=0.15) == pytest.approx({s: 0.15 / 4 for s in (A, B, C, D)})


def test_pagerank_with_a_dangling_seed_is_the_papers_fixed_point():
    # D has no links to other seeds: the paper's equation lets its rank leak away.
    g = graph_of({(A, B): 2, (B, A): 1, (B, D): 1, (C, D): 1, (D, X): 4})
    seeds = [A, B, C, D]
    pr = g.pagerank(seeds, r=0.15)
    # Power iteration of the paper's equation from PageRank = 1 (its starting value).
    p = dict.fromkeys(seeds, 1.0)
    out = {v: g.linkout(v, within=seeds) for v in seeds}
    for _ in range(300):
        p = {w: 0.15 / 4 + 0.85 * sum(p[v] * g.links(v, w) / out[v]
                                      for v in seeds if g.links(v, w)) for w in seeds}
    assert pr == pytest.approx(p, abs=1e-9)


def test_rank_outside_sites_sums():
    g = _graph()
    cred = {A: 0.9, B: 0.8, C: 0.1}
    rows = g.rank_outside_sites([A, B, C], cred, criterion="weighted_pagerank")
    pr = _hand_pagerank()
    by_site = {r["site"]: r for r in rows}
    assert set(by_site) == {X, Y, Z}  # seeds never ranked
    x, y, z = by_site[X], by_site[Y], by_site[Z]
    assert x["linked_from"] == [A, B] and x["links_in"] == 4
    assert x["sum_linkout"] == 2 + 1  # Linkout(A) + Linkout(B), within the seed set
    assert x["sum_pagerank"] == pytest.approx(pr[A] + pr[B])
    assert x["sum_weighted_pagerank"] == pytest.approx(0.9 * pr[A] + 0.8 * pr[B])
    assert y["sum_linkout"] == 1 and y["links_in"] == 5
    assert y["sum_weighted_pagerank"] == pytest.approx(0.1 * pr[C])
    assert z["sum_pagerank"] == pytest.approx(pr[A])
    assert [r["site"] for r in rows] == [X, Z, Y] and [r["rank"] for r in rows] == [1, 2, 3]
    # Other criteria.
    assert [r["site"] for r in g.rank_outside_sites([A, B, C], cred, "links_in")] == [Y, X, Z]
    assert [r["site"] for r in g.rank_outside_sites([A, B, C], cred, "linkout")] == [X, Z, Y]
    all_scope = g.rank_outside_sites([A, B, C], cred, "linkout", linkout_scope="all")
    assert {r["site"]: r["sum_linkout"] for r in all_scope} == {X: 6 + 2, Y: 6, Z: 6}
    with pytest.raises(ValueError):
        g.rank_outside_sites([A, B, C], cred, "indegree")


def test_low_credibility_seeds_rank_below_under_weighted_pagerank():
    H, L1, L2 = "http://high.org", "http://low1.org", "http://low2.org"
    GOOD, MONO = "http://bilingual-partner.org", "http://monolingual.org"
    g = graph_of({(H, L1): 1, (L1, L2): 1, (L2, H): 1,  # a ring
                                    (H, GOOD): 1, (L1, MONO): 1, (L2, MONO): 1})
    cred = {H: 0.9, L1: 0.05, L2: 0.05}
    by_pr = rank_outside_sites(g, [H, L1, L2], cred, criterion="pagerank")
    by_wpr = rank_outside_sites(g, [H, L1, L2], cred, criterion="weighted_pagerank")
    assert [r["site"] for r in by_pr] == [MONO, GOOD]   # more seeds link to it ...
    assert [r["site"] for r in by_wpr] == [GOOD, MONO]  # ... but they are not credible


def test_deterministic_ties_and_missing_credibility():
    g = graph_of({(A, "http://q.org"): 1, (A, "http://p.org"): 1})
    rows = g.rank_outside_sites([A], {})
    assert [r["site"] for r in rows] == ["http://p.org", "http://q.org"]
    assert rows[0]["sum_weighted_pagerank"] == 0.0  # unknown credibility counts as 0
    rows = g.rank_outside_sites([A], {}, default_credibility=1.0, exclude=["http://p.org"])
    assert [r["site"] for r in rows] == ["http://q.org"]
    assert rows[0]["sum_weighted_pagerank"] == pytest.approx(0.15)


def test_from_pages_counts_cross_site_links():
    html = ("<html><body><a href='http://b.org/x'>b</a><a href='http://en.b.org/y'>b</a>"
            "<a href='/local'>l</a><a href='https://c.org/'>c</a></body></html>")
    page = build_record("http://www.a.org/index.html", html)
    g = graph_of_pages([page, page.to_dict()])
    assert g.links("http://a.org", "http://b.org") == 4  # subdomains are the same site
    assert g.links("http://a.org", "https://c.org") == 2
    assert g.linkout("http://a.org") == 6
