"""Rule: no language bonus for a link between pages of a language the site looks
translated into one way so far (other languages' pages switch into it, none of its few
pages links back): these links wait behind the other language's, and are held if the
judgement confirms it (``held_languages.py``). nginx.org from /cn/: English FAQ pages
went out before ten English pages had come to judge by (``BITEXT_FOCUS_ONE_WAY_ENABLED``;
the thresholds: ``focus/shape.py``)."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FocusRule, LinkCase


class OneWaySoFar(FocusRule):
    name = "one_way"
    switch = "BITEXT_FOCUS_ONE_WAY_ENABLED"

    def link(self, case: LinkCase) -> str:
        parts = self.parts
        if case.ordinary and not case.no_bonus and case.assumed_lang == case.page.lang \
                and parts.shape.one_way_so_far(case.assumed_lang, parts.small_lang):
            parts.stats.inc_value("bitext/focus/one_way_so_far")
            case.no_bonus = True
        return CONTINUE
