"""The crawl state owns what the crawl learns from its pages: one URL-token learner, the
pages per language, the contents seen and the URLs answered. The spider feeds it once per
page record; the focus, the pairing pipeline and the parallel-link index read it; a
resumed crawl rebuilds it from the store."""

from __future__ import annotations

from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from bitextcrawl.context import CrawlContext
from bitextcrawl.middlewares.focus import FocusMiddleware
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.parallel_links import ParallelLinkPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.spiders.bitext import BitextSpider

H = "http://www.example.org"


def crawler_for(tmp_path):
    crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / "out"),
                                         "BITEXT_PATTERN_DB": str(tmp_path / "db.json")})
    crawler.spider = BitextSpider.from_crawler(crawler, start_url=f"{H}/en/", langs="en,zh")
    return crawler


def page(path: str, lang: str, text: str | None = None) -> PageRecord:
    return PageRecord(url=f"{H}{path}", lang=lang, lang_prob=0.99,
                      text=text or f"the text of {path}", content_hash=f"hash of {text or path}",
                      text_length=20)


def parsed(crawler, record: PageRecord) -> list:
    """The spider's callback on a response carrying ``record`` (what the language-ID
    middleware gives it)."""
    response = HtmlResponse(record.url, body=b"<html></html>", encoding="utf-8")
    response.request = crawler.spider.page_request(record.url)
    response.request.meta["bitext_page"] = record
    response.meta["bitext_page"] = record
    return list(crawler.spider.parse(response))


def components(crawler):
    focus = FocusMiddleware.from_crawler(crawler)
    pairing = UrlPairingPipeline.from_crawler(crawler)
    parallel = ParallelLinkPipeline.from_crawler(crawler)
    return focus, pairing, parallel


def test_every_component_reads_the_one_url_token_learner(tmp_path):
    crawler = crawler_for(tmp_path)
    state = CrawlContext.from_crawler(crawler).state
    focus, pairing, parallel = components(crawler)
    assert focus.evidence.tokens is state.url_tokens.links
    assert parallel.index.tokens is state.url_tokens.links
    assert pairing.pairs.url_tokens is state.url_tokens
    assert focus.shape.pages_by_lang is state.pages_by_lang


def test_a_page_record_is_learned_once_whichever_components_see_it(tmp_path):
    crawler = crawler_for(tmp_path)
    state = CrawlContext.from_crawler(crawler).state
    focus, pairing, parallel = components(crawler)
    store = PageStorePipeline.from_crawler(crawler)
    for component in (store, pairing, parallel):
        component.open_spider()
    for i in range(6):
        for record in (page(f"/cn/p{i}.html", "zh"), page(f"/en/p{i}.html", "en")):
            item = parsed(crawler, record)[0]
            focus.get_processed_item(item, None)
            for pipeline in (store, pairing, parallel):
                pipeline.process_item(item)
    # six Chinese pages carry ``cn``: learned six times, not once per component
    assert state.url_tokens.links.counts["cn"] == {"zh": 6}
    assert state.url_tokens.site.counts["cn"] == {"zh": 6}
    assert state.pages_by_lang == {"zh": 6, "en": 6}
    assert state.url_tokens.site_size == 12
    # what each component asks of the URL of a page not fetched yet
    assert focus.evidence.url_lang(f"{H}/cn/new.html") == "zh"
    assert parallel.index.leads_elsewhere(f"{H}/cn/new.html") is False
    store.close_spider()


def test_the_same_content_under_a_second_url_is_a_duplicate_for_spider_and_pipeline(tmp_path):
    crawler = crawler_for(tmp_path)
    state = CrawlContext.from_crawler(crawler).state
    _, pairing, _ = components(crawler)
    pairing.open_spider()
    for path in ("/en/a.html", "/en/a/index.html"):
        pairing.process_item(parsed(crawler, page(path, "en", text="same words"))[0])
    assert state.content_seen == {"hash of same words": f"{H}/en/a.html"}
    assert pairing.pairs.duplicates == {f"{H}/en/a/index.html"}
    assert crawler.stats.get_value("bitext/links/skipped_duplicate_page") == 1


def test_a_resumed_crawl_rebuilds_the_state_from_the_store_once(tmp_path):
    first = crawler_for(tmp_path)
    store = PageStorePipeline.from_crawler(first)
    store.open_spider()
    for i in range(5):
        for record in (page(f"/cn/p{i}.html", "zh"), page(f"/en/p{i}.html", "en")):
            store.process_item(parsed(first, record)[0])
    store.close_spider()
    CrawlContext.from_crawler(first).close()

    again = crawler_for(tmp_path)
    context = CrawlContext.from_crawler(again)
    focus, pairing, _ = components(again)
    focus.spider_opened()      # replays the store ...
    pairing.open_spider()      # ... and a second replay reads nothing again
    assert context.state.pages_by_lang == {"zh": 5, "en": 5}
    assert context.state.url_tokens.links.counts["cn"] == {"zh": 5}
    assert context.state.content_seen["hash of /cn/p0.html"] == f"{H}/cn/p0.html"
    assert focus.evidence.url_lang(f"{H}/cn/new.html") == "zh"
    context.close()
