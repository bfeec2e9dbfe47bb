"""Rule: a page's link that the index of its section (the deepest fetched folder index
above it) leaves out is kept, once the index proved to name every page it has
(``focus/sections.py``, ``BITEXT_FOCUS_SECTION_INDEXES_ENABLED``); a test of it goes
out. A folder's index goes ahead of its page's other links of its class: the sooner it
is in, the fewer links below it go out before it judges them."""

from __future__ import annotations

from bitextcrawl.focus.marks import marks
from bitextcrawl.focus.rules.base import FocusParts, FocusRule, LinkCase, Refuse
from bitextcrawl.focus.rules.keeps import kept
from bitextcrawl.focus.sections import (
    INDEX_MIN_LISTED,
    UNLISTED_FAIL_AFTER,
    SectionWatch,
    index_folder,
)
from bitextcrawl.focus.sections import SectionIndexes as SectionPolicy


class SectionIndexes(FocusRule):
    name = "section_indexes"
    switch = "BITEXT_FOCUS_SECTION_INDEXES_ENABLED"
    thresholds = {"min_listed": "BITEXT_FOCUS_SECTION_INDEXES_MIN_LISTED",
                  "fail_after": "BITEXT_FOCUS_SECTION_INDEXES_FAIL_AFTER"}

    def __init__(self, parts: FocusParts, min_listed: int = INDEX_MIN_LISTED,
                 fail_after: int = UNLISTED_FAIL_AFTER):
        super().__init__(parts)
        parts.sections = SectionPolicy(fail_after=max(1, fail_after),
                                       min_listed=max(1, min_listed))
        # what the pages and answers teach it, and the requests it lets go
        self.watch = SectionWatch(parts.sections, parts.evidence.url_lang, parts.original_url,
                                  parts.queue.downloaded, parts.stats, parts.schedule)
        self.watch.index_in = self._index_in
        # a family of links that led to an error is not tested again where the index of
        # its section leaves the link out (focus/families.py), nor before the index of its
        # section is in, where it is on its way; and such a link sizes no side of a partly
        # translated site (sites/small_side.py)
        families = parts.queue.families
        families.unlisted, families.index_coming = parts.sections.unlisted, \
            parts.sections.index_coming
        if parts.walk is not None:
            parts.walk.unlisted = parts.sections.unlisted

    def _index_in(self) -> list:
        """A section's index was answered or found: the sides sized again, and the
        families' tests that waited for it."""
        if self.parts.walk is not None:
            self.parts.walk.recount()
        return self.parts.queue.families.index_answered()

    def page(self, page, request):
        self.watch.page(page, self.section_link(request))

    def error(self, url, status, request):
        self.watch.error(url, self.section_link(request))

    def idle(self):
        # tests that never came back give way; the links of pages still unlearned go
        return self.parts.sections.stalled()

    def section_link(self, request) -> str | None:
        """The page whose link ``request`` was, where this rule would have judged it and
        its URL names the page's own language: its answer is that page's test. (A page's
        link into another language is no claim that its own translation has the page: a
        download page links a list of links that has no translation.)"""
        if request is None:
            return None
        page = marks(request.meta).linked_from
        if page is None or not self.parts.queue.ordinary_link(request):
            return None
        url_lang = self.parts.evidence.url_lang
        return page if url_lang(request.url) == url_lang(page) else None

    def followed(self, request, case: LinkCase | None):
        if case is not None and index_folder(request.url):
            request.priority += 1
        return request

    def request(self, request, focus):
        # A switch names a page that exists, and a counterpart guessed from a page stored
        # (a URL pattern, deep recovery, a parallel link) is judged by its own evidence:
        # they go.
        sections, meta = focus.sections, request.meta
        if sections is None or not sections.listed or meta.get("retry_times") \
                or not focus.queue.ordinary_link(request):
            return None
        stats = ("bitext/focus/sections/tested", "bitext/focus/sections/kept")
        if kept(self.parts, focus, request, stats, lambda copy: sections.judge(
                request.url, marks(meta).linked_from, copy)):
            return Refuse("kept: the index of its section does not name it")
        return None
