"""Rule: an ordinary link of a wanted language's page into a wanted language gets the
language bonus (``BITEXT_FOCUS_LANG_LINK_PRIORITY``), unless an earlier rule withheld it."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FocusRule, LinkCase


class LangBonus(FocusRule):
    name = "lang_bonus"

    def link(self, case: LinkCase) -> str:
        if case.ordinary and not case.no_bonus and case.assumed_lang in case.langs:
            evidence = case.assumed_evidence
            case.request.priority += self.parts.config.bonus
            self.parts.stats.inc_value(f"bitext/focus/lang_link/{evidence}")
            case.bonus = True
        return CONTINUE
