"""URL pairing patterns [Zhang 2013 §2.1–2.2]: schemes, competition, C(p,w), C(p), recovery."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

import pytest
from scrapy.exceptions import UsageError
from scrapy.settings import Settings

from bitextcrawl.commands.urlpairs import Command as UrlPairsCommand
from bitextcrawl.pairing.url_pairs import pair_urls
from bitextcrawl.pairing.url_patterns import (
    ID_MARKER,
    KINDS,
    SLUG_ID,
    TOKEN,
    PatternDB,
    UrlPatternLearner,
    pattern_id,
)
from testkit.url_lists import WORDS, id_marker_urls, lines_of_200_sites, scheme_urls
from tests.conftest import PROJECT_ROOT, SHARED_DATA

DATA = SHARED_DATA

SCHEMES = [  # scheme, langs, expected (lang1 token, lang2 token)
    ("prefix", ("en", "fr"), ("en", "fr")),
    ("subdomain", ("en", "fr"), ("en", "fr")),
    ("suffix", ("en", "fr"), ("en", "fr")),
    ("query", ("en", "fr"), ("en", "fr")),
    ("file_suffix", ("en", "zh"), ("e", "c")),
    ("numbered_dir", ("en", "zh"), ("en", "tc")),     # <1en,1tc>, <2en,2tc> -> <en,tc>
    ("names_dir", ("en", "fr"), ("english", "french")),  # not <englis,frenc> around the "h"
    ("locale_dir", ("en", "zh"), ("english", "tc_chi")),
    ("locale_query", ("en", "zh"), ("en", "zh_TW")),
]






def precision(pairs, gold: dict[str, str]) -> float:
    return sum(gold.get(p.url_1) == p.url_2 for p in pairs) / max(1, len(pairs))


def assert_one_to_one(pairs):
    urls = [u for p in pairs for u in (p.url_1, p.url_2)]
    assert len(urls) == len(set(urls))


@pytest.mark.parametrize("scheme,langs,tokens", SCHEMES, ids=[s[0] for s in SCHEMES])
def test_each_scheme_is_learned(scheme, langs, tokens):
    one, two = scheme_urls(scheme, 60)
    lr = UrlPatternLearner(langs=langs).fit({langs[0]: one, langs[1]: two})
    best = lr.patterns_[0]
    assert (best.lang1_token, best.lang2_token) == tokens
    assert best.kind == TOKEN and best.credible and best.support == 120
    assert best.local_credibility == pytest.approx(1.0)
    assert lr.site_size_ == 120
    pairs = lr.pairs()
    assert len(pairs) == 60 and precision(pairs, dict(zip(one, two))) == 1.0
    assert all(0.5 < p.score <= 1.0 and p.pattern == best.id for p in pairs)


def test_character_level_aggregation_beats_token_level():
    # <1en,1tc>, <2en,2tc>, <3en,3tc>: each token-level key is weak; aggregated they win.
    one, two = scheme_urls("numbered_dir", 30)
    lr = UrlPatternLearner(langs=("en", "zh")).fit({"en": one, "zh": two})
    assert [p.id for p in lr.patterns_ if p.credible] == ["en:en|zh:tc"]
    assert set(lr.patterns_[0].contexts) == {("/", "9", "", "/")}


def test_three_languages_pair_each_language_pair():
    one, two = scheme_urls("prefix", 20)
    three = [u.replace("/en/", "/de/") for u in one]
    lr = UrlPatternLearner(langs=("en", "fr", "de")).fit({"en": one, "fr": two, "de": three})
    # a page pairs once with each other language
    by_pattern = Counter(p.pattern for p in lr.pairs())
    assert by_pattern == {"en:en|fr:fr": 20, "de:de|en:en": 20, "de:de|fr:fr": 20}
    assert sorted(lr.counterparts("http://www.example.org/en/z.html", "en")) == [
        ("http://www.example.org/de/z.html", "de:de|en:en"),
        ("http://www.example.org/fr/z.html", "en:en|fr:fr")]


def test_competition_frequent_pattern_beats_accidental_one():
    H = "http://www.example.org"
    en = [f"{H}/en/p{i}.html" for i in range(40)]
    fr = [f"{H}/fr/p{i}.html" for i in range(40)]
    # French pages that differ from /en/p0-2.html by one character: the accidental candidate
    # pattern <p,q> (3 candidate pairs) wants the same English URLs as <en,fr> (40)
    fr += [f"{H}/en/q{i}.html" for i in range(3)]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    assert {p.pattern for p in pairs} == {"en:en|fr:fr"}
    assert precision(pairs, {f"{H}/en/p{i}.html": f"{H}/fr/p{i}.html" for i in range(40)}) == 1
    assert len(pairs) == 40
    assert [p.id for p in lr.patterns_] == ["en:en|fr:fr"]  # <p,q> won no pair at all
    # alone, the same accidental pattern would pair them: it lost the competition only
    alone = UrlPatternLearner().fit({"en": en[:3], "fr": fr[40:]})
    assert [p.id for p in alone.patterns_] == ["en:p|fr:q"]


def test_local_threshold_is_a_parameter():
    H = "http://www.example.org"
    # <eng,fre> pairs 6 of 126 pages: C(p,w) = 0.048 < 0.1
    en = [f"{H}/eng/page{i}.html" for i in range(3)] + [f"{H}/a/x{i}" for i in range(60)]
    fr = [f"{H}/fre/page{i}.html" for i in range(3)] + [f"{H}/b/y{i}" for i in range(60)]
    weak = UrlPatternLearner().fit({"en": en, "fr": fr})
    p = weak.patterns_[0]
    assert (p.lang1_token, p.lang2_token) == ("eng", "fre")
    assert p.support == 6 and p.local_credibility == pytest.approx(6 / 126)
    assert not p.credible and weak.pairs() == []
    assert weak.counterparts(f"{H}/eng/new.html", "en") == []
    loose = UrlPatternLearner(local_threshold=0.01).fit({"en": en, "fr": fr})
    assert len(loose.pairs()) == 3


def _big_eng_fre_site(host: str, n: int):
    return ([f"http://{host}/eng/doc{i}.html" for i in range(n)],
            [f"http://{host}/fre/doc{i}.html" for i in range(n)])


def test_weak_key_rescued_by_global_credibility():
    db = PatternDB(None)
    # another site's history: <eng,fre> paired all its 600 pages -> C(p) = 1 * 600 > 500
    one, two = _big_eng_fre_site("other.example.com", 300)
    other = UrlPatternLearner(pattern_db=db).fit({"en": one, "fr": two})
    db.update(other.site_, other.patterns_, other.site_size_)
    pid = pattern_id(TOKEN, "en", "eng", "fr", "fre")
    assert db.global_credibility(pid) == pytest.approx(600.0)
    assert db.site_credibility("http://example.com") == pytest.approx(1.0)

    H = "http://www.small.org"
    en = [f"{H}/eng/page{i}.html" for i in range(3)] + [f"{H}/a/x{i}" for i in range(60)]
    fr = [f"{H}/fre/page{i}.html" for i in range(3)] + [f"{H}/b/y{i}" for i in range(60)]
    lr = UrlPatternLearner(pattern_db=db).fit({"en": en, "fr": fr})
    p = lr.patterns_[0]
    assert p.rescued and p.credible and p.local_credibility < 0.1
    assert p.global_credibility == pytest.approx(600.0)
    pairs = lr.pairs()
    assert len(pairs) == 3 and all(0.25 < q.score < 0.5 for q in pairs)
    # the threshold is a parameter
    strict = UrlPatternLearner(pattern_db=db, rescue_threshold=1000).fit({"en": en, "fr": fr})
    assert strict.pairs() == []


def test_counterparts_deep_page_recovery():
    one, two = scheme_urls("file_suffix", 30)
    lr = UrlPatternLearner(langs=("en", "zh")).fit({"en": one, "zh": two})
    pid = "en:e|zh:c"
    H = "http://www.example.org"
    # only the _e token is replaced, not the e's inside words
    assert lr.counterparts(f"{H}/new/tender_e.htm", "en") == [(f"{H}/new/tender_c.htm", pid)]
    assert lr.counterparts(f"{H}/new/tender_c.htm", "zh") == [(f"{H}/new/tender_e.htm", pid)]
    assert lr.counterparts(f"{H}/new/tender.htm", "en") == []
    assert lr.counterparts(f"{H}/new/tender_e.htm", "de") == []
    assert lr.language_of(f"{H}/x/y_c.htm") == "zh"
    assert lr.language_of(f"{H}/x/y_e.htm") == "en"
    assert lr.language_of(f"{H}/x/eye.htm") is None

    one, two = scheme_urls("prefix", 30)
    lr = UrlPatternLearner().fit({"en": one, "fr": two})
    assert lr.counterparts("http://www.example.org/en/deep/frozen-en.pdf", "en") == [
        ("http://www.example.org/fr/deep/frozen-en.pdf", "en:en|fr:fr")]
    # the paper's Table 1
    one, two = scheme_urls("locale_dir", 30, host="www.fehd.gov.hk")
    lr = UrlPatternLearner(langs=("en", "zh")).fit({"en": one, "zh": two})
    assert lr.counterparts("http://www.fehd.gov.hk/tc_chi/LLB_web/cagenda_20070904.htm", "zh") == [
        ("http://www.fehd.gov.hk/english/LLB_web/cagenda_20070904.htm", "en:english|zh:tc_chi")]


def test_slug_with_shared_id_is_a_separate_weaker_kind():
    H = "http://www.example.org"
    en = [f"{H}/en/about/page{i}.html" for i in range(30)]
    fr = [f"{H}/fr/about/page{i}.html" for i in range(30)]
    gold = dict(zip(en, fr))
    news_en = [f"{H}/en/news/{40 + i}-harbour-story-{i}" for i in range(6)]
    news_fr = [f"{H}/fr/actualites/{40 + i}-ouverture-du-port-{i}" for i in range(6)]
    gold.update(zip(news_en, news_fr))
    en += news_en + [f"{H}/License-en.html", f"{H}/en/events/99-open-day"]
    fr += news_fr + [f"{H}/Licence-fr.html",
                     # two French pages share id 99: ambiguous, so no slug pair for it
                     f"{H}/fr/evenements/99-portes-ouvertes", f"{H}/fr/agenda/99-journee"]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    assert precision(pairs, gold) == 1.0 and len(pairs) == 36
    slug = [p for p in pairs if p.pattern.startswith(SLUG_ID)]
    assert {(p.url_1, p.url_2) for p in slug} == set(zip(news_en, news_fr))
    assert all(p.score < 0.5 for p in slug)
    kinds = {p.kind: p for p in lr.patterns_ if p.credible}
    assert kinds[SLUG_ID].support == 12 and kinds[TOKEN].support == 60
    # License-en.html <-> Licence-fr.html is left to later stages
    assert not any("Licen" in p.url_1 for p in pairs)
    assert lr.report()["patterns"][1]["kind"] == SLUG_ID


def test_precision_with_realistic_noise():
    rnd = random.Random(7)
    H = "http://www.noisy.org"
    en, fr, gold = [], [], {}
    for i in range(200):
        a = f"{H}/en/{rnd.choice(WORDS)}/item{i}.html"
        b = a.replace("/en/", "/fr/")
        en.append(a)
        fr.append(b)
        gold[a] = b
    # unpaired pages in each language
    en += [f"{H}/en/only/e{i}.html" for i in range(80)]
    fr += [f"{H}/fr/seul/f{i}.html" for i in range(80)]
    # same-language page numbers: must never pair with each other
    en += [f"{H}/archive/list-{i}.html" for i in range(1, 30)]
    fr += [f"{H}/archives/liste-{i}.html" for i in range(1, 30)]
    # a mixed-language blog with no language marker: accidental single-token differences
    en += [f"{H}/blog/post-{i}.html" for i in (1, 3)]
    fr += [f"{H}/blog/post-{i}.html" for i in (2, 4)]
    en += [f"{H}/files/{i}.pdf" for i in range(0, 40, 2)]
    fr += [f"{H}/files/{i}.pdf" for i in range(1, 40, 2)]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    assert precision(pairs, gold) >= 0.99
    assert len(pairs) >= 195
    en_set = set(en)
    assert all(p.url_1 in en_set and p.url_2 not in en_set for p in pairs)
    assert not any("/blog/" in p.url_1 or "/files/" in p.url_1 for p in pairs)


def test_pattern_db_round_trip(tmp_path):
    path = tmp_path / "db" / "patterns.json"
    db = PatternDB(path)
    one, two = _big_eng_fre_site("a.example.com", 50)
    lr = UrlPatternLearner(pattern_db=db).fit({"en": one, "fr": two})
    db.update(lr.site_, lr.patterns_, lr.site_size_)
    db.update(lr.site_, lr.patterns_, lr.site_size_)  # a re-crawl replaces, never double counts
    one, two = scheme_urls("prefix", 20, host="b.example.net")
    de = [f"http://b.example.net/de/{i}" for i in range(20)]  # counted in |w| = 60
    lr2 = UrlPatternLearner(pattern_db=db).fit({"en": one, "fr": two, "de": de})
    db.update(lr2.site_, lr2.report()["patterns"])  # report dicts work too; |w| from N/C
    db.save()
    assert [f.name for f in path.parent.iterdir()] == ["patterns.json"]  # no temporary file left
    back = PatternDB(path)
    pid = pattern_id(TOKEN, "en", "eng", "fr", "fre")
    assert back.global_credibility(pid) == pytest.approx(100.0)
    assert back.global_credibility("en:en|fr:fr") == pytest.approx(40 * 40 / 60)
    assert back.site_credibility("http://example.net") == pytest.approx(40 / 60)
    assert back.site_size("http://example.net") == 60
    assert sorted(back.sites()) == ["http://example.com", "http://example.net"]
    assert json.loads(path.read_text())["version"] == 1
    # the id ignores the order of langs
    assert pattern_id(TOKEN, "fr", "fre", "en", "eng") == pid
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not readable"):
        PatternDB(path)


def test_report_has_the_numbers():
    one, two = scheme_urls("suffix", 10)
    db = PatternDB(None)
    unlabelled = ["http://www.example.org/x"]
    lr = UrlPatternLearner(pattern_db=db).fit({"en": one, "fr": two, "": unlabelled})
    rep = lr.report()
    assert rep["site"] == "http://example.org" and rep["site_size"] == 21
    p = rep["patterns"][0]
    assert p["support"] == 20 and p["local_credibility"] == pytest.approx(20 / 21)
    assert p["global_credibility"] == 0 and len(p["examples"]) == 5
    json.dumps(rep)


def test_pair_urls_many_sites_rescue_and_inferred_languages():
    lines, gold = [], {}
    # 30 sites with the <eng,fre> scheme fully used: C(p) = 30 * 1 * 20 = 600
    for s in range(30):
        one, two = _big_eng_fre_site(f"site{s}.example{s}.com", 10)
        lines += [f"en\t{u}" for u in one] + [f"fr\t{u}" for u in two]
        gold.update(zip(one, two))
    # a small site where <eng,fre> pairs 4 of 60 pages (C = 0.067): weak locally, rescued
    H = "http://www.weak.org"
    lines += [f"en\t{H}/eng/a.html", f"fr\t{H}/fre/a.html", f"en\t{H}/eng/b.html",
              f"fr\t{H}/fre/b.html"]
    gold.update({f"{H}/eng/a.html": f"{H}/fre/a.html", f"{H}/eng/b.html": f"{H}/fre/b.html"})
    lines += [f"en\t{H}/x/e{i}.html" for i in range(28)]  # unpaired pages
    lines += [f"fr\t{H}/y/f{i}.html" for i in range(28)]
    # a site without language labels: languages from the learned/global tokens
    H2 = "http://unlabelled.example.org"
    lines += [f"{H2}/eng/p{i}.html" for i in range(5)] + [f"{H2}/fre/p{i}.html" for i in range(5)]
    gold.update({f"{H2}/eng/p{i}.html": f"{H2}/fre/p{i}.html" for i in range(5)})
    # and one whose only hint is a language code
    H3 = "http://codes.example.org"
    lines += ["", "# comment"]
    lines += [f"{H3}/{i}/en/" for i in range(4)] + [f"{H3}/{i}/fr/" for i in range(4)]
    gold.update({f"{H3}/{i}/en/": f"{H3}/{i}/fr/" for i in range(4)})
    pairs = pair_urls(lines, langs=("en", "fr"))
    got = dict(pairs)
    assert len(got) == len(pairs)
    assert sum(gold.get(a) == b for a, b in pairs) == len(pairs)
    assert got[f"{H}/eng/a.html"] == f"{H}/fre/a.html"
    assert got[f"{H2}/eng/p3.html"] == f"{H2}/fre/p3.html"
    assert got[f"{H3}/2/en/"] == f"{H3}/2/fr/"
    assert len(pairs) == len(gold)
    # without the other sites the weak site's key is not rescued
    small = [ln for ln in lines if ln.startswith(("en\t" + H, "fr\t" + H))]
    assert pair_urls(small) == []


def test_fit_of_10k_urls():
    # (its time: bench/bench_time_limits.py)
    one, two = scheme_urls("prefix", 5000)
    lr = UrlPatternLearner().fit({"en": one, "fr": two})
    assert len(lr.pairs()) == 5000





def test_pair_urls_5000_urls_200_sites():
    # (its time: bench/bench_time_limits.py)
    lines = lines_of_200_sites()
    assert len(lines) == 5000
    pairs = pair_urls(lines, langs=("en", "fr"))
    assert len(pairs) == 160 * 12


needs_data = pytest.mark.skipif(
    not (DATA / "wet").is_dir() or not (DATA / "wet-gold.tsv").is_file(),
    reason=f"real data absent: {DATA.resolve()} (../shared/data beside the project)")


def _wet_urls():
    wet = DATA / "wet"
    base = "http://127.0.0.1:8000/"
    by_lang: dict[str, list[str]] = {"en": [], "fr": []}
    for f in sorted(wet.rglob("*.html")):
        rel = f.relative_to(wet).as_posix()
        for lang in ("en", "fr"):
            if rel.endswith(f"-{lang}.html"):
                by_lang[lang].append(base + rel)
    gold = {}
    for line in (DATA / "wet-gold.tsv").read_text(encoding="utf-8").splitlines():
        a, b = line.split("\t")
        gold[base + a] = base + b
    return by_lang, gold


@needs_data
def test_real_site_wet():
    by_lang, gold = _wet_urls()
    lr = UrlPatternLearner().fit(by_lang)
    best = lr.patterns_[0]
    assert (best.lang1_token, best.lang2_token, best.credible) == ("en", "fr", True)
    gold_urls = set(gold) | set(gold.values())
    judged = [p for p in lr.pairs() if p.url_1 in gold_urls or p.url_2 in gold_urls]
    prec = precision(judged, gold)
    recall = sum(gold.get(p.url_1) == p.url_2 for p in judged) / len(gold)
    print(f"WET: {len(lr.pairs())} pairs, precision {prec:.3f} on {len(judged)} gold-URL pairs, "
          f"recall {recall:.3f}")
    assert prec >= 0.99
    assert recall >= 0.95
    assert lr.counterparts("http://127.0.0.1:8000/docs/new-en.html", "en") == [
        ("http://127.0.0.1:8000/docs/new-fr.html", "en:en|fr:fr")]


@needs_data
def test_real_site_wet_through_pair_urls_without_languages():
    by_lang, gold = _wet_urls()
    base = "http://127.0.0.1:8000/"
    lines = sorted(by_lang["en"] + by_lang["fr"] + [base + "index.html", base + "404.html"])
    pairs = pair_urls(lines, langs=("fr", "en"))  # languages from the -en/-fr code tokens
    back = {b: a for a, b in gold.items()}
    assert len(pairs) >= 270
    judged = [(a, b) for a, b in pairs if a in back]
    assert judged and all(back[a] == b for a, b in judged)


def _command(settings=None):
    cmd = UrlPairsCommand()
    cmd.settings = Settings({"LOG_ENABLED": False, **(settings or {})})
    return cmd


def test_urlpairs_command_class(tmp_path, capsys):
    f = tmp_path / "urls.txt"
    one, two = scheme_urls("query", 5)
    f.write_text("\n".join([f"en\t{u}" for u in one] + two) + "\n", encoding="utf-8")
    db = tmp_path / "db.json"
    _command().run([str(f)], SimpleNamespace(langs="en,fr", pattern_db=str(db)))
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{a}\t{b}" for a, b in zip(one, two)]
    assert PatternDB(db).global_credibility("en:en|fr:fr") == pytest.approx(10.0)
    with pytest.raises(UsageError, match="cannot read"):
        _command().run([str(tmp_path / "missing.txt")],
                       SimpleNamespace(langs="en,fr", pattern_db=None))
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:   # the crawl's check of --langs: one line
        _command().run([str(f)], SimpleNamespace(langs="en", pattern_db=None))
    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith(
        "scrapy urlpairs: error: --langs needs two different languages or more")


@pytest.mark.integration
def test_urlpairs_command_line(tmp_path):
    # A throw-away project whose COMMANDS_MODULE holds only this command (so the test does
    # not depend on the other commands of bitextcrawl.commands importing cleanly).
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = upsettings\n")
    (tmp_path / "upsettings.py").write_text('COMMANDS_MODULE = "upcmds"\n')
    (tmp_path / "upcmds").mkdir()
    (tmp_path / "upcmds" / "__init__.py").write_text("")
    (tmp_path / "upcmds" / "urlpairs.py").write_text(
        "from bitextcrawl.commands import urlpairs\n\n\nclass Command(urlpairs.Command):\n    pass\n")
    one, two = scheme_urls("subdomain", 4)
    (tmp_path / "urls.txt").write_text("\n".join(one + two) + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(tmp_path)])}

    def run(*a):
        return subprocess.run([sys.executable, "-m", "scrapy", "urlpairs", *a], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)

    ok = run("urls.txt", "--langs", "en,fr")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines() == [f"{a}\t{b}" for a, b in zip(one, two)]
    assert "urlpairs: 4 pairs" in ok.stderr
    bad = run("nope.txt", "--langs", "en,fr")
    assert bad.returncode == 2 and "cannot read nope.txt" in bad.stderr


def test_random_urls_keep_the_invariants():
    # Short random URLs over a tiny alphabet: many accidental single-token differences.
    rnd = random.Random(3)
    alphabet = "ab1-_./?=&Ee"
    for trial in range(30):
        urls = {f"http://h.org/{''.join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 8)))}"
                for _ in range(60)}
        urls = sorted(urls)
        rnd.shuffle(urls)
        half = len(urls) // 2
        lr = UrlPatternLearner(local_threshold=0.0).fit({"en": urls[:half], "fr": urls[half:]})
        pairs = lr.pairs()
        assert_one_to_one(pairs)
        en = set(urls[:half])
        for p in pairs:
            assert p.url_1 in en and p.url_2 not in en and 0 <= p.score <= 1
            # a learned token pattern regenerates its own pairs (slug kinds generate nothing)
            if not p.pattern.startswith((SLUG_ID, ID_MARKER)):
                assert (p.url_2, p.pattern) in lr.counterparts(p.url_1, "en")
                assert (p.url_1, p.pattern) in lr.counterparts(p.url_2, "fr")
        json.dumps(lr.report())


# ----------------------------------------------------------------------------- id_marker

SLUGS_EN = ("about albania|the people|our attainment|distribution|quality management|business "
            "partner|imprint|history|contact|fabrication|map|fair 2007|gallery|management|"
            "seminar|office store|visit 2005|products|news|jobs").split("|")
SLUGS_DE = ("ueber albanien|die albaner|unsere leistungen|vertrieb|qualitaetsmanagement|"
            "geschaeftspartner|impressum|firmengeschichte|anfrage|produktion|karte|messe 2007|"
            "bildergalerie|geschaeftsleitung|seminar|montage buero lager|besuch 2005|produkte|"
            "aktuelles|stellen").split("|")


def marker_site(n=20, host="http://albatec.example.de", codes=("1", "0", "2")):
    """``<id>-<language number>-<translated slug>.html`` in en, de and sq (as albatec-al.de)."""
    en, de, sq = [], [], []
    for i in range(n):
        pid = 3 + 2 * i
        en.append(f"{host}/{pid}-{codes[0]}-{SLUGS_EN[i % 20].replace(' ', '-').title()}.html")
        de.append(f"{host}/{pid}-{codes[1]}-{SLUGS_DE[i % 20].replace(' ', '-').title()}.html")
        sq.append(f"{host}/{pid}-{codes[2]}-Faqe-{'abcdefghijklmnopqrst'[i % 20]}.html")
    return en, de, sq


def test_id_marker_learns_language_numbers():
    en, de, sq = marker_site()
    H = "http://albatec.example.de"
    en += [f"{H}/", f"{H}/files/"]   # pages without numbers, and
    de += [f"{H}/6-0-Land-und-Leute.html"]  # a German page without an English one
    lr = UrlPatternLearner(langs=("en", "de")).fit({"en": en, "de": de, "sq": sq})
    best = lr.patterns_[0]
    assert best.kind == ID_MARKER and best.credible and not best.rescued
    assert (best.lang1, best.lang1_token, best.lang2, best.lang2_token) == ("en", "1", "de", "0")
    assert best.id == "id_marker:de:0|en:1"
    assert best.support == 40 and best.local_credibility == pytest.approx(40 / 63)
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    assert len(pairs) == 20 and precision(pairs, dict(zip(en, de))) == 1.0
    assert all(0.5 < p.score <= 1 and p.pattern == best.id for p in pairs)
    # no URL can be generated: the other language's slug is unknown
    assert lr.counterparts(f"{H}/99-1-New-Page.html", "en") == []
    assert lr.language_of(f"{H}/99-1-New-Page.html") is None
    rep = lr.report()
    assert rep["pairs_by_kind"] == {**{k: 0 for k in KINDS}, ID_MARKER: 20}
    assert rep["patterns"][0]["kind"] == ID_MARKER
    json.dumps(rep)
    # every language pair of a trilingual site; the order of langs only orients the pairs
    lr3 = UrlPatternLearner(langs=("en", "de", "sq")).fit({"en": en, "de": de, "sq": sq})
    # (two English/German slugs carry a year the Albanian ones lack: other numbers, no key)
    assert Counter(p.pattern for p in lr3.pairs()) == {
        "id_marker:de:0|en:1": 20, "id_marker:en:1|sq:2": 18, "id_marker:de:0|sq:2": 18}
    rev = UrlPatternLearner(langs=("de", "en")).fit({"en": en, "de": de})
    assert {(p.url_2, p.url_1) for p in rev.pairs()} == {(p.url_1, p.url_2) for p in pairs}
    # the rule can be switched off
    assert UrlPatternLearner(langs=("en", "de"), id_markers=False).fit(
        {"en": en, "de": de}).pairs() == []


def test_id_marker_marker_anywhere_and_with_directories():
    H = "http://www.example.org"
    # language number before the id, in the query, under translated directories
    en = [f"{H}/news/2/{100 + i}/{w}.html" for i, w in enumerate(WORDS)]
    fr = [f"{H}/nouvelles/5/{100 + i}/page-{w}-fr.html" for i, w in enumerate(WORDS)]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    assert [(p.kind, p.lang1_token, p.lang2_token) for p in lr.patterns_] == [(ID_MARKER, "2", "5")]
    assert precision(lr.pairs(), dict(zip(en, fr))) == 1 and len(lr.pairs()) == len(WORDS)
    en = [f"{H}/show.php?item={i}&l=7&t={w}" for i, w in enumerate(WORDS)]
    fr = [f"{H}/show.php?item={i}&l=8&t=titre{i}x" for i in range(len(WORDS))]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    assert precision(lr.pairs(), dict(zip(en, fr))) == 1 and len(lr.pairs()) == len(WORDS)


def test_id_marker_needs_many_pairs_and_loses_ties_to_token_patterns():
    en, de, _ = marker_site(2)
    lr = UrlPatternLearner(langs=("en", "de")).fit({"en": en, "de": de})
    p = lr.patterns_[0]
    assert p.kind == ID_MARKER and p.local_credibility == 1.0 and not p.credible
    assert lr.pairs() == []
    assert len(UrlPatternLearner(langs=("en", "de"), min_marker_pairs=2).fit(
        {"en": en, "de": de}).pairs()) == 2
    # the same numbers with nothing else differing: a single-token pattern, which wins
    H = "http://www.example.org"
    en = [f"{H}/doc/{i}-1.html" for i in range(10)]
    de = [f"{H}/doc/{i}-0.html" for i in range(10)]
    lr = UrlPatternLearner(langs=("en", "de")).fit({"en": en, "de": de})
    assert [(p.kind, p.lang1_token, p.lang2_token) for p in lr.patterns_] == [(TOKEN, "1", "0")]
    assert len(lr.pairs()) == 10
    assert lr.counterparts(f"{H}/doc/99-1.html", "en") == [(f"{H}/doc/99-0.html", "de:0|en:1")]


def test_id_marker_is_never_rescued():
    db = PatternDB(None)
    en, de, _ = marker_site(20, host="http://big.example.com")
    big = UrlPatternLearner(langs=("en", "de"), pattern_db=db).fit({"en": en, "de": de})
    for s in range(40):  # C(p) far above 500 from many sites
        db.update(f"http://s{s}.example.com", big.patterns_, big.site_size_ * 40)
        db.update(f"http://t{s}.example.com", big.patterns_, big.site_size_)
    assert db.global_credibility("id_marker:de:0|en:1") > 500
    en, de, _ = marker_site(4, host="http://small.example.com")
    en += [f"http://small.example.com/en/x{i}" for i in range(100)]
    lr = UrlPatternLearner(langs=("en", "de"), pattern_db=db).fit({"en": en, "de": de})
    p = lr.patterns_[0]
    assert p.kind == ID_MARKER and p.pairs == 4 and p.global_credibility > 500
    assert not p.credible and not p.rescued and lr.pairs() == []


def test_id_marker_not_for_page_numbers_or_translated_names():
    H = "http://www.example.org"
    en = [f"{H}/en/about/page{i}.html" for i in range(30)]
    fr = [f"{H}/fr/about/page{i}.html" for i in range(30)]
    gold = dict(zip(en, fr))
    # the same list in both languages, several pages each (translations keep their number)
    for lst in range(6):
        for page in range(1, 4):
            en.append(f"{H}/list/{lst}-{page}.html")
            fr.append(f"{H}/liste/{lst}-{page}-resultats.html")
    # same-language page numbers, with and without an id
    en += [f"{H}/archive/list-{i}.html" for i in range(1, 30)]
    en += [f"{H}/news/7-{i}-harbour.html" for i in range(1, 8)]
    fr += [f"{H}/archives/liste-{i}.html" for i in range(1, 30)]
    # translated file names: left to the later stages
    en += [f"{H}/License-en.html", f"{H}/3/License-en-2.html"]
    fr += [f"{H}/Licence-fr.html", f"{H}/3/Licence-fr-2.html"]
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    assert not any(p.kind == ID_MARKER and p.credible for p in lr.patterns_)
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    assert precision(pairs, gold) == 1.0 and len(pairs) == 30
    assert lr.report()["pairs_by_kind"][ID_MARKER] == 0


@pytest.mark.parametrize("seed", range(5))
def test_id_marker_not_where_numbers_ignore_language(seed):
    rnd = random.Random(seed)
    H = "http://photos.example.org"
    en, fr = [], []
    for album in range(40):
        # translated albums; photo numbers (and the number of photos) unrelated to language
        for photo in rnd.sample(range(1, 9), 4):
            en.append(f"{H}/album/{album}-{photo}-{rnd.choice(WORDS)}.html")
        for photo in rnd.sample(range(1, 9), 4):
            fr.append(f"{H}/album/{album}-{photo}-photo-{rnd.randint(0, 99)}.html")
        # and pages whose version number is random, not a language
        en.append(f"{H}/doc/{album}-v{rnd.randint(0, 1)}-{rnd.choice(WORDS)}")
        en.append(f"{H}/text/{album}-{rnd.randint(0, 1)}-{rnd.choice(WORDS)}")
        fr.append(f"{H}/text/{album}-{rnd.randint(0, 1)}-texte")
    lr = UrlPatternLearner().fit({"en": en, "fr": fr})
    assert not any(p.kind == ID_MARKER and p.credible for p in lr.patterns_)
    assert lr.pairs() == []





def test_id_marker_fit_of_10k_urls():
    # (its time: bench/bench_time_limits.py)
    en, de = id_marker_urls()
    lr = UrlPatternLearner(langs=("en", "de")).fit({"en": en, "de": de})
    assert len(lr.pairs()) == 5000 and precision(lr.pairs(), dict(zip(en, de))) == 1


LETT = SHARED_DATA / "lett"


@pytest.mark.skipif(not (LETT / "v2.lett.gz").is_file() or not (LETT / "expected").is_file(),
                    reason=f"real data absent: {LETT} (WMT16 lett crawl and its expected pairs)")
def test_real_lett_site_id_marker():
    from bitextcrawl.formats.lett import iter_lett_pages
    from bitextcrawl.pages.language import LanguageIdentifier

    by_lang: dict[str, list[str]] = {}
    for page in iter_lett_pages(LETT / "v2.lett.gz", identify=LanguageIdentifier().identify):
        by_lang.setdefault(page.lang or "", []).append(page.url)
    expected = dict(line.split("\t") for line in
                    (LETT / "expected").read_text(encoding="utf-8").splitlines() if line.strip())
    assert len(expected) == 16
    lr = UrlPatternLearner(langs=("en", "de")).fit(by_lang)
    best = lr.patterns_[0]
    assert (best.kind, best.lang1_token, best.lang2_token, best.credible) == (
        ID_MARKER, "1", "0", True)
    pairs = lr.pairs()
    assert_one_to_one(pairs)
    urls = set(expected) | set(expected.values())
    judged = [p for p in pairs if p.url_1 in urls or p.url_2 in urls]
    found = sum(expected.get(p.url_1) == p.url_2 for p in judged)
    print(f"lett: {len(pairs)} pairs, {found}/16 expected, C(p,w) {best.local_credibility:.3f}")
    assert found >= 15
    assert all(expected.get(p.url_1) == p.url_2 for p in judged)  # no wrong pair
    assert lr.counterparts(pairs[0].url_1, "en") == []


def test_refits_on_kept_parsed_urls_learn_what_a_fresh_fit_learns():
    # an online learner re-fits on the URLs of its last fit and more: the URLs it parsed
    # then are reused, and nothing learned may differ from a learner fitted once
    for scheme in ("prefix", "suffix", "query"):
        en, fr = scheme_urls(scheme, 120)
        online = UrlPatternLearner(langs=("en", "fr"), keep_parsed=True)
        for n in (10, 40, 120):
            online.fit({"en": en[:n], "fr": fr[:n]})
            fresh = UrlPatternLearner(langs=("en", "fr")).fit({"en": en[:n], "fr": fr[:n]})
            assert online.pairs() == fresh.pairs() and len(fresh.pairs()) == n
            assert [repr(p) for p in online.patterns_] == [repr(p) for p in fresh.patterns_]
        assert set(online.url_parts_) == set(en + fr)
        assert not getattr(fresh, "url_parts_", None)


def _nginx_urls(shared_data, labelled: bool) -> list[str]:
    root = shared_data / "nginx" / "site"
    if not root.is_dir():
        pytest.skip("nginx data not found")
    lines = []
    for side, lang in (("en", "en"), ("cn", "zh")):
        for path in sorted((root / side).rglob("*.html")):
            url = f"https://nginx.org/{path.relative_to(root)}"
            lines.append(f"{lang}\t{url}" if labelled else url)
    return lines


def test_pair_urls_reads_language_aliases_in_url_tokens(shared_data):
    """nginx.org's /cn/ names Chinese (cn is zh's alias): unlabelled, its URLs pair as
    labelled ones do, every gold pair."""
    unlabelled = pair_urls(_nginx_urls(shared_data, False), langs=("en", "zh"))
    labelled = pair_urls(_nginx_urls(shared_data, True), langs=("en", "zh"))
    gold = {tuple(f"https://nginx.org{p}" for p in line.split("\t"))
            for line in (shared_data / "nginx" / "gold" / "en-cn.tsv").read_text().split("\n")
            if line.strip()}
    assert set(unlabelled) == set(labelled) == gold and len(gold) == 34


def test_urlpairs_command_maps_aliases_in_langs_and_labels():
    from bitextcrawl.commands.urlpairs import _normalise_labels, _parse_langs

    assert _parse_langs("en,cn") == ("en", "zh")
    assert _normalise_labels(["cn\thttps://x.org/cn/a", "https://x.org/en/a", "# c\td"]) == [
        "zh\thttps://x.org/cn/a", "https://x.org/en/a", "# c\td"]
