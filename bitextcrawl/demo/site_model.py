"""The demo site's data types and parts: ``SiteSpec``, ``Resource``, ``GeneratedSite`` (with
its ``lookup`` as a server answers), the bad resources, the boilerplate of every language
(``data/site.json``) and the sections, articles and pages the builder of
:mod:`.generator` fills in.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from bitextcrawl.demo.lexicon import _load
from bitextcrawl.demo.phrases import _href

# Bad input, added when ``SiteSpec.bad_pages`` is true. Key -> path on the langs[0] host;
# all are linked from the langs[0] home page (GeneratedSite.bad_urls has the absolute URLs).
BAD_RESOURCES = {
    "binary": "/legacy/brochure.html",            # random bytes with NULs served as text/html
    "latin1_as_utf8": "/legacy/ancien-article.html",  # header says utf-8, body is latin-1 French
    "cp1252_undeclared": "/legacy/communique.html",   # no charset anywhere, windows-1252 French
    "truncated": "/legacy/truncated.html",        # HTML cut in the middle of a tag
    "huge": "/legacy/full-archive.html",          # > 6 MB of text/html
    "redirect_loop": "/loop/a",                   # 302 -> /loop/b, which 302s back to /loop/a
    "redirect_loop_b": "/loop/b",
    "not_found": "/legacy/missing.html",          # linked, never served: lookup() gives None (404)
    "server_error": "/legacy/error.html",         # status 500
    "empty": "/legacy/empty.html",                # status 200, empty body
    "trap": "/cal/",                              # calendar: /cal/(next/)* links one level deeper,
                                                  # built lazily in lookup(), without end
}

_HTML_UTF8 = {"Content-Type": "text/html; charset=utf-8"}
_TRAP_RE = re.compile(r"^/cal/(?:next/)*$")


# ---------------------------------------------------------------------------------------
# Public data types
# ---------------------------------------------------------------------------------------

@dataclass
class SiteSpec:
    scheme: str = "prefix"
    n_pairs: int = 60                   # translated article pairs
    langs: tuple = ("en", "fr")
    third_lang: str | None = "de"       # some pages in a third language, None for none
    n_third: int = 8
    untranslated_fraction: float = 0.1  # extra articles in langs[0] or langs[1], no translation
    hidden_fraction: float = 0.0        # langs[1] article pages linked from nowhere, but served
    language_switch: bool = True        # <a hreflang=".." href="counterpart">Français</a>
    hreflang_alternates: bool = False   # <link rel="alternate" hreflang=".."> in <head>
    bad_pages: bool = False             # add BAD_RESOURCES, linked from the langs[0] home page
    anchors: bool = True                # years, dates, prices, codes, names, places in the text;
                                        # False leaves only words that translate
    host: str = "demo.localhost"
    seed: int = 0


@dataclass
class Resource:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass(repr=False, eq=False)
class GeneratedSite:
    spec: SiteSpec
    port: int
    resources: dict[str, Resource]       # absolute URL "http://HOST:PORT/path?query" -> resource
    start_url: str                       # home page of langs[0]
    gold_pairs: list[tuple[str, str]]    # (url in langs[0], url in langs[1])
    page_langs: dict[str, str]           # every generated HTML page -> its language
    sentence_gold: dict[tuple[str, str], list[tuple[str, str]]]  # per gold pair, main-text pairs
    hidden_urls: set[str]                # langs[1] pages linked from nowhere
    robots_disallowed: list[str]         # URLs robots.txt forbids (they are served and linked)
    bad_urls: dict[str, str] = field(default_factory=dict)     # BAD_RESOURCES key -> URL
    page_kinds: dict[str, str] = field(default_factory=dict)   # HTML page -> home, index, about,
                                                               # article, untranslated, private
    hosts: list[str] = field(default_factory=list)             # "host:port" served

    def lookup(self, host_header: str, path_and_query: str) -> Resource | None:
        """The resource a server should answer with; None means 404.

        ``host_header`` is the HTTP Host header (the port is optional); the query string may
        come with its parameters in any order.
        """
        host = (host_header or "").strip().lower()
        if not host:
            host = urlsplit(self.start_url).netloc
        elif ":" not in host:
            host = f"{host}:{self.port}"
        path_and_query = (path_and_query or "/").split("#", 1)[0] or "/"
        if not path_and_query.startswith("/"):
            path_and_query = "/" + path_and_query
        url = f"http://{host}{path_and_query}"
        res = self.resources.get(url)
        if res is not None:
            return res
        res = self._canonical_index().get(_canonical(url))
        if res is not None:
            return res
        # The calendar trap has no end, so its pages are made on demand.
        if self.spec.bad_pages and host == self._bad_host():
            path = path_and_query.split("?", 1)[0]
            if _TRAP_RE.match(path):
                return _trap_page(f"http://{host}", path)
        return None

    def __repr__(self) -> str:
        return (f"GeneratedSite(scheme={self.spec.scheme!r}, start_url={self.start_url!r}, "
                f"{len(self.page_langs)} pages, {len(self.gold_pairs)} gold pairs, "
                f"{len(self.hidden_urls)} hidden)")

    def write_gold(self, path) -> None:
        """Write ``url_1<TAB>url_2`` lines (the gold file format of ``scrapy evaluate``)."""
        with open(path, "w", encoding="utf-8") as f:
            for u1, u2 in self.gold_pairs:
                f.write(f"{u1}\t{u2}\n")

    def _bad_host(self) -> str:
        return urlsplit(self.start_url).netloc

    def _canonical_index(self) -> dict[str, Resource]:
        # Built on the first miss only: exact keys serve nearly every request.
        idx = self.__dict__.get("_canon_idx")
        if idx is None:
            idx = {_canonical(u): r for u, r in self.resources.items()}
            self.__dict__["_canon_idx"] = idx
        return idx


def _canonical(url: str) -> str:
    parts = urlsplit(url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return f"{parts.netloc.lower()}{parts.path or '/'}?{query}"


# ---------------------------------------------------------------------------------------
# Boilerplate in each language
# ---------------------------------------------------------------------------------------

_SITE_DATA = _load("site.json")
_UI = {lang: {k: tuple(v) if isinstance(v, list) else v for k, v in ui.items()}
       for lang, ui in _SITE_DATA["ui"].items()}
# (url slug per language, label per language, product-like)
_SECTIONS = [(tuple(slugs), tuple(labels), product)
             for slugs, labels, product in _SITE_DATA["sections"]]

_MIXED_CYCLE = ("prefix", "slug", "suffix", "query", "opaque")
_PER_PAGE = 20


def _slugify(text: str, max_words: int = 6) -> str:
    text = text.replace("ß", "ss").replace("œ", "oe")
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", ascii_)
    return "-".join(words[:max_words]) or "page"


# ---------------------------------------------------------------------------------------
# Site model
# ---------------------------------------------------------------------------------------

class _Section:
    __slots__ = ("slug", "label", "product", "scheme", "items", "pages")

    def __init__(self, slug, label, product, scheme):
        self.slug, self.label, self.product, self.scheme = slug, label, product, scheme
        self.items: dict[str, list] = {}   # lang -> articles listed, newest first
        self.pages: dict[str, list] = {}   # lang -> index page URLs (page 1 first)


class _Article:
    """An article: a translated pair (``urls`` has both langs), an untranslated page
    (one lang) or a third-language page."""

    __slots__ = ("plan", "section", "nid", "slugs", "urls", "titles", "hidden", "related",
                 "short_side", "kind", "source")

    def __init__(self, plan, section, nid, kind):
        self.plan, self.section, self.nid, self.kind = plan, section, nid, kind
        self.slugs: dict[str, str] = {}
        self.urls: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.hidden = False
        self.related: list = []
        self.short_side: int | None = None  # side whose related list lacks its last entry
        self.source: _Article | None = None  # the pair a third-language page translates


@dataclass
class _Out:
    resources: dict = field(default_factory=dict)
    page_langs: dict = field(default_factory=dict)
    page_kinds: dict = field(default_factory=dict)
    gold: list = field(default_factory=list)
    sentence_gold: dict = field(default_factory=dict)


def _trap_page(base: str, path: str) -> Resource:
    """A calendar page linking one level deeper, forever (a classic crawler trap)."""
    depth = path.count("next/")
    prev = path[: -len("next/")] if depth else None
    links = f'<a rel="next" href="{_href(base + path + "next/")}">Next month</a>'
    if prev:
        links = f'<a rel="prev" href="{_href(base + prev)}">Previous month</a> ' + links
    body = (f"<!DOCTYPE html><html lang=\"en\"><head><title>Calendar, month {depth + 1}</title>"
            f"</head><body><main><h1>Calendar</h1><table><tr><th>Mon</th><th>Tue</th><th>Wed</th>"
            f"</tr><tr><td>1</td><td>2</td><td>3</td></tr></table><nav>{links}</nav></main>"
            f"</body></html>")
    return Resource(200, dict(_HTML_UTF8), body.encode())
