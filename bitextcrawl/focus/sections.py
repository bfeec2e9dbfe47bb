"""Section indexes: a translation's folder index names the pages it has, pure (no Scrapy).

A partly translated site's home often links the original's pages at the URLs a
translation would have (a feature list copied with its links), while the index of a
translated section (``/xx/docs/``) names only the pages that section really has. A URL is
*unlisted* when the deepest fetched directory index above it — its folder's
``index.html`` (or ``/``) or an ancestor folder's, never the site root's — names at least
``min_listed`` other pages below its folder but not this one. The deeper index wins: a
section's own index is believed over the home that copied every link.

Whether unlisted means missing is learned per linking page, the way a family of links
is (``focus/families.py``): the first ``fail_after`` unlisted links of a page go out as
tests, one after the other. An error, or a page that is no page of its own (a copy of
another URL's content, another language's page at this language's URL), counts against
the page; once ``fail_after`` of its unlisted links led nowhere and none to a page, its
other unlisted links are kept (not fetched); one that leads to a page releases every
link the page kept (a translated page linking a page its section index forgot, say).
A kept link that another page links is judged again as that page's link, and the crawl
running dry releases the links of pages still being learned.

What an index leaves out is learned per folder too: every answered URL that the deepest
index above it leaves out (a test, a link that went out before the index came in, a
counterpart guessed into the folder) counts for its folder. Once the unlisted links of
``fail_after`` pages into a folder led nowhere and none led to a page (or a guess there),
the index has proved right about that folder: an unlisted link into
it is kept whichever page links it (a page whose unlisted links led to a page still
fetches its own), a guess into it is not worth its request
(:meth:`SectionIndexes.folder_proved`), and the crawl running dry does not release it. A
page found there unproves the folder, and the links kept for it are judged again. One
page's word is not enough (a home that copied the original's links is wrong about every
folder it links into); several pages that link pages never translated are, and the
translated pages after them no longer spend up to ``fail_after`` tests each.

An answer to a link that went out before the index above it came in counts as its
linking page's test all the same, once the index leaves it out: a home's first links
are in flight before its section's index is back. The caller
(``middlewares/held_links.py``) lets through what has evidence of its own: a switch's
target, a language probe, a counterpart guessed from a stored page. The workers of a
distributed crawl share a page's ``fail_after`` tests (``claim_test``, ``remote_test``:
``focus/sharing.py``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from bitextcrawl.focus.bars import FETCH, KEEP, TEST, TestSlots, schedule_released
from bitextcrawl.pages.urls import INDEX_DOCUMENT

# Pages an index must name below its folder (besides itself) to count as a section index.
INDEX_MIN_LISTED = 3
# Unlisted links of one page answered by no page (none by a page) after which that page's
# other unlisted links are not fetched.
UNLISTED_FAIL_AFTER = 3


def page_key(url: str) -> str:
    """``url`` without its fragment, a directory index spelt as its folder (``a/``)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    head, _, name = path.rpartition("/")
    if INDEX_DOCUMENT.match(name):
        path = head + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def index_folder(url: str) -> str | None:
    """The folder ``url`` is the index of (``http://h/xx/docs/``), or None: not a
    directory index, or the site root's (which names a site's entry points, not a
    section)."""
    key = page_key(url)
    parts = urlsplit(key)
    if parts.query or not parts.path.endswith("/") or parts.path == "/":
        return None
    return key


def url_folder(url: str) -> str:
    """The folder a URL is in (``http://h/xx/docs/``); a directory index is in its own."""
    key = page_key(url)
    return key[:key.rfind("/") + 1]


def folders_above(key: str) -> list[str]:
    """The folders above a page key, deepest first, the site root left out."""
    parts = urlsplit(key)
    segments = parts.path.split("/")[1:-1]
    if parts.path.endswith("/"):
        segments = segments[:-1]   # a folder's own index is not above it
    out = []
    for depth in range(len(segments), 0, -1):
        path = "/" + "/".join(segments[:depth]) + "/"
        out.append(urlunsplit((parts.scheme, parts.netloc, path, "", "")))
    return out


