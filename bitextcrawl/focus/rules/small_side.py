"""Rule: on a partly translated site, a page of the big side whose counterpart no fetched
page has linked waits, and so does any page while a language probe is out
(``sites/small_side.py``; ``BITEXT_FOCUS_SMALL_SIDE_ENABLED``). Judged before download,
with ``BITEXT_FOCUS_HOLD_QUEUED_ENABLED``."""

from __future__ import annotations

from bitextcrawl.focus.marks import marks
from bitextcrawl.focus.rules.base import FocusParts, FocusRule, Refuse
from bitextcrawl.sites.small_side import SMALL_SHARE


class SmallSideHolds(FocusRule):
    name = "small_side"
    switch = "BITEXT_FOCUS_SMALL_SIDE_ENABLED"
    thresholds = {"small_share": "BITEXT_FOCUS_SMALL_SIDE_SHARE"}

    def __init__(self, parts: FocusParts, small_share: float = SMALL_SHARE):
        super().__init__(parts)
        if parts.walk is not None:
            parts.walk.enabled, parts.walk.small_share = True, small_share

    def page(self, page, request):
        # the held requests it is the counterpart of go; its links size the sides; a
        # language probe it answered (focus/walk.py)
        walk = self.parts.walk
        if walk is None or self.parts.in_scope is None:
            return
        probe = request if request is not None \
            and marks(request.meta).lang_probe else None
        walk.page(page, self.parts.in_scope, probe)

    def error(self, url, status, request):
        if self.parts.walk is not None and request is not None:
            self.parts.walk.error(request)

    def idle(self):
        # the requests held when the last run stopped, and probes of the big side
        return self.parts.walk.idle() if self.parts.walk is not None else []

    def request(self, request, focus):
        if not self.parts.config.hold_queued:
            return None
        side = focus.small_side()
        if side is None or marks(request.meta).released \
                or request.meta.get("bitext_discovered_by") not in ("link", None) \
                or request.url in focus.queue.switch_targets:
            return None
        lang = focus.evidence.url_lang(request.url)
        hold, counterpart = side.holds(request.url, lang)
        if not hold:
            return None
        held = request.replace(dont_filter=True, meta=dict(request.meta))
        side.hold(request.url, lang, held, counterpart)
        if focus.sharing is not None:   # (held by the other workers of the crawl too)
            focus.sharing.small_side_held(request.url, held, lang, counterpart)
        focus.queue.filtered.add(request.url)
        self.parts.stats.inc_value("bitext/focus/small_side/held")
        return Refuse("held: its counterpart on the small side is not known")


def not_sent(parts, focus, url: str) -> None:
    """``url`` does not go out for now: it sizes no side of a partly translated site
    until it proves a page, and the sizing does not wait for it; the requests that
    releases, scheduled."""
    side = focus.small_side()
    if side is not None:
        for released in side.not_sent(url):
            parts.schedule(released)
