"""The pages a crawl pairs as they arrive, pure (no Scrapy) [Zhang 2013 §2.1]: the stored
URLs of the wanted languages, which the URL-pattern learner is fitted on again at a
step that grows with the site; a page paired as soon as the patterns learned so far
find its counterpart stored; the pages that brought pairs, told once each (the focus's
yield learning, ``notify``); what the links and switch bars of the stored pages say of
their translations (read by deep page recovery's guesses, ``pairing/recovery.py``); and
the pages still unpaired. The pipeline (``pipelines/pairing.py``) feeds it the crawl's
pages and guesses their counterparts when the crawl runs dry.

``stats``: anything with ``set_value``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from bitextcrawl.pages.site import token_languages
from bitextcrawl.pages.switches import link_named_language, page_named_unlinked
from bitextcrawl.pairing.recovery import folder

# Patterns are re-learned after ``relearn_every`` new pages, or half the pages known
# when that is more.
RELEARN_GROWTH = 2


class OnlinePairs:
    def __init__(self, langs: tuple, relearn_every: int, url_tokens, stats,
                 notify: Callable[[list[str]], None], duplicate: Callable[[object], bool]):
        self.langs, self.relearn_every, self.stats = langs, relearn_every, stats
        # which URL tokens name which language here, and |w| of [Zhang 2013] (distinct
        # contents, all languages): the crawl state's, which the crawl's pages feed
        self.url_tokens = url_tokens
        self._notify_pages = notify      # notify(urls): pages that brought pairs
        self._duplicate = duplicate      # duplicate(page): its content stored already
        self.urls_by_lang: dict[str, list[str]] = {}
        self.known: set[str] = set()         # stored URLs in the wanted languages
        self.duplicates: set[str] = set()    # stored under another URL already (same content)
        self.linked_from: dict[str, set[str]] = defaultdict(set)  # URL -> langs linking to it
        self.untranslated: dict[str, frozenset] = {}  # URL -> langs its switch bar shows unlinked
        self.notified: set[str] = set()      # paired URLs already told
        self.seq: dict[str, int] = {}        # stored URL -> arrival order
        self.dirs: set[tuple[str, str]] = set()  # (language, folder) of stored pages
        self.new_pages = 0
        self.learner: Any = None   # the URL-pattern learner (start)

    def load(self, urls_by_lang: dict[str, list[str]]) -> None:
        """The stored URLs per language a crawl starts from (a resumed crawl's)."""
        self.urls_by_lang = {k: v for k, v in urls_by_lang.items() if k in self.langs}
        self.known = {u for urls in self.urls_by_lang.values() for u in urls}
        for lang, urls in self.urls_by_lang.items():
            for url in urls:
                self.seq[url] = len(self.seq) + 1
                self.dirs.add((lang, folder(url)))

    def start(self, learner) -> None:
        """The URL-pattern learner, fitted on the pages loaded if there are any."""
        self.learner = learner
        if any(self.urls_by_lang.values()):
            self.fit()

    def observe(self, item) -> None:
        """Every stored page, whatever its language: what its switch bar says."""
        if item.lang in self.langs:
            unlinked = page_named_unlinked(item, self.langs)
            if unlinked:  # its switch bar says it has no translation into these
                self.untranslated[item.url] = unlinked

    def add(self, item) -> None:
        """A stored page of a wanted language among the URLs to pair (a page of this
        worker's, or of another worker of a distributed crawl)."""
        if item.lang not in self.langs:
            return
        for link in item.links:
            # an ordinary link (not a language switch) from a page of this language to a
            # page of another: the site's way of saying "no translation of it here"
            if not link_named_language(link):
                self.linked_from[link["url"]].add(item.lang)
        if item.url in self.known:
            return
        self.urls_by_lang.setdefault(item.lang, []).append(item.url)
        self.known.add(item.url)
        self.seq[item.url] = len(self.seq) + 1
        self.dirs.add((item.lang, folder(item.url)))
        if self._duplicate(item):
            self.duplicates.add(item.url)
        self._pair_now(item.url, item.lang)
        self.new_pages += 1
        # Every fit reads all URLs: a fixed step would cost O(n²) over a crawl and
        # block the reactor for a minute on a 20k-page site; growing it with the
        # site keeps the total linear (half more: the fits read 3 URLs a page stored,
        # where a tenth more read 11; between fits, new pages are paired by the patterns
        # already learned). The idle pass re-learns on everything.
        if self.learner is not None and \
                self.new_pages >= max(self.relearn_every, len(self.known) // RELEARN_GROWTH):
            self.relearn()

    def _notify(self, urls: Iterable[str]) -> None:
        """Tell which pages brought pairs: of a pair, the page stored first (the other
        one was found from it, or would have been)."""
        new = [u for u in urls if u not in self.notified]
        if new:
            self.notified.update(new)
            self._notify_pages(new)

    def _pair_now(self, url: str, lang: str) -> None:
        """A page whose counterpart (by the patterns learned so far) is stored: both paired."""
        if not hasattr(self.learner, "pairs_"):
            return
        for target, _, _ in self.learner.counterpart_targets(url, lang, self.langs):
            if target in self.known:
                self._notify((target,))
                self.notified.add(url)
                return

    def fit(self) -> None:
        self.learner.fit(self.urls_by_lang, site_size=self.url_tokens.site_size,
                         token_langs=token_languages(self.url_tokens.site))

    def relearn(self) -> None:
        self.new_pages = 0
        self.fit()
        self.stats.set_value("bitext/patterns/learned",
                             sum(1 for p in self.learner.patterns_ if p.credible))
        pairs = self.learner.pairs()
        self.stats.set_value("bitext/patterns/pairs", len(pairs))
        seq = self.seq
        firsts = []
        for pair in pairs:
            a, b = pair.url_1, pair.url_2
            if a in self.notified or b in self.notified:
                self.notified.update((a, b))
                continue
            first = a if seq.get(a, 0) <= seq.get(b, 0) else b
            firsts.append(first)
            self.notified.add(b if first == a else a)
        self._notify(firsts)

    def unpaired(self):
        """The stored pages no pattern pairs (a copy of another page's content left out),
        as ``(url, lang)``."""
        paired = set()
        for pair in self.learner.pairs():
            paired.add(pair.url_1)
            paired.add(pair.url_2)
        for lang, urls in self.urls_by_lang.items():
            for url in urls:
                if url not in paired and url not in self.duplicates:
                    yield url, lang
