"""Rule: a link with the language bonus into the wanted language with the fewest pages
(stored, or on their way as switch targets) goes first: its pages bound the number of
pairs (``BITEXT_FOCUS_SCARCE_LANG_PRIORITY``)."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FocusRule, LinkCase


class ScarceLang(FocusRule):
    name = "scarce_lang"

    def link(self, case: LinkCase) -> str:
        parts = self.parts
        if case.bonus and not case.deferred \
                and case.assumed_lang == parts.scarcest_for(case.page):
            case.request.priority += parts.config.scarce_bonus
            parts.stats.inc_value("bitext/focus/scarce_lang_link")
        return CONTINUE
