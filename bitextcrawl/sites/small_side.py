"""Walk the small side, guess the big side: which links of a partly translated site pay.

A site translated in part has a big side (every page of its main language) and a small
side (the translated pages). Its pairs are the small side's pages and their
counterparts; the big side's other pages pay nothing. Once the site's URL tokens name
both languages (``/en/`` and ``/fr/``: :class:`~bitextcrawl.pages.urls.UrlLanguageTokens`),
a big-side URL has a counterpart URL on the small side, and the small side can be walked
on its own: its pages link their section's pages (an index, a sidebar), and the crawl
fetches the small side first (it is the scarce language).

:class:`SmallSide` keeps the URLs known per wanted language (linked from a fetched page)
and the pages fetched, and judges a big-side request worth fetching where its
counterpart is a fetched small-side page, or the pattern gives none. Other big-side
requests are *held*, not dropped: a held request is released as soon as its
counterpart is fetched, and when the crawl runs dry a probe of held requests is
fetched; while probes reveal small-side URLs nobody linked before, the next, twice as
big, follows, and once a probe reveals (almost) none the rest stay held — the crawl
has seen the small side whole. [Zhang 2013 §2.2] recovers the counterparts of the
pages it has; this is the other direction: not fetching the pages that have none.

Pure: no Scrapy import. The focus middleware feeds it and schedules what it releases.
"""

from __future__ import annotations

from collections import Counter, defaultdict

# A wanted language is the small side while it has at most this share of the URLs
# known in the other: a translation of a third of the site or less. Where both sides
# are of a size (nginx.org's en–ru), every link may pay and none is held.
SMALL_SHARE = 0.5
# Known URLs of the small side before it is judged small: a translation's home and one
# more page. Judged early, because the crawl's knowledge lags its downloads (a page's
# links are judged after the pages queued before it are parsed); a side judged small
# too early only has its big side's pages wait for their counterparts or a probe.
MIN_SMALL_KNOWN = 2
# Pages fetched in each language before the sides are compared: a side is sized by the
# links of its own pages (a start page links mostly its own language, and the other side,
# sized by that page alone, would look small). One is enough: a translation's home links
# its sections, and the sooner the sides are known the fewer big-side pages go out blind.
MIN_PAGES_EACH = 1
# Share of each side's fetched pages at URLs that name their language for URL counts to
# size the sides (a site whose translation sits at opaque URLs, /p/<hash>.html, is not
# judged by them).
NAMED_SHARE = 0.8
# The first probe of held requests when the crawl runs dry; each next one is twice as
# big while probes reveal at least PROBE_MIN_REVEAL new small-side URLs per request.
FIRST_PROBE = 4
PROBE_MIN_REVEAL = 0.1


