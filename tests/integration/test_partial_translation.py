"""A partly translated site crawled from its big side, whose pages link nothing of the
small one (testkit/partial_site.py: 30 English pages, 5 of them translated into German,
the German side announced only by a neutral news page).

The crawl must find the German side from the start URL's language code (a language
probe, ``/en/`` -> ``/de/``), walk it, fetch only the English pages that are
counterparts, and leave the rest of the English side and the neutral pages alone:
every gold pair, at most 2.5 responses per pair (robots.txt included).
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl
from testkit.partial_site import write_partial_site
from tests.conftest import SHARED_DATA, run_crawl

pytestmark = pytest.mark.integration

PER_PAIR = 2.5


def test_the_small_side_is_found_from_the_big_side_and_walked(tmp_path):
    gold_paths = write_partial_site(tmp_path / "site", n_pages=30, n_translated=5)
    with serve_directory(str(tmp_path / "site")) as server:
        run_crawl(f"{server.url}/en/", tmp_path / "out", langs="en,de", timeout=300)
        responses = sum(server.hits.values())
    gold = [(server.url + a, server.url + b) for a, b in gold_paths]
    scores = evaluate(gold, read_pairs_jsonl(tmp_path / "out" / "pairs.jsonl"),
                      directory_index="index.html")
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())["crawl"]
    assert scores["tp"] == len(gold), scores
    # 6 pairs: 12 pages and robots.txt; the other 25 English pages and the root's
    # neutral pages are not fetched
    assert responses <= PER_PAIR * len(gold), (responses, stats)
    assert stats["bitext/focus/small_side/lang_probes"] == 1, stats


def test_nginx_hebrew_found_from_the_english_side(tmp_path):
    """nginx.org from /en/, en–he: nothing on /en/ links /he/ (5 pages translated)."""
    site, gold_file = SHARED_DATA / "nginx" / "site", SHARED_DATA / "nginx" / "gold" / "en-he.tsv"
    if not site.is_dir() or not gold_file.is_file():
        pytest.skip(f"real data not found at {SHARED_DATA / 'nginx'} (../shared/data beside "
                    "the project)")
    from bitextcrawl.pairing.evaluate import read_gold

    with serve_directory(str(site)) as server:
        run_crawl(f"{server.url}/en/", tmp_path, langs="en,he", timeout=300)
        gold = read_gold(gold_file, base=server.url + "/")
    scores = evaluate(gold, read_pairs_jsonl(tmp_path / "pairs.jsonl"),
                      directory_index="index.html")
    responses = json.loads((tmp_path / "stats.json").read_text())["crawl"][
        "downloader/response_count"]
    assert scores["recall"] == 1.0, scores
    assert responses <= PER_PAIR * len(gold), responses


def test_nginx_italian_found_in_a_crawl_of_three_languages(tmp_path):
    """nginx.org from /en/, langs=en,it,he: no page the crawl reaches links /it/; once the
    crawl runs dry, the start URL with the code swapped (/it/) is probed and its pages
    walked."""
    site = SHARED_DATA / "nginx" / "site"
    golds = {lang: SHARED_DATA / "nginx" / "gold" / f"en-{lang}.tsv" for lang in ("it", "he")}
    if not site.is_dir() or not all(g.is_file() for g in golds.values()):
        pytest.skip(f"real data not found at {SHARED_DATA / 'nginx'} (../shared/data beside "
                    "the project)")
    from bitextcrawl.pairing.evaluate import read_gold

    with serve_directory(str(site)) as server:
        run_crawl(f"{server.url}/en/", tmp_path, langs="en,it,he", timeout=400)
        gold = {lang: read_gold(g, base=server.url + "/") for lang, g in golds.items()}
    pairs = read_pairs_jsonl(tmp_path / "pairs.jsonl")
    stats = json.loads((tmp_path / "stats.json").read_text())["crawl"]
    for lang in ("it", "he"):
        scores = evaluate(gold[lang], [p for p in pairs if f"/{lang}/" in p[1]],
                          directory_index="index.html")
        assert scores["recall"] == 1.0 and scores["precision"] == 1.0, (lang, scores)
    assert stats["bitext/focus/lang_probes"] == 1, stats


def test_fallback_copies_cost_their_tests_alone(tmp_path):
    """A manual translated in part whose server answers an untranslated page's URL with
    the English page (testkit/multilingual.py: 60 modules, 19 in Japanese, the Japanese
    index linking all 60 and describing the untranslated ones in English). The fallback
    copies under /ja/ and the English pages behind them pair nothing: once three such
    pages confirmed what the index's words say, the rest are not fetched (bar absence,
    rule LISTED: ``BITEXT_FOCUS_BAR_ABSENCE_ENABLED``)."""
    from bitextcrawl.demo.server import free_port, serve_site
    from testkit.multilingual import ManualSpec, generate_manual

    port = free_port()
    site = generate_manual(ManualSpec(n_pages=60, seed=1), port)
    with serve_site(site, port) as server:
        run_crawl(site.start_url, tmp_path, langs="en,ja", timeout=300,
                  settings={"BITEXT_FOCUS_BAR_ABSENCE_ENABLED": True})
        hits = dict(server.hits)
    pairs = [json.loads(line) for line in (tmp_path / "pairs.jsonl").open(encoding="utf-8")]
    predicted = [(p["url_1"], p["url_2"]) for p in pairs]
    scores = evaluate(site.gold_pairs["ja"], predicted, directory_index="index.html")
    assert scores["tp"] == len(site.gold_pairs["ja"]), scores
    untranslated = {p for p in site.pages if p not in site.translated["ja"]}
    paths = {path for (_, path) in hits}
    fallback_fetched = {p for p in untranslated if f"/manual/ja/{p}" in paths}
    english_fetched = {p for p in untranslated if f"/manual/en/{p}" in paths}
    # each side's pages with nothing to pair: the rules' tests (3 a rule), not all 41
    assert len(fallback_fetched) <= 6, sorted(fallback_fetched)
    assert len(english_fetched) <= 6, sorted(english_fetched)
