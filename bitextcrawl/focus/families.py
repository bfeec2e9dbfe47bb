"""Families of links that lead nowhere, learned from the server's answers, pure (no Scrapy).

A translation's pages often link pages that were never translated at the URLs the
translation would have: a home whose feature list links every module page in its own
folder, a download page linking a change log per release. These links come in
*families*: URLs of one folder whose file names begin alike (``ngx_http_*_module.html``,
``CHANGES-1.*``) — the URL prefix up to the file name's first non-letter. A family is
tested one request at a time: its other links wait until the test is answered. A page
found releases the whole family; ``fail_after`` answers in a row that are no HTML page
(errors, or plain text, images, archives: a download page's change logs), with no page
found, and the family's links from the pages that linked them stay unfetched (the
pages that link them said nothing true of the family). A link of the family from
another page is tested again: a section index that names only what exists is believed
where a home that copied every link is not — unless that index leaves the link out
(``unlisted``, ``focus/sections.py``) and the family led to an error and never to a
page: the index's word and the server's answer to a sibling agree, and the link waits
for good (a translated page linking module pages never translated, a download page's
change logs in a language they were never written in), until a page of the family is
found or the crawl runs dry with the index no longer leaving it out. So that the index
has its say, a family that led to an error sends its next test only once no index above
that link is on its way (``index_coming``): a home links its section's index and the
section's pages together, and those pages would otherwise go out as tests before the
index that judges them is in.

:class:`MissingFamilies` keeps the families, the requests waiting and which pages link
each URL; the downloader side (``middlewares/held_links.py``) asks it before a request
goes out and tells it the answers. The workers of a distributed crawl count each other's
answers (``on_answer``, ``remote_answered``: ``focus/sharing.py``); each still sends its
own test of a family, so a family takes at most one test per worker at a time.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from urllib.parse import urlsplit

# Errors in a row, with no page found, after which a family's links from the pages
# that linked them are not fetched.
FAMILY_FAIL_AFTER = 3
_STEM = re.compile(r"[A-Za-z]*")


def family(url: str) -> str:
    """Host, folder and the file name's leading letters: ``host/it/docs/http/ngx``."""
    parts = urlsplit(url)
    folder, _, name = parts.path.rpartition("/")
    stem = _STEM.match(name)
    return f"{parts.netloc}{folder}/{stem.group(0).lower() if stem else ''}"


