"""The protocol of a focus rule, pure (no Scrapy).

A rule is a class with a hook for each moment of the crawl it judges; the focus's two
middlewares call the hooks of the active rules in the order of ``BITEXT_FOCUS_RULES``
(``defaults.py``; loaded by ``middlewares/focus_rules.py``):

- ``link(case)``: a link found on a page (:class:`LinkCase`). ``CONTINUE`` hands it to
  the next rule; ``FOLLOW`` settles it (the later rules' ``link`` hooks are skipped);
  ``DROP`` drops it (or keeps it aside: a held link).
- ``followed(request, case)``: a request on its way to the scheduler: a link followed
  (``case``), or a request handed to the frontier that no rule has judged yet (``case``
  None: a counterpart guessed from a stored page, a parallel link, a new site's start
  page). The request to schedule (the same, or a copy). Each request is judged once
  (``Marks.judged``): a request a rule kept and released goes as it is.
- ``request(request, focus)``: a request about to be downloaded (``focus``: the crawl
  state's ``FocusState``). None lets it go on to the next rule; a :class:`Discard`, a
  :class:`Refuse` or a :class:`Rewrite` decides it.
- ``page(page, request)``: a page stored (``request``: the one that fetched it; None for
  a page another worker of a distributed crawl stored). ``error(url, status, request)``:
  an error answer, the same. Both are called in the reverse order of the rules, as
  Scrapy calls ``process_response``: what a rule later in the order learned of a page
  (an index's listing) is known to the rules before it when they see the page.
- ``answered(url, found)``: the server answered ``url`` with a page (``found``) or not,
  as the answer comes in; the requests to schedule.
- ``idle()``: the crawl running dry: the requests the rule releases, to schedule (each
  rule's before the next rule's is asked), in the reverse order too: the rules that keep
  requests for a test (bars, section indexes, families) give way first, and the
  languages held are released last, once the others have released what they kept.

A hook is called only for the rules that define it.

A rule reads and writes the crawl's facts through :class:`FocusParts` (the queue, the
link evidence, the site's shape); facts it publishes for the later rules of one link
are on the :class:`LinkCase`. A rule's thresholds are settings (``thresholds``: a
keyword of its ``__init__`` for each ``BITEXT_FOCUS_*`` setting), read once when the
crawl starts and passed to ``__init__``, which turns on the policy the rule judges by
with them: a rule switched off leaves its policy off.

A request here is anything with ``url``, ``priority``, ``meta``, ``dont_filter`` and
``replace()`` (a Scrapy request); ``stats`` anything with ``inc_value``/``set_value``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Holding, Priorities
from bitextcrawl.focus.queue import FocusQueue
from bitextcrawl.focus.shape import SiteShape

# link verdicts
CONTINUE, FOLLOW, DROP = "continue", "follow", "drop"


@dataclass(frozen=True)
class Discard:
    """Not downloaded, for good: counted in ``bitext/focus/<stat>``; the frontier journal
    counts it done unless ``counted_done`` (another copy was counted already)."""
    stat: str
    reason: str
    counted_done: bool = False


@dataclass(frozen=True)
class Refuse:
    """Not downloaded now: the rule keeps a copy of it (held, waiting or kept)."""
    reason: str


@dataclass(frozen=True)
class Rewrite:
    """Downloaded under another URL: ``request`` is scheduled instead (counted in the stat
    ``stat``; the frontier journal counts the original done)."""
    request: Any
    stat: str


RequestVerdict = Discard | Refuse | Rewrite | None


@dataclass
class LinkCase:
    """A link found on a page, as the rules see it. ``lang``/``evidence``: the language
    the link leads to and the evidence for it (``focus/evidence.py``); ``assumed_lang``/
    ``assumed_evidence``: the same, where a link of unknown language from a wanted
    language's page is taken to lead to its page's language."""
    request: Any
    response_meta: dict
    response_url: str | None
    page: Any                  # the linking page's record, or None (not stored)
    lang: str | None
    evidence: str
    langs: tuple
    assumed_lang: str | None = None
    assumed_evidence: str = ""
    # facts the rules publish for the later rules of this link
    no_bonus: bool = False     # a rule withheld the language bonus
    bonus: bool = False        # the language bonus was given
    deferred: bool = False     # it waits for its counterpart to say whether it exists

    def __post_init__(self):
        self.assumed_lang, self.assumed_evidence = self.lang, self.evidence
        if self.lang is None and self.ordinary:
            self.assumed_lang, self.assumed_evidence = self.page.lang, "same_page"

    @property
    def from_start(self) -> bool:
        """Found on the start page, or on no stored page."""
        return self.page is None or self.response_meta.get("bitext_discovered_by") == "start"

    @property
    def from_wanted_page(self) -> bool:
        """Found on a stored page of a wanted language (not the start page)."""
        return not self.from_start and self.page.lang in self.langs

    @property
    def switch(self) -> bool:
        """A language switch into another wanted language (not by its URL alone)."""
        return (self.from_wanted_page and self.lang in self.langs
                and self.lang != self.page.lang and self.evidence != "url_token")

    @property
    def ordinary(self) -> bool:
        """A link of a wanted language's page that is no switch."""
        return self.from_wanted_page and not self.switch

    @property
    def chain(self) -> str | None:
        """The language an ordinary link is a sample of (yield learning): the one it
        leads to, or its page's where that is no wanted one."""
        if not self.ordinary:
            return None
        return self.lang if self.lang in self.langs else self.page.lang


