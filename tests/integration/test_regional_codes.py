"""Languages a site names with a region code, as Hugo names them (``/pt-br/``, ``/zh-cn/``,
``<html lang="pt-br">``), crawled with those codes (``langs=en,pt-br``): the generated
glossary (``testkit/glossary.py``), small, over loopback.

* Its URLs: a partial translation under ``/pt-br/`` is the small side of a two-language
  crawl, walked by swapping ``/en/`` for ``/pt-br/`` whole (``pages/urls.py``: a
  variant's tag is one URL token).
* Opaque URLs and no declaration at all: its Chinese pages are what ``zh-cn`` asks for
  (``pages/variants.py``: a page declaring no variant counts as the one asked for).
* Several regional codes among other languages in one crawl, from a home that links
  no other language (the languages no page came in of are probed).
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl
from tests.conftest import run_crawl
from tests.sites.glossary import glossary_site

pytestmark = pytest.mark.integration


def crawl(tmp_path, site, langs, start="/en/"):
    """F1 per language of one crawl of ``site`` from ``start``, and its stats."""
    site.write(tmp_path / "site")
    with serve_directory(str(tmp_path / "site")) as server:
        run_crawl(server.url + start, tmp_path / "out", timeout=300, langs=",".join(langs))
    pairs = [tuple(u[len(server.url):].replace("/index.html", "/") for u in p)
             for p in read_pairs_jsonl(tmp_path / "out" / "pairs.jsonl")]
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())["crawl"]
    return {lang: evaluate(gold, [p for p in pairs if site.langs.get(p[1]) == lang])
            for lang, gold in site.golds.items()}, stats


def test_a_partial_translation_under_a_regional_code_is_walked(tmp_path):
    """Crawled from the translation's home, which links no English page: the English
    side is found at ``/en/`` (a language probe, the code swapped whole), and its pages
    wait for their ``/pt-br/`` counterparts."""
    langs = ("en", "pt-br")
    site = glossary_site(n_entries=40, langs=langs, opaque=False, translated=0.3,
                         html_lang=True)
    scores, stats = crawl(tmp_path, site, langs, start="/pt-br/")
    print(scores, {k: v for k, v in stats.items() if "small_side" in k})
    assert stats.get("bitext/focus/small_side/lang_probes") == 1, stats
    assert stats.get("bitext/focus/small_side/held", 0) > 0, stats   # the walk is on
    assert scores["pt-br"]["recall"] == 1.0 and scores["pt-br"]["precision"] == 1.0, scores


def test_a_site_declaring_no_variant_pairs_what_the_variant_asked_for_means(tmp_path):
    langs = ("en", "zh-cn")
    site = glossary_site(n_entries=30, langs=langs)   # opaque URLs, no <html lang>
    scores, _ = crawl(tmp_path, site, langs)
    assert scores["zh-cn"]["f1"] >= 0.95, scores


def test_regional_codes_among_other_languages_in_one_crawl(tmp_path):
    """Crawled from the ``/pt-br/`` home, which links no other language: once the crawl
    runs dry, the other languages are looked for at ``/en/``, ``/ja/``, ``/zh-cn/``
    (``sites/small_side.py``: ``LanguageProbes``)."""
    langs = ("en", "pt-br", "ja", "zh-cn")
    site = glossary_site(n_entries=30, langs=langs, opaque=False, translated=0.8,
                         html_lang=True)
    scores, stats = crawl(tmp_path, site, langs, start="/pt-br/")
    assert 1 <= stats.get("bitext/focus/lang_probes", 0) <= 3, stats
    for lang in langs[1:]:
        assert scores[lang]["f1"] >= 0.95, (lang, scores)
