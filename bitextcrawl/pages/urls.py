"""URL helpers: the site a URL belongs to, canonical form, crawler-trap shapes."""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from functools import lru_cache
from typing import Callable
from urllib.parse import urldefrag, urljoin, urlsplit

import tldextract

from bitextcrawl.pages.variants import URL_SCRIPTS

# The bundled public-suffix snapshot: no download at run time.
_extract = tldextract.TLDExtract(suffix_list_urls=())


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


LINK_SCHEMES = ("http://", "https://")
_NOT_A_PAGE = ("#", "javascript:", "mailto:", "tel:", "data:")


def link_base(doc, url: str) -> str:
    """The URL a page's relative links are resolved against (its ``<base href>``, if any)."""
    base = doc.find(".//base[@href]")
    return urljoin(url, base.get("href").strip()) if base is not None else url


def link_url(base_url: str, href: str | None) -> str | None:
    """The canonical URL an ``href`` leads to from ``base_url``, or None where it leads to
    no page to fetch (a fragment, a script, a mail address, another scheme, a port that
    is no number). Kept per folder of the base and href (:func:`_folder_key`): a site's
    menus and sidebars link the same hrefs from every page of a folder."""
    return link_resolver(base_url)(href)


def link_resolver(base_url: str) -> Callable[[str | None], str | None]:
    """``link_url(base_url, href)`` as a function of ``href``, what it reads of the base
    found once: a page resolves every link it has (a sidebar of every page: hundreds)."""
    folder = _folder_key(base_url)

    def resolve(href: str | None) -> str | None:
        href = (href or "").strip()
        if not href or href.startswith(_NOT_A_PAGE):
            return None
        key = (folder if folder is not None and _reads_folder(href) else base_url, href)
        got = _RESOLVED.get(key, _UNRESOLVED)
        if got is _UNRESOLVED:
            got = _link_url(base_url, href)
            if len(_RESOLVED) >= RESOLVED_KEPT:
                _RESOLVED.clear()
            _RESOLVED[key] = got
        return got

    return resolve


def _link_url(base_url: str, href: str) -> str | None:
    try:
        url = canonical(urljoin(base_url, href))
        if ":" in url.partition("://")[2].split("/", 1)[0]:
            urlsplit(url).port      # "http://localhost:port" written in a page's text
    except ValueError:
        return None
    return url if url.startswith(LINK_SCHEMES) else None


# (base key, href) -> link_url, at most this many kept (then started afresh).
RESOLVED_KEPT = 1 << 16
_RESOLVED: dict = {}
_UNRESOLVED = object()
# Characters ``urlsplit`` strips or takes out (controls, spaces), and the starts of what
# follows a URL's path (query, fragment, parameters).
_NOT_PLAIN_BASE = re.compile(r"[\x00-\x20\x7f?#;]")


def _folder_key(base_url: str) -> str | None:
    """What of ``base_url`` the resolution of an href reads (``urljoin``), where the href
    has a host or a path of its own, relative or not (``a.html``, ``../b/``, ``/c``,
    ``//host/d``, ``http://host/e``): at most the base's scheme, host and folder, the
    base up to its path's last ``/``. None where it reads the whole base: a base with a
    query, fragment, parameters or a control character (and an href without a host or a
    path, ``?q`` or ``http://``, reads the whole base of any)."""
    if _NOT_PLAIN_BASE.search(base_url):
        return None
    netloc = base_url.find("//")
    if netloc < 0 or base_url.find("/", netloc + 2) < 0:
        return None
    return base_url[: base_url.rfind("/") + 1]


@lru_cache(maxsize=RESOLVED_KEPT)
def _reads_folder(href: str) -> bool:
    """Whether ``href`` has a host or a path of its own (:func:`_folder_key`)."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return False
    return bool(parts.netloc or parts.path)


@lru_cache(maxsize=65536)
def site_of(url: str) -> str:
    """``scheme://registered-domain[:port]``: subdomains (``en.``, ``fr.``) are the same site.

    IP hosts and single-label or ``.localhost`` hosts, which have no public suffix, use
    the host itself, or its last two labels (``en.demo.localhost`` -> ``demo.localhost``).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:      # "http://localhost:port" written in a page's text
        port = None
    if _is_ip(host):
        domain = host
    else:
        ext = _extract(host)
        if ext.suffix and ext.domain:
            domain = f"{ext.domain}.{ext.suffix}"
        else:
            labels = host.split(".")
            domain = ".".join(labels[-2:])
    default = {"http": 80, "https": 443}.get(parts.scheme)
    suffix = f":{port}" if port and port != default else ""
    return f"{parts.scheme}://{domain}{suffix}"


