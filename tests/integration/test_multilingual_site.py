"""Crawl a multilingual manual served like a real one.

The site (testkit/multilingual.py) has ten languages under
``/manual/<lang>/<page>.html``; each language other than English translates only a share
of the pages, and where no translation exists the English page is served, byte for byte,
under that language's URL. Language switches are relative links (``./fr/page.html``)
that the server answers with a 301 to the canonical URL. One real ``scrapy crawl bitext``
per language pair; each must find the real translations and nothing else.
"""

from __future__ import annotations

import json
import re

import pytest

from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pairing.evaluate import evaluate
from testkit.multilingual import ManualSpec, generate_manual
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

PAIRS = ("fr", "ja", "ko")  # translated shares 0.8, 0.3, 0.4 of the pages

@pytest.fixture(scope="module")
def served():
    """The manual (60 module pages + index, ten languages) on a loopback port."""
    port = free_port()
    site = generate_manual(ManualSpec(n_pages=60, seed=1), port)
    with serve_site(site, port) as server:
        yield site, server


@pytest.fixture(scope="module")
def crawls(served, tmp_path_factory):
    """One crawl per language pair, run on first use and kept for the module."""
    site, server = served
    done = {}

    def crawl(lang: str) -> dict:
        if lang not in done:
            out = tmp_path_factory.mktemp(f"manual-en-{lang}")
            site.write_gold(out / "gold.tsv", lang)
            before = dict(server.hits)
            run_crawl(site.start_url, out, langs=f"en,{lang}")
            hits = {k: v - before.get(k, 0) for k, v in server.hits.items()
                    if v > before.get(k, 0)}
            pairs = [json.loads(line) for line in (out / "pairs.jsonl").open(encoding="utf-8")]
            predicted = [(p["url_1"], p["url_2"]) for p in pairs
                         if (p["lang_1"], p["lang_2"]) == ("en", lang)]
            scores = evaluate(site.gold_pairs[lang], predicted, directory_index="index.html")
            print(f"en-{lang}: P={scores['precision']:.3f} R={scores['recall']:.3f} "
                  f"F1={scores['f1']:.3f} ({len(predicted)} pairs, "
                  f"{len(site.gold_pairs[lang])} gold)")
            done[lang] = {"out": out, "hits": hits, "predicted": predicted, "scores": scores}
        return done[lang]

    return crawl


@pytest.mark.parametrize("lang", PAIRS)
def test_switches_were_followed_through_their_redirects(served, crawls, lang):
    site, _ = served
    result = crawls(lang)
    switch = re.compile(rf"^/manual/[a-z]{{2}}/{lang}/([\w.]+\.html)$")
    followed = {m.group(1) for (_, path) in result["hits"] if (m := switch.match(path))}
    assert followed, "no relative language switch was requested"
    assert followed <= site.translated[lang]
    fetched = {path for (_, path) in result["hits"]}
    assert {f"/manual/{lang}/{page}" for page in followed} <= fetched
    assert (result["out"] / "pairs.jsonl").exists()


@pytest.mark.parametrize("lang", PAIRS)
def test_no_fallback_copy_is_paired(served, crawls, lang):
    site, _ = served
    paired = {u for pair in crawls(lang)["predicted"] for u in pair}
    wrong = sorted(paired & site.fallback_urls)
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("lang", PAIRS)
def test_pairs_f1_per_language_pair(served, crawls, lang):
    scores = crawls(lang)["scores"]
    assert scores["f1"] >= 0.99, {k: scores[k] for k in ("precision", "recall", "f1")}


def test_pages_jsonl_holds_one_record_per_content(served, crawls):
    """Fallback copies are aliases of the English page; a copy whose English page was
    not fetched (bar absence keeps it: it has nothing to pair with) is a record of its
    own, in English, whatever language its URL names. (The copies fetched are bar
    absence's tests, whose English pages it keeps: there may be no alias at all.)"""
    site, _ = served
    result = crawls("fr")
    out = result["out"]
    records = [json.loads(line) for line in (out / "pages.jsonl").open(encoding="utf-8")]
    hashes = [r["content_hash"] for r in records if r["text_length"]]
    assert len(hashes) == len(set(hashes))
    fetched = {path for (_, path) in result["hits"]}
    alone = [r for r in records if r["url"] in site.fallback_urls]
    for r in alone:
        english = r["url"].replace("/manual/fr/", "/manual/en/")
        assert english.split("://", 1)[1].partition("/")[2] not in {
            p.lstrip("/") for p in fetched}, r["url"]
        assert r["lang"] == "en", (r["url"], r["lang"], r.get("lang_method"))
    aliases = {a: r["url"] for r in records for a in r["aliases"]}
    copies = set(aliases) & site.fallback_urls
    assert alone or copies, "no fallback copy was fetched: nothing tested the rule"
    assert all("/manual/en/" in aliases[u] for u in copies)


def test_en_fr_costs_at_most_three_responses_per_pair(served, crawls):
    """On the manual: relative switches cost a 301 each until the crawl learns the
    rewrite; switches and parallel links into the eight unwanted languages are not followed."""
    result = crawls("fr")
    responses = sum(result["hits"].values())
    found = result["scores"]["tp"]
    stats = json.loads((result["out"] / "stats.json").read_text(encoding="utf-8"))["crawl"]
    assert stats.get("bitext/redirects/rewritten", 0) > 0, stats
    assert stats.get("bitext/parallel_links/wrong_language", 0) == 0, stats
    assert found and responses / found <= 3.0, (responses, found)
