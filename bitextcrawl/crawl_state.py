"""The crawl state: what one site crawl has learned, shared by its components and owned by
none of them. No Scrapy here: the crawl context (``context.py``) keeps one per site crawl
(``context.state``) and gives it the page store to persist to and rebuild from.

* **Persisted once.** Each component that keeps something across a clean stop registers
  a *section* (a name and a function that dumps it as JSON data); :meth:`save` writes
  every section in one blob of the store's meta (``crawl_state``), once, when the crawl
  stops. On resume, :meth:`section` gives a component what its section held (read
  once; stores written before there was one blob keep a section under its own key).
* **Rebuilt once.** Components that index the stored pages register a function of a
  stored record (:meth:`on_stored_record`); a resumed crawl reads the store once
  (:meth:`replay`), every record to each of them.
* **Learned once.** Each page record the crawl makes is learned here, once
  (:meth:`learn_page`: the spider, and :meth:`replay` for a resumed crawl's stored
  pages): the site's one URL-token learner (``pages/site.py`` :class:`CrawlUrlTokens`,
  read by the focus, the pairing pipeline and the parallel-link index) and the pages per
  language.
* **Shared facts.** The URLs the server answered in this run, the first URL each
  content was seen under (the spider's), the redirect rules the site has taught
  (``pages/redirect_rules.py``; the redirect middlewares, spider and downloader side,
  read the one set), and the focus's queue and policies (``focus/queue.py``; the focus
  middlewares, spider and downloader side, read the one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from bitextcrawl.pages.site import CrawlUrlTokens

#: The store's meta key of the one blob.
STATE_KEY = "crawl_state"
#: Where a section lived before the one blob (read on resume of an older store).
LEGACY_KEYS: dict[str, str | dict[str, str]] = {"focus": "focus", "parallel_links": "parallel_links",
               "recovery": {"tried": "recovery_tried", "directions": "recovery_directions"}}


class CrawlState:
    def __init__(self, token_min_pages: int = 5, token_purity: float = 0.95):
        self.url_tokens = CrawlUrlTokens(token_min_pages, token_purity)
        self.pages_by_lang: Counter = Counter()   # page records made, per language
        # URLs answered in this run (pages, redirects' sources, errors): a link to one of
        # them would only be dropped by the dupefilter, after every middleware judged it
        self.answered: set[str] = set()
        self.content_seen: dict[str, str] = {}   # content hash -> first URL seen under
        self.redirect_rules = None               # RedirectRules, where redirects are learned
        self.focus = None                        # FocusState (focus/queue.py), where focused
        self._sections: dict[str, Callable[[], object]] = {}
        self._record_consumers: list[Callable] = []
        self._saved: dict | None = None
        self._replayed = False

    def learn_page(self, page) -> bool:
        """A page record the crawl made (or a resumed crawl stored): learned once. True if
        its content was seen under another URL first (a duplicate)."""
        self.url_tokens.learn(page)
        self.pages_by_lang[page.lang] += 1
        if page.content_hash and page.text_length:
            return self.content_seen.setdefault(page.content_hash, page.url) != page.url
        return False

    def duplicate(self, page) -> bool:
        """Was ``page``'s content learned under another URL first?"""
        return bool(page.content_hash and page.text_length) \
            and self.content_seen.get(page.content_hash, page.url) != page.url

    def answer(self, request_url: str, redirect_urls=()) -> None:
        """The server answered a request (a page or an HTTP error): its URLs are done."""
        self.answered.update(redirect_urls)
        self.answered.add(request_url)

    # ---- persistence ---------------------------------------------------------------------

    def add_section(self, name: str, dump: Callable[[], object]) -> None:
        """Persist ``dump()`` under ``name`` when the crawl stops."""
        self._sections[name] = dump

    def section(self, store, name: str, default=None):
        """What section ``name`` held when the last run stopped (``default`` if nothing)."""
        if self._saved is None:
            self._saved = store.get_meta(STATE_KEY, None) or {}
            if not self._saved:   # a store of before the one blob
                for section, key in LEGACY_KEYS.items():
                    if isinstance(key, str):
                        value = store.get_meta(key, None)
                    else:
                        value = {field: store.get_meta(k, None) for field, k in key.items()}
                        value = value if any(v is not None for v in value.values()) else None
                    if value is not None:
                        self._saved[section] = value
        value = self._saved.get(name)
        return default if value is None else value

    def has_sections(self) -> bool:
        return bool(self._sections)

    def save(self, store) -> None:
        """Every section, in one blob of the store's meta."""
        if self._sections:
            store.set_meta(STATE_KEY, {name: dump() for name, dump in self._sections.items()})

    # ---- rebuilding from the store ----------------------------------------------------------

    def on_stored_record(self, consume: Callable) -> None:
        """``consume(record)`` for each stored record when a resumed crawl is rebuilt."""
        self._record_consumers.append(consume)

    def replay(self, store) -> None:
        """Read the store once, each record to every consumer (later calls do nothing)."""
        if self._replayed:
            return
        self._replayed = True
        if not len(store):
            return
        consumers = [self.learn_page, *self._record_consumers]
        for record in store:
            for consume in consumers:
                consume(record)
