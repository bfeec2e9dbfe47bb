"""Redirect learning: rules learned from redirects, and the middleware using them."""

from __future__ import annotations

from scrapy import Request
from scrapy.http import HtmlResponse, Response
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from bitextcrawl.middlewares.redirects import RedirectRewriteMiddleware
from bitextcrawl.pages.redirect_rules import RedirectRules, templates_of
from bitextcrawl.spiders.bitext import BitextSpider

M = "http://docs.example.org/manual/"

SWITCHES = [("en/fr/a.html", "fr/a.html"), ("fr/en/b.html", "en/b.html"),
            ("en/en/c.html", "en/c.html")]


def learned(pairs=SWITCHES, min_seen=3) -> RedirectRules:
    rules = RedirectRules(min_seen=min_seen)
    for source, target in pairs:
        rules.observe(M + source, M + target)
    return rules


def test_a_rewrite_is_used_once_seen_often_enough():
    assert learned(SWITCHES[:2]).rewrite(M + "en/fr/z.html") is None   # twice: not yet
    rules = learned()
    assert rules.rewrite(M + "en/fr/z.html") == M + "fr/z.html"
    assert rules.rewrite(M + "fr/fr/z.html?x=1") == M + "fr/z.html?x=1"  # query kept
    assert rules.live_rules() >= 1


def test_only_urls_of_the_same_shape_are_rewritten():
    rules = learned()
    assert rules.rewrite(M + "en/mod/core.html") is None   # "mod" never redirected so
    assert rules.rewrite(M + "en/fr/z.txt") is None        # another extension
    assert rules.rewrite(M + "en/fr/x/z.html") is None     # deeper
    assert rules.rewrite("http://other.example.org/manual/en/fr/z.html") is None


def test_a_repeated_value_keeps_every_template_that_fits():
    assert set(templates_of(["m", "en", "en", "c"], ["m", "en", "c"])) == {(0, 1, 3), (0, 2, 3)}
    assert templates_of(["a", "b"], ["a", "b", ""]) == [(0, 1, "")]


def test_a_new_value_where_the_rules_values_vary_is_near_it():
    # relative switches of the Japanese pages taught the rule; the English pages' own
    # (en/ja/...) carry a value seen at the position that varies
    rules = learned([("ja/ja/index.html", "ja/index.html"), ("ja/en/index.html", "en/index.html"),
                     ("ja/en/a.html", "en/a.html")])
    assert rules.rewrite(M + "ja/en/b.html") == M + "en/b.html"
    assert rules.near(M + "ja/en/b.html") is None          # the rule itself
    key = rules.near(M + "en/ja/b.html")
    assert key is not None and key[1] == ((1, "en"),)
    assert rules.near(M + "en/ja/c.html") == key           # one question for the family
    assert rules.near(M + "en/mod/core.html") is None      # "mod" is no value of it
    assert rules.near(M + "de/ja/b.html") is None          # nor "de"
    assert learned(SWITCHES[:2]).near(M + "fr/fr/z.html") is None   # no rule in use yet
    rules.observe(M + "en/ja/b.html", M + "ja/b.html")     # the answer: the rule covers it
    assert rules.rewrite(M + "en/ja/c.html") == M + "ja/c.html"


def test_the_site_contradicting_a_rule_drops_it():
    rules = learned()
    assert rules.contradict(M + "en/fr/q.html")   # answered without the redirect
    assert rules.rewrite(M + "en/fr/z.html") is None
    assert not rules.contradict(M + "fr/q.html")  # a target: no rule of its shape


def test_redirects_off_host_or_changing_the_query_teach_nothing():
    rules = RedirectRules(min_seen=1)
    rules.observe(M + "en/a.html", "http://cdn.example.org/manual/en/a.html")
    rules.observe(M + "en/a.html?x=1", M + "en/a.html?x=2")
    assert not rules.rules_


def _crawler(tmp_path, **settings):
    crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / "out"),
                                         "BITEXT_PATTERN_DB": str(tmp_path / "db.json"),
                                         **settings})
    crawler.stats = MemoryStatsCollector(crawler)
    return crawler


def test_middleware_learns_from_raw_responses_and_rewrites_links(tmp_path):
    crawler = _crawler(tmp_path)
    mw = RedirectRewriteMiddleware.from_crawler(crawler)
    for source, target in SWITCHES:
        request = Request(M + source)
        mw.response_downloaded(Response(M + source, status=301,
                                        headers={"Location": "/manual/" + target},
                                        request=request), request)
    request = Request(M + "en/fr/z.html", meta={"bitext_link": {"hreflang": "fr"}})
    out = mw.get_processed_request(request, None)
    assert out.url == M + "fr/z.html"
    assert out.meta["redirect_urls"] == [M + "en/fr/z.html"]  # the page keeps the old URL
    assert out.meta["bitext_link"] == {"hreflang": "fr"}
    assert crawler.stats.get_value("bitext/redirects/rewritten") == 1
    # a URL of that shape answered directly: the rule goes
    direct = Request(M + "en/fr/q.html")
    mw.response_downloaded(HtmlResponse(direct.url, body=b"<p/>", request=direct), direct)
    assert crawler.stats.get_value("bitext/redirects/rules_dropped") == 1
    assert mw.get_processed_request(Request(M + "fr/en/y.html"), None).url == M + "fr/en/y.html"


def test_middleware_is_off_by_setting(tmp_path):
    import pytest
    from scrapy.exceptions import NotConfigured
    with pytest.raises(NotConfigured):
        RedirectRewriteMiddleware.from_crawler(_crawler(tmp_path, BITEXT_REDIRECT_LEARNING_ENABLED=False))
