"""What the rules that keep a request share (``section_indexes.py``, ``bar_absence.py``):
a judge's verdict on a copy of the request."""

from __future__ import annotations


def kept(parts, focus, request, stats: tuple[str, str], judge) -> bool:
    """``judge(copy of request)``: "test" (it goes, counted in ``stats[0]``), "keep"
    (the copy is kept by the rule, this request not fetched, ``stats[1]``) or anything
    else (it goes)."""
    verdict = judge(request.replace(dont_filter=True, meta=dict(request.meta)))
    if verdict == "test":
        parts.stats.inc_value(stats[0])
        return False
    if verdict != "keep":
        return False
    focus.queue.filtered.add(request.url)
    parts.stats.inc_value(stats[1])
    return True
