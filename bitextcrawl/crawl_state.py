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
  (:meth:`learn_page`: the spider; :meth:`replay` for a resumed crawl's stored pages;
  :meth:`sync` for the pages other workers stored): the site's one URL-token learner (``pages/site.py`` :class:`CrawlUrlTokens`,
  read by the focus, the pairing pipeline and the parallel-link index) and the pages per
  language.
* **Shared facts.** The URLs the server answered in this run, the first URL each
  content was seen under (the spider's), the redirect rules the site has taught
  (``pages/redirect_rules.py``; the redirect middlewares, spider and downloader side,
  read the one set), and the focus's queue and policies (``focus/queue.py``; the focus
  middlewares, spider and downloader side, read the one).
* **Learned together.** Where several workers crawl one site (the distributed profile), a
  *backing* (:class:`StateBacking`, set by the profile: ``store/redis_state.py``) carries
  what each one learns to the others: :meth:`sync` feeds the records the other workers
  stored since the last look to the same ``on_stored_record`` consumers and to the
  ``on_remote_record`` ones (the learning a component does on a page it crawled itself),
  and the facts that are no page records (``publish``: a redirect seen, a guess answered,
  a link held) to the ``on_fact`` consumers of their kind; ``claim`` lets one worker only
  do a thing once for all (request a released held link), and ``put``/``get`` keep what
  one worker fetched for all (a site's robots.txt). Without a backing, publishing and
  syncing do nothing, every claim is granted and nothing is kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

from bitextcrawl.pages.site import CrawlUrlTokens

#: The store's meta key of the one blob.
STATE_KEY = "crawl_state"
#: Where a section lived before the one blob (read on resume of an older store).
LEGACY_KEYS: dict[str, str | dict[str, str]] = {"focus": "focus", "parallel_links": "parallel_links",
               "recovery": {"tried": "recovery_tried", "directions": "recovery_directions"}}


class StateBacking(Protocol):
    """Where the workers of one crawl meet (``store/redis_state.py``)."""

    def new_records(self) -> Iterable:
        """The records other workers stored since the last call, in store order."""

    def publish(self, kind: str, value) -> None:
        """Tell the other workers a fact of ``kind``."""

    def new_facts(self) -> Iterable[tuple[str, object]]:
        """``(kind, value)`` of the facts other workers published since the last call."""

    def claim(self, kind: str, key: str) -> bool:
        """True for the first worker to claim ``key`` of ``kind``, False for the others."""

    def put(self, kind: str, key: str, value) -> None:
        """Keep ``value`` under ``key`` of ``kind`` for every worker."""

    def get(self, kind: str, key: str):
        """What some worker put under ``key`` of ``kind`` (None if nothing yet)."""


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
        self._shared_sections: set[str] = set()
        self._record_consumers: list[Callable] = []
        self._remote_consumers: list[Callable] = []
        self._fact_consumers: dict[str, list[Callable]] = {}
        self._fed: set[str] = set()   # records given to the on_stored_record consumers
        self.backing: StateBacking | None = None   # the workers' meeting place, if shared
        self._syncing = False
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

    def original_url(self, page) -> str | None:
        """The URL ``page``'s content was learned under first, where that is another URL."""
        if not (page.content_hash and page.text_length):
            return None
        first = self.content_seen.get(page.content_hash, page.url)
        return first if first != page.url else None

    def duplicate(self, page) -> bool:
        """Was ``page``'s content learned under another URL first?"""
        return self.original_url(page) is not None

    def answer(self, request_url: str, redirect_urls=()) -> None:
        """The server answered a request (a page or an HTTP error): its URLs are done."""
        self.answered.update(redirect_urls)
        self.answered.add(request_url)

    # ---- persistence ---------------------------------------------------------------------

    def add_section(self, name: str, dump: Callable[[], object], shared: bool = False) -> None:
        """Persist ``dump()`` under ``name`` when the crawl stops. ``shared``: what the
        section holds is rebuilt from the pages and facts of every worker where the state
        has a backing (:meth:`sync` reads them from the start), so it is not read back
        there (it would count them twice)."""
        self._sections[name] = dump
        if shared:
            self._shared_sections.add(name)

    def section(self, store, name: str, default=None):
        """What section ``name`` held when the last run stopped (``default`` if nothing)."""
        if self.backing is not None and name in self._shared_sections:
            return default
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
            self._fed.add(record.url)
            for consume in consumers:
                consume(record)

    # ---- learning together ------------------------------------------------------------------

    def on_remote_record(self, consume: Callable) -> None:
        """``consume(record)`` for each record another worker stored (after the
        ``on_stored_record`` consumers): the learning done on a page crawled here."""
        self._remote_consumers.append(consume)

    def on_fact(self, kind: str, consume: Callable) -> None:
        """``consume(value)`` for each fact of ``kind`` another worker published."""
        self._fact_consumers.setdefault(kind, []).append(consume)

    def publish(self, kind: str, value) -> None:
        if self.backing is not None:
            self.backing.publish(kind, value)

    def claim(self, kind: str, key: str) -> bool:
        return self.backing.claim(kind, key) if self.backing is not None else True

    def put(self, kind: str, key: str, value) -> None:
        if self.backing is not None:
            self.backing.put(kind, key, value)

    def get(self, kind: str, key: str):
        return self.backing.get(kind, key) if self.backing is not None else None

    def sync(self) -> int:
        """What the other workers learned since the last look, to this worker's consumers
        (nothing without a backing); how many records and facts there were."""
        if self.backing is None or self._syncing:
            return 0
        self._syncing = True
        n = 0
        try:
            for record in self.backing.new_records():
                n += 1
                if record.url not in self._fed:
                    self._fed.add(record.url)
                    self.learn_page(record)
                    for consume in self._record_consumers:
                        consume(record)
                for consume in self._remote_consumers:
                    consume(record)
            for kind, value in self.backing.new_facts():
                n += 1
                for consume in self._fact_consumers.get(kind, ()):
                    consume(value)
        finally:
            self._syncing = False
        return n
