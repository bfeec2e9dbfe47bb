"""Rule: a link known to lead to a language nobody wants is dropped, at its discovery and,
where its URL's language was learned after it was queued, before download
(``BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED``)."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import CONTINUE, DROP, Discard, FocusRule, LinkCase


class DropOtherLang(FocusRule):
    name = "drop_other_lang"
    switch = "BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED"

    def link(self, case: LinkCase) -> str:
        if case.lang and case.lang not in case.langs:
            stats = self.parts.stats
            stats.inc_value(f"bitext/focus/dropped_other_lang/{case.evidence}")
            stats.inc_value(f"bitext/links/other_lang/{case.lang}")
            return DROP
        return CONTINUE

    def request(self, request, focus):
        # (queue.unwanted: queued links judged again once a URL token named their
        # language, LinkJudge.rejudge_queued)
        queue = focus.queue
        if request.url in queue.unwanted and request.url not in queue.switch_targets:
            return Discard("dropped_other_lang/url_token_queued",
                           "its URL names a language not wanted")
        return None
