"""The rule that ends a crawl's idle phase, pure (no Scrapy).

When a crawl runs dry, its frontier (:mod:`bitextcrawl.extensions.frontier`) runs the
crawl's idle tasks in *passes*; a task that says the crawl goes on (it requested pages, or
has work left) gets another pass. What a task says is not taken as progress. At the start
of each full pass the frontier hands :meth:`IdlePasses.start` the crawl's *progress*: a
tuple of counts that only grow, in the crawl's own terms (responses received, URLs
answered, pages learned, pairs aligned, proposals decided). When none grew since the
previous pass started, the tasks that said "more" in that pass made none: they are
*stopped* (:meth:`IdlePasses.runs` is False for them) until the progress grows again. A
pass in which no task runs or says "more" ends the idle phase, and the crawl's closing
step runs.

So the idle phase ends whatever the tasks say: each pass either grows the progress, which
is bounded (the site has so many pages, the pages so many pairs), or stops one task more,
and there are so many tasks. A request the dupefilter drops or a rule holds brings no
response, so a task whose requests all end that way is stopped at the next pass.

A task whose own work is bounded and which drives other tasks (the expand spider's rounds,
each site with a rule of its own) is registered as not stoppable: the rule leaves it be.
"""

from __future__ import annotations


class IdlePasses:
    """The passes of one crawl's idle tasks, and the tasks the rule has stopped."""

    def __init__(self) -> None:
        self.progress: tuple | None = None   # at the start of the last full pass
        self.claimed: set[str] = set()       # tasks that said "more" in the last pass
        self.stopped: set[str] = set()       # tasks not run until the progress grows
        self.passes = 0
        self.still = 0                       # passes in a row that started without progress
        self._told = False                   # the end by the rule was reported

    def start(self, progress: tuple) -> list[str]:
        """A full pass starts with the crawl at ``progress``; returns the tasks stopped
        now (those that said "more" in the last pass, which changed nothing)."""
        self.passes += 1
        if progress == self.progress:
            self.still += 1
            new = sorted(self.claimed - self.stopped)
            self.stopped.update(new)
        else:
            self.still = 0
            new = []
            self.stopped.clear()
            self._told = False
        self.progress = progress
        self.claimed = set()
        return new

    def runs(self, name: str) -> bool:
        """Does task ``name`` run in this pass?"""
        return name not in self.stopped

    def claim(self, name: str) -> None:
        """Task ``name`` said the crawl goes on (pages requested, or work left)."""
        self.claimed.add(name)

    def ended_by_rule(self) -> bool:
        """The pass said nothing more and tasks were stopped: the rule ended the phase.
        True once until the progress grows again (the end is reported once)."""
        if self._told or not self.stopped or self.claimed:
            return False
        self._told = True
        return True