class MissingFamilies:
    def __init__(self, fail_after: int = FAMILY_FAIL_AFTER,
                 unlisted: Callable[[str], bool] | None = None):
        self.fail_after = fail_after
        # unlisted(url): does the index of url's section leave it out?
        # (SectionIndexes.unlisted)
        self.unlisted: Callable[[str], bool] = unlisted or (lambda url: False)
        self.errors: Counter = Counter()             # family -> its tests answered by no page
        # index_coming(url): is a directory index above url requested and not answered,
        # deeper than any fetched one? (SectionIndexes.index_coming)
        self.index_coming: Callable[[str], bool] = lambda url: False
        self.deferred: set[str] = set()              # families whose next test waits for one
        self.alive: set[str] = set()                 # families with a page found
        self.testing: dict[str, str] = {}            # family -> the URL out as its test
        self.failures: Counter = Counter()           # (family, linking page) -> errors
        self.waiting: dict[str, dict] = defaultdict(dict)   # family -> URL -> request
        self.linked_by: dict[str, set] = defaultdict(set)   # URL -> pages linking it
        # Where several workers crawl one site (focus/sharing.py): on_answer(url, found,
        # pages linking url) tells the others of a test answered or a family found here;
        # they count it (remote_answered) as their own.
        self.on_answer: Callable[[str, bool, list], None] | None = None

    def linked(self, url: str, page: str | None) -> None:
        """``page`` links ``url`` (while its family is not known to exist)."""
        if page is not None and family(url) not in self.alive:
            self.linked_by[url].add(page)

    def _unbelieved(self, fam: str, url: str) -> bool:
        """Every page linking ``url`` linked ``fail_after`` errors of its family, or the
        family led to an error (and to no page) and the index of ``url``'s section leaves
        it out."""
        if self.errors[fam] and fam not in self.alive and self.unlisted(url):
            return True
        pages = self.linked_by.get(url)
        return bool(pages) and all(self.failures[fam, p] >= self.fail_after for p in pages)

    def admit(self, url: str, request) -> bool:
        """May ``request`` (for ``url``) go out now? If not, it waits here."""
        fam = family(url)
        if fam in self.alive:
            return True
        tested = self.testing.get(fam)
        if tested == url:
            return True
        if tested is not None or self._unbelieved(fam, url):
            self.waiting[fam][url] = request
            return False
        if self.errors[fam] and self.index_coming(url):
            self.waiting[fam][url] = request
            self.deferred.add(fam)
            return False
        self.testing[fam] = url
        return True

    def answered(self, url: str, found: bool) -> list:
        """The server answered ``url``: a page (``found``) or an error. The waiting
        requests to send now: the whole family after a page, the next test after an
        error (none once every page linking the rest linked too many errors)."""
        fam = family(url)
        tested = self.testing.get(fam) == url
        if found:
            self.testing.pop(fam, None) if tested else None
            if fam in self.alive:
                return []
            if self.on_answer is not None:
                self.on_answer(url, True, [])
            return self._found(fam)
        if not tested:
            return []
        del self.testing[fam]
        if self.on_answer is not None:
            self.on_answer(url, False, sorted(self.linked_by.get(url, ())))
        self._error(fam, url)
        return self._next_test(fam)

    def remote_answered(self, url: str, found: bool, pages=()) -> list:
        """Another worker's test of ``url``'s family was answered, or it found a page of
        the family: counted as if answered here (the family's test out here, if any,
        stays out); ``pages``: the pages linking ``url`` there. The waiting requests to
        send now: the whole family after a page."""
        fam = family(url)
        self.waiting.get(fam, {}).pop(url, None)   # (answered there: not to send here)
        if not found:
            self.linked_by[url].update(pages)
        if self.testing.get(fam) == url:
            self.testing.pop(fam)
            if not found:
                self._error(fam, url)
                return self._next_test(fam)
        if found:
            return [] if fam in self.alive else self._found(fam)
        self._error(fam, url)
        return []

    def _found(self, fam: str) -> list:
        self.alive.add(fam)
        waiting = self.waiting.pop(fam, {})
        for waiting_url in waiting:
            self.linked_by.pop(waiting_url, None)
        return list(waiting.values())

    def _error(self, fam: str, url: str) -> None:
        self.errors[fam] += 1
        for page in self.linked_by.get(url, ()):
            self.failures[fam, page] += 1

    def _next_test(self, fam: str) -> list:
        waiting = self.waiting.get(fam, {})
        for url in sorted(waiting):
            if not self._unbelieved(fam, url):
                if self.index_coming(url):   # (a family's links share their folder)
                    self.deferred.add(fam)
                    return []
                self.testing[fam] = url
                return [waiting.pop(url)]
        return []

    def index_answered(self) -> list:
        """A directory index was answered: the next tests of the families that waited
        for it (none where it leaves their links out)."""
        released = []
        for fam in sorted(self.deferred):
            self.deferred.discard(fam)
            if fam not in self.testing:
                released += self._next_test(fam)
        return released

    def stalled(self) -> list:
        """The crawl ran dry: tests that were never answered (dropped on their way)
        give way to the next of their family, and families that waited for an index
        that never came test their next link."""
        released = []
        for fam in list(self.testing):
            del self.testing[fam]
            released += self._next_test(fam)
        return released + self.index_answered()

    def failing(self, url: str) -> bool:
        """Has ``url``'s family led to ``fail_after`` errors and no page so far, or to
        an error where the index of ``url``'s section leaves it out? (A counterpart
        guessed into it would most likely be one more.)"""
        fam = family(url)
        if fam in self.alive:
            return False
        return bool(self.errors[fam]) and self.unlisted(url) or sum(
            n for (f, _), n in self.failures.items() if f == fam) >= self.fail_after

    def left(self) -> int:
        """Requests that wait for good: their family led only to errors."""
        return sum(len(w) for w in self.waiting.values())
