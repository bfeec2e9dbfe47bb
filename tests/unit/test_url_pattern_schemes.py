"""URL pairing schemes beyond one token ([Zhang 2013 §2.1] generalised): one-sided,
glued and two-place markers, language names and numbers, slugs sharing an id in the query or
another segment; their precision against noise; recovery; the kind in the report and DB."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from scrapy.settings import Settings

from bitextcrawl.commands.urlpairs import Command as UrlPairsCommand
from bitextcrawl.pairing.url_pairs import pair_urls
from bitextcrawl.pairing.url_patterns import (
    GLUED,
    KINDS,
    ONE_SIDED,
    SLUG_ID,
    TOKEN,
    TWO_PLACE,
    PatternDB,
    UrlPatternLearner,
)
from testkit.url_lists import COVERED, make_benchmark, make_site

H = "http://www.example.org"
WORDS = "about news contact team press report policy history services help faq events".split()


def site(pattern_en, pattern_fr, n=12, en_only=(), fr_only=()):
    en = [pattern_en.format(w=w, i=i) for i, w in enumerate(WORDS[:n])]
    fr = [pattern_fr.format(w=w, i=i) for i, w in enumerate(WORDS[:n])]
    return en, fr, {"en": en + list(en_only), "fr": fr + list(fr_only)}


def fitted(by_lang, langs=("en", "fr")):
    return UrlPatternLearner(langs=langs).fit(by_lang)


def pairs_of(lr):
    return {(p.url_1, p.url_2) for p in lr.pairs()}


CASES = [  # (name, en pattern, fr pattern, kind, en token, fr token)
    ("suffix_one_sided", H + "/{w}.html", H + "/{w}_fr.html", ONE_SIDED, "", "_fr"),
    ("prefix_one_sided", H + "/products/{w}", H + "/fr/products/{w}", ONE_SIDED, "", "fr/"),
    ("query_one_sided", H + "/view.php?id={i}", H + "/view.php?id={i}&lang=fr", ONE_SIDED,
     "", "lang=fr"),
    ("default_french", H + "/en/{w}/", H + "/{w}/", ONE_SIDED, "en/", ""),
    ("glued_one_sided", H + "/{w}.htm", H + "/{w}f.htm", GLUED, "", "f"),
    ("glued_in_id", H + "/docs/r20{i:02d}e.pdf", H + "/docs/r20{i:02d}f.pdf", GLUED, "e", "f"),
    ("two_place", H + "/en/{w}_e.html", H + "/fr/{w}_f.html", TWO_PLACE, "en/+_e", "fr/+_f"),
    ("names", H + "/english/{w}.htm", H + "/francais/{w}.htm", TOKEN, "english", "francais"),
    ("names_two_place", H + "/English/{w}_e.htm", H + "/Francais/{w}_f.htm", TWO_PLACE,
     "English/+_e", "Francais/+_f"),
    ("numbers", H + "/p.asp?lng=1&id={i}", H + "/p.asp?lng=2&id={i}", TOKEN, "1", "2"),
]


@pytest.mark.parametrize("name,pen,pfr,kind,t1,t2", CASES, ids=[c[0] for c in CASES])
def test_scheme_learned_with_its_kind(name, pen, pfr, kind, t1, t2):
    # untranslated pages on both sides and noise that shares no scheme
    en, fr, by_lang = site(pen, pfr, en_only=[H + "/only/english-page.html", H + "/img/a.jpg"],
                           fr_only=[H + "/seulement/page-francaise.html"])
    lr = fitted(by_lang)
    best = lr.patterns_[0]
    assert (best.kind, best.lang1_token, best.lang2_token, best.credible) == (kind, t1, t2, True)
    assert pairs_of(lr) == set(zip(en, fr))
    assert lr.report()["pairs_by_kind"][kind] == 12


@pytest.mark.parametrize("name,pen,pfr,kind,t1,t2", CASES, ids=[c[0] for c in CASES])
def test_scheme_generates_counterparts_both_ways(name, pen, pfr, kind, t1, t2):
    en, fr, by_lang = site(pen, pfr)
    lr = fitted(by_lang)
    new_en, new_fr = pen.format(w="zebra", i=77), pfr.format(w="zebra", i=77)
    assert [u for u, _ in lr.counterparts(new_en, "en")] == [new_fr]
    assert [u for u, _ in lr.counterparts(new_fr, "fr")] == [new_en]


def test_one_sided_marker_is_not_inserted_twice():
    en, fr, by_lang = site(H + "/products/{w}", H + "/fr/products/{w}")
    lr = fitted(by_lang)
    assert lr.counterparts(H + "/fr/x", "en") == []  # carries fr/ already: no /fr/fr/x
    assert [u for u, _, _ in lr.counterpart_targets(H + "/a/b", "en", ["fr"])] == [H + "/fr/a/b"]


@pytest.mark.parametrize("en_pat,fr_pat", [
    (H + "/en/article.php?id={i}&t={w}", H + "/fr/article.php?id={i}&t=x{w}y"),
    (H + "/en/news/{i}/{w}", H + "/fr/nouvelles/{i}/x{w}y"),
    (H + "/item/{w}?id={i}&lang=en", H + "/item/x{w}y?id={i}&lang=fr"),
], ids=["id_in_query", "id_in_other_segment", "marker_after_slug"])
def test_translated_slugs_sharing_an_id(en_pat, fr_pat):
    # every slug translated: no pair differs by one token, the id and a marker pair them
    en, fr, by_lang = site(en_pat, fr_pat, en_only=[H + "/en/news/999/lonely"])
    lr = fitted(by_lang)
    assert pairs_of(lr) == set(zip(en, fr))
    assert {lr.report()["pairs_by_kind"][SLUG_ID]} == {12}
    assert all(p.score <= 0.5 for p in lr.pairs())  # weaker evidence, scored lower


def test_slugs_sharing_an_id_without_a_marker_are_not_paired():
    # per-language id spaces look the same as shared ones: no marker, no pair
    en, fr, by_lang = site(H + "/article/{i}-{w}", H + "/article/{i}-x{w}y")
    assert fitted(by_lang).pairs() == []


def test_accidental_glued_and_one_sided_differences_are_not_paired():
    # a real /en/ /fr/ site, plus words that differ by a trailing letter (page/pagef),
    # one-sided accidents, and recurring translated words (archive/list ↔ archives/liste)
    en, fr, by_lang = site(H + "/en/{w}.html", H + "/fr/{w}.html", n=12)
    by_lang["en"] += [H + "/page.htm", H + "/note.htm", H + "/staf.htm", H + "/x/tools.htm"]
    by_lang["fr"] += [H + "/pagef.htm", H + "/notef.htm", H + "/staff.htm", H + "/fr/x/tools.htm"]
    by_lang["en"] += [H + f"/archive/list-{i}.html" for i in range(1, 9)]
    by_lang["fr"] += [H + f"/archives/liste-{i}.html" for i in range(1, 9)]
    lr = fitted(by_lang)
    assert pairs_of(lr) == set(zip(en, fr))
    assert all(p.kind == TOKEN for p in lr.patterns_ if p.credible)


def test_glued_marker_needs_recurrence_and_language_consistency():
    # three French pages end in "f", but so do three English ones: no language marker
    en = [H + f"/{w}.htm" for w in ("page", "note", "file")] + [
        H + f"/{w}f.htm" for w in ("brie", "chie", "hal")]
    fr = [H + f"/{w}f.htm" for w in ("page", "note", "file")] + [H + "/x.htm"]
    assert fitted({"en": en, "fr": fr}).pairs() == []


def test_generated_sites_every_scheme_precision_and_recall():
    # many small sites (5-60 pages, untranslated pages, noise), each learned on its own
    right = found = gold = 0
    for scheme in COVERED:
        for seed in range(3):
            s = make_site(scheme, 100 + seed)
            got = pairs_of(fitted(s.by_lang()))
            ok = sum(s.gold.get(a) == b for a, b in got)
            assert ok == len(got), (scheme, seed, [p for p in got if s.gold.get(p[0]) != p[1]])
            right, found, gold = right + ok, found + len(got), gold + len(s.gold)
    assert right / gold >= 0.95


def test_sites_without_a_scheme_pair_nothing_through_pair_urls():
    sites = [s for s in make_benchmark(seed=5, sites_per_scheme=1, none_sites=6)]
    lines = [line for s in sites for line in s.lines()]
    pairs = pair_urls(lines)
    none_urls = {u for s in sites if s.scheme == "none" for _, u in s.labelled}
    assert pairs and not any(a in none_urls or b in none_urls for a, b in pairs)
    gold = {a: b for s in sites for a, b in s.gold.items() if s.scheme != "none"}
    assert sum(gold.get(a) == b for a, b in pairs) >= 0.95 * len(gold)


def test_kind_in_report_and_pattern_db_round_trip(tmp_path):
    en, fr, by_lang = site(H + "/{w}.html", H + "/{w}_fr.html")
    lr = fitted(by_lang)
    rep = lr.report()
    assert set(rep["pairs_by_kind"]) == set(KINDS)
    assert rep["patterns"][0]["kind"] == ONE_SIDED
    db = PatternDB(tmp_path / "db.json")
    db.update(lr.site_, lr.patterns_, lr.site_size_)
    db.save()
    again = PatternDB(tmp_path / "db.json")
    assert again.kinds() == {"one_sided:en:|fr:_fr": ONE_SIDED}
    assert again.global_credibility("one_sided:en:|fr:_fr") == pytest.approx(24 * 24 / 24)


def test_one_sided_key_rescued_by_global_credibility():
    # a weak one-sided key on a big site (8 pairs of 200 pages) is rescued by C(p)
    db = PatternDB(None)
    for k in range(30):
        e, f, b = site(f"http://s{k}.org/{{w}}", f"http://s{k}.org/fr/{{w}}")
        other = fitted(b)
        db.update(other.site_, other.patterns_, other.site_size_)
    en, fr, by_lang = site(H + "/{w}", H + "/fr/{w}", n=8)
    by_lang["en"] += [H + f"/misc/page-{i}.html" for i in range(184)]
    weak = UrlPatternLearner(rescue_threshold=500).fit(by_lang)
    assert pairs_of(weak) == set()
    lr = UrlPatternLearner(rescue_threshold=500, pattern_db=db).fit(by_lang)
    assert pairs_of(lr) == set(zip(en, fr)) and lr.patterns_[0].rescued


def test_urlpairs_command_pairs_a_one_sided_scheme(tmp_path, capsys):
    en, fr, _ = site(H + "/view.php?id={i}", H + "/view.php?id={i}&lang=fr")
    f = tmp_path / "urls.txt"
    f.write_text("\n".join([f"en\t{u}" for u in en] + [f"fr\t{u}" for u in fr]) + "\n")
    cmd = UrlPairsCommand()
    cmd.settings = Settings({"LOG_ENABLED": False})
    cmd.run([str(f)], SimpleNamespace(langs="en,fr", pattern_db=None))
    assert capsys.readouterr().out.splitlines() == [f"{a}\t{b}" for a, b in zip(en, fr)]
