"""Rule: the links of a page in a language nobody wants. One with evidence of a wanted
language gets the language bonus; with ``BITEXT_FOCUS_OTHER_LANG_LINKS = "evidence"``
the others are dropped (they lead on into that language), with ``"all"`` they go last
(``BITEXT_FOCUS_OTHER_PAGE_PRIORITY``). A page whose language fastText could not tell
(``und``) drops none."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, DROP, FOLLOW, FocusRule, LinkCase


class OtherLangPages(FocusRule):
    name = "other_lang_pages"

    def link(self, case: LinkCase) -> str:
        page = case.page
        if case.from_start or page.lang in case.langs:
            return CONTINUE
        c, stats, request = self.parts.config, self.parts.stats, case.request
        if case.lang in case.langs:
            request.priority += c.bonus
            stats.inc_value(f"bitext/focus/lang_link/{case.evidence}")
            return FOLLOW
        if c.other_lang_links == "evidence" and page.lang != "und":
            stats.inc_value("bitext/focus/dropped_from_other_lang")
            return DROP
        request.priority += c.other_page_priority
        stats.inc_value("bitext/focus/deferred")
        return FOLLOW
