"""The focus's learning shared between the workers of one crawl (no Scrapy here): pages
another worker stored are learned from as pages crawled here; the links it holds (the
focus's and the small side's) are held here too, so any worker can release them; the
samples of the yield learning count for all; a switch target found anywhere is held
nowhere; the tests of section indexes and bar absence are sent by one worker each (a test
slot claimed) and their answers, errors included, count for every worker, and so do the
answers to the tests of families of links (``focus/families.py``). Carried by the
crawl state (``crawl_state.py``: ``sync``, ``publish``, ``claim``); without a backing
there, nothing is published and nothing comes in.

A held link is published with its request as a dict (``to_dict``, the middleware's
Scrapy conversion) and made again on the other side (``from_dict``); one that was held
at download has passed the shared dupefilter, and is marked ``filtered`` so that a
guess of it goes out past the filter (``LinkJudge.unfiltered``). A released copy that
skips the filter is requested by the first worker to claim it
(:meth:`FocusSharing.claim_request`), so two releases never fetch a page twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bitextcrawl.focus.marks import mark
from bitextcrawl.focus.queue import FocusQueue
from bitextcrawl.focus.yields import YieldLearning

logger = logging.getLogger("bitextcrawl.middlewares.focus")


class FocusSharing:
    def __init__(self, state, queue: FocusQueue, yields: YieldLearning, stats,
                 learn_page: Callable, to_dict: Callable, from_dict: Callable,
                 small_side: Callable, schedule: Callable, sections=None, bars=None,
                 error_answer: Callable | None = None):
        self.state, self.queue, self.yields, self.stats = state, queue, yields, stats
        self.learn_page = learn_page
        self.to_dict, self.from_dict = to_dict, from_dict
        self.small_side = small_side   # () -> the SmallSide of the crawl, or None
        self.schedule = schedule       # schedule(request): a held link released
        queue.on_hold = self.held_here
        queue.on_switch_target = lambda url: state.publish("switch_target", url)
        state.on_remote_record(self.remote_page)
        state.on_fact("focus_held", self.remote_held)
        state.on_fact("small_side_held", self.remote_small_side_held)
        state.on_fact("focus_sample", self.remote_sample)
        state.on_fact("switch_target", self.remote_switch_target)
        # the tests of section indexes and bar absence: a test slot is one worker's, a test
        # sent and an error answered count for every worker
        if sections is not None:
            sections.claim_test = lambda key: state.claim("section_test", key)
            sections.on_test = lambda url, page: state.publish("section_test", (url, page))
            state.on_fact("section_test", lambda value: sections.remote_test(*value))
        if bars is not None:
            bars.claim_test = lambda key: state.claim("bar_test", key)
            bars.on_test = lambda url, rule, other: state.publish("bar_test", (url, rule, other))
            state.on_fact("bar_test", lambda value: bars.remote_test(*value))
        if error_answer is not None:
            state.on_fact("error_answer", lambda value: error_answer(*value))
        # the families of links that lead nowhere: a test's answer counts for every worker
        queue.families.on_answer = lambda url, found, pages: state.publish(
            "family_answer", (url, found, pages))
        state.on_fact("family_answer", self.remote_family_answer)

    # ---- what this worker tells ---------------------------------------------------------

    def held_here(self, url: str, request, lang: str) -> None:
        """A link this worker holds: held by every worker."""
        data = self._dict(url, request)
        if data is not None:
            self.state.publish("focus_held", (lang, data, bool(request.dont_filter)))

    def small_side_held(self, url: str, request, lang: str, counterpart: str | None) -> None:
        """A big-side request the small side holds here (``sites/small_side.py``): held
        by every worker, so that a probe or its counterpart releases it wherever."""
        data = self._dict(url, request)
        if data is not None:
            self.state.publish("small_side_held", (lang, data, counterpart))

    def _dict(self, url: str, request) -> dict | None:
        if self.state.backing is None:
            return None
        try:
            return self.to_dict(request)
        except Exception as exc:   # (a meta value that does not serialise: kept here only)
            logger.debug("Focus: held link %s not shared: %s", url, exc)
            self.stats.inc_value("bitext/focus/shared/held_not_shared")
            return None

    def sample(self, url: str, lang: str, yielded: bool) -> None:
        """A sample counted here (``YieldLearning.sample``): counted by every worker."""
        self.state.publish("focus_sample", (url, lang, yielded))

    def error(self, url: str, status: int) -> None:
        """An error answer this worker got: answered for every worker."""
        self.state.publish("error_answer", (url, status))

    def claim_index(self, folder_url: str) -> bool:
        """May this worker request the directory index of ``folder_url`` (``dir/``) under
        either spelling? True for the first worker to ask."""
        return self.state.claim("index", folder_url)

    def claim_request(self, url: str) -> bool:
        """May this worker request ``url`` past the dupefilter (a released held link)?
        True for the first worker to ask."""
        return self.state.claim("request", url)

    # ---- what comes in ------------------------------------------------------------------

    def remote_page(self, record) -> None:
        """A page another worker stored: no longer to request here, and learned from."""
        queue = self.queue
        for url in (record.url, record.requested_url):
            if url:
                queue.downloaded.add(url)
                queue.requested.add(url)
                for held in queue.held.values():
                    held.pop(url, None)
                side = self.small_side()
                if side is not None:
                    side.forget(url)
        self.stats.inc_value("bitext/focus/shared/pages")
        self.learn_page(record)

    def remote_held(self, value) -> None:
        lang, data, filtered = value
        url = data.get("url")
        if not url or url in self.queue.downloaded:
            return
        try:
            request = self.from_dict(data)
        except Exception as exc:
            logger.debug("Focus: held link %s of another worker unreadable: %s", url, exc)
            return
        if url not in self.queue.held[lang]:
            self.queue.held[lang][url] = request
            self.stats.inc_value("bitext/focus/shared/held")
        if filtered:
            self.queue.filtered.add(url)
        if url in self.queue.switch_targets:   # (held by a worker that saw no switch to it)
            self.release_switch_target(url)

    def remote_small_side_held(self, value) -> None:
        lang, data, counterpart = value
        url, side = data.get("url"), self.small_side()
        if not url or side is None or url in self.queue.downloaded or url in side.held:
            return
        try:
            request = self.from_dict(data)
        except Exception as exc:
            logger.debug("Focus: held link %s of another worker unreadable: %s", url, exc)
            return
        side.hold(url, lang, request, counterpart)
        self.queue.filtered.add(url)
        self.stats.inc_value("bitext/focus/shared/small_side_held")

    def remote_switch_target(self, url: str) -> None:
        """A language switch another worker found: its target is a counterpart, held by
        no worker (the request that goes out for it may be an ordinary link's, queued by
        a worker that never saw the switch)."""
        self.queue.switch_targets.add(url)
        self.release_switch_target(url)

    def release_switch_target(self, url: str) -> None:
        """A held link that is a switch target goes out, as the switch's own request would
        (the first worker to send it claims it: ``claim_request``)."""
        for held in self.queue.held.values():
            request = held.pop(url, None)
            if request is not None and url not in self.queue.downloaded:
                mark(request.meta, released=True)
                self.schedule(request)
                self.stats.inc_value("bitext/focus/shared/released_switch_target")

    def remote_family_answer(self, value) -> None:
        """A test of a family of links answered by another worker (``focus/families.py``):
        counted here; a page found lets this worker's waiting links of the family go."""
        url, found, pages = value
        released = self.queue.families.remote_answered(url, found, pages)
        for request in released:
            self.schedule(request)
        if released:
            self.stats.inc_value("bitext/focus/family/released", len(released))

    def remote_sample(self, value) -> None:
        url, lang, yielded = value
        if self.yields.sample(url, lang, yielded):
            self.stats.inc_value(f"bitext/focus/yield/samples/{lang}")