@dataclass
class FocusParts:
    """What the rules read and change: the focus's settings, its queue and policies
    (``focus/``), the crawl's stats; the callables are the crawl's, read when called."""
    config: Priorities
    queue: FocusQueue
    evidence: LinkEvidence
    shape: SiteShape
    holding: Holding
    stats: Any
    langs: Callable[[], tuple]
    start_url: Callable[[], str] = lambda: ""
    small_lang: Callable[[], str | None] = lambda: None
    scarcest_for: Callable[[Any], str | None] = lambda page: None
    schedule: Callable[[Any], None] = lambda request: None
    # the URL a page's content was first seen under, where another (crawl_state.py);
    # the URL tokens at the site's standard (pages/site.py); is a URL in the crawl's
    # scope (None: no crawl context); the language a list item's words are in (bars)
    original_url: Callable[[Any], str | None] = lambda page: None
    site_tokens: Callable[[], Any] = lambda: None
    in_scope: Callable[[str], bool] | None = None
    words_lang: Callable[[str], str | None] | None = None
    extra: dict = field(default_factory=dict)
    # the policies a rule turns on (None where its rule is off): bar absence
    # (focus/bars.py), section indexes (focus/sections.py); the walk of the small side
    # (focus/walk.py), which its rule turns on
    bars: Any = None
    sections: Any = None
    walk: Any = None


class FocusRule:
    """A rule of the focus: every hook does nothing until a rule defines it."""

    # the setting that switches the rule off (False: it is left out of the active rules)
    switch: str | None = None
    # keyword of __init__ -> the setting it is read from (BITEXT_FOCUS_*)
    thresholds: dict[str, str] = {}

    def __init__(self, parts: FocusParts):
        self.parts = parts

    def link(self, case: LinkCase) -> str:
        return CONTINUE

    def followed(self, request, case: LinkCase | None):
        return request

    def request(self, request, focus) -> RequestVerdict:
        return None

    def page(self, page, request) -> None:
        return None

    def error(self, url: str, status: int, request) -> None:
        return None

    def answered(self, url: str, found: bool) -> list:
        return []

    def idle(self) -> list:
        return []


def defining(rules: list, hook: str) -> list:
    """The rules of ``rules`` that define ``hook``, in their order."""
    return [r for r in rules if getattr(type(r), hook) is not getattr(FocusRule, hook)]
