"""One signal bus for a crawl of many sites: each site's components hear their site only."""

from __future__ import annotations

from scrapy import Request, signals
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from bitextcrawl.pages.urls import site_of
from bitextcrawl.signals import SITE_MARK, SiteMark, SiteSignals, url_rewritten


class Recorder:
    def __init__(self):
        self.seen = []

    def response_received(self, response, request, spider=None):
        self.seen.append(("response", request.url))

    def url_rewritten(self, source, target):
        self.seen.append(("rewritten", source))


def test_each_site_hears_its_own_events_on_the_crawlers_bus():
    crawler = get_crawler()
    a = SiteSignals(crawler.signals, site_of("http://a.org/"))
    b = SiteSignals(crawler.signals, site_of("http://b.org/"))
    ra, rb = Recorder(), Recorder()
    for bus, rec in ((a, ra), (b, rb)):
        bus.connect(rec.response_received, signal=signals.response_received)
        bus.connect(rec.url_rewritten, signal=url_rewritten)
    # a redirect into b.org of a request made for a.org is a.org's
    asked = Request("http://www.b.org/x", meta={SITE_MARK: SiteMark(a.site)})
    crawler.signals.send_catch_log(signals.response_received, request=asked,
                                   response=HtmlResponse(asked.url, body=b""), spider=None)
    own = Request("http://b.org/y")
    crawler.signals.send_catch_log(signals.response_received, request=own,
                                   response=HtmlResponse(own.url, body=b""), spider=None)
    crawler.signals.send_catch_log(url_rewritten, source="http://a.org/old", target="x")
    assert ra.seen == [("response", "http://www.b.org/x"), ("rewritten", "http://a.org/old")]
    assert rb.seen == [("response", "http://b.org/y")]

    # closed, a site hears nothing more
    a.close()
    crawler.signals.send_catch_log(url_rewritten, source="http://a.org/new", target="x")
    assert ra.seen[-1] == ("rewritten", "http://a.org/old")
