"""Rule: a page's link that the index of its section (the deepest fetched folder index
above it) leaves out is kept, once the index proved to name every page it has
(``focus/sections.py``, ``BITEXT_FOCUS_SECTION_INDEXES_ENABLED``); a test of it goes
out. A folder's index goes ahead of its page's other links of its class: the sooner it
is in, the fewer links below it go out before it judges them."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import FocusParts, FocusRule, LinkCase, Refuse
from bitextcrawl.focus.rules.keeps import kept
from bitextcrawl.focus.sections import INDEX_MIN_LISTED, UNLISTED_FAIL_AFTER, index_folder
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
                request.url, meta.get("bitext_linked_from"), copy)):
            return Refuse("kept: the index of its section does not name it")
        return None
