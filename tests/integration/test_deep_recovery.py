"""URL patterns learned during the crawl recover pages no link leads to."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("scheme", ["prefix", "subdomain", "suffix", "query"])
def test_hidden_pages_recovered(tmp_path, scheme):
    spec = SiteSpec(scheme=scheme, n_pairs=40, third_lang=None, hidden_fraction=0.3,
                    untranslated_fraction=0.1, seed=7)
    port = free_port()
    site = generate_site(spec, port)
    assert len(site.hidden_urls) >= 10
    with serve_site(site, port):
        run_crawl(site.start_url, tmp_path)
    pages = {p["url"]: p for p in map(json.loads, (tmp_path / "pages.jsonl").open())}
    recovered = site.hidden_urls & set(pages)
    share = len(recovered) / len(site.hidden_urls)
    print(f"{scheme}: recovered {len(recovered)}/{len(site.hidden_urls)} hidden pages")
    assert share >= 0.95
    assert all(pages[u]["discovered_by"] == "pattern" for u in recovered)

    stats = json.loads((tmp_path / "stats.json").read_text())["crawl"]
    assert stats["bitext/recovery/found"] >= len(recovered)
    assert stats["bitext/recovery/tried"] >= stats["bitext/recovery/found"]

    gold = set(site.gold_pairs)
    pairs = [json.loads(line) for line in (tmp_path / "pairs.jsonl").open()]
    by_pattern = [(p["url_1"], p["url_2"]) for p in pairs if "url_pattern" in p["sources"]]
    precision = sum(pair in gold for pair in by_pattern) / len(by_pattern)
    print(f"{scheme}: {len(by_pattern)} URL-pattern pairs, precision {precision:.3f}")
    assert precision >= 0.99
    patterns = json.loads((tmp_path / "patterns.json").read_text())
    reported = [p for site_p in patterns.values() for lp in site_p.values() for p in lp["patterns"]]
    assert any(p["credible"] and p["support"] > 0 and p["local_credibility"] > 0.1
               for p in reported)


def test_wrong_language_answer_is_not_a_counterpart(tmp_path):
    """A site that serves its default language under the other language's URL."""
    spec = SiteSpec(scheme="prefix", n_pairs=30, third_lang=None, hidden_fraction=0.0,
                    untranslated_fraction=0.3, seed=9)
    port = free_port()
    site = generate_site(spec, port)
    # Every missing /fr/ URL answers with the English home page (status 200).
    home = site.resources[site.start_url]
    original = site.lookup

    def lookup(host, path):
        found = original(host, path)
        if found is None and path.startswith("/fr/"):
            return home
        return found

    site.lookup = lookup
    with serve_site(site, port):
        run_crawl(site.start_url, tmp_path)
    stats = json.loads((tmp_path / "stats.json").read_text())["crawl"]
    assert stats.get("bitext/recovery/wrong_language", 0) >= 1
    pairs = [json.loads(line) for line in (tmp_path / "pairs.jsonl").open()]
    gold = set(site.gold_pairs)
    wrong = [(p["url_1"], p["url_2"]) for p in pairs if (p["url_1"], p["url_2"]) not in gold]
    assert not wrong, wrong[:3]
