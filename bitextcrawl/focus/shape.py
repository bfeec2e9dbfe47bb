"""What a site's stored pages say of its translations, before a link is followed.

**One-way translation.** Pages of another wanted language switch into ``lang``
(nginx.org's Chinese pages into English), while none of the many ``lang`` pages stored
links into that language: links between ``lang`` pages then lead only to more ``lang``
pages, worth fetching as counterparts alone — which the other language's switches reach.
(A news page that links one translation does not make a site two-way: up to
``one_way_max_share`` of the pages may.)

**Switch absence.** Where most pages of language A carry a switch into B, a link to a B
page whose A counterpart (URL tokens swapped) is stored showing B's name without a link
is not followed: the site says the translation does not exist (nginx's
``<a class="notrans">русский</a>``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

# One-way translation: judged once this many pages of the language are stored
# (``BITEXT_FOCUS_ONE_WAY_MIN_PAGES``), against this many pages of another language with a
# switch into it — a small translation (10 pages, two of them stored when the tenth page of
# the big side is) has few to show; the silence of the big side is the evidence.
ONE_WAY_MIN_PAGES = 10
# (and half that language's pages: two pages are the fewest that make a pattern, not a
# setting)
ONE_WAY_MIN_SWITCHES = 2
ONE_WAY_MAX_SHARE = 0.05   # BITEXT_FOCUS_ONE_WAY_MAX_SHARE
# Switch absence: judged where the other language has this many pages stored
# (``BITEXT_FOCUS_SWITCH_ABSENCE_MIN_PAGES``).
ABSENCE_MIN_PAGES = 10

Swap = Callable[[str, str, str], "str | None"]   # (url, lang, other) -> counterpart URL
SmallSideOf = Callable[[], "str | None"] | None    # () -> the small side's language, if any


class SiteShape:
    def __init__(self, langs: tuple[str, ...], one_way: bool = True,
                 switch_absence: bool = True, pages_by_lang: Counter | None = None):
        self.langs = tuple(langs)
        # (the rules that judge by them set them: focus/rules/one_way.py, switch_absence.py)
        self.one_way_enabled = one_way
        self.one_way_min_pages, self.one_way_max_share = ONE_WAY_MIN_PAGES, ONE_WAY_MAX_SHARE
        self.switch_absence = switch_absence
        self.absence_min_pages = ABSENCE_MIN_PAGES
        # pages per language (the crawl state's, which the crawl's page records feed)
        self.pages_by_lang: Counter = Counter() if pages_by_lang is None else pages_by_lang
        # URL -> (language, languages it has a switch into, languages it names unlinked)
        self.page_switches: dict[str, tuple[str, frozenset, frozenset]] = {}
        self.switch_pages: Counter = Counter()    # (A, B) -> pages of A with a switch into B
        self.into_pages: Counter = Counter()      # (A, B) -> pages of A linking into B
        self.unlinked_pages: Counter = Counter()  # (A, B) -> pages of A naming B unlinked

    def observe(self, url: str, lang: str, switches, into, unlinked) -> None:
        """A stored page of a wanted language: the languages it has a switch into, links
        into (a switch or a URL token), and names without a link."""
        self.page_switches[url] = (lang, frozenset(switches), frozenset(unlinked))
        for other in switches:
            self.switch_pages[lang, other] += 1
        for other in into:
            self.into_pages[lang, other] += 1
        for other in unlinked:
            self.unlinked_pages[lang, other] += 1

    # ---- one-way translation -----------------------------------------------------------

    def one_way(self, lang: str, small_side: SmallSideOf = None) -> bool:
        """Is the site translated one way only, into ``lang``? (Never the small side of a
        partly translated site, ``small_side()``: its pages are the ones to pair.)"""
        n = self.pages_by_lang[lang]
        if not self.one_way_enabled or n < self.one_way_min_pages \
                or (small_side is not None and small_side() == lang):
            return False
        return any(self.switch_pages[other, lang] >= max(
                       ONE_WAY_MIN_SWITCHES, 0.5 * self.pages_by_lang[other])
                   and self.into_pages[lang, other] <= self.one_way_max_share * n
                   for other in self.langs if other != lang)

    def one_way_so_far(self, lang: str, small_side: SmallSideOf = None) -> bool:
        """Too few ``lang`` pages yet to judge :meth:`one_way`, but what there is points
        that way: another language's pages switch into ``lang``, no ``lang`` page links back."""
        return (self.one_way_enabled and self.pages_by_lang[lang] < self.one_way_min_pages
                and not (small_side is not None and small_side() == lang)
                and any(self.switch_pages[other, lang] >= ONE_WAY_MIN_SWITCHES
                        and not self.into_pages[lang, other]
                        for other in self.langs if other != lang))

    # ---- switch absence -----------------------------------------------------------------

    def absence_counterparts(self, url: str, lang: str, swap: Swap):
        """(language, counterpart URL) of ``url`` (in ``lang``) in each other wanted
        language whose pages mostly have a switch into ``lang`` — where a stored page
        without that switch says something (switch absence on)."""
        if not self.switch_absence:
            return
        for other in self.langs:
            n = self.pages_by_lang[other]
            if other == lang or n < self.absence_min_pages or self.switch_pages[other, lang] < 0.5 * n:
                continue
            counterpart = swap(url, lang, other)
            if counterpart:
                yield other, counterpart

    def no_translation(self, url: str, lang: str, swap: Swap) -> bool:
        """A link to ``url`` (in ``lang``) whose counterpart in another wanted language is
        stored with ``lang``'s name shown but not linked: the site says the page is not
        translated, so ``url`` is a 404. A counterpart without any switch (an AJAX
        fragment) says nothing."""
        for other, counterpart in self.absence_counterparts(url, lang, swap):
            known = self.page_switches.get(counterpart)
            if known is not None and known[0] == other and lang not in known[1] \
                    and lang in known[2]:
                return True
        return False

    def counterpart_will_tell(self, url: str, lang: str, swap: Swap) -> bool:
        """Switch absence is how this site marks missing translations (some stored page
        shows ``lang``'s name unlinked), and the counterpart of ``url`` that would show
        it is not stored yet."""
        return any(self.unlinked_pages[other, lang] and counterpart not in self.page_switches
                   for other, counterpart in self.absence_counterparts(url, lang, swap))

    # ---- persistence ----------------------------------------------------------------------

    def to_state(self) -> dict:
        return {**{name: [[a, b, n] for (a, b), n in sorted(getattr(self, name).items())]
                   for name in ("switch_pages", "into_pages", "unlinked_pages")},
                "page_switches": [[url, lang, sorted(switches), sorted(unlinked)]
                                  for url, (lang, switches, unlinked)
                                  in sorted(self.page_switches.items())]}

    def load(self, state: dict) -> None:
        for name in ("switch_pages", "into_pages", "unlinked_pages"):
            getattr(self, name).update({(a, b): n for a, b, n in state.get(name, [])})
        for url, lang, switches, unlinked in state.get("page_switches", []):
            self.page_switches[url] = (lang, frozenset(switches), frozenset(unlinked))
