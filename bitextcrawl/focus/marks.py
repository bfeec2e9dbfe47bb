"""What a request carries for the focus, pure (no Scrapy): one typed field of its meta,
``bitext_focus`` (:class:`Marks`). The marks travel with the request, not in the crawl
state, because the request travels: through the scheduler's queue (shared by the workers
of a distributed crawl), a resumed crawl's journal, a held link published to the other
workers. They are frozen: a copy of a request (``replace``, ``dict(meta)``) shares them,
and a change (:func:`mark`, :func:`marked`) makes new ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

KEY = "bitext_focus"


@dataclass(frozen=True)
class Marks:
    # an ordinary link of a wanted language's page (focus/links.py): the language it is a
    # sample of (yield learning), the page's language where it leads there, whether its
    # language is unknown (taken to be its page's); the page that linked it (section
    # indexes); a link into a page that most likely has no counterpart
    # (rules/untranslated.py)
    chain: str | None = None
    same_lang: str | None = None
    same_page: bool = False
    linked_from: str | None = None
    untranslated: bool = False
    # the copy of a promoted URL, which jumps the queue (rules/promote.py)
    promoted: bool = False
    # released by a rule that held it: not held again (focus/holding.py); held for the
    # one-way judgement alone, and that copy released: judged again by the other rules
    released: bool = False
    one_way_wait: bool = False
    one_way_waited: bool = False
    # let go by its family's test (rules/family_tests.py)
    family_admitted: bool = False
    # a language probe of the small side (focus/walk.py): the language it looks for
    lang_probe: str | None = None
    # judged by the rules on its way to the scheduler (focus/links.py): a copy handed to
    # the frontier again (released, a rewrite undone) is not judged twice
    judged: bool = False


NONE = Marks()


def marks(meta) -> Marks:
    """The marks of a request's (or response's) ``meta``."""
    return meta.get(KEY) or NONE


def mark(meta: dict, **changes) -> None:
    """Change the marks of ``meta`` in place."""
    meta[KEY] = replace(marks(meta), **changes)


def marked(meta: dict, **changes) -> dict:
    """A copy of ``meta`` with its marks changed."""
    return {**meta, KEY: replace(marks(meta), **changes)}


def carrying(**values) -> dict:
    """The meta of a new request with these marks (``page_request(url, **carrying(...))``)."""
    return {KEY: Marks(**values)}
