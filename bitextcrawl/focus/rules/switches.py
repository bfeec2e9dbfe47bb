"""Rule: a language switch (hreflang, a switch anchor) into another wanted language than
its page's is most likely the page's counterpart: it goes first (the language bonus and
``BITEXT_FOCUS_CROSS_LANG_PRIORITY``), is never held (a switch names a page that exists),
and counts for scarcity while it is on its way."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, FOLLOW, FocusRule, LinkCase


class LanguageSwitches(FocusRule):
    name = "switches"

    def link(self, case: LinkCase) -> str:
        if not case.switch:
            return CONTINUE
        queue, request, lang = self.parts.queue, case.request, case.lang
        url = request.url
        if url not in queue.switch_targets and url not in queue.requested:
            queue.switches_pending[url] = lang
            queue.pending_by_lang[lang] += 1
        queue.add_switch_target(url)
        for held in queue.held.values():   # held as an ordinary link before: not now
            held.pop(url, None)
        c, stats = self.parts.config, self.parts.stats
        request.priority += c.bonus + c.cross_bonus
        stats.inc_value(f"bitext/focus/lang_link/{case.evidence}")
        stats.inc_value("bitext/focus/cross_lang_link")
        return FOLLOW