def site_name(url: str) -> str:
    """A file-system-safe name for a site (the default output folder)."""
    site = site_of(url).split("://", 1)[1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", site)


def canonical(url: str) -> str:
    """Fragment removed; the rest as the site wrote it (query order can matter)."""
    # (urldefrag gives a URL without "#" back as it is: most links, a third of the time)
    return urldefrag(url)[0] if "#" in url else url


# The file a server answers a folder's URL with (``dir/`` -> ``dir/index.html``): its
# directory index document, under one of these names on nearly every server.
INDEX_DOCUMENT = re.compile(r"^(?:index|default)\.(?:html?|php|asp|aspx|shtml|jsp)$", re.I)


@lru_cache(maxsize=65536)
def page_name(url: str) -> str:
    """The name a page downloaded from ``url`` is known by: a directory index document
    (``http://h/a/index.html``, no query) is named by its folder (``http://h/a/``), the
    URL a server answers with the same page; any other URL is its own name.

    A fixed rule, so that a page linked under both spellings gets one name whichever
    of them went out first (the crawl downloads a directory index once, under the
    spelling it meets first: ``focus/rules/index_aliases.py``). The folder is the
    spelling computable from either URL (a folder's document may be ``index.htm`` or
    ``index.php``)."""
    if "?" in url or "#" in url:
        return url
    head, sep, name = url.rpartition("/")
    if sep and head.count("/") >= 2 and INDEX_DOCUMENT.match(name):
        return head + "/"
    return url


def path_segments(url: str) -> list[str]:
    """The non-empty segments of a URL's path: ``/en/docs/x.html`` -> ``en``, ``docs``,
    ``x.html``."""
    return [s for s in urlsplit(url).path.split("/") if s]


def looks_like_trap(url: str, max_repeats: int = 3, max_segments: int = 20) -> bool:
    """Calendar/session traps: a path segment repeated many times, or absurd depth."""
    segments = path_segments(url)
    if len(segments) > max_segments:
        return True
    if len(segments) <= max_repeats:   # (no segment can repeat more often)
        return False
    counts = Counter(segments)
    return bool(counts) and max(counts.values()) > max_repeats


def follow_redirects(url: str, redirects: dict, stop=(), max_hops: int = 20) -> str:
    """Where a chain of redirects (requested URL -> target) starting at ``url`` ends: at a
    URL in ``stop``, at one that does not redirect, or after ``max_hops`` (a loop)."""
    hops = 0
    while url not in stop and url in redirects and hops < max_hops:
        url, hops = redirects[url], hops + 1
    return url


_TOKEN_SPLIT = re.compile(r"[/.\-_?&=:]+")
_TOKEN_KEEP = re.compile(r"([/.\-_?&=:]+)")
# A language tag with a region or a script, as sites write a variant's code in a URL
# (``pt-br``, ``zh_CN``, ``zh-hant``, ``es-419``): a token of its own besides its parts.
# Scripts are the ones a URL may carry (``ngx_http`` is no tag).
_TAG = (r"(?<![a-z0-9])[a-z]{2,3}[-_](?:[a-z]{2}|[0-9]{3}|" + "|".join(sorted(URL_SCRIPTS))
        + r")(?![a-z0-9])")
_TAG_TOKEN = re.compile(_TAG)
_TAG_TOKEN_ANY_CASE = re.compile(_TAG, re.I | re.A)


@lru_cache(maxsize=65536)
def url_language_tokens(url: str) -> frozenset[str]:
    """Short alphabetic tokens of host, path and query: where ``en``/``fra``/``de`` live;
    a language tag with a region or script (``pt-br``, ``zh_cn``) is a token too, besides
    ``pt`` and ``br``: the code of a variant, whose counterpart URLs swap it whole.
    (Cached: the focus middleware asks twice for every link it sees.)"""
    parts = urlsplit(url)
    text = f"{parts.hostname or ''}/{parts.path}?{parts.query}".lower()
    tokens = {t for t in _TOKEN_SPLIT.split(text) if 2 <= len(t) <= 3 and t.isalpha()}
    if "-" in text or "_" in text:
        tokens.update(_TAG_TOKEN.findall(text))
    return frozenset(tokens)


def is_tag_token(token: str) -> bool:
    """Is a URL token a language tag with a region or script (``pt-br``, ``zh_cn``)?"""
    return "-" in token or "_" in token


class UrlLanguageTokens:
    """Which URL tokens name a language, learned from (url, language) of pages.

    A token names language L when at least ``min_pages`` pages carry it and a share
    ``purity`` of them are in L: ``/cn/`` names Chinese on nginx.org whatever the code says.
    Pages of another language must have been learned too, without it.
    """

    def __init__(self, min_pages: int = 5, purity: float = 0.95):
        self.min_pages = min_pages
        self.purity = purity
        self.counts: dict[str, Counter] = {}
        self.pages: Counter = Counter()   # pages learned per language
        # Answers since the last page learned: a crawl asks for every link of every page
        # (swap, predict), and each answer would scan all tokens.
        self._token_lang: dict[str, str | None] = {}
        self._token_of: dict[str, str | None] = {}
        self._swaps: dict[tuple, str | None] = {}
        # Counts the pages learned that changed the language some token names: a reader's
        # answers that read only token_lang hold while it is the same.
        self.version = 0

    def learn(self, url: str, lang: str) -> None:
        tokens = url_language_tokens(url)
        before = [self.token_lang(t) for t in tokens]
        second = len(self.pages) == 1 and lang not in self.pages
        self.pages[lang] += 1
        for token in tokens:
            self.counts.setdefault(token, Counter())[lang] += 1
        self._token_lang.clear()
        self._token_of.clear()
        self._swaps.clear()
        # A token's language reads its own counts, and of the pages of all languages
        # only whether a second language was seen (_learned_lang): the page's tokens
        # are the only ones that can change, but when the second language comes.
        if second or any(self.token_lang(t) != b for t, b in zip(tokens, before)):
            self.version += 1

    def lift(self, token: str) -> float:
        """How much more often the token's language is seen with the token than on the
        site as a whole: ``/ja/`` on a mostly English site lifts Japanese 25-fold, ``faq``
        (English pages only, as most pages) hardly lifts English."""
        lang = self.token_lang(token)
        if lang is None:
            return 0.0
        base = self.pages[lang] / max(1, sum(self.pages.values()))
        counts = self.counts[token]
        return (counts[lang] / sum(counts.values())) / base if base else 0.0

    def most_specific(self, url: str) -> tuple[str | None, float]:
        """The language named by the URL's token of highest lift, and that lift."""
        best = (None, 0.0, "")
        for t in url_language_tokens(url):
            lang = self.token_lang(t)
            if lang is not None:
                lift = self.lift(t)
                if (lift, t) > (best[1], best[2]):
                    best = (lang, lift, t)
        return best[0], best[1]

    def token_lang(self, token: str) -> str | None:
        try:
            return self._token_lang[token]
        except KeyError:
            lang = self._token_lang[token] = self._learned_lang(token)
            return lang

    def _learned_lang(self, token: str) -> str | None:
        counts = self.counts.get(token)
        if not counts:
            return None
        total = sum(counts.values())
        lang, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if total >= self.min_pages and n / total >= self.purity \
                and sum(self.pages.values()) > self.pages[lang]:
            # (and pages of another language have been seen without it: while all pages
            # learned are Chinese, ``nginx`` and ``org`` are as pure as ``cn``)
            return lang
        return None

    def predict(self, url: str) -> set[str]:
        """Every language a token of ``url`` names."""
        return {lang for t in url_language_tokens(url) if (lang := self.token_lang(t))}

    def token_of(self, lang: str) -> str | None:
        """The URL token that names ``lang`` on most pages (``en`` for /en/, ``cn`` for zh,
        ``pt-pt`` for pt where ``pt`` alone is also in ``/pt-br/``); for a variant
        (``pt-br``), its own tag where that names it (``pt-br`` or ``pt_br``, not ``pt``
        nor ``br``, which its pages carry as often)."""
        if lang in self._token_of:
            return self._token_of[lang]
        best, most = None, (0, False)
        own = lang.replace("_", "-") if is_tag_token(lang) else None
        for token, counts in self.counts.items():
            if self.token_lang(token) != lang:
                continue
            tag = is_tag_token(token)
            if tag and token.replace("_", "-") == own:
                best = token
                break
            if tag and token[:len(lang)] != lang:
                continue   # (another language's tag: a word of a slug, ``my-db``)
            # (a plain token before a tag its pages carry as often: ``pt`` of ``/pt-pt/``)
            if (counts[lang], not tag) > most:
                best, most = token, (counts[lang], not tag)
        self._token_of[lang] = best
        return best

    def swap(self, url: str, lang: str, other: str) -> str | None:
        """``url`` with the token of ``lang`` replaced by the token of ``other`` (one
        occurrence in the path or query), or None."""
        key = (url, lang, other)
        if key not in self._swaps:
            self._swaps[key] = self._swap(url, lang, other)
        return self._swaps[key]

    def swap_codes(self, url: str, lang: str, other: str) -> str | None:
        """:meth:`swap` with a language's own code (``ja``) standing for its token where
        none is learned yet."""
        return self._swap(url, lang, other, self.token_of(lang) or lang,
                          self.token_of(other) or other)

    def _swap(self, url: str, lang: str, other: str, a: str | None = None,
              b: str | None = None) -> str | None:
        a, b = a or self.token_of(lang), b or self.token_of(other)
        if not a or not b:
            return None
        parts = urlsplit(url)
        tail = parts.path + ("?" + parts.query if parts.query else "")
        head = url[:len(url) - len(tail) - (len(parts.fragment) + 1 if parts.fragment else 0)]
        if is_tag_token(a):
            # a variant's tag, whole (``/pt-br/`` -> ``/en/``)
            hits = [m for m in _TAG_TOKEN_ANY_CASE.finditer(tail) if m.group().lower() == a]
            if len(hits) != 1:
                return None
            return head + tail[:hits[0].start()] + b + tail[hits[0].end():]
        pieces = _TOKEN_KEEP.split(tail)
        hits = [i for i in range(0, len(pieces), 2) if pieces[i].lower() == a]
        if len(hits) != 1:
            return None
        pieces[hits[0]] = b
        return head + "".join(pieces)
