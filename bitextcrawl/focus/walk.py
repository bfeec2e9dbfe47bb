"""The focus's walk of the small side: the crawl's side of :mod:`bitextcrawl.sites.small_side`
(walk the small side, guess the big side). Pure (no Scrapy): requests are scheduled and
made by the callables the focus middleware passes (the frontier's ``schedule``, the crawl
context's ``page_request``).

What it does with the pages and answers the crawl gets:

* a page of a wanted language: the held requests it is the counterpart of are released,
  its links size the sides, and where no link names a wanted language yet its URL with
  the language code swapped is requested as a language probe (:meth:`page`);
* an error answer: the sizing waits for nothing that will not come (:meth:`error`);
* the crawl runs dry: the requests held when the last run stopped are judged again, and
  probes of the big side go out while they reveal small-side URLs (:meth:`idle`); in a
  crawl of three languages or more, a language no page of which came in is probed
  (:class:`~bitextcrawl.sites.small_side.LanguageProbes`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bitextcrawl.focus.marks import carrying, mark, marks
from bitextcrawl.sites.small_side import SMALL_SHARE, LanguageProbes, SmallSide

logger = logging.getLogger("bitextcrawl.middlewares.focus")


class SmallSideWalk:
    def __init__(self, enabled: bool, langs: Callable[[], tuple], one_site: Callable[[], bool],
                 evidence, downloaded: set, stats, schedule: Callable,
                 page_request: Callable, probe_priority: int):
        self.enabled = enabled
        self._langs, self._one_site = langs, one_site
        self.evidence, self.downloaded, self.stats = evidence, downloaded, stats
        self._schedule, self._page_request = schedule, page_request
        self.probe_priority = probe_priority
        self.small_share = SMALL_SHARE   # (BITEXT_FOCUS_SMALL_SIDE_SHARE: focus/rules/small_side.py)
        self._side: SmallSide | None = None
        self._probes: LanguageProbes | None = None
        # unlisted(url): does the index of url's section leave it out? (such a link, not
        # fetched, sizes no side: SmallSide.unlisted)
        self.unlisted: Callable[[str], bool] = lambda url: False
        self.resumed: list = []        # its held requests when the last run stopped

    @property
    def side(self) -> SmallSide | None:
        """The small side, made once the crawl's languages are known: two languages of
        one site (the expand spider crawls many sites at once)."""
        if self._side is None and self.enabled and len(self._langs()) == 2 and self._one_site():
            self._side = SmallSide(self._langs(), self.evidence.swap, self.evidence.url_lang,
                                   small_share=self.small_share)
            self._side.unlisted = self.unlisted
        return self._side

    @property
    def probes(self) -> LanguageProbes | None:
        """The language probes of a crawl of three languages or more of one site."""
        if self._probes is None and self.enabled and len(self._langs()) > 2 \
                and self._one_site():
            self._probes = LanguageProbes(self._langs(), self.evidence.swap)
        return self._probes

    def small_lang(self) -> str | None:
        """The small side's language, if the site has one."""
        side = self.side
        return side.small() if side is not None else None

    def release(self, requests, stat: str, rejudge: bool = False) -> int:
        """Schedule requests the small side released; ``rejudge``: judged again at
        download (released while the sides were unknown, they may be known by then)."""
        for request in requests:
            if request.url not in self.downloaded:
                if not rejudge:
                    mark(request.meta, released=True)
                self._schedule(request)
        if requests:
            self.stats.inc_value(f"bitext/focus/small_side/{stat}", len(requests))
        return len(requests)

    def relearn(self) -> None:
        """The URL tokens changed: held requests whose counterpart is now known go."""
        side = self.side
        if side is not None:
            self.release(side.relearn(), "released_by_counterpart")

    def recount(self) -> None:
        """A section's index came in: the sides sized again without the links it leaves
        out."""
        if self._side is not None:
            self._side.recount()

    def page(self, item, in_scope: Callable[[str], bool], probe_request=None) -> None:
        """A stored page; ``probe_request``: the request of the language probe it
        answered, if it did."""
        side = self.side
        if side is None:
            if self.probes is not None:
                self.probes.page(item.url, item.lang)
            return
        links: list = []
        if item.lang in self._langs():
            # the held requests this page is the counterpart of can pair; its links size
            # the sides
            released = side.found(item.url, item.lang)
            if item.requested_url and item.requested_url != item.url:
                released += side.found(item.requested_url, item.lang)
            links = [link["url"] for link in item.links if in_scope(link["url"])]
            side.links(item.url, item.lang, links)
            self.release(released, "released_by_counterpart")
            self._lang_probes(side, item)
        if probe_request is not None:
            self._probe_answered(probe_request, links)

    def _lang_probes(self, side: SmallSide, item) -> None:
        """Request the page's counterparts in the wanted languages no link has named
        (sites/small_side.py: finding the other side), ahead of everything else."""
        probes = side.lang_probes_for(item.url, item.lang, {link["url"] for link in item.links})
        for url, lang in probes:
            self.stats.inc_value("bitext/focus/small_side/lang_probes")
            logger.info("Focus: no link names %s pages yet: %s requested as a language probe",
                        lang, url)
            self._schedule(self._page_request(url, priority=self.probe_priority,
                                              **carrying(lang_probe=lang, released=True,
                                                         judged=True)))

    def _probe_answered(self, request, links=()) -> None:
        """A language probe came back (a page linking ``links``, or an error): once
        the sides are sized, the requests held meanwhile are judged again."""
        side = self.side
        if side is None or request is None:
            return
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        self.release(side.answered(url, links), "released_after_lang_probe", rejudge=True)

    def error(self, request) -> None:
        """An error answer (status >= 400) to ``request``."""
        side = self.side
        if side is None:
            return
        self.release(side.gone((request.meta.get("redirect_urls") or [request.url])[0]),
                     "released_after_lang_probe", rejudge=True)
        if marks(request.meta).lang_probe:
            # the language is not where the URL tokens said: the sizing ends here
            self.stats.inc_value("bitext/focus/small_side/lang_probes_failed")
            self._probe_answered(request)

    def idle(self) -> list:
        """The crawl ran dry: the requests to send again (the held requests of the last
        run, judged again at download; a probe of the big side, past the holding)."""
        out: list = []
        if self.resumed:
            out, self.resumed = self.resumed, []
        side = self.side
        if side is None:
            probes = self.probes
            for url, lang in probes.idle(self.downloaded) if probes is not None else ():
                self.stats.inc_value("bitext/focus/lang_probes")
                logger.info("Focus: no page of %s came in: %s requested as a language probe",
                            lang, url)
                out.append(self._page_request(url, priority=self.probe_priority,
                                              **carrying(lang_probe=lang, released=True)))
            return out
        probe = side.probe()
        for request in probe:
            if request.url not in self.downloaded:
                mark(request.meta, released=True)
                out.append(request)
        if probe:
            self.stats.inc_value("bitext/focus/small_side/probed", len(probe))
            logger.info("Focus: %d of the big side's pages whose counterpart no page "
                        "links fetched as a probe; %d held", len(probe), len(side.held))
        elif side.done and side.held and not self.stats.get_value("bitext/focus/small_side/left"):
            self.stats.set_value("bitext/focus/small_side/left", len(side.held))
            logger.info("Focus: %d pages of the big side not fetched: no page links "
                        "their counterpart, and the last probe revealed no new one",
                        len(side.held))
        return out


def held_by_lang(queue, side: SmallSide | None) -> dict[str, list[str]]:
    """The held links, by language (the ``held_links`` signal's answer). A big-side link
    the small side holds counts where the yield holds its language too: which of the two
    rules judged a link first is the order the requests came in (with several workers,
    which worker took it), not evidence."""
    held = queue.held_links()
    if side is not None:
        for url, (_, lang, _) in sorted(side.held.items()):
            if lang in queue.holding and url not in held.get(lang, ()):
                held.setdefault(lang, []).append(url)
    return held
