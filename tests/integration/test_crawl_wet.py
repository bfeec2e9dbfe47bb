"""Crawl the real WET site (../shared/data/wet) over loopback with the real stack."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from lxml import html as lxml_html

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold
from tests.conftest import SHARED_DATA, run_crawl

pytestmark = pytest.mark.integration

SUFFIX_LANG = re.compile(r"-(en|fr)\.html$")


def reachable_pages(root: Path, start: str) -> set[str]:
    """Paths of HTML files reachable from ``start`` by links, as a crawler sees them."""
    seen, queue = {start}, deque([start])
    while queue:
        path = queue.popleft()
        file = root / path.lstrip("/")
        if not file.is_file():
            continue
        try:
            doc = lxml_html.fromstring(file.read_bytes())
        except Exception:
            continue
        for href in doc.xpath("//a/@href | //area/@href"):
            url = urljoin(f"http://h{path}", href.strip())
            parts = urlsplit(url)
            if parts.netloc != "h" or not parts.path.endswith(".html"):
                continue
            target = parts.path
            if target not in seen and (root / target.lstrip("/")).is_file():
                seen.add(target)
                queue.append(target)
    return seen


@pytest.fixture(scope="module")
def wet_crawl(tmp_path_factory):
    data = SHARED_DATA
    if not (data / "wet").is_dir():
        pytest.skip(f"real data not found at {data} (../shared/data beside the project)")
    out = tmp_path_factory.mktemp("wet")
    with serve_directory(str(data / "wet")) as server:
        proc = run_crawl(f"{server.url}/index-en.html", out, timeout=900)
        hits = dict(server.hits)
    pages = [json.loads(line) for line in (out / "pages.jsonl").open(encoding="utf-8")]
    stats = json.loads((out / "stats.json").read_text())
    return {"data": data, "out": out, "pages": pages, "hits": hits, "server": server,
            "stats": stats, "log": proc.stderr}


def test_every_reachable_page_recorded_once(wet_crawl):
    root = wet_crawl["data"] / "wet"
    expected = {p for p in reachable_pages(root, "/index-en.html") if SUFFIX_LANG.search(p)}
    urls = [p["url"] for p in wet_crawl["pages"]]
    aliases = [a for p in wet_crawl["pages"] for a in p["aliases"]]
    assert len(urls) == len(set(urls)), "a URL was recorded twice"
    assert not set(urls) & set(aliases), "a URL is both a page and another page's alias"
    # One record per content: the same content under another URL is that record's alias.
    missing = expected - {urlsplit(u).path for u in urls + aliases}
    assert not missing, f"{len(missing)} reachable en/fr pages not recorded: {sorted(missing)[:10]}"
    # ...and the server saw each page requested once.
    repeated = {k: v for k, v in wet_crawl["hits"].items() if v > 1 and k[1].endswith(".html")}
    assert not repeated, f"pages downloaded more than once: {list(repeated)[:5]}"


def test_language_labels(wet_crawl):
    labelled = [(p["lang"], SUFFIX_LANG.search(p["url"]).group(1))
                for p in wet_crawl["pages"] if SUFFIX_LANG.search(p["url"])]
    right = sum(a == b for a, b in labelled)
    wrong = [p["url"] for p in wet_crawl["pages"]
             if SUFFIX_LANG.search(p["url"]) and p["lang"] != SUFFIX_LANG.search(p["url"]).group(1)]
    print(f"language labels right on {right}/{len(labelled)}; wrong: {wrong[:10]}")
    assert right / len(labelled) >= 0.99


def test_records_complete(wet_crawl):
    for page in wet_crawl["pages"]:
        assert page["url"].startswith("http://127.0.0.1:")
        assert page["site"] and page["status"] == 200 and page["charset"]
        assert page["html"] and page["strand"] and page["content_hash"]
        assert page["lang_method"] in {"fasttext", "declared", "html_lang", "content_language",
                                      "url_token", "none"}
        assert isinstance(page["links"], list) and isinstance(page["hreflang"], dict)
        assert page["text_length"] == len(page["text"])
    with_text = [p for p in wet_crawl["pages"] if p["text_length"] > 0]
    assert len(with_text) >= 0.95 * len(wet_crawl["pages"])
    assert (wet_crawl["out"] / "pages.warc.gz").stat().st_size > 0


def test_pairs_against_silver_gold(wet_crawl):
    """The gold is silver: it holds only pairs whose toggles agree both ways, so a pair
    touching no gold URL cannot be judged; pages no link reaches cannot be found."""
    site = wet_crawl["pages"][0]["site"] + "/"
    gold = read_gold(wet_crawl["data"] / "wet-gold.tsv", base=site)
    pairs = [json.loads(line) for line in (wet_crawl["out"] / "pairs.jsonl").open()]
    predicted = [(p["url_1"], p["url_2"]) for p in pairs]
    print("wet pairs vs silver gold (strict):", json.dumps(evaluate(gold, predicted)))
    crawled = {p["url"] for p in wet_crawl["pages"]}
    s = evaluate_silver(gold, predicted, found_pages=crawled)
    print(f"judged precision {s['precision']:.3f} ({s['judged']} pairs), recall "
          f"{s['recall']:.3f} of {s['findable']} findable gold pairs, F1 {s['f1']:.3f}")
    assert s["f1"] >= 0.97

    # URL patterns: the -en/-fr scheme, precise; translated names left to others.
    by_pattern = [(p["url_1"], p["url_2"]) for p in pairs if "url_pattern" in p["sources"]]
    pattern_precision = evaluate_silver(gold, by_pattern)["precision"]
    print(f"URL-pattern pairs: {len(by_pattern)}, precision on gold URLs {pattern_precision:.3f}")
    assert pattern_precision >= 0.99
    patterns = json.loads((wet_crawl["out"] / "patterns.json").read_text())
    learned = {p["id"] for site_p in patterns.values() for lp in site_p.values()
               for p in lp["patterns"] if p["credible"]}
    assert "en:en|fr:fr" in learned
    license_pair = (site + "License-en.html", site + "Licence-fr.html")
    by_pair = {(p["url_1"], p["url_2"]): p for p in pairs}
    assert license_pair in by_pair and "url_pattern" not in by_pair[license_pair]["sources"]
