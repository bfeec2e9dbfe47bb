"""Rule: a link whose fetched counterpart's bar of hreflang alternates leaves its language
out, whose counterpart URL answered no translation, or that an index of its language
describes in another's words, is kept once the rule proved right on this site
(``focus/bars.py``, ``BITEXT_FOCUS_BAR_ABSENCE_ENABLED``); a test of it goes out."""

from __future__ import annotations

from bitextcrawl.focus.bars import MIN_CONFIRMED, BarWatch
from bitextcrawl.focus.bars import BarAbsence as BarPolicy
from bitextcrawl.focus.marks import marks
from bitextcrawl.focus.rules.base import FocusParts, FocusRule, Refuse
from bitextcrawl.focus.rules.keeps import kept
from bitextcrawl.focus.rules.small_side import not_sent


class BarAbsence(FocusRule):
    name = "bar_absence"
    switch = "BITEXT_FOCUS_BAR_ABSENCE_ENABLED"
    thresholds = {"min_confirmed": "BITEXT_FOCUS_BAR_ABSENCE_MIN_CONFIRMED"}

    def __init__(self, parts: FocusParts, min_confirmed: int = MIN_CONFIRMED):
        super().__init__(parts)
        parts.bars = BarPolicy(parts.langs, min_confirmed=max(1, min_confirmed))
        # what the pages and answers teach it, and the requests it lets go
        self.watch = BarWatch(parts.bars, parts.evidence, parts.original_url, parts.langs,
                              parts.queue.downloaded, parts.stats, parts.schedule,
                              words_lang=parts.words_lang)

    def page(self, page, request):
        self.watch.page(page)

    def error(self, url, status, request):
        self.watch.error(url, status)

    def idle(self):
        # the crawl ran dry while a rule is unlearned: its kept requests go
        return self.parts.bars.stalled()

    def request(self, request, focus):
        bars = focus.bars
        if bars is None or not bars.active() \
                or marks(request.meta).lang_probe or request.meta.get("retry_times"):
            return None
        stats = ("bitext/focus/bar_absence/tested", "bitext/focus/bar_absence/kept")
        if not kept(self.parts, focus, request, stats, lambda copy: bars.judge(
                request.url, focus.evidence.url_lang(request.url), focus.evidence.swap,
                copy)):
            return None
        not_sent(self.parts, focus, request.url)
        return Refuse("kept: its counterpart's bar of alternates leaves it out")
