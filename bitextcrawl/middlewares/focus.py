"""Focused crawling: order links by what is known of their language before download.

Evidence, strongest first: the link's ``hreflang``; a language-switch anchor text
("Français", "EN", "中文"); language tokens in the URL (``/de/``, ``lang=de``) learned
from the pages stored so far. Links known to lead to another language are dropped;
links found on pages of other languages wait until nothing else is left.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache
from urllib.parse import urlsplit

from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.sites.detect import switch_language as _switch_language

# Sites repeat the same anchors ("Home", "Français") on every page.
switch_language = lru_cache(maxsize=65536)(_switch_language)

_TOKEN_SPLIT = re.compile(r"[/.\-_?&=:]+")


def url_language_tokens(url: str) -> set[str]:
    """Short alphabetic tokens of host, path and query: where ``en``/``fra``/``de`` live."""
    parts = urlsplit(url)
    text = f"{parts.hostname or ''}/{parts.path}?{parts.query}".lower()
    return {t for t in _TOKEN_SPLIT.split(text) if 2 <= len(t) <= 3 and t.isalpha()}


class UrlLanguageTokens:
    """Which URL tokens name a language, learned from (url, language) of stored pages."""

    def __init__(self, min_pages: int = 5, purity: float = 0.95):
        self.min_pages = min_pages
        self.purity = purity
        self.counts: dict[str, Counter] = defaultdict(Counter)

    def learn(self, url: str, lang: str) -> None:
        for token in url_language_tokens(url):
            self.counts[token][lang] += 1

    def token_lang(self, token: str) -> str | None:
        counts = self.counts.get(token)
        if not counts:
            return None
        total = sum(counts.values())
        lang, n = counts.most_common(1)[0]
        if total >= self.min_pages and n / total >= self.purity:
            return lang
        return None

    def predict(self, url: str) -> set[str]:
        return {lang for t in url_language_tokens(url) if (lang := self.token_lang(t))}


class FocusMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler):
        super().__init__(crawler)
        s = crawler.settings
        self.stats = crawler.stats
        self.bonus = s.getint("BITEXT_FOCUS_LANG_LINK_PRIORITY")
        self.other_page_priority = s.getint("BITEXT_FOCUS_OTHER_PAGE_PRIORITY")
        self.drop_other = s.getbool("BITEXT_FOCUS_DROP_OTHER_LANG")
        self.tokens = UrlLanguageTokens(s.getint("BITEXT_FOCUS_URL_TOKEN_MIN_PAGES"),
                                        s.getfloat("BITEXT_FOCUS_URL_TOKEN_PURITY"))

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("BITEXT_FOCUS_ENABLED"):
            raise NotConfigured
        return cls(crawler)

    def link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        """The language a link leads to, and the evidence for it."""
        if link:
            if link.get("hreflang"):
                return link["hreflang"], "hreflang"
            named = switch_language(link.get("text") or "")
            if named:
                return named, "anchor"
        predicted = self.tokens.predict(url)
        if len(predicted) == 1:
            return predicted.pop(), "url_token"
        return None, ""

    def get_processed_item(self, item, response):
        if isinstance(item, PageRecord):
            self.tokens.learn(item.url, item.lang)
        return item

    def get_processed_request(self, request, response):
        if response is None:
            return request
        langs = getattr(self.crawler.spider, "langs", ())
        lang, evidence = self.link_language(request.url, request.meta.get("bitext_link"))
        if lang and lang not in langs and self.drop_other:
            self.stats.inc_value(f"bitext/focus/dropped_other_lang/{evidence}")
            return None
        if lang in langs:
            request.priority += self.bonus
            self.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
        page = response.meta.get("bitext_page")
        if page is not None and page.lang not in langs:
            request.priority += self.other_page_priority
            self.stats.inc_value("bitext/focus/deferred")
        return request
