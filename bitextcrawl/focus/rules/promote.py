"""Rule: a URL queued at a low priority and found again worth a switch bonus more jumps
the queue: a copy goes to the scheduler past the dupefilter, and whichever copy reaches
the downloader second is dropped there (``BITEXT_FOCUS_PROMOTE_ENABLED``; off in the
distributed profile, where the other copy may go to another worker)."""

from __future__ import annotations

from bitextcrawl.focus.marks import marked
from bitextcrawl.focus.rules.base import Discard, FocusRule, LinkCase


class Promote(FocusRule):
    name = "promote"
    switch = "BITEXT_FOCUS_PROMOTE_ENABLED"

    def followed(self, request, case: LinkCase | None):
        queue, url = self.parts.queue, request.url
        queued = queue.queued.get(url, (None,))[0]
        if queued is not None and not request.dont_filter \
                and url not in queue.requested and url not in queue.promoted \
                and request.priority >= queued + self.parts.config.cross_bonus:
            queue.promoted.add(url)
            self.parts.stats.inc_value("bitext/focus/promoted")
            return request.replace(dont_filter=True,
                                   meta=marked(request.meta, promoted=True))
        return request

    def request(self, request, focus):
        if focus.queue.second_copy(request.url, bool(request.meta.get("retry_times"))):
            return Discard("promoted_copy_dropped",
                           "the other copy of a promoted request went out first",
                           counted_done=True)
        return None
