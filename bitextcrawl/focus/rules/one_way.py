"""Rule: no language bonus for a link between pages of a language the site looks
translated into one way so far (other languages' pages switch into it, none of its few
pages links back): these links wait behind the other language's, and are held if the
judgement confirms it (``held_languages.py``). nginx.org from /cn/: English FAQ pages
went out before ten English pages had come to judge by (``BITEXT_FOCUS_ONE_WAY_ENABLED``;
the thresholds: ``focus/shape.py``)."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FocusParts, FocusRule, LinkCase
from bitextcrawl.focus.shape import ONE_WAY_MAX_SHARE, ONE_WAY_MIN_PAGES


class OneWaySoFar(FocusRule):
    name = "one_way"
    switch = "BITEXT_FOCUS_ONE_WAY_ENABLED"
    thresholds = {"min_pages": "BITEXT_FOCUS_ONE_WAY_MIN_PAGES",
                  "max_share": "BITEXT_FOCUS_ONE_WAY_MAX_SHARE"}

    def __init__(self, parts: FocusParts, min_pages: int = ONE_WAY_MIN_PAGES,
                 max_share: float = ONE_WAY_MAX_SHARE):
        super().__init__(parts)
        shape = parts.shape
        shape.one_way_enabled = True
        shape.one_way_min_pages, shape.one_way_max_share = max(1, min_pages), max_share

    def link(self, case: LinkCase) -> str:
        parts = self.parts
        if case.ordinary and not case.no_bonus and case.assumed_lang == case.page.lang \
                and parts.shape.one_way_so_far(case.assumed_lang, parts.small_lang):
            parts.stats.inc_value("bitext/focus/one_way_so_far")
            case.no_bonus = True
        return CONTINUE
