"""Rule: a URL is downloaded once. Two mechanisms may ask for one URL at once past the
dupefilter (a promoted link, and a counterpart guess the filter then lets through):
nginx.org /en/docs/dirindex.html was downloaded twice. A retry goes."""

from __future__ import annotations

from bitextcrawl.focus.rules.base import Discard, FocusRule


class SentOnce(FocusRule):
    name = "sent_once"

    def request(self, request, focus):
        if request.url in focus.queue.requested and not request.meta.get("retry_times"):
            return Discard("requested_twice_dropped",
                           "another request for this URL went out already")
        return None
