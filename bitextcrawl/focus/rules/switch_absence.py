"""Rule: where most pages of language A carry a switch into B, a link to a B page whose
A counterpart (URL tokens swapped) is stored showing B's name without a link is not
followed: the site says the translation does not exist. Judged at the link's discovery,
and again before download for a link whose counterpart was stored since
(``BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED``; the thresholds: ``focus/shape.py``)."""

from __future__ import annotations

from bitextcrawl.focus.marks import marks
from bitextcrawl.focus.rules.base import CONTINUE, DROP, Discard, FocusParts, FocusRule, LinkCase
from bitextcrawl.focus.shape import ABSENCE_MIN_PAGES


class SwitchAbsence(FocusRule):
    name = "switch_absence"
    switch = "BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED"
    thresholds = {"min_pages": "BITEXT_FOCUS_SWITCH_ABSENCE_MIN_PAGES"}

    def __init__(self, parts: FocusParts, min_pages: int = ABSENCE_MIN_PAGES):
        super().__init__(parts)
        parts.shape.switch_absence, parts.shape.absence_min_pages = True, max(1, min_pages)

    def link(self, case: LinkCase) -> str:
        parts = self.parts
        if case.ordinary and case.lang == case.page.lang and parts.shape.no_translation(
                case.request.url, case.lang, parts.evidence.tokens.swap):
            parts.stats.inc_value("bitext/focus/dropped_no_translation")
            return DROP
        return CONTINUE

    def request(self, request, focus):
        same = marks(request.meta).same_lang or self._link_lang(focus, request)
        if same and focus.no_translation(request.url, same):
            return Discard("dropped_no_translation",
                           "no translation: the counterpart page has no switch to it")
        return None

    @staticmethod
    def _link_lang(focus, request) -> str | None:
        """The language a link's URL names, where the link was judged before its token was
        learned (a copy queued then, without the mark of a same-language link); None for a
        switch's target (a switch names a page that exists), a language probe, a guess."""
        return focus.evidence.url_lang(request.url) if focus.queue.ordinary_link(request) \
            else None