class SmallSide:
    """Known URLs per wanted language and the big-side requests held back.

    ``langs``: the wanted languages. ``swap(url, lang, other)``: the URL of ``url``'s
    counterpart in ``other`` by the site's URL tokens, or None (``UrlLanguageTokens.swap``).
    ``lang_of(url)``: the language the URL's tokens name, or None. URLs are known whatever
    their tokens said when they were seen (a translation's index comes before its URL
    token is learned); :meth:`relearn` counts them again once the tokens change.
    """

    def __init__(self, langs, swap, lang_of, small_share: float = SMALL_SHARE,
                 min_small_known: int = MIN_SMALL_KNOWN, min_pages_each: int = MIN_PAGES_EACH,
                 named_share: float = NAMED_SHARE,
                 first_probe: int = FIRST_PROBE,
                 probe_min_reveal: float = PROBE_MIN_REVEAL):
        self.langs = tuple(langs)
        self.swap = swap
        self.lang_of = lang_of
        self.small_share = small_share
        self.min_small_known = min_small_known
        self.min_pages_each = min_pages_each
        self.named_share = named_share
        self.first_probe = first_probe
        self.probe_min_reveal = probe_min_reveal
        self.seen: set = set()
        self.pages: dict = {}                 # fetched pages of the wanted languages -> language
        self.fetched: Counter = Counter()     # ... per language
        self.fetched_named: Counter = Counter()   # ... of them at a URL naming the language
        self.sizes: Counter = Counter()       # known URLs per language their tokens name
        self.held: dict[str, tuple] = {}      # URL -> (request, language, counterpart)
        self.waiting: dict[str, set] = defaultdict(set)   # counterpart URL -> held URLs
        self.probe_size = 0                   # of the last probe (0: none yet)
        self.known_at_probe = 0               # small-side URLs known when it went out
        self.done = False                     # probes stopped revealing: the rest stay

    # ---- what is known ----------------------------------------------------------------

    def see(self, url: str) -> None:
        """``url`` is known to the crawl: linked from a fetched page (what sizes a side)."""
        if url not in self.seen:
            self.seen.add(url)
            self.sizes[self.lang_of(url)] += 1

    def found(self, url: str, lang: str | None = None) -> list:
        """A page of a wanted language was fetched at ``url``: the held requests whose
        counterpart it is, released (request objects). A link says a page exists; only
        a fetched one proves it (tldr's pages link the commands they mention, which
        the translation may not have)."""
        self.see(url)
        if url not in self.pages:
            self.pages[url] = lang
            self.fetched[lang] += 1
            self.fetched_named[lang] += self.lang_of(url) == lang
        return [self._release(u) for u in sorted(self.waiting.pop(url, ()))
                if u in self.held]

    def relearn(self) -> list:
        """The URL tokens changed: count the known URLs by language again, and find the
        held requests' counterparts again; those fetched already, released."""
        self.sizes = Counter(self.lang_of(u) for u in self.seen)
        self.fetched_named = Counter(lang for u, lang in self.pages.items()
                                     if self.lang_of(u) == lang)
        self.waiting.clear()
        for url in list(self.held):
            self._wait(url)
        return [self._release(u) for u in sorted(self.held)
                if self.held[u][2] in self.pages]

    def small(self) -> str | None:
        """The small side: the wanted language with the fewest known URLs, at most
        ``small_share`` of another's; None while no side is."""
        sizes = sorted((self.sizes[lang], lang) for lang in self.langs)
        if len(sizes) < 2 or sizes[0][0] < self.min_small_known \
                or any(self.fetched[lang] < self.min_pages_each
                       or self.fetched_named[lang] < self.named_share * self.fetched[lang]
                       for lang in self.langs):
            # (each side sized by its own pages' links: a start page links mostly its own
            # language, and would make the other side look small; and only where the
            # side's pages are at URLs that name it: a translation at opaque URLs is
            # invisible to URL counts, however big)
            return None
        n, lang = sizes[0]
        return lang if n <= self.small_share * sizes[-1][0] else None

    # ---- the judgement ----------------------------------------------------------------

    def counterpart(self, url: str, lang: str | None) -> str | None:
        """The small-side URL a big-side ``url`` (in ``lang``) would pair with, where the
        site is partly translated and its URL tokens give one; else None."""
        small = self.small()
        if small is None or lang == small or lang not in self.langs:
            return None
        return self.swap(url, lang, small)

    def worth(self, url: str, lang: str | None) -> bool:
        """Is a request for ``url`` (in ``lang``, by its URL) worth fetching now?"""
        other = self.counterpart(url, lang)
        return other is None or other in self.pages

    def hold(self, url: str, lang: str, request, counterpart: str | None = None) -> None:
        """Hold ``request`` until ``counterpart`` (by default :meth:`counterpart`) is
        fetched, or a probe releases it."""
        self.held[url] = (request, lang, None)
        self._wait(url, counterpart)

    def _wait(self, url: str, counterpart: str | None = None) -> None:
        request, lang, _ = self.held[url]
        other = counterpart or self.counterpart(url, lang)
        self.held[url] = (request, lang, other)
        if other is not None:
            self.waiting[other].add(url)

    def forget(self, url: str) -> None:
        """``url`` was fetched by another worker of the crawl: no longer held here."""
        if url in self.held:
            self._release(url)

    def _release(self, url: str):
        request, _, other = self.held.pop(url)
        if other is not None:
            self.waiting.get(other, set()).discard(url)
        return request

    # ---- when the crawl runs dry ------------------------------------------------------

    def probe(self) -> list:
        """Requests to fetch now that the crawl ran dry: all held ones where no side is
        small any more; else the next probe, or none once the last probe revealed too
        few small-side URLs (``done``: the small side is known whole)."""
        if not self.held or self.done:
            return []
        small = self.small()
        if small is None:
            return [self._release(u) for u in sorted(self.held)]
        if self.probe_size:
            revealed = self.sizes[small] - self.known_at_probe
            if revealed < self.probe_min_reveal * self.probe_size:
                self.done = True
                return []
            size = 2 * self.probe_size
        else:
            size = self.first_probe
        self.probe_size = size
        self.known_at_probe = self.sizes[small]
        return [self._release(u) for u in sorted(self.held)[:size]]