class SectionIndexes:
    def __init__(self, enabled: bool = True, fail_after: int = UNLISTED_FAIL_AFTER,
                 min_listed: int = INDEX_MIN_LISTED):
        self.enabled = enabled
        self.fail_after = fail_after
        self.min_listed = min_listed
        self.listed: dict[str, frozenset] = {}      # folder -> page keys its index names
        self.failures: Counter = Counter()          # linking page -> unlisted links missing
        self.found: Counter = Counter()             # linking page -> unlisted links found
        self.testing: dict[str, str] = {}           # URL out as a test -> its linking page
        self.kept: dict[str, tuple] = {}            # URL -> (request, linking page)
        self.for_folder: set[str] = set()           # kept URLs kept for their folder
        self.answered_urls: set[str] = set()
        # folder -> the pages whose unlisted links into it led nowhere
        self.folder_missing: dict[str, set] = defaultdict(set)
        self.guesses_missing: Counter = Counter()   # folder -> unlisted URLs of no link missing
        self.folder_found: Counter = Counter()      # folder -> its unlisted URLs found
        # answers not counted yet (no index above them left them out): URL -> (linking
        # page or None, a page of its own)
        self.early: dict[str, tuple] = {}
        self.coming: set[str] = set()    # folders whose index went out, not answered yet
        # Where several workers crawl one site (focus/sharing.py): claim_test(key) grants
        # one of a page's ``fail_after`` test slots to one worker only, and on_test(url,
        # page) tells the others of a test sent (they count its answer as their own).
        self.claim_test: Callable[[str], bool] = lambda key: True
        self.on_test: Callable[[str, str], None] | None = None
        self.slots = TestSlots(fail_after, lambda key: self.claim_test(key))

    def index_requested(self, url: str) -> None:
        """A request for ``url`` went out: if it is a folder's index not fetched yet,
        that index is on its way."""
        folder = index_folder(url) if self.enabled else None
        if folder is not None and folder not in self.listed:
            self.coming.add(folder)

    def index_answered(self, url: str) -> bool:
        """``url`` was answered (a page or an error): True if it was an index on its way."""
        folder = index_folder(url) if self.coming else None
        if folder is None or folder not in self.coming:
            return False
        self.coming.discard(folder)
        return True

    def index_coming(self, url: str) -> bool:
        """Is a directory index above ``url`` on its way, deeper than the deepest
        fetched one (an index that will judge ``url`` when it comes)?"""
        if not self.coming:
            return False
        for folder in folders_above(page_key(url)):
            if folder in self.listed:
                return False
            if folder in self.coming:
                return True
        return False

    def observe(self, url: str, links) -> list:
        """A fetched page at ``url`` links ``links`` (URLs): if it is a directory index
        naming ``min_listed`` pages below its folder, it is that folder's index. The kept
        requests to fetch now (answers that came before it, counted now)."""
        folder = index_folder(url) if self.enabled else None
        if folder is None or folder in self.listed:
            return []
        named = {page_key(link) for link in links}
        named = frozenset(k for k in named if k.startswith(folder) and k != folder)
        if len(named) < self.min_listed:
            return []
        self.listed[folder] = named
        # answers that came before this index: counted now where it leaves them out
        released: list = []
        for url in [u for u in self.early if self.unlisted(u)]:
            page, real = self.early.pop(url)
            released += self._count(url, page, real)
        return released

    def _index_above(self, key: str) -> str | None:
        """The folder of the deepest fetched index above the page key ``key``."""
        if self.listed:
            for folder in folders_above(key):
                if folder in self.listed:
                    return folder
        return None

    def unlisted(self, url: str) -> bool:
        """Does the deepest fetched index above ``url`` leave it out?"""
        key = page_key(url)
        index = self._index_above(key)
        return index is not None and key not in self.listed[index]

    def _unbelieved(self, page: str) -> bool:
        return not self.found[page] and self.failures[page] >= self.fail_after

    def _learning(self, page: str) -> bool:
        """Do ``page``'s failures and tests out leave room for one more test?"""
        out = sum(1 for from_page in self.testing.values() if from_page == page)
        return self.failures[page] + out < self.fail_after

    def _proved(self, folder: str) -> bool:
        return not self.folder_found[folder] \
            and len(self.folder_missing.get(folder, ())) >= self.fail_after

    def folder_proved(self, url: str) -> bool:
        """Does the index above ``url`` leave it out, where the unlisted links of
        ``fail_after`` pages into its folder led nowhere and none to a page?"""
        return self._proved(url_folder(url)) and self.unlisted(url)

    def guess_unlikely(self, url: str) -> bool:
        """Is a counterpart guessed at ``url`` most likely one more URL that leads
        nowhere? A guess is a URL that no page of its language links: where the index
        above it leaves it out too, it is worth its request only where that index was
        seen to forget a page of its folder (an unlisted URL there was found), or was
        not yet tested there while it names pages of that folder. Unlikely: the URLs
        the index left out in its folder led only nowhere, or the index names pages
        below it but none in its folder (a section it lists no page of)."""
        index = self._index_above(page_key(url))
        if index is None or page_key(url) in self.listed[index]:
            return False
        folder = url_folder(url)
        if self.folder_found[folder]:
            return False
        if self.folder_missing.get(folder) or self.guesses_missing[folder]:
            return True
        return folder != index and not any(k.startswith(folder) for k in self.listed[index])

    def judge(self, url: str, linked_from: str | None, request=None) -> str:
        """FETCH, TEST (fetch it: its answer tells whether ``linked_from``'s links the
        indexes leave out lead to pages) or KEEP (not fetched: ``request`` kept,
        released once the page's links prove true, a page is found in its folder, or
        another page links it)."""
        if not self.enabled or linked_from is None or url in self.answered_urls \
                or self.found[linked_from]:
            return FETCH
        if not self.unlisted(url):
            return FETCH
        if self._proved(url_folder(url)):
            self.kept[url] = (request, linked_from)
            self.for_folder.add(url)
            return KEEP
        if self._learning(linked_from) and self._test(url, linked_from):
            return TEST
        self.kept[url] = (request, linked_from)
        return KEEP

    def _test(self, url: str, page: str) -> bool:
        """Send ``url`` as a test of ``page``'s links, if a test slot of ``page`` is free
        (always, in a crawl of one worker)."""
        if not self.slots.take(page):
            return False
        self.testing[url] = page
        if self.on_test is not None:
            self.on_test(url, page)
        return True

    def remote_test(self, url: str, page: str) -> None:
        """Another worker sent ``url`` as a test of ``page``'s links."""
        if url not in self.answered_urls:
            self.testing.setdefault(url, page)
            self.kept.pop(url, None)
            self.for_folder.discard(url)

    def answered(self, url: str, real: bool, linked_from: str | None = None) -> list:
        """``url`` was answered by a page of its own (``real``) or not (an error, a copy,
        another language's page); ``linked_from``: the page whose link it was, if any
        (a link that went out untested counts as that page's test where the index
        leaves it out). The kept requests to fetch now: every one its linking page kept
        where it was a page (and those kept for its folder), the next test of that
        page's where not."""
        if url in self.answered_urls:
            return []
        page = self.testing.pop(url, None)
        if page is None:
            if not self.enabled or not self.unlisted(url):
                # (an index that comes later may leave it out)
                if self.enabled:
                    self.early.setdefault(url, (linked_from, real))
                return []
            page = linked_from
        return self._count(url, page, real)

    def _count(self, url: str, page: str | None, real: bool) -> list:
        """An unlisted URL answered: counted for its folder and its linking page."""
        self.answered_urls.add(url)
        folder = url_folder(url)
        released: list = []
        if real:
            self.folder_found[folder] += 1
            if self.folder_found[folder] == 1:   # the folder's index is wrong: judged again
                released += self._rejudge(lambda kept_url: url_folder(kept_url) == folder)
        else:
            if page is not None:
                self.folder_missing[folder].add(page)
            else:
                self.guesses_missing[folder] += 1
        if page is None:
            return released
        if real:
            self.found[page] += 1
            return released + self._release(lambda _, from_page: from_page == page)
        self.failures[page] += 1
        if not self._learning(page):
            return released
        for kept_url in sorted(self.kept):   # the next test of this page's links
            request, from_page = self.kept[kept_url]
            if from_page == page and kept_url not in self.for_folder:
                if not self._test(kept_url, page):
                    return released
                del self.kept[kept_url]
                return released + ([request] if request is not None else [])
        return released

    def _rejudge(self, which) -> list:
        """The kept links ``which(url)`` picks, judged again as their pages' links."""
        out = []
        for url in sorted(u for u in self.kept if which(u)):
            request, page = self.kept.pop(url)
            self.for_folder.discard(url)
            if self.judge(url, page, request) != KEEP and request is not None:
                out.append(request)
        return out

    def linked_again(self, url: str, linked_from: str) -> list:
        """Another fetched page links ``url`` (kept): judged again as that page's link;
        the request to fetch now, if any."""
        entry = self.kept.get(url)
        if entry is None or entry[1] == linked_from:
            return []
        del self.kept[url]
        self.for_folder.discard(url)
        if self.judge(url, linked_from, entry[0]) == KEEP:
            return []
        return [entry[0]] if entry[0] is not None else []

    def _release(self, which) -> list:
        """The kept requests whose (URL, linking page) ``which`` picks, no longer kept."""
        urls = [url for url, (_, page) in self.kept.items() if which(url, page)]
        self.for_folder.difference_update(urls)
        return [request for request, _ in (self.kept.pop(url) for url in urls)
                if request is not None]

    def stalled(self) -> list:
        """The crawl ran dry: tests that never came back give way, and every link of a
        page still unlearned goes, but for those its folder's answers keep."""
        self.testing.clear()
        self.coming.clear()   # (an index dropped on its way)
        self.slots.new_round()
        return self._release(lambda url, page: not self._unbelieved(page)
                             and not self._proved(url_folder(url)))


