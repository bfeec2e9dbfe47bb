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

Finding the other side. A wanted language that no link of the crawl has named yet (a
documentation site's English home links no page of its Hebrew translation) is looked
for where the site's URLs say it would be: a fetched page's URL with its language code
swapped (``/en/`` → ``/he/``) is requested as a *language probe*, unless the page links
it.
While a language probe is out, the other requests wait (*sizing*): whether the page
found there makes its language the small side decides which of them are worth
fetching. A probe is made once per URL and at most ``max_lang_probes`` times per
language; one that fails costs its one response.

A link that the index of its section leaves out (``unlisted``: ``focus/sections.py``)
sizes no side until its page is fetched: a translated download page linking a change log
per release in its language, none of them written, would make the translation look as
big as the original for as long as they wait to be answered, and the original's pages
held meanwhile would go out.

Once the small side is known by URLs that name the languages, a URL naming no
language (a site's root pages, its news archive) is held like a big-side page whose
counterpart is not known: the pattern gives it no counterpart on the small side.

Pure: no Scrapy import. The focus middleware feeds it and schedules what it releases.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

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
# ... of the big side's: most (a site's root pages, its news archive, name no language
# and are in its main language; a site whose main language has no code in its URLs has
# (almost) none of its pages named, and its pages are not sized nor held by URLs).
BIG_NAMED_SHARE = 0.5
# The first probe of held requests when the crawl runs dry; each next one is twice as
# big while probes reveal at least PROBE_MIN_REVEAL new small-side URLs per request.
FIRST_PROBE = 4
PROBE_MIN_REVEAL = 0.1
# Language probes per wanted language that no link names: its home first (the start
# page's URL swapped), then one more page's, should the site not translate its home.
MAX_LANG_PROBES = 2


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
                 probe_min_reveal: float = PROBE_MIN_REVEAL,
                 max_lang_probes: int = MAX_LANG_PROBES):
        self.langs = tuple(langs)
        self.swap = swap
        self.lang_of = lang_of
        self.small_share = small_share
        self.min_small_known = min_small_known
        self.min_pages_each = min_pages_each
        self.named_share = named_share
        self.first_probe = first_probe
        self.probe_min_reveal = probe_min_reveal
        self.max_lang_probes = max_lang_probes
        self.seen: set = set()
        self.missing: set = set()             # known URLs answered with an error
        # unlisted(url): does the index of url's section leave it out? Such URLs, not
        # fetched, are not counted in ``sizes`` (``uncounted``) (SectionIndexes.unlisted)
        self.unlisted: Callable[[str], bool] = lambda url: False
        self.uncounted: set = set()
        self.pages: dict = {}                 # fetched pages of the wanted languages -> language
        self.fetched: Counter = Counter()     # ... per language
        # ... of them at a URL naming a wanted language (their own, or the other one's
        # where language identification was unsure of a short page)
        self.fetched_named: Counter = Counter()
        self.sizes: Counter = Counter()       # known URLs per language their tokens name
        # per wanted language: its fetched pages whose links were counted, and the URLs
        # of another wanted language they were the first to link
        self.linking: Counter = Counter()
        self.revealed: Counter = Counter()
        self.held: dict[str, tuple] = {}      # URL -> (request, language, counterpart)
        self.waiting: dict[str, set] = defaultdict(set)   # counterpart URL -> held URLs
        self.probe_size = 0                   # of the last probe (0: none yet)
        self.known_at_probe = 0               # small-side URLs known when it went out
        self.done = False                     # probes stopped revealing: the rest stay
        self.sizing: dict[str, str] = {}      # language probes out: URL -> language
        self.lang_probes: Counter = Counter()   # ... made per language
        self.probed: set = set()              # every language probe's URL
        self.sizing_links: set = set()        # ... its page's links into its language, out

    # ---- what is known ----------------------------------------------------------------

    def see(self, url: str) -> None:
        """``url`` is known to the crawl: linked from a fetched page (what sizes a side)."""
        if url not in self.seen:
            self.seen.add(url)
            if url not in self.pages and self.unlisted(url):
                self.uncounted.add(url)
            else:
                self.sizes[self.lang_of(url)] += 1

    def links(self, url: str, lang: str | None, urls) -> None:
        """A fetched page of ``lang`` at ``url`` links ``urls`` (of the site): each known
        from now on, and counted where it is the first link into another wanted
        language (what a probe of the big side's pages would reveal, these pages have
        shown). The page counts in the language its URL names, if it names one (a short
        page identified as the other language is still a page of its side)."""
        lang = self.lang_of(url) if self.lang_of(url) in self.langs else lang
        new_other = 0
        for link in urls:
            if link not in self.seen:
                other = self.lang_of(link)
                new_other += other in self.langs and other != lang
            self.see(link)
        if lang in self.langs:
            self.linking[lang] += 1
            self.revealed[lang] += new_other

    def gone(self, url: str) -> list:
        """A request for ``url`` was answered with an error: a link to a page that does
        not exist sizes no side (a translation's menus link untranslated pages). The
        requests released if that ends the sizing."""
        if url in self.seen and url not in self.missing:
            self._uncount(url)
        return self._sized(url)

    def not_sent(self, url: str) -> list:
        """A request for ``url`` will not go out for now (it waits for another reason:
        its family of URLs led to errors so far): it sizes no side until it proves a
        page, and the sizing does not wait for it. The requests released if that ends
        the sizing."""
        if url in self.seen and url not in self.missing and url not in self.pages:
            self._uncount(url)
        return self._sized(url)

    def _uncount(self, url: str) -> None:
        """A known URL no page answers (yet): in ``missing``, out of its side's size
        (where an index leaving it out had not kept it out already)."""
        self.missing.add(url)
        if url in self.uncounted:
            self.uncounted.discard(url)
        else:
            self.sizes[self.lang_of(url)] -= 1

    def _sized(self, url: str) -> list:
        """``url`` answered (or not sent): if it was the last link of a language probe's
        page still out, the sizing ends (:meth:`settle`)."""
        if url not in self.sizing_links:
            return []
        self.sizing_links.discard(url)
        return [] if self.sizing or self.sizing_links else self.settle()

    def found(self, url: str, lang: str | None = None) -> list:
        """A page of a wanted language was fetched at ``url``: the held requests whose
        counterpart it is, released (request objects). A link says a page exists; only
        a fetched one proves it (tldr's pages link the commands they mention, which
        the translation may not have)."""
        if url in self.missing:   # (sent after all, and a page)
            self.missing.discard(url)
            self.sizes[self.lang_of(url)] += 1
        elif url in self.uncounted:   # (a page its section's index forgot)
            self.uncounted.discard(url)
            self.sizes[self.lang_of(url)] += 1
        if url not in self.seen:   # (a page counts, whatever the indexes say)
            self.seen.add(url)
            self.sizes[self.lang_of(url)] += 1
        if url not in self.pages:
            self.pages[url] = lang
            self.fetched[lang] += 1
            self.fetched_named[lang] += self.lang_of(url) in self.langs
        return [self._release(u) for u in sorted(self.waiting.pop(url, ()))
                if u in self.held] + self._sized(url)

    def relearn(self) -> list:
        """The URL tokens changed: count the known URLs by language again, and find the
        held requests' counterparts again; those fetched already, released."""
        self.recount()
        self.fetched_named = Counter(lang for u, lang in self.pages.items()
                                     if self.lang_of(u) in self.langs)
        self.waiting.clear()
        for url in list(self.held):
            self._wait(url)
        return [self._release(u) for u in sorted(self.held)
                if self.held[u][2] in self.pages]

    def recount(self) -> None:
        """Count the known URLs by language again (a section's index came in: the links
        it leaves out, not fetched, size no side)."""
        self.uncounted = {u for u in self.seen
                          if u not in self.pages and u not in self.missing and self.unlisted(u)}
        self.sizes = Counter(self.lang_of(u) for u in self.seen
                             if u not in self.missing and u not in self.uncounted)

    def small(self) -> str | None:
        """The small side: the wanted language with the fewest known URLs, at most
        ``small_share`` of another's; None while no side is."""
        sizes = sorted((self.sizes[lang], lang) for lang in self.langs)
        if len(sizes) < 2 or sizes[0][0] < self.min_small_known \
                or any(self.fetched[lang] < self.min_pages_each
                       or self.fetched_named[lang] < (
                           self.named_share if lang == sizes[0][1] else BIG_NAMED_SHARE)
                       * self.fetched[lang]
                       for lang in self.langs):
            # (each side sized by its own pages' links: a start page links mostly its own
            # language, and would make the other side look small; and only where the
            # side's pages are at URLs that name it: a translation at opaque URLs is
            # invisible to URL counts, however big; the big side may have a few pages
            # at URLs naming no language, its site's root pages, but not most)
            return None
        n, lang = sizes[0]
        return lang if n <= self.small_share * sizes[-1][0] else None

    # ---- finding the other side ------------------------------------------------------

    def lang_probes_for(self, url: str, lang: str | None, linked) -> list[tuple[str, str]]:
        """A page of ``lang`` was fetched at ``url``, linking the URLs ``linked``: the
        language probes to make, (URL, language) — the page's URL in each wanted
        language that no fetched page's link names yet, where the URL tokens give one."""
        probes: list[tuple[str, str]] = []
        if lang not in self.langs:
            return probes
        for other in self.langs:
            if other == lang or self.sizes[other] or self.fetched[other] \
                    or other in self.sizing.values() \
                    or self.lang_probes[other] >= self.max_lang_probes:
                continue
            target = self.swap(url, lang, other)
            if target is None or target in linked or target in self.probed \
                    or target in self.seen:
                continue
            self.probed.add(target)
            self.sizing[target] = other
            self.lang_probes[other] += 1
            probes.append((target, other))
        return probes

    def answered(self, url: str, links=()) -> list:
        """A language probe was answered: by a page linking ``links``, or an error. Its
        links into its own language are the small side's first pages: the sizing lasts
        until they are answered too (a translation's home may link untranslated pages
        that do not exist, and would look bigger than it is). Then the requests held
        while sizing that are worth fetching, released."""
        lang = self.sizing.pop(url, None)
        if lang is None:
            return []
        if links:
            self.sizing_links.update(
                u for u in links if self.lang_of(u) == lang and u not in self.pages
                and u not in self.missing)
        return [] if self.sizing or self.sizing_links else self.settle()

    def settle(self) -> list:
        """The requests held while the sides were unknown, judged again: released where
        worth fetching, else waiting for their counterpart."""
        released = []
        for url in sorted(self.held):
            request, lang, other = self.held[url]
            if other is not None:
                continue
            if self.holds(url, lang)[0]:
                self._wait(url)
            else:
                released.append(self._release(url))
        return released

    # ---- the judgement ----------------------------------------------------------------

    def holds(self, url: str, lang: str | None) -> tuple[bool, str | None]:
        """Is a request for ``url`` (in ``lang`` by its URL, None where it names no
        language) held, and for which counterpart (None: until a probe)?"""
        if self.sizing or self.sizing_links:
            # the sides are being found: only the language looked for goes out
            looked_for = set(self.sizing.values()) | {
                self.lang_of(u) for u in self.sizing_links}
            return (url not in self.sizing and lang not in looked_for), None
        small = self.small()
        if small is None or lang == small:
            return False, None
        if lang is None:
            # (the small side is known by URLs naming the languages: this one's pattern
            # gives no counterpart)
            return True, None
        other = self.counterpart(url, lang)
        return (other is not None and other not in self.pages), other

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
        if self.sizing or self.sizing_links:
            # a language probe (or a link of its page) answered by nothing the crawl saw
            # (not HTML, not followed): the sides are as found
            self.sizing.clear()
            self.sizing_links.clear()
            released = self.settle()
            if released:
                return released
        if not self.held or self.done:
            return []
        small = self.small()
        if small is None:
            return [self._release(u) for u in sorted(self.held)]
        big = [lang for lang in self.langs if lang != small]
        if not self.probe_size and all(
                self.linking[lang] >= self.first_probe
                and self.revealed[lang] < self.probe_min_reveal * self.linking[lang]
                for lang in big):
            # the big side's pages fetched so far (the counterparts, the start page) are
            # a probe made already: they revealed (almost) no small-side URL
            self.done = True
            return []
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
        # the big side's pages first: a page whose counterpart the pattern names says by
        # its switches whether that one exists; a page at a URL naming no language less
        order = sorted(self.held, key=lambda u: (self.held[u][2] is None, u))
        return [self._release(u) for u in order[:size]]


class LanguageProbes:
    """Finding a language no link names in a crawl of three languages or more.

    Such a crawl has no one small side to size (:class:`SmallSide` is for two
    languages), and most of its languages are named by the links it follows (a home's
    list of languages). A wanted language of which no page has come in when the crawl
    runs dry is looked for where the site's URLs say it would be, as the small side's
    language probe does: the URL of one of the first pages fetched (the start page
    first) with its language code swapped (``/en/`` → ``/it/``), one probe per missing
    language each time the crawl runs dry, at most ``max_lang_probes`` per language.
    Nothing is held meanwhile, and a crawl that finds every language costs nothing more.

    ``swap(url, lang, other)``: the URL of ``url``'s counterpart in ``other`` by the
    site's URL tokens or codes, or None.
    """

    def __init__(self, langs, swap, max_lang_probes: int = MAX_LANG_PROBES):
        self.langs = tuple(langs)
        self.swap = swap
        self.max_lang_probes = max_lang_probes
        self.first: list[tuple[str, str]] = []   # the first pages fetched: (URL, language)
        self.fetched: set = set()                 # wanted languages a page came in of
        self.made: Counter = Counter()            # probes made per language
        self.probed: set = set()

    def page(self, url: str, lang: str | None) -> None:
        """A page of ``lang`` was fetched at ``url``."""
        if lang in self.langs:
            self.fetched.add(lang)
            if len(self.first) < self.max_lang_probes:
                self.first.append((url, lang))

    def idle(self, known) -> list[tuple[str, str]]:
        """The crawl ran dry: the probes to make, (URL, language), none at a URL in
        ``known`` (requested already)."""
        probes = []
        for other in self.langs:
            if other in self.fetched or self.made[other] >= self.max_lang_probes:
                continue
            for url, lang in self.first:
                target = self.swap(url, lang, other) if lang != other else None
                if target is None or target in self.probed or target in known:
                    continue
                self.probed.add(target)
                self.made[other] += 1
                probes.append((target, other))
                break
        return probes
