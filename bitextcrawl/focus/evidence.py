"""The language a link leads to, before download, and the evidence for it.

Strongest first: the link's ``hreflang``; a language-switch anchor text ("Français",
"EN", "中文"); language tokens in the URL (``/de/``, ``lang=de``) learned from the pages
stored so far (:class:`~bitextcrawl.pages.urls.UrlLanguageTokens`); the code of a language
not wanted at a path position where the site writes its pages' language codes
(:class:`~bitextcrawl.pages.site.LanguageSlots`: ``/ja/`` where pages live under ``/en/``
and ``/ru/``, before any Japanese page taught ``ja`` as a token).
"""

from __future__ import annotations

from collections.abc import Callable

from bitextcrawl.pages.language import base_lang, lang_code, requested_lang, variant_code
from bitextcrawl.pages.site import slot_language
from bitextcrawl.pages.switches import link_named_language
from bitextcrawl.pages.urls import UrlLanguageTokens, is_tag_token, url_language_tokens
from bitextcrawl.pages.variants import link_lang

# Answers kept (a few hundred bytes each): a site's distinct links, up to this many.
LINK_LANGS_KEPT = 1 << 16


class LinkEvidence:
    def __init__(self, langs: tuple[str, ...], tokens: UrlLanguageTokens,
                 slots: Callable[[], frozenset] | None = None):
        """``slots()``: the path positions where the site writes languages' codes (the
        crawl state's ``CrawlUrlTokens.slots``), if known."""
        self.langs = tuple(langs)
        self.tokens = tokens   # the crawl state's, at the links' standard (CrawlUrlTokens)
        self._slots = slots or frozenset
        self.slots: frozenset = frozenset()   # as of the last page learned
        self.token_langs: dict[str, str | None] = {}
        self.token_codes: dict[str, str | None] = {}
        # answers while the tokens' languages (their ``version``) and the slots are the same
        self.link_langs: dict[tuple, tuple[str | None, str]] = {}
        self._version = tokens.version

    def learned(self, url: str) -> bool:
        """The URL tokens learned a page at ``url``: True if one of its tokens now names a
        language (or stopped naming one)."""
        slots = self._slots()
        changed = slots != self.slots
        self.slots = slots
        if changed or self.tokens.version != self._version:
            self.link_langs.clear()
            self._version = self.tokens.version
        for token in url_language_tokens(url):
            now = self.tokens.token_lang(token)
            if self.token_langs.get(token) != now:
                self.token_langs[token] = now
                changed = True
        return changed

    def link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        """The language a link leads to, and the evidence for it."""
        # Asked for each link of a page, then again for its request, and for the menus'
        # links on every page: the answer reads only the tokens' languages and the slots.
        key = ((url, link.get("text"), link.get("hreflang"), link.get("code_alone")) if link
               else (url, None, None, None))
        got = self.link_langs.get(key)
        if got is None:
            if len(self.link_langs) >= LINK_LANGS_KEPT:
                self.link_langs.clear()
            got = self.link_langs[key] = self._link_language(url, link)
        return got

    def _link_language(self, url: str, link: dict | None) -> tuple[str | None, str]:
        # (a variant the link names counts as the crawl asks: link_lang)
        named = link_lang(link_named_language(link), self.langs) if link else None
        if named:
            return named, "hreflang" if link.get("hreflang") else "anchor"
        predicted = self.tokens.predict(url)
        if len(predicted) == 1:
            coded = self.wanted_codes(url)
            if coded and not predicted <= coded:
                # a learned token against the wanted language's own code in the URL:
                # crawled from /cn/, ``ngx`` (of ngx_http_*) names Chinese long before
                # ``en`` names English in /en/docs/http/ngx_http_core_module.html
                return None, ""
            return predicted.pop(), "url_token"
        if self.slots and not predicted:
            coded = slot_language(url, self.slots)
            if coded is not None and all(base_lang(x) != coded for x in self.langs):
                # (a wanted language's code there gets its bonus once its token is learned)
                return coded, "url_slot"
        return None, ""

    def wanted_codes(self, url: str) -> set:
        """The wanted languages whose codes are tokens of ``url``."""
        return {self._code(t) for t in url_language_tokens(url)} & set(self.langs)

    def _code(self, token: str) -> str | None:
        """The language a URL token is the code of (``en``, ``fra``), if any; a variant's
        tag (``pt-br``) is the code of that variant where the crawl asks for it, else of
        its base language (``requested_lang``)."""
        if token not in self.token_codes:
            code = lang_code(token)
            if code is not None and is_tag_token(token):
                code = requested_lang(variant_code(token) or code, self.langs)
            self.token_codes[token] = code
        return self.token_codes[token]

    def url_lang(self, url: str) -> str | None:
        """The wanted language a URL names: by the learned URL tokens, else by the one
        wanted language's code it carries (``/ja/…`` before five Japanese pages taught
        that ``ja`` names Japanese)."""
        lang, evidence = self.link_language(url, None)
        if evidence == "url_token":
            return lang
        coded = self.wanted_codes(url)
        return coded.pop() if len(coded) == 1 else None

    def swap(self, url: str, lang: str, other: str) -> str | None:
        """``url``'s counterpart in ``other`` by the URL tokens, or by the languages'
        codes where a token is not learned yet."""
        return self.tokens.swap(url, lang, other) or self.tokens.swap_codes(url, lang, other)
