"""Rule: the links of one folder and name stem that led to errors are tested one request
at a time (``focus/families.py``): a link waits while another of its family is tested,
or for good where the pages linking it linked only errors of its family. Judged before
download, with ``BITEXT_FOCUS_HOLD_QUEUED_ENABLED``; before the section and bar rules,
since a link waiting for its family's test is no test of its page."""

from __future__ import annotations

from bitextcrawl.focus.families import FAMILY_FAIL_AFTER
from bitextcrawl.focus.marks import marked, marks
from bitextcrawl.focus.rules.base import FocusParts, FocusRule, Refuse
from bitextcrawl.focus.rules.small_side import not_sent


class FamilyTests(FocusRule):
    name = "family_tests"
    thresholds = {"fail_after": "BITEXT_FOCUS_FAMILY_FAIL_AFTER"}

    def __init__(self, parts: FocusParts, fail_after: int = FAMILY_FAIL_AFTER):
        super().__init__(parts)
        parts.queue.families.fail_after = max(1, fail_after)

    def answered(self, url, found):
        # a test answered: the whole family after a page, the next test after an error
        released = self.parts.queue.families.answered(url, found)
        if released:
            self.parts.stats.inc_value("bitext/focus/family/released", len(released))
        return released

    def idle(self):
        # tests never answered give way; families that waited for an index test on
        return self.parts.queue.families.stalled()

    def request(self, request, focus):
        meta = request.meta
        if not self.parts.config.hold_queued or marks(meta).family_admitted \
                or meta.get("retry_times") or meta.get("redirect_urls") \
                or not focus.queue.ordinary_link(request):
            return None
        waiting = request.replace(dont_filter=True,
                                  meta=marked(meta, family_admitted=True))
        if focus.queue.families.admit(request.url, waiting):
            return None
        focus.queue.filtered.add(request.url)
        self.parts.stats.inc_value("bitext/focus/family/waited")
        not_sent(self.parts, focus, request.url)
        return Refuse("waits: another link of its family is tested first")
