"""Signals of bitextcrawl's own, sent between its components during a crawl.

Scrapy lets any object be a signal (``crawler.signals.send_catch_log(signal=...)``);
these are the ones the components here send to each other, so that none of them
needs a reference to another.
"""

from __future__ import annotations

from typing import NamedTuple

from pydispatch.robustapply import robustApply

from bitextcrawl.pages.urls import site_of

#: Pages found to have a counterpart (URL pattern pair whose two pages are stored):
#: sent by the URL-pairing pipeline with ``urls`` (an iterable of page URLs); the focus
#: middleware counts them as pages that yielded (link yield learning).
pages_paired = object()

#: Sent by the URL-pairing pipeline when it looks for counterparts to guess; the focus
#: middleware answers with the links it holds back, ``{language: [URL, ...]}`` (the
#: language of the page that linked them): deep page recovery guesses their counterparts
#: first, and has a held page requested once its counterpart is found.
held_links = object()

#: Sent by the redirect-rewrite middleware with ``source`` and ``target`` when it requests
#: ``target`` instead of ``source`` (a redirect the site has been answering): the page
#: store records it like a redirect the site answered.
url_rewritten = object()

#: Sent by the held-links downloader middleware with ``request`` when it drops a queued
#: request for good (the other copy of a promoted URL went out, its URL leads to an
#: unwanted language, the site marks it untranslated): the frontier journal counts it
#: done, so that a crash does not have it downloaded after all.
request_discarded = object()

#: Sent by the closing pipeline just before it reads the page store at spider close (no page
#: is stored after it): the page store pipeline starts exporting ``pages.jsonl`` in a record
#: worker then, so that the export runs beside pairing instead of after it (a pipeline's
#: ``close_spider`` runs after those of the pipelines with larger priority numbers).
closing_started = object()


class SiteMark(NamedTuple):
    """What a request of an expand crawl carries (``request.meta["bitext_expand"]``): the
    site it was made for, and its part in that site's check (``spiders/expand.py``):
    ``"root"`` (a start URL), ``"link"`` (a link of the root requested for the check),
    ``"held"`` (a link held back until the check ends), or ``""``."""
    site: str
    check: str = ""


SITE_MARK = "bitext_expand"


def site_mark(meta) -> SiteMark | None:
    """The expand crawl's mark of a request's (or response's) ``meta``, if any."""
    return meta.get(SITE_MARK)


def event_site(kwargs: dict) -> str | None:
    """The site a signal's event is about: the site a request was made for (an expand
    crawl's :class:`SiteMark`), else the site of its URL, of a response's or of a
    rewritten link's source; None for an event of no one site (``pages_paired``)."""
    request = kwargs.get("request")
    if request is not None:
        mark = site_mark(request.meta)
        return mark.site if mark is not None else site_of(request.url)
    response = kwargs.get("response")
    if response is not None:
        return site_of(response.url)
    source = kwargs.get("source")
    return site_of(source) if isinstance(source, str) else None


class SiteSignals:
    """One site's view of the crawler's one signal bus, for a crawl of many sites (the
    expand spider): what a site's components connect hears the events of their site only
    (:func:`event_site`; events of no one site reach every site), and what they send goes
    out on the crawler's bus. (A site's idle-time work is not a signal's: its tasks are
    the frontier's, run by the expand spider when its phases want them.)
    :meth:`close` disconnects everything the site connected."""

    def __init__(self, bus, site: str):
        self.bus = bus
        self.site = site
        self._routed: list[tuple[object, object]] = []   # (handler, signal) on the bus

    def connect(self, receiver, signal, **kwargs) -> None:
        def routed(**named):
            site = event_site(named)
            if site is not None and site != self.site:
                return None
            return robustApply(receiver, **named)

        self.bus.connect(routed, signal=signal, weak=False, **kwargs)
        self._routed.append((routed, signal))

    def send_catch_log(self, signal, **kwargs) -> list:
        return self.bus.send_catch_log(signal, **kwargs)

    def close(self) -> None:
        """Disconnect every handler of this site from the bus."""
        for handler, signal in self._routed:
            self.bus.disconnect(handler, signal=signal, weak=False)
        self._routed = []
