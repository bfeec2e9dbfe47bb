"""A glossary site: short entries in a heavy template, opaque URLs, no switches.

Every page carries a sidebar listing every entry of its language, entries link each other
in their text, the French side sits at ``/p/<hash>.html`` and one link on the English home
page leads there (``tests/sites/glossary.py``). Nothing in URLs or switches pairs a page:
the template has to be taken out of structure, content and links, the link graph has to
start from the one sure pair (the two home pages) and the decision must not cascade.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pages.language import LanguageIdentifier
from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate, read_pairs_jsonl
from tests.conftest import PROJECT_ROOT, run_crawl
from tests.sites.glossary import glossary_site

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def identify():
    return LanguageIdentifier().identify


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_glossary_pairs_offline(identify, seed):
    site = glossary_site(seed=seed)
    pages = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    gold = [(site.url(a), site.url(b)) for a, b in site.gold]
    scores = evaluate(gold, [(p.url_1, p.url_2) for p in result.pairs])
    print(f"glossary seed {seed}: {scores}")
    assert scores["f1"] >= 0.97
    assert scores["precision"] >= 0.98
    # the sidebar's links are no neighbours, the entries' own links are
    assert result.models["en-fr"]["ets"]["neighbour_pairs"] > 0


def test_glossary_crawl(tmp_path):
    """The same, crawled over loopback as a user would: ``scrapy crawl bitext``."""
    site = glossary_site(seed=0)
    root = tmp_path / "site"
    site.write(root)
    with serve_directory(str(root)) as server:
        run_crawl(server.url + "/en/", tmp_path / "out", timeout=240)
    gold = [(server.url + a, server.url + b) for a, b in site.gold]
    pairs = read_pairs_jsonl(tmp_path / "out" / "pairs.jsonl")
    # a directory answers as its index.html: the home pages' gold URLs are the directories
    pairs = [tuple(u.replace("/index.html", "/") for u in p) for p in pairs]
    scores = evaluate(gold, pairs)
    print(f"glossary crawl: {scores}")
    assert scores["f1"] >= 0.97


def test_many_languages_in_one_crawl_and_its_pages_aligned_again(tmp_path):
    """Four languages of a partly translated glossary, one an outdated translation kept
    beside the current one, in one crawl: each pair as a crawl should get it, and ``scrapy
    align`` on the crawl's ``pages.jsonl`` pairs what the crawl paired (records read back
    from JSON carry no derived features: where each link sits is read from the HTML)."""
    langs = ("en", "ja", "ru", "zh")
    site = glossary_site(langs=langs, translated=0.8, stale=3)
    root = tmp_path / "site"
    site.write(root)
    with serve_directory(str(root)) as server:
        run_crawl(server.url + "/en/", tmp_path / "out", timeout=300, langs=",".join(langs))
    proc = subprocess.run([sys.executable, "-m", "scrapy", "align",
                           str(tmp_path / "out" / "pages.jsonl"), "--langs", ",".join(langs),
                           "-o", str(tmp_path / "again"), "--no-bitext"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    crawled = read_pairs_jsonl(tmp_path / "out" / "pairs.jsonl")
    assert set(read_pairs_jsonl(tmp_path / "again" / "pairs.jsonl")) == set(crawled)
    pairs = [tuple(u[len(server.url):].replace("/index.html", "/") for u in p) for p in crawled]
    for lang in langs[1:]:
        scores = evaluate(site.golds[lang], [p for p in pairs if site.langs.get(p[1]) == lang])
        print(f"en-{lang}: {scores}")
        assert scores["f1"] >= 0.95, (lang, scores)
