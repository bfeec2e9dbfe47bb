"""``-a max_pages=N`` is a budget of responses (the requests in flight count; no page is
downloaded to be thrown away; the closing step still runs), and ``-a start_urls=`` takes
a comma list or a file of URLs: real crawls of a generated site over loopback."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from tests.conftest import run_crawl
from tests.integration.test_crawl_checks import crawl, refused

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def demo_site():
    spec = SiteSpec(scheme="prefix", n_pairs=40, third_lang=None, seed=7)
    port = free_port()
    site = generate_site(spec, port)
    with serve_site(site, port) as server:
        yield site, server


def page_hits(server) -> int:
    return sum(n for (_, path), n in server.hits.items() if path != "/robots.txt")


@pytest.mark.parametrize("budget", [5, 25])
def test_max_pages_is_a_budget_of_responses(tmp_path, demo_site, budget):
    site, server = demo_site
    before = page_hits(server)
    run_crawl(site.start_url, tmp_path, spider_args={"max_pages": str(budget)},
              settings={"BITEXT_DEEP_RECOVERY_ENABLED": "True"})
    sent = page_hits(server) - before
    stats = json.loads((tmp_path / "stats.json").read_text())
    crawl_stats = stats["crawl"]
    assert sent == budget, sent   # the site has far more pages: the budget is spent exactly
    assert crawl_stats["downloader/response_count"] - crawl_stats.get(
        "robotstxt/response_count", 0) == budget
    assert crawl_stats["bitext/budget/not_scheduled"] > 0
    assert "bitext/pages/over_max_pages" not in crawl_stats   # nothing downloaded for naught
    # the closing step ran on what the budget gave
    assert (tmp_path / "pairs.jsonl").exists() and (tmp_path / "report.html").exists()
    assert stats["report"]["links_not_followed"]["the max_pages budget was spent"] == \
        crawl_stats["bitext/budget/not_scheduled"]


def test_start_urls_list_and_file(tmp_path, demo_site):
    site, server = demo_site
    base = site.start_url.rsplit("/en/", 1)[0]
    second = f"{base}/fr/"
    hits = dict(server.hits)
    run_crawl(site.start_url, tmp_path / "list", spider_args={"start_urls": second,
                                                               "max_pages": "3"})
    asked = {key[1] for key, n in server.hits.items() if n > hits.get(key, 0)}
    assert {"/en/", "/fr/"} <= asked, asked
    url_file = tmp_path / "starts.txt"
    url_file.write_text(f"# the two sides\n{site.start_url}\n\n{second}  # French\n")
    proc = run_crawl(site.start_url, tmp_path / "file",
                     spider_args={"start_urls": str(url_file), "max_pages": "2"})
    pages = [json.loads(line)["url"] for line in (tmp_path / "file" / "pages.jsonl").open()]
    assert sorted(pages) == sorted([site.start_url, second]), pages
    assert "Traceback" not in proc.stderr


def test_start_urls_of_two_sites_refused(tmp_path, demo_site):
    site, _ = demo_site
    line = refused(crawl(site.start_url, tmp_path / "out", "-a",
                         "start_urls=http://127.0.0.1:9/,http://example.invalid/"))
    assert "the start URLs are of 3 sites" in line and "scrapy crawl expand" in line


@pytest.mark.parametrize("name", ["items.jsonl", "items.json"])
def test_scrapy_feed_export_writes_the_page_records(tmp_path, demo_site, name):
    """``scrapy crawl bitext -O FILE``: Scrapy's feed export writes each page record with
    the fields of pages.jsonl, and no error."""
    site, _ = demo_site
    feed = tmp_path / name
    proc = crawl(site.start_url, tmp_path / "out", "-a", "max_pages=6", "-O", str(feed))
    assert proc.returncode in (0, 3), proc.stderr[-3000:]
    assert " ERROR: " not in proc.stderr and "TypeError" not in proc.stderr
    text = feed.read_text(encoding="utf-8")
    items = json.loads(text) if name.endswith(".json") else [
        json.loads(line) for line in text.splitlines() if line.strip()]
    pages = [json.loads(line) for line in (tmp_path / "out" / "pages.jsonl").open()]
    assert items and sorted(i["url"] for i in items) == sorted(p["url"] for p in pages)
    assert set(items[0]) == set(pages[0])   # the exported fields, none transient
