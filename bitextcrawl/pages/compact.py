"""Page records without their HTML, for the closing step of a large site.

Pairing reads a record's text, STRAND tokens and chunks, links and hreflang, and of its
HTML only a few features (image names, code tokens, switch-bar names: each made by
:func:`html_feature`, once per record); the bitext stage and the parallel-link stage read
the HTML of one pair at a time. So the closing step holds :func:`compact` records of the
whole site, those features made before the HTML is dropped, and fetches the HTML of a
page from its store when a pair needs it (:class:`FullRecords`).

Measured on a generated 20,000-page site (``pages.jsonl`` read back): records take
605 MiB, of which HTML 143 MiB, STRAND tokens and chunks 276 MiB (2.8 million token
strings, 381 distinct), links 116 MiB (300,000 links, 40,000 distinct); :func:`compact`
records 147 MiB (268 with strings shared, 229 with links shared too, 147 without the
chunks' text that pairing does not read).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Mapping
from typing import Callable, Iterable

# Link fields whose values recur over a site (navigation links), shared by :func:`compact`.
_SHARED_LINK_FIELDS = ("url", "text", "hreflang")


# Exported fields :func:`compact` may empty: a full record is read for them.
DROPPED = ("html", "chunks")


class Interner(dict):
    """One copy of each equal string (dict.setdefault, no global interning), and of each
    equal link: records are read, never changed, by the stages that get them."""

    def __call__(self, value):
        if value.__class__ is not str:
            return value
        return self.setdefault(value, value)

    def strings(self, values: list) -> list:
        """``[self(v) for v in values]``, a fifth of the time (STRAND tokens: 300,000 on
        a 1,000-page site)."""
        shared = self.setdefault
        return [shared(v, v) if v.__class__ is str else v for v in values]

    def link(self, link: dict) -> dict:
        try:
            key = ("link", *link.items())
            kept = self.get(key)
        except TypeError:   # a value that cannot be a key: kept as it is
            key = kept = None
        if kept is not None:   # (a link seen before: most of a site's)
            return kept
        link = {k: self(v) if k in _SHARED_LINK_FIELDS else v for k, v in link.items()}
        return link if key is None else self.setdefault(key, link)


def derived_feature(page, name: str, compute: Callable[[object], object]):
    """``compute(page)`` of a page record, made once and kept in ``page.derived`` (which
    :func:`compact` keeps when it drops the HTML); each time for a page given as a dict."""
    if isinstance(page, dict):
        return compute(page)
    got = page.derived.get(name)
    if got is None:
        got = page.derived[name] = compute(page)
    return got


def html_feature(page, name: str, compute: Callable[[str], object]):
    """:func:`derived_feature` ``compute(html)`` of a page record."""
    return derived_feature(page, name, lambda p: compute(
        (p.get("html") if isinstance(p, dict) else p.html) or ""))


# Features the page store keeps with a record (``derived_feature``'s names), and how each is
# made again from its JSON: made where the page was parsed (a record worker), they are not
# made again from the HTML or the text when the closing step reads the store.
STORED_FEATURES: dict[str, Callable] = {
    "image_names": set,
    "code_anchors": frozenset,
    "switch_names": lambda names: [tuple(name) for name in names],
    "text_anchors": frozenset,
    "text_numbers": frozenset,
    "chunk_keys": tuple,
    "link_chunks": lambda pairs: tuple(tuple(p) for p in pairs),
    # (the focus of the other workers of a distributed crawl reads them: focus/bars.py)
    "link_items": lambda pairs: tuple(tuple(p) for p in pairs),
}


def features_to_json(derived: dict) -> dict:
    """The :data:`STORED_FEATURES` of a record's ``derived``, as JSON values."""
    return {name: sorted(value) if isinstance(value, (set, frozenset)) else value
            for name, value in derived.items() if name in STORED_FEATURES}


def features_from_json(stored: dict) -> dict:
    """``derived`` entries from :func:`features_to_json`'s values."""
    return {name: STORED_FEATURES[name](value) for name, value in stored.items()
            if name in STORED_FEATURES}


def compact(record, intern: Interner, features: Iterable[Callable] = ()):
    """``record`` without its HTML (and raw body), equal strings and links shared: STRAND
    tokens and navigation links recur over a site. ``features``: functions of a record that
    read its HTML through :func:`html_feature`, called first so that the record keeps
    what they read. Changes ``record`` in place."""
    for feature in features:
        feature(record)
    record.html = ""
    record.body = None
    record.http_headers = None
    record.strand = intern.strings(record.strand)
    if record.strand and record.text.strip() and record.text_length > 0:
        # Pairing reads the chunks' text only for a page without main text or STRAND
        # tokens (candidates.page_text_length, page_chunk_count, page_features,
        # anchors.page_anchors): 100 MB of strings on a 100,000-page site otherwise.
        record.chunks = []
    record.links = [intern.link(link) for link in record.links]
    record.derived.pop("link_items", None)   # read by the crawl's focus only (stored)
    placed = record.derived.get("link_chunks")
    if placed:   # a sidebar's (URL, chunk) recurs on every page of its section
        record.derived["link_chunks"] = tuple(intern.setdefault(p, p) for p in placed)
    record.site = intern(record.site)
    record.lang = intern(record.lang)
    return record


def drop_pairing_features(record):
    """``record`` without what only pairing reads (STRAND tokens, chunks, links, HTML
    features): the bitext stage and the report read its URL, language, title and text."""
    record.strand = []
    record.chunks = []
    record.links = []
    record.derived = {}
    return record


class FullRecords(Mapping):
    """URL -> the full record (HTML included) of the pages of ``index``, read with
    ``load(urls) -> {url: record}`` when asked for and a few kept (pairs are read in
    order; a page recurs in nearby pairs).

    ``index``: URL -> compact record; what is in the mapping, and what a loaded record is
    taken from when it differs from the stored one (canonical URL, aliases, language): the
    HTML is all that is read. ``keep``: records kept. ``html_reader``: the store's reader
    of HTML for other processes (``store.html_reader()``, ``urls -> {url: html}``), which
    a process pool's workers read the pages with instead of this process, or None.
    """

    def __init__(self, index: Mapping, load: Callable[[Iterable[str]], dict], keep: int = 256,
                 html_reader: Callable[[Iterable[str]], dict] | None = None):
        self.index = index
        self.load = load
        self.keep = keep
        self.html_reader = html_reader
        self.cache: OrderedDict = OrderedDict()

    def compact(self, url: str):
        """The page's record without its HTML (nothing read)."""
        return self.index[url]

    def __contains__(self, url) -> bool:
        return url in self.index

    def __len__(self) -> int:
        return len(self.index)

    def __iter__(self):
        return iter(self.index)

    def __getitem__(self, url: str):
        record = self.cache.get(url)
        if record is not None:
            self.cache.move_to_end(url)
            return record
        page = self.index[url]
        stored = self.load([page.url]).get(page.url)
        if stored is None:
            raise KeyError(url)
        record = with_html(page, stored.html)
        self.cache[url] = record
        if len(self.cache) > self.keep:
            self.cache.popitem(last=False)
        return record


def with_html(page, html: str):
    """A copy of the compact ``page`` with ``html`` (its other fields shared)."""
    return dataclasses.replace(page, html=html)
