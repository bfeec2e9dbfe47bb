"""Rule: a same-language link with the language bonus whose counterpart, not stored yet,
will say whether it exists (the site marks missing translations by switch absence,
``switch_absence.py``) goes after it (``BITEXT_FOCUS_SCARCE_LANG_PRIORITY`` less)."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FocusRule, LinkCase


class CounterpartDeferral(FocusRule):
    name = "counterpart_deferral"

    def link(self, case: LinkCase) -> str:
        parts, lang = self.parts, case.assumed_lang
        if case.bonus and lang == case.page.lang and parts.shape.counterpart_will_tell(
                case.request.url, lang, parts.evidence.tokens.swap):
            case.request.priority -= parts.config.scarce_bonus
            parts.stats.inc_value("bitext/focus/deferred_for_counterpart")
            case.deferred = True
        return CONTINUE
