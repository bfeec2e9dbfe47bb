"""What the crawl's parallel-link rounds know [Shi 2006 §3], pure (no Scrapy): the
stored pages in the wanted languages, the links the crawl did not follow (the
*frontier*, with the pages linking to each), the pairs known, aligned, proposed and
verified, the URLs requested for a proposal. The pipeline
(:class:`bitextcrawl.pipelines.parallel_links.ParallelLinkPipeline`) feeds it the stored
records and scheduled requests, asks it for a round's work (:meth:`LinkIndex.plan`), and
for the targets of a pair's aligned links (:meth:`LinkIndex.follow`); the alignments
themselves are :mod:`bitextcrawl.pairing.parallel_links`.

``stats`` is anything with ``inc_value`` (Scrapy's stats collector)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.switches import link_named_language
from bitextcrawl.pages.urls import UrlLanguageTokens, canonical, looks_like_trap
from bitextcrawl.pages.variants import link_lang

STAT = "bitext/parallel_links/"


def canon(url: str) -> str:
    try:
        return canonical(url)
    except ValueError:
        return url


class IndexedPage:
    """What the index keeps of a stored page: small, one per page."""

    __slots__ = ("lang", "hreflang", "depth")

    def __init__(self, lang: str, hreflang: dict, depth: int):
        self.lang, self.hreflang, self.depth = lang, hreflang, depth


def pair_task(pair, records) -> tuple:
    """A pair's pages as a pool worker's task (``round_pair``'s arguments)."""
    u1, u2 = pair
    r1, r2 = records.get(u1), records.get(u2)
    return (u1, r1.html if r1 else None, r1.text if r1 else "",
            u2, r2.html if r2 else None, r2.text if r2 else "")


class LinkIndex:
    def __init__(self, langs: tuple, in_scope: Callable[[str], bool], stats,
                 trap_repeats: int, trap_segments: int, tokens: UrlLanguageTokens):
        self.langs, self.in_scope, self.stats = langs, in_scope, stats
        self.trap_repeats, self.trap_segments = trap_repeats, trap_segments
        self.pages: dict[str, IndexedPage] = {}    # stored pages in the wanted languages
        self.stored: set[str] = set()              # every stored URL (any language)
        self.frontier: dict[str, set[str]] = {}    # unscheduled link -> pages linking to it
        self.scheduled: set[str] = set()           # URLs ever given to the scheduler
        self.aligned: set[tuple[str, str]] = set()
        self.verified: dict[tuple[str, str], bool] = {}
        self.proposed: Counter = Counter()         # (u1, u2) -> verified pairs proposing it
        self.tried: dict[str, str] = {}            # URL requested here -> expected language
        # URLs the server answered in this run (pages and errors; the crawl state's): one
        # answered and not stored is no page, and a link pair with it as one end no pair
        self.answered: set[str] = set()
        # (url) -> does the crawl's learning say the URL leads nowhere (its family of links
        # led only to errors or files, focus/families.py)? An end that does is no page
        # either: the other end has no counterpart there.
        self.leads_nowhere: Callable[[str], bool] = lambda url: False
        # What the links themselves say of their targets' language (hreflang, a switch
        # anchor), and URL tokens learned from the stored pages: a switch bar aligns
        # with a switch bar, and its links into unwanted languages are not proposals.
        self.link_lang: dict[str, str] = {}
        # URL tokens at the links' standard: the crawl state's (CrawlUrlTokens.links),
        # which the crawl's page records feed
        self.tokens = tokens
        self._pattern_cache: tuple[int, list] = (-1, [])

    # ---- state ------------------------------------------------------------------------

    def load(self, state: dict) -> None:
        """The section of the crawl state :meth:`to_state` wrote (a resumed crawl)."""
        if state:
            self.aligned = {tuple(p) for p in state.get("aligned", [])}
            self.verified = {tuple(p): ok for p, ok in state.get("verified", [])}
            self.proposed = Counter({(a, b): n for a, b, n in state.get("proposed", [])})
            self.tried = dict(state.get("tried", {}))
            self.scheduled.update(self.tried)

    def to_state(self) -> dict:
        return {
            "aligned": sorted(self.aligned),
            "verified": [[list(p), ok] for p, ok in sorted(self.verified.items())],
            "proposed": [[a, b, n] for (a, b), n in sorted(self.proposed.items())],
            "tried": self.tried,
        }

    # ---- the crawl's pages and requests -----------------------------------------------

    def scheduled_url(self, url: str) -> None:
        url = canon(url)
        self.scheduled.add(url)
        self.frontier.pop(url, None)

    def leads_elsewhere(self, url: str) -> bool:
        """The link's own evidence, or its URL's language tokens, name an unwanted language."""
        lang = self.link_lang.get(url)
        if lang is None:
            predicted = self.tokens.predict(url)
            lang = predicted.pop() if len(predicted) == 1 else None
        return lang is not None and lang not in self.langs

    def remember(self, record: PageRecord) -> None:
        self.stored.add(record.url)
        self.scheduled.add(record.url)
        if record.requested_url:
            self.scheduled.add(record.requested_url)
        self.frontier.pop(record.url, None)
        if record.lang not in self.langs:
            return
        self.pages[record.url] = IndexedPage(record.lang, dict(record.hreflang or {}),
                                             record.depth)
        in_scope = self.in_scope
        for link in record.links:
            url = link["url"]
            named = link_lang(link_named_language(link), self.langs)
            if named:
                self.link_lang.setdefault(url, named)
            if url in self.scheduled or url in self.stored or not in_scope(url):
                continue
            if looks_like_trap(url, self.trap_repeats, self.trap_segments) or \
                    self.leads_elsewhere(url):
                continue
            self.frontier.setdefault(url, set()).add(record.url)

    # ---- a round's work ---------------------------------------------------------------

    def known_pairs(self, learner_for: Callable | None) -> list[tuple[str, str]]:
        """Pairs known so far, url_1 in the first language: hreflang pairs of the stored
        pages (declared alternates, language toggles), verified link pairs, URL-pattern
        pairs (``learner_for(langs)``: a URL-pattern learner; None: none). Pairs that
        failed verification are left out."""
        out: dict[tuple[str, str], None] = {}
        first = self.langs[0]
        by_lang: dict[str, list[str]] = {}
        for url, page in self.pages.items():
            by_lang.setdefault(page.lang, []).append(url)
        cached = self._pattern_cache[0] == len(self.pages)
        pattern_pairs = self._pattern_cache[1] if cached else []
        for other in self.langs[1:]:
            urls1, urls2 = by_lang.get(first, []), by_lang.get(other, [])
            if not urls1 or not urls2:
                continue
            for u1 in urls1:  # declared alternates / language toggles, either way
                t = self.pages[u1].hreflang.get(other)
                if t in self.pages and self.pages[t].lang == other:
                    out[(u1, t)] = None
            for u2 in urls2:
                t = self.pages[u2].hreflang.get(first)
                if t in self.pages and self.pages[t].lang == first:
                    out[(t, u2)] = None
            if learner_for is not None and not cached:
                learner = learner_for((first, other))
                learner.fit({first: urls1, other: urls2})
                pattern_pairs.extend((p.url_1, p.url_2) for p in learner.pairs())
        self._pattern_cache = (len(self.pages), pattern_pairs)
        for pair, ok in self.verified.items():
            if ok:
                out[pair] = None
        for pair in pattern_pairs:
            out[pair] = None
        return [p for p in out if self.verified.get(p, True)]

    def plan(self, known: list, per_round: int) -> tuple[list, list]:
        """The pairs to align and the proposals to verify in a round (at most
        ``per_round`` each)."""
        first = self.langs[0]
        linking = set()
        for pages in self.frontier.values():
            linking.update(pages)
        # Pairs worth aligning: not aligned yet, and linking somewhere the crawl did not go.
        todo = [p for p in known if p not in self.aligned
                and (p[0] in linking or p[1] in linking)][:per_round]
        # Proposals whose two pages are now stored, in the right languages, wait for step 2
        # — if verifying them can lead anywhere: one of the pages links to the frontier.
        pending = [p for p in self.proposed if p not in self.verified
                   and p[0] in self.pages and p[1] in self.pages
                   and (p[0] in linking or p[1] in linking)
                   and self.pages[p[0]].lang == first and self.pages[p[1]].lang != first]
        return todo, pending[:per_round]

    def counted(self, result, pair, verify: bool):
        """A :func:`round_pair` result counted: None when the pair could not be aligned
        or failed verification (step 2), else the result."""
        if result == "align":
            self.stats.inc_value(STAT + "align_failed")
        if isinstance(result, str):
            return None
        if verify:
            self.verified[pair] = result[0]
            self.stats.inc_value(STAT + ("verified" if result[0] else "rejected"))
            if not result[0]:
                return None
        return result

    def follow(self, proposals, u1: str, u2: str) -> list[tuple[str, str, int]]:
        """Propose the aligned links of the pair (u1, u2) (``link_proposals``) as pairs;
        their targets not stored, tried or scheduled yet, to request: (URL, expected
        language, depth)."""
        out = []
        l1, l2 = self.pages[u1].lang, self.pages[u2].lang
        depth = max(self.pages[u1].depth, self.pages[u2].depth) + 1
        for h1, h2 in proposals:
            p1, p2 = self.pages.get(h1), self.pages.get(h2)
            if (h1 in self.stored and (p1 is None or p1.lang != l1)) or \
                    (h2 in self.stored and (p2 is None or p2.lang != l2)):
                continue  # a stored page in another language: not this pair
            if any((h in self.answered and h not in self.stored) or self.leads_nowhere(h)
                   for h in (h1, h2)):
                # one end is no page (404, or a family of such): the other has no
                # counterpart there
                self.stats.inc_value(STAT + "end_missing")
                continue
            if self.leads_elsewhere(h1) or self.leads_elsewhere(h2):
                self.stats.inc_value(STAT + "other_language")
                continue  # e.g. two switch bars' links into German
            if (h1, h2) not in self.proposed:
                self.stats.inc_value(STAT + "proposed")
            self.proposed[(h1, h2)] += 1
            for url, lang in ((h1, l1), (h2, l2)):
                if url in self.stored or url in self.tried or url in self.scheduled:
                    continue
                if not self.in_scope(url) or looks_like_trap(url, self.trap_repeats,
                                                              self.trap_segments):
                    continue
                self.tried[url] = lang
                out.append((url, lang, depth))
        return out
