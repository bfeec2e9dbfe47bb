"""Online URL-pattern pairing and deep page recovery (seed 003, §2.1–2.2).

As pages arrive, the URL-pattern learner is re-fitted on the URLs stored per
language. When the crawl runs dry (``spider_idle``), the counterpart URL of every
page still unpaired is generated with each credible pattern and requested
(``discovered_by="pattern"``); ``DontCloseSpider`` keeps the crawl open for them.
A generated URL that answers in the wrong language is not a counterpart.
"""

from __future__ import annotations

import logging
import os

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.url_patterns import PatternDB, UrlPatternLearner
from bitextcrawl.store import open_store

logger = logging.getLogger(__name__)


class UrlPairingPipeline:
    def __init__(self, crawler):
        self.crawler = crawler
        self.stats = crawler.stats
        s = crawler.settings
        self.local_threshold = s.getfloat("BITEXT_PATTERN_LOCAL_THRESHOLD")
        self.rescue_threshold = s.getfloat("BITEXT_PATTERN_RESCUE_THRESHOLD")
        self.relearn_every = max(1, s.getint("BITEXT_PATTERN_RELEARN_EVERY"))
        self.recovery = s.getbool("BITEXT_DEEP_RECOVERY")
        self.urls_by_lang: dict[str, list[str]] = {}
        self.tried: dict[str, str] = {}   # generated URL -> expected language
        self.new_pages = 0
        self.learner = None
        crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("BITEXT_PATTERNS_ENABLED"):
            raise NotConfigured
        return cls(crawler)

    def open_spider(self):
        spider = self.crawler.spider
        db_path = self.crawler.settings.get("BITEXT_PATTERN_DB") or os.path.join(
            "output", "patterns-db.json")
        self.pattern_db = PatternDB(db_path)  # read-only here: the closing pipeline updates it
        self.langs = spider.langs
        store = open_store(self.crawler.settings, spider.output_dir)
        try:  # a resumed crawl starts from what is stored
            self.urls_by_lang = {k: v for k, v in store.urls_by_lang().items() if k in self.langs}
            self.tried = store.get_meta("recovery_tried", {}) or {}
        finally:
            store.close()
        self.learner = UrlPatternLearner(langs=self.langs, local_threshold=self.local_threshold,
                                         rescue_threshold=self.rescue_threshold,
                                         pattern_db=self.pattern_db)
        if any(self.urls_by_lang.values()):
            self.learner.fit(self.urls_by_lang)

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        expected = self.tried.get(item.requested_url) or self.tried.get(item.url)
        if item.discovered_by == "pattern" and expected:
            if item.lang == expected:
                self.stats.inc_value("bitext/recovery/found")
            else:  # the site served its default language under the generated URL
                self.stats.inc_value("bitext/recovery/wrong_language")
                self.stats.inc_value("bitext/recovery/failed")
        if item.lang in self.langs:
            self.urls_by_lang.setdefault(item.lang, []).append(item.url)
            self.new_pages += 1
            # Every fit reads all URLs: a fixed step would cost O(n²) over a crawl and
            # block the reactor for a minute on a 20k-page site; growing it with the
            # site keeps the total near-linear. The idle pass re-learns on everything.
            known = sum(len(urls) for urls in self.urls_by_lang.values())
            if self.new_pages >= max(self.relearn_every, known // 10):
                self.relearn()
        return item

    def relearn(self) -> None:
        self.new_pages = 0
        self.learner.fit(self.urls_by_lang)
        self.stats.set_value("bitext/patterns/learned",
                             sum(1 for p in self.learner.patterns_ if p.credible))
        self.stats.set_value("bitext/patterns/pairs", len(self.learner.pairs()))

    def unpaired(self):
        paired = set()
        for pair in self.learner.pairs():
            paired.add(pair.url_1)
            paired.add(pair.url_2)
        for lang, urls in self.urls_by_lang.items():
            for url in urls:
                if url not in paired:
                    yield url, lang

    def spider_idle(self):
        if not self.recovery or self.learner is None:
            return
        self.relearn()
        spider = self.crawler.spider
        known = {u for urls in self.urls_by_lang.values() for u in urls}
        scheduled = 0
        for url, lang in list(self.unpaired()):
            for target, pattern in self.learner.counterparts(url, lang):
                if target in known or target in self.tried or not spider.in_scope(target):
                    continue
                other = self._other_lang(lang)
                self.tried[target] = other
                request = spider.page_request(target, discovered_by="pattern",
                                              bitext_expected_lang=other,
                                              bitext_pattern=pattern)
                self.crawler.engine.crawl(request)
                scheduled += 1
        if scheduled:
            self.stats.inc_value("bitext/recovery/tried", scheduled)
            logger.info("Deep page recovery: requesting %d counterpart URLs", scheduled)
            raise DontCloseSpider

    def _other_lang(self, lang: str) -> str:
        # Pages of the first language pair with any other; the others pair with the first.
        return self.langs[1] if lang == self.langs[0] else self.langs[0]

    def close_spider(self):
        store = open_store(self.crawler.settings, self.crawler.spider.output_dir)
        try:
            store.set_meta("recovery_tried", self.tried)
        finally:
            store.close()
