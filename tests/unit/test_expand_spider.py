"""The expand spider's wiring, without a network: settings, per-site pipelines, the check
phase's request flow ([Zhang 2013 §2.3], [Shi 2006 §3 step 1])."""

from __future__ import annotations

import json

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from bitextcrawl.context import CrawlContext
from bitextcrawl.pages.record import build_record
from bitextcrawl.pipelines.closing import ClosingPipeline
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.signals import SITE_MARK, SiteMark
from bitextcrawl.spiders.expand import CHECK, CRAWL, ExpandSpider, HoldMiddleware, SitePipelines

SITE = "http://a.org"
PROJECT_PIPELINES = {
    "bitextcrawl.pipelines.store.PageStorePipeline": 100,
    "bitextcrawl.pipelines.pairing.UrlPairingPipeline": 200,
    "bitextcrawl.pipelines.closing.ClosingPipeline": 900,
}


class RecordingPipeline:
    """Sees what a per-site pipeline sees: the crawler, and the site's crawl context."""

    instances: list = []

    def __init__(self, crawler, context):
        self.crawler = crawler
        self.context = context
        self.events = []
        context.add_idle_task("deep_recovery", self.spider_idle)
        RecordingPipeline.instances.append(self)

    @classmethod
    def from_crawler(cls, crawler, context=None):
        return cls(crawler, context or CrawlContext.from_crawler(crawler))

    def open_spider(self):
        self.events.append(("open", self.context.site, self.context.output_dir))

    def process_item(self, item):
        self.events.append(("item", item.url))
        return item

    def spider_idle(self):
        self.events.append(("idle",))
        return True

    def close_spider(self):
        self.events.append(("close",))


@pytest.fixture
def crawler(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{SITE}/en/\n")
    settings = {"ITEM_PIPELINES": PROJECT_PIPELINES, "BITEXT_OUTPUT_DIR": str(tmp_path / "out"),
                "BITEXT_PATTERN_DB": str(tmp_path / "db.json"), "BITEXT_EXPAND_DETECT_PAGES": 2}
    crawler = get_crawler(ExpandSpider, settings)
    crawler.stats = MemoryStatsCollector(crawler)
    crawler.spider = ExpandSpider.from_crawler(crawler, seeds=str(seeds), langs="en,fr")
    return crawler


def html(lang, *links):
    anchors = "".join(f'<a href="{href}">{text}</a>' for href, text in links)
    return (f"<html lang='{lang}'><head><title>t</title></head><body><main><p>Text in {lang}."
            f"</p>{anchors}</main></body></html>")


def test_settings_replace_pipelines_with_per_site_ones(crawler):
    s = crawler.settings
    per_site = s.getdict("BITEXT_EXPAND_SITE_PIPELINES")
    assert set(per_site) == set(PROJECT_PIPELINES) - {
        "bitextcrawl.pipelines.closing.ClosingPipeline"}
    assert s.getdict("ITEM_PIPELINES") == {SitePipelines: 100}
    assert s.getdict("SPIDER_MIDDLEWARES")[HoldMiddleware] == 700
    spider = crawler.spider
    assert spider.max_pages == 500 and spider.rounds == 1
    assert spider.expansion.criterion == "link_evidence" and spider.expansion.top_k == 10
    assert ClosingPipeline not in SitePipelines(crawler).classes


def test_spider_needs_a_seed_list(tmp_path):
    with pytest.raises(ValueError):
        ExpandSpider()
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(ValueError):
        ExpandSpider(seeds=str(empty))


def test_site_pipelines_route_items_and_signals(crawler):
    crawler.settings.frozen = False
    crawler.settings.set("BITEXT_EXPAND_SITE_PIPELINES",
                         {RecordingPipeline: 1,
                          "bitextcrawl.pipelines.store.PageStorePipeline": 2}, priority="cmdline")
    RecordingPipeline.instances = []
    pipes = SitePipelines(crawler)
    pipes.open_spider()
    spider = crawler.spider
    requests = spider.open_site(SITE, [SITE + "/en/", SITE + "/"], seed=True)
    assert [r.url for r in requests] == [SITE + "/en/", SITE + "/"]
    assert all(r.meta[SITE_MARK] == SiteMark(SITE, "root")
               for r in requests)
    site = spider.sites[SITE]
    rec = RecordingPipeline.instances[0]
    assert rec.events == [("open", SITE, site.output_dir)]
    assert site.output_dir.endswith("sites/a.org")

    page = build_record(SITE + "/en/", html("en"))
    assert pipes.process_item(page) is page
    assert ("item", SITE + "/en/") in rec.events
    assert crawler.stats.get_value("bitext/pages/stored") == 1

    assert pipes.site_idle(site) is True   # the pipeline asked for more time
    pipes.close_site(site)
    assert rec.events[-1] == ("close",)
    assert pipes.site_idle(site) is False  # its idle tasks are removed
    with open(site.output_dir + "/pages.jsonl", encoding="utf-8") as fh:
        assert [json.loads(line)["url"] for line in fh] == [SITE + "/en/"]


def test_real_pipelines_open_per_site(crawler):
    pipes = SitePipelines(crawler)
    pipes.open_spider()
    crawler.spider.open_site(SITE, [SITE + "/"])
    site = crawler.spider.sites[SITE]
    kinds = [type(p) for p in site.pipelines]
    assert kinds == [PageStorePipeline, UrlPairingPipeline]
    # each site its own crawl context; the crawl's own is the expand dir's
    assert all(p.context is site.context for p in site.pipelines)
    assert site.context is not CrawlContext.from_crawler(crawler)
    assert site.context.in_scope(SITE + "/fr/") and not site.context.in_scope("http://b.org/")
    assert site.context.page_request(SITE + "/fr/").meta[SITE_MARK].site == SITE
    assert site.pipelines[0].store is site.context.store
    pipes.close_spider()  # an interrupted crawl: every open site is flushed, its store closed
    assert not pipes.sites and site.context.closed


def test_check_phase_follows_root_links_and_holds_the_rest(crawler):
    pipes = SitePipelines(crawler)
    pipes.open_spider()
    spider = crawler.spider
    spider.open_site(SITE, [SITE + "/"], seed=True)
    site = spider.sites[SITE]
    root = build_record(SITE + "/en/", html(
        "en", ("/en/news.html", "News"), ("/en/about.html", "About"), ("/fr/", "Français"),
        ("http://b.org/", "Partner")))
    request = Request(SITE + "/", meta={"bitext_page": root, SITE_MARK: SiteMark(SITE, "root")})
    response = HtmlResponse(SITE + "/en/", body=b"", request=request)
    out = list(spider.parse(response))
    assert out[0] is root
    followed = [r for r in out[1:] if r.meta[SITE_MARK].check == "link"]
    held = [r for r in out[1:] if r.meta[SITE_MARK].check == "held"]
    # The language switch first, within the budget of 2; the rest waits for the verdict.
    assert [r.url for r in followed] == [SITE + "/fr/", SITE + "/en/news.html"]
    assert [r.url for r in held] == [SITE + "/en/about.html"]
    assert crawler.stats.get_value("bitext/links/offsite") == 1

    hold = HoldMiddleware(crawler)
    assert hold.get_processed_request(held[0], response) is None
    assert hold.get_processed_request(followed[0], response) is followed[0]
    assert list(site.held) == [SITE + "/en/about.html"]
    assert site.phase == CHECK
    site.phase = CRAWL  # once checked, nothing is held
    assert hold.get_processed_request(held[0], response) is held[0]