class SectionWatch:
    """What the crawl's pages and answers teach :class:`SectionIndexes`, and the requests
    it lets go (scheduled by ``schedule``, the frontier's)."""

    def __init__(self, sections: SectionIndexes, url_lang, original_url, downloaded: set,
                 stats, schedule):
        """``url_lang(url)``: the language a URL names; ``original_url(item)``: the URL
        the item's content was first seen under, where that is another URL."""
        self.sections, self._url_lang, self._original_url = sections, url_lang, original_url
        self.downloaded, self.stats, self._schedule = downloaded, stats, schedule
        # () -> the requests that waited for an index, to send once one is answered or
        # found (MissingFamilies.index_answered; the small side's sizes are counted again)
        self.index_in: Callable[[], list] = list

    def page(self, item, linked_from: str | None = None) -> None:
        """A page record: an index it is, the kept links it links, and what its URLs
        answered (a page of its own, or a copy of another URL's page or another
        language's page at this URL); ``linked_from``: the page whose link it was, if
        the rule would have judged that link."""
        sections = self.sections
        if not sections.enabled:
            return
        links = [link["url"] for link in item.links]
        listed = len(sections.listed)
        self._release(sections.observe(item.url, links))
        answered = [sections.index_answered(url) for url in {item.url, item.requested_url}
                    if url]
        if any(answered) or len(sections.listed) != listed:
            self._release(self.index_in())
        if sections.kept:
            for url in links:
                if url in sections.kept:
                    self._release(sections.linked_again(url, item.url))
        copy = self._original_url(item) is not None
        for url in sorted({item.url, item.requested_url or item.url}):
            lang = self._url_lang(url)
            self._release(sections.answered(
                url, not copy and (lang is None or item.lang == lang), linked_from))

    def error(self, url: str, linked_from: str | None = None) -> None:
        """An error answer to ``url`` (an unlisted link that leads nowhere)."""
        if self.sections.enabled:
            self._release(self.sections.answered(url, False, linked_from))
            if self.sections.index_answered(url):
                self._release(self.index_in())

    def _release(self, requests: list) -> None:
        schedule_released(requests, self.downloaded, self._schedule, self.stats,
                          "bitext/focus/sections/released")
