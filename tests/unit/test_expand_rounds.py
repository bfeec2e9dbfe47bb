"""Site expansion round logic [Zhang 2013 §2.3]: ranking, selection, rows, finished runs."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.pairing.url_patterns import PatternDB, UrlPatternLearner
from bitextcrawl.sites.detect import detection_order
from bitextcrawl.sites.expansion import (
    Expansion,
    SiteResult,
    credibility_from_patterns,
    load_runs,
    outlink_counts,
    read_seeds,
    site_root,
)

# The fields of expansion.jsonl (DESIGN.md's contract).
ROW_FIELDS = ("round", "site", "sum_linkout", "sum_pagerank", "sum_weighted_pagerank",
              "linked_from", "rank", "crawled", "bilingual", "added")

A, B = "http://a.org", "http://b.org"            # seeds
C, D, E = "http://c.org", "http://d.org", "http://e.org"  # outside, bilingual
M, N = "http://m.org", "http://n.org"            # outside, monolingual


def page(url, *targets):
    return {"url": url, "links": [{"url": t, "text": "", "hreflang": None} for t in targets]}


def seeded(criterion="weighted_pagerank", top_k=2, c_a=0.9, c_b=0.9) -> Expansion:
    exp = Expansion(criterion=criterion, top_k=top_k)
    exp.record(SiteResult(A, 0, True, seed=True, credibility=c_a),
               {B: 1, C: 2, D: 1, M: 3})
    exp.record(SiteResult(B, 0, True, seed=True, credibility=c_b),
               {A: 1, C: 1, D: 1, N: 1})
    return exp


def test_read_seeds(tmp_path):
    f = tmp_path / "seeds.txt"
    f.write_text("# seeds\nhttp://a.org/en/\n\nb.org  # bare host\nhttp://a.org/en/\n")
    assert read_seeds(f) == ["http://a.org/en/", "http://b.org"]
    assert site_root("http://a.org:8080") == "http://a.org:8080/"


def test_outlink_counts_one_per_page_and_target():
    pages = [page(A + "/1", C + "/x", C + "/y", A + "/2", "mailto:x@a.org"),
             page(A + "/2", C + "/x", M + "/"),
             page("http://en.a.org/3", "http://fr.a.org/3")]  # subdomains: same site
    assert outlink_counts(pages) == {A: {C: 3, M: 1}}


def test_rank_selects_sites_linked_from_more_seeds():
    exp = seeded()
    ranking = exp.rank(1)
    assert [r["site"] for r in ranking][:2] == [C, D]   # linked from both seeds
    assert {r["site"] for r in ranking[2:]} == {M, N}
    assert exp.select(ranking) == [C, D]
    assert ranking[0]["linked_from"] == [A, B]
    assert A not in {r["site"] for r in ranking}        # members are never ranked


def test_weighted_pagerank_follows_credibility():
    # A has no credible URL patterns: what it alone links to drops under ΣWeightedPageRank.
    exp = seeded(c_a=0.0, c_b=0.8)
    wpr = {r["site"]: r for r in exp.rank(1)}
    assert wpr[M]["sum_weighted_pagerank"] == 0.0 and wpr[N]["sum_weighted_pagerank"] > 0
    assert wpr[N]["rank"] < wpr[M]["rank"]
    by_pr = {r["site"]: r for r in seeded("pagerank", c_a=0.0, c_b=0.8).rank(1)}
    assert by_pr[M]["sum_pagerank"] == pytest.approx(by_pr[N]["sum_pagerank"])  # unweighted


def test_rows_after_a_round():
    exp = seeded()
    exp.rank(1)
    exp.record(SiteResult(C, 1, True, credibility=0.7, reason="switch_anchors"), {E: 2})
    exp.record(SiteResult(D, 1, False, reason="missing: fr"), {E: 1})
    rows = {r["site"]: r for r in exp.rows(1)}
    for row in rows.values():
        assert set(ROW_FIELDS) <= set(row)
        assert row["round"] == 1
    assert rows[C]["crawled"] and rows[C]["bilingual"] and rows[C]["added"]
    assert rows[C]["credibility"] == 0.7 and rows[C]["reason"].startswith("bilingual")
    assert rows[D]["crawled"] and rows[D]["bilingual"] is False and not rows[D]["added"]
    assert rows[M]["crawled"] is False and rows[M]["bilingual"] is None
    assert rows[M]["reason"] == "below the top 2"
    # Next round: C joined the set, D (checked, not bilingual) is never ranked again;
    # E is linked from C only: D's links do not count.
    assert exp.members == [A, B, C]
    ranking = {r["site"]: r for r in exp.rank(2)}
    assert set(ranking) == {E, M, N}
    assert ranking[E]["linked_from"] == [C]


def test_seed_rows_and_all_rows():
    exp = seeded()
    exp.record(SiteResult("http://z.org", 0, False, seed=True, reason="missing: fr"))
    exp.rank(1)
    rows = exp.all_rows()
    seeds = [r for r in rows if r["round"] == 0]
    assert [r["site"] for r in seeds] == [A, B, "http://z.org"]
    assert all(r["seed"] and r["rank"] is None and r["crawled"] for r in seeds)
    assert [r["added"] for r in seeds] == [True, True, False]
    assert [r["round"] for r in rows[3:]] == [1] * 4
    json.dumps(rows)  # every row serialises


def test_top_k_zero_selects_all_and_bad_arguments():
    exp = seeded(top_k=0)
    assert len(exp.select(exp.rank(1))) == 4
    with pytest.raises(ValueError):
        Expansion(criterion="hits")
    with pytest.raises(ValueError):
        Expansion(top_k=-1)


def test_empty_set_ranks_nothing():
    exp = Expansion()
    exp.record(SiteResult(A, 0, False, seed=True), {C: 1})
    assert exp.rank(1) == [] and exp.select([]) == []


def _learned(scheme: str, port: int = 8000):
    site = generate_site(SiteSpec(scheme=scheme, n_pairs=8, third_lang=None,
                                  host=f"{scheme}-site.org"), port)
    urls = {}
    for url, lang in site.page_langs.items():
        urls.setdefault(lang, []).append(url)
    return UrlPatternLearner(langs=("en", "fr")).fit(urls)


def test_credibility_from_patterns_agrees_with_pattern_db():
    db = PatternDB(None)
    patterns = {}
    for scheme in ("prefix", "query", "opaque"):
        learner = _learned(scheme)
        db.update(learner.site_, learner.patterns_, site_size=learner.site_size_)
        patterns[learner.site_] = {"en-fr": learner.report()}
    got = credibility_from_patterns(patterns)
    for site in patterns:
        assert got[site] == pytest.approx(db.site_credibility(site))
    assert got["http://prefix-site.org:8000"] > 0.5
    assert got["http://opaque-site.org:8000"] < 0.1


def _write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_load_runs_from_bitext_and_expand_dirs(tmp_path):
    # A bitext run of A, with its patterns.json.
    run_a = tmp_path / "a"
    _write_jsonl(run_a / "pages.jsonl", [page(A + "/en/", C + "/", M + "/"),
                                         page(A + "/fr/", C + "/")])
    (run_a / "patterns.json").write_text(json.dumps({A: {"en-fr": {"patterns": [
        {"support": 2, "credible": True, "local_credibility": 0.5}]}}}))
    # An expand run: B added, D checked and dropped; D's pages do not make it a member.
    run_b = tmp_path / "b"
    _write_jsonl(run_b / "sites" / "b.org" / "pages.jsonl", [page(B + "/", C + "/", N + "/")])
    _write_jsonl(run_b / "sites" / "d.org" / "pages.jsonl", [page(D + "/", E + "/")])
    _write_jsonl(run_b / "sites.jsonl", [
        SiteResult(B, 0, True, seed=True, credibility=0.3).to_dict(),
        SiteResult(D, 1, False, reason="missing: fr").to_dict()])
    exp = load_runs([str(run_a), str(run_b)], criterion="weighted_pagerank", top_k=3)
    assert exp.members == [A, B]
    assert exp.credibility()[A] == 0.5 and exp.credibility()[B] == 0.3
    assert exp.last_round == 1
    ranking = exp.rank(2)
    assert [r["site"] for r in ranking][0] == C
    assert {r["site"] for r in ranking} == {C, M, N}  # not D (checked), not E (D's link)
    with pytest.raises(FileNotFoundError):
        load_runs([str(tmp_path / "empty")])


def test_detection_order_puts_wanted_language_switches_first():
    links = [{"url": "/home", "text": "Home"}, {"url": "/de/", "text": "Deutsch"},
             {"url": "/fr/", "text": "Français"}, {"url": "/x", "text": "x", "hreflang": "en"},
             {"url": "/y", "text": "News"}]
    assert [x["url"] for x in detection_order(links, ["en", "fr"])] == \
        ["/fr/", "/x", "/home", "/y", "/de/"]


def test_one_site_per_host_whatever_the_scheme():
    """Links to http:// and https:// of one host are links to one site (https named, as
    a link used it); a checked site keeps its own scheme, links to its other one are its."""
    exp = Expansion(criterion="linkout", top_k=0)
    exp.record(SiteResult(A, 0, True, seed=True, credibility=0.9),
               {"http://c.org": 2, "https://c.org": 3, "https://b.org": 1, M: 1})
    exp.record(SiteResult(B, 0, True, seed=True, credibility=0.9),
               {"https://c.org": 1, "https://a.org": 4})
    ranking = exp.rank(1)
    sites = [r["site"] for r in ranking]
    assert sites == ["https://c.org", M]
    assert ranking[0]["links_in"] == 6 and ranking[0]["linked_from"] == [A, B]
    assert exp.outlinks[A][B] == 1 and "https://b.org" not in exp.outlinks[A]
