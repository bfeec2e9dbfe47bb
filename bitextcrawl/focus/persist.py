"""The focus's section of the crawl state (``context.state``, persisted at a clean stop):
written from its queue and policies, and read back by a resumed crawl. Pure (no Scrapy):
a held request is made again by the ``page_request`` the caller passes (the crawl
context's request factory)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bitextcrawl.focus.marks import carrying
from bitextcrawl.focus.queue import FocusQueue
from bitextcrawl.focus.shape import SiteShape
from bitextcrawl.focus.yields import YieldLearning

logger = logging.getLogger("bitextcrawl.middlewares.focus")


def focus_section(queue: FocusQueue, yields: YieldLearning, shape: SiteShape,
                  small_side_held: dict | None) -> dict:
    """The focus's section; ``small_side_held``: the small side's held requests
    (URL -> (request, ...)), None without a small side."""
    return {
        "yield": yields.to_state(),
        **shape.to_state(),
        "switch_targets": sorted(queue.switch_targets),
        # two copies of a promoted URL may both wait in the JOBDIR queue
        "promoted": [[url, url in queue.requested] for url in sorted(queue.promoted)],
        "held": [[lang, url, r.priority, r.meta.get("depth", 0)]
                 for lang, held in sorted(queue.held.items())
                 for url, r in sorted(held.items())],
        # the small side's held requests: judged again by the next run
        "small_side_held": [[url, r.priority, r.meta.get("depth", 0)]
                            for url, (r, _, _) in sorted(small_side_held.items())]
        if small_side_held is not None else []}


def kept_section(queue: FocusQueue, yields: YieldLearning, shape: SiteShape,
                 side_held: dict | None, sections_kept: dict) -> dict:
    """The focus's section with every request a rule keeps: the small side's held ones
    (``side_held``, None without a small side), a family's links left untested or
    unbelieved, and the links section indexes keep, each judged again on resume."""
    held = dict(side_held) if side_held is not None else {}
    held.update({url: (request, None, None) for waiting in queue.families.waiting.values()
                 for url, request in waiting.items()})
    held.update({url: (request, None, None)
                 for url, (request, _) in sections_kept.items() if request is not None})
    return focus_section(queue, yields, shape, held)


def load_focus_section(state: dict, queue: FocusQueue, yields: YieldLearning,
                       shape: SiteShape, page_request: Callable) -> list:
    """Read the section back into the queue and policies; the small side's held
    requests of the last run (to judge again)."""
    yields.load(state.get("yield", {}))
    # what the one-way and switch-absence judgements rest on, as the last run left it
    shape.load(state)
    queue.switch_targets.update(state.get("switch_targets", []))
    for url, requested in state.get("promoted", []):
        queue.promoted.add(url)
        if requested:
            queue.requested.add(url)
    for lang, url, priority, depth in state.get("held", []):
        request = page_request(url, priority=priority, depth=depth,
                               **carrying(chain=lang, judged=True)).replace(dont_filter=True)
        queue.held[lang][url] = request
    if state.get("held"):
        logger.info("Focus: %d held links back from the last run", len(state["held"]))
    return [page_request(url, priority=priority, depth=depth, **carrying(judged=True))
            .replace(dont_filter=True)
            for url, priority, depth in state.get("small_side_held", [])]
