"""Bar absence: a page's bar of declared alternates lists the translations that exist.

Many documentation sites start each page with a bar of ``hreflang`` links to the
languages the page is translated into, and list no other (an "Available languages"
bar). A page of language A whose bar names other languages but not B then says its
B counterpart does not exist — yet the site may still link the B URL (a translation's
index linking every page, untranslated ones served as a fallback copy of A's page
or answered with an error). Switch absence (``shape.py``) needs B's name shown
unlinked; here the silence of a bar is the evidence, and silence is weaker, so the
rule is learned from the crawl's own answers:

* a URL of B *looks absent* (rule BAR) when its counterpart in another wanted
  language A (URL tokens swapped) is fetched with a bar of declared alternates that
  names other languages but not B, and some fetched page of A does name B in its bar
  (the site's bars do list B where B exists);
* a URL of A *looks unpaired* (rule DEAD) when its counterpart URL in B was answered
  by a page of another language, or a copy of a page first seen under a URL of
  another language (a fallback copy of A's page: A's page has no B counterpart); an
  error does not count (where the swapped URL is missing, the pair may sit at another
  URL), nor does a copy of a page of B's own URLs (a site serving one translation
  under two names says nothing about the second name's counterpart);
* a URL of A *looks untranslated* (rule MISSING) when its counterpart URL in B was
  answered 404 or 410 — a translation's index linking pages never translated; kept
  apart from DEAD because a site's pair may sit at another URL than the swapped one,
  which this rule's tests learn (a page of A that leads into B refutes it);
* a URL of B *looks unlisted* (rule LISTED) when a fetched page of B lists it as an
  item whose words are in another wanted language A, while the same page lists at least
  :data:`LISTED_PER_LANGUAGE` of B's URLs in B's words and :data:`LISTED_PER_LANGUAGE` in A's: an index
  made for B (a manual's module index) describes a page in B where the page is
  translated and in A's words where B's URL serves A's page (a fallback copy); an index
  written in one language throughout says nothing. A page that declares the URL an
  alternate, or links it as a switch, takes it out of the rule. Its counterpart in A
  looks unpaired by the same rule (a test of it refutes where it leads into B);
* while a rule is learned, up to ``min_confirmed`` of its URLs are fetched as tests,
  the others kept; a BAR test *confirms* when its answer is no page of B of its own,
  and *refutes* when it is one (so does a LISTED test); a DEAD or MISSING test refutes
  when its answer is a page of A that leads into B (a declared alternate or a link
  naming B), and confirms otherwise;
* once ``min_confirmed`` tests of a rule confirmed and none refuted, its URLs are not
  fetched (kept, not lost); the first refutation (a test, or a page fetched by any
  other way) switches the rule off for the site and releases every URL it kept; the
  crawl running dry while a rule is unlearned releases them too.

Pure: no Scrapy import. ``middlewares/held_links.py`` asks :meth:`BarAbsence.judge`
before a request goes out (``focus/rules/bar_absence.py``), whose page and error hooks
feed :class:`BarWatch`. The
workers of a distributed crawl share a rule's ``min_confirmed`` tests (``claim_test``,
``remote_test``: ``focus/sharing.py``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from bitextcrawl.pages.language import LanguageIdentifier

# Tests that must confirm (and none refute) before a looks-absent URL is not fetched.
MIN_CONFIRMED = 3
# Items of a page's list in its own language's words, and in another wanted language's,
# that make it a listing whose words follow the translations (rule LISTED): one of each
# could be one item lid.176 misread
LISTED_PER_LANGUAGE = 2

Swap = Callable[[str, str, str], "str | None"]   # (url, lang, other) -> counterpart URL

FETCH, TEST, KEEP = "fetch", "test", "keep"
BAR, DEAD, MISSING, LISTED = "bar", "dead", "missing", "listed"


logger = logging.getLogger("bitextcrawl.middlewares.focus")

class TestSlots:
    """The test slots of a learned rule: ``n`` per key (a rule, a linking page) and per
    dry round, each granted once in the crawl by ``claim(slot)`` (always, in a crawl of one
    worker; by the crawl state's claims where several workers share it). A crawl that runs
    dry starts a new round: the slots of tests that never came back are free again."""

    __test__ = False   # (no test class, for pytest)

    def __init__(self, n: int, claim: Callable[[str], bool]):
        self.n, self.claim = n, claim
        self._round = 0
        self._spent: set[str] = set()

    def take(self, key: str = "") -> bool:
        """Is a slot of ``key`` free (and now taken by this worker)?"""
        if key in self._spent:
            return False
        if any(self.claim(f"{key}|{self._round}|{k}") for k in range(self.n)):
            return True
        self._spent.add(key)
        return False

    def new_round(self) -> None:
        self._round += 1
        self._spent.clear()


class _Learned:
    """One rule's learning from its tests (see the module docstring)."""

    def __init__(self, min_confirmed: int, claim_test: Callable[[str], bool] | None = None,
                 on_test: Callable[[str], None] | None = None):
        self.min_confirmed = min_confirmed
        self.confirmed = 0
        self.refuted = False
        self.testing: set[str] = set()        # tests out
        self.kept: dict[str, object] = {}     # URL -> request not fetched (yet)
        # claim_test(slot): one of the rule's test slots, granted to one worker of the crawl
        self.slots = TestSlots(min_confirmed, claim_test or (lambda slot: True))
        self.on_test = on_test   # on_test(url): a test sent (told to the other workers)

    def believed(self) -> bool:
        return not self.refuted and self.confirmed >= self.min_confirmed

    def _test(self, url: str) -> None:
        self.testing.add(url)
        if self.on_test is not None:
            self.on_test(url)

    def judge(self, url: str, request) -> str:
        if self.confirmed + len(self.testing) < self.min_confirmed and self.slots.take():
            self._test(url)
            return TEST
        self.kept[url] = request
        return KEEP

    def answered(self, url: str, refutes: bool) -> list:
        self.testing.discard(url)
        if refutes:
            self.refuted = True
            released, self.kept = list(self.kept.values()), {}
            return [r for r in released if r is not None]
        self.confirmed += 1
        if self.confirmed >= self.min_confirmed:
            return []
        # still learning: the next kept ones go out as tests
        free = self.min_confirmed - self.confirmed - len(self.testing)
        released = []
        for kept_url in sorted(self.kept)[:max(0, free)]:
            if not self.slots.take():
                break
            request = self.kept.pop(kept_url)
            self._test(kept_url)
            if request is not None:
                released.append(request)
        return released

    def stalled(self) -> list:
        if self.believed() or not self.kept:
            return []
        released, self.kept = list(self.kept.values()), {}
        self.testing.clear()
        self.slots.new_round()
        return [r for r in released if r is not None]


class BarAbsence:
    """``langs()``: the crawl's wanted languages (known once the crawl starts)."""

    def __init__(self, langs: Callable[[], tuple], enabled: bool = True,
                 min_confirmed: int = MIN_CONFIRMED):
        self._langs = langs
        self.enabled = enabled
        # URL -> (page language, languages its bar of declared alternates names)
        self.bars: dict[str, tuple[str, frozenset]] = {}
        self.naming: Counter = Counter()      # (A, B) -> fetched pages of A whose bar names B
        # URLs naming a wanted language answered by no page of it of their own
        self.dead: set[str] = set()
        self.missing: set[str] = set()        # ... answered 404 or 410
        # URL -> the other wanted language a listing of its own language describes it in
        self.listed: dict[str, str] = {}
        # Where several workers crawl one site (focus/sharing.py): claim_test(key) grants
        # a rule's test slot to one worker only; on_test(url, rule, other) tells the others
        # of a test sent (they count its answer as their own)
        self.claim_test: Callable[[str], bool] = lambda key: True
        self.on_test: Callable[[str, str, str], None] | None = None
        self.rules = {rule: _Learned(min_confirmed,
                                     lambda slot, rule=rule: self.claim_test(f"{rule}|{slot}"),
                                     lambda url, rule=rule: self._tested(url, rule))
                      for rule in (BAR, DEAD, MISSING, LISTED)}
        self.judged: dict[str, tuple[str, str]] = {}   # URL -> (rule, other language)
        self.answered_urls: set[str] = set()

    @property
    def langs(self) -> tuple:
        return tuple(self._langs())

    @property
    def kept(self) -> dict:
        return {url: request for rule in self.rules.values() for url, request in rule.kept.items()}

    @property
    def refuted(self) -> bool:
        return any(rule.refuted for rule in self.rules.values())

    def active(self) -> bool:
        return self.enabled and bool(self.naming or self.dead or self.missing or self.listed)

    # ---- what the pages say ------------------------------------------------------------

    def observe(self, url: str, lang: str | None, declared) -> None:
        """A fetched page of ``lang`` at ``url`` declares alternates in ``declared``
        (languages, its own included or not). Copies of a page seen elsewhere are not
        observed (a fallback copy's bar is its original's)."""
        if not self.enabled or lang not in self.langs or url in self.bars:
            return
        bar = frozenset(x for x in declared if x != lang)
        if not bar:
            return
        self.bars[url] = (lang, bar)
        for other in bar:
            self.naming[lang, other] += 1

    def observe_listing(self, lang: str | None, items) -> int:
        """A fetched page of ``lang`` lists ``items``: (URL of ``lang``, language of the
        item's words or None). Where the page's words follow the translations (both
        ``lang``'s and another wanted language's, :data:`LISTED_PER_LANGUAGE` items each), the URLs
        listed in another wanted language's words look unlisted (rule LISTED). How many
        URLs that adds."""
        if not self.enabled or lang not in self.langs:
            return 0
        own = sum(1 for _, words in items if words == lang)
        other = {url: words for url, words in items
                 if words in self.langs and words != lang}
        if own < LISTED_PER_LANGUAGE or len(other) < LISTED_PER_LANGUAGE:
            return 0
        new = {url: words for url, words in other.items()
               if url not in self.answered_urls and url not in self.listed}
        self.listed.update(new)
        return len(new)

    def named(self, urls) -> list:
        """A page declares ``urls`` alternates or links them as switches: they exist. The
        requests LISTED kept of them, to fetch now."""
        kept = self.rules[LISTED].kept
        released = []
        for url in urls:
            if self.listed.pop(url, None) is not None and url in kept:
                released.append(kept.pop(url))
        return [r for r in released if r is not None]

    def not_a_translation(self, url: str) -> None:
        """``url``, naming a wanted language, was answered with a page of another
        language or a copy of a page seen elsewhere."""
        if self.enabled:
            self.dead.add(url)

    def absent_by(self, url: str, lang: str | None, swap: Swap) -> tuple[str, str] | None:
        """(rule, other language) where ``url`` (in ``lang``) looks like it has nothing
        to pair with: its counterpart's bar leaves ``lang`` out (BAR), or its counterpart
        URL was answered by no translation (DEAD); else None."""
        if not self.enabled or lang not in self.langs:
            return None
        if url in self.listed and not self.rules[LISTED].refuted:
            return LISTED, self.listed[url]
        for other in self.langs:
            if other == lang:
                continue
            counterpart = swap(url, lang, other)
            if not counterpart:
                continue
            # (LISTED first: a test of it that found its fallback copy makes the
            # counterpart dead too, and a rule with its tests out keeps, DEAD would test)
            if self.listed.get(counterpart) == lang and not self.rules[LISTED].refuted:
                return LISTED, other   # (its counterpart, listed in its own words)
            if counterpart in self.dead and not self.rules[DEAD].refuted:
                return DEAD, other
            if counterpart in self.missing and not self.rules[MISSING].refuted:
                return MISSING, other
            known = self.bars.get(counterpart)
            if known is not None and known[0] == other and lang not in known[1] \
                    and self.naming[other, lang] and not self.rules[BAR].refuted:
                return BAR, other
        return None

    def missing_page(self, url: str) -> None:
        """``url``, naming a wanted language, was answered 404 or 410."""
        if self.enabled:
            self.missing.add(url)

    # ---- the judgement -------------------------------------------------------------------

    def judge(self, url: str, lang: str | None, swap: Swap, request=None) -> str:
        """FETCH, TEST (fetch it: its answer tells whether the rule holds on this site)
        or KEEP (not fetched: ``request`` kept, released if the rule is switched off)."""
        if url in self.answered_urls:
            return FETCH
        found = self.absent_by(url, lang, swap)
        if found is None:
            return FETCH
        self.judged[url] = found
        return self.rules[found[0]].judge(url, request)

    def _tested(self, url: str, rule: str) -> None:
        if self.on_test is not None:
            self.on_test(url, rule, self.judged.get(url, (rule, ""))[1])

    def remote_test(self, url: str, rule: str, other: str) -> None:
        """Another worker sent ``url`` as a test of ``rule`` (against ``other``)."""
        if url not in self.answered_urls and rule in self.rules:
            self.judged[url] = (rule, other)
            self.rules[rule].testing.add(url)
            self.rules[rule].kept.pop(url, None)

    def believed(self) -> bool:
        return self.enabled and any(rule.believed() for rule in self.rules.values())

    def answered(self, url: str, lang: str | None, real: bool, into, swap: Swap) -> list:
        """``url`` (in ``lang`` by its URL) was answered: by a page of ``lang`` of its
        own (``real``) declaring alternates or switches into the languages ``into``, or
        else (an error, another language, a copy). The requests to fetch now: all kept
        ones of a rule this refutes, the next tests of a rule still learned.

        A BAR or LISTED test refutes where the page is real; a DEAD or MISSING test (or
        a LISTED URL's counterpart) where the page is real and leads into the language
        whose URL was dead (it has a translation after all)."""
        if url in self.answered_urls:
            return []
        found = self.judged.pop(url, None) or self.absent_by(url, lang, swap)
        if found is None:
            return []
        self.answered_urls.add(url)
        rule, other = found
        # (BAR, a LISTED URL: a page of its own; DEAD, MISSING, a LISTED URL's
        # counterpart: one that leads into ``other``)
        own = rule == BAR or (rule == LISTED and url in self.listed)
        refutes = real and (own or other in into)
        return self.rules[rule].answered(url, refutes)

    def stalled(self) -> list:
        """The crawl ran dry while a rule is unlearned (its tests answered by
        something that is not a page, or held by another rule): its kept requests go."""
        return [r for rule in self.rules.values() for r in rule.stalled()]


def schedule_released(requests: list, downloaded: set, schedule: Callable, stats,
                      stat: str) -> None:
    """Schedule the kept ``requests`` a rule lets go (all but those downloaded since),
    counted in ``stat``: the release of bar absence's and section indexes' watches."""
    for request in requests:
        if request.url not in downloaded:
            schedule(request)
    if requests:
        stats.inc_value(stat, len(requests))


class BarWatch:
    """What the crawl's pages and answers teach :class:`BarAbsence`, and the requests it
    lets go (scheduled by ``schedule``, the frontier's)."""

    def __init__(self, bars: BarAbsence, evidence, original_url: Callable, langs: Callable,
                 downloaded: set, stats, schedule: Callable,
                 words_lang: Callable[[str], "str | None"] | None = None):
        """``original_url(item)``: the URL the item's content was first seen under, where
        that is another URL (else None). ``words_lang(text)``: the language a list item's
        words are confidently written in, else None (rule LISTED; off without it)."""
        self.bars, self.evidence, self._original_url, self._langs = \
            bars, evidence, original_url, langs
        self.downloaded, self.stats, self._schedule = downloaded, stats, schedule
        self.words_lang = words_lang

    def page(self, item) -> None:
        """A page record: its bar of declared alternates, and what its URLs answer (a
        URL naming a wanted language answered by another language's page, or a copy of
        a page first seen under another language's URL, is no translation)."""
        if not self.bars.enabled:
            return
        original = self._original_url(item)
        url_lang = self.evidence.url_lang
        if original is None:
            self.bars.observe(item.url, item.lang, item.hreflang or {})
            self._listing(item, url_lang)
        if self.bars.listed:
            schedule_released(self.bars.named(
                set((item.hreflang or {}).values())
                | {link["url"] for link in item.links if link.get("hreflang")}),
                self.downloaded, self._schedule, self.stats,
                "bitext/focus/bar_absence/released")
        into = set(item.hreflang or ()) | {url_lang(link["url"]) for link in item.links}
        for url in sorted({item.url, item.requested_url or item.url}):
            lang = url_lang(url)
            # a copy of a page of another language's URL is a fallback copy; a copy of a
            # page of this language's URLs is a translation served under two names
            copy = original is not None and url_lang(original) != lang
            real = lang is not None and item.lang == lang and not copy
            if lang in self._langs() and not real:
                self.bars.not_a_translation(url)
            self.answered(url, real, into)

    def _listing(self, item, url_lang: Callable) -> None:
        """The language of the words of the items listing the page's own language's URLs
        (rule LISTED)."""
        items = (getattr(item, "derived", None) or {}).get("link_items") \
            if self.words_lang is not None else None
        if not items or item.lang not in self._langs():
            return
        listing = [(url, self.words_lang(words)) for url, words in items
                   if url_lang(url) == item.lang]
        added = self.bars.observe_listing(item.lang, listing)
        if added:
            self.stats.inc_value("bitext/focus/bar_absence/listed", added)

    def error(self, url: str, status: int) -> None:
        """An error answer to ``url``: it answers a test; a 404 or 410 at a URL naming a
        wanted language makes the URL missing (rule MISSING), not dead: a site's pairs
        need not be at the swapped URL, which the rule's own tests learn."""
        if self.bars.enabled:
            if status in (404, 410) and self.evidence.url_lang(url) in self._langs():
                self.bars.missing_page(url)
            self.answered(url, False)

    def answered(self, url: str, real: bool, into=frozenset()) -> None:
        """``url`` was answered (a page of its URL's language of its own: ``real``):
        what bar absence learns from it, and the requests it lets go."""
        bars = self.bars
        if not bars.active():
            return
        schedule_released(bars.answered(url, self.evidence.url_lang(url), real, into,
                                        self.evidence.swap),
                          self.downloaded, self._schedule, self.stats,
                          "bitext/focus/bar_absence/released")
        if bars.refuted and not self.stats.get_value("bitext/focus/bar_absence/refuted"):
            self.stats.set_value("bitext/focus/bar_absence/refuted", 1)
            logger.info("Focus: a page's bar of alternates left out a translation that "
                        "exists (%s): bars are not believed on this site", url)


class WordsLang:
    """The language lid.176 reads a list item's words in, with the probability a page's
    text needs (``BITEXT_LID_MIN_PROB``), for the rule LISTED; the model is loaded at the
    first call, once per process (``pages/language.py``)."""

    def __init__(self, model_file: str | None, min_prob: float):
        self.model_file, self.min_prob = model_file, min_prob
        self._identifier: Any = None

    def __call__(self, words: str) -> str | None:
        if self._identifier is None:
            self._identifier = LanguageIdentifier(self.model_file, self.min_prob)
        lang, prob = self._identifier.predict(words)
        return lang if lang and prob >= self.min_prob else None
