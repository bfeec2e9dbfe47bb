"""The site graph ETS reads [Liu 2014 §3.1]: a site's pages (one per content) and the
links between pages of one language, as arrays (:class:`SiteGraph`, made by
:func:`build_site_graph`); ETS also takes a ``networkx.DiGraph``."""

from __future__ import annotations

from array import array
from typing import Iterable, Mapping

import numpy as np


def build_site_graph(pages: Iterable, links=None) -> "SiteGraph":
    """The site's link graph [Liu 2014 §3.1]: a node per page, an edge per link between two pages of the set.

    Nodes carry ``lang`` and ``text_length``. Links to URLs outside the set are
    dropped; a link to a page's ``requested_url`` (before a redirect) reaches the
    page. Self-links are dropped. ``links(page) -> URLs``: the links that count (all of
    the page's by default; the content's, without the template's, in pairing). The
    paper builds one network per language; here
    one graph holds both, and :class:`ETS` keeps, as the neighbours of a page, only
    the pages of its own language. A :class:`SiteGraph`: what ETS reads of a
    ``networkx.DiGraph``, in arrays (a 100,000-page site's DiGraph took 199 MiB).
    """
    records: dict[str, list] = {}   # URL -> its records (one, but for duplicates)
    for page in pages:
        records.setdefault(page.url, []).append(page)
    alias = {url: i for i, url in enumerate(records)}
    for same in records.values():
        for page in same:
            if page.requested_url:
                alias.setdefault(page.requested_url, alias[page.url])
    indptr, indices = array("q", [0]), array("i")
    for i, same in enumerate(records.values()):
        out: dict[int, None] = {}   # successors in first-link order, as DiGraph.add_edge
        for page in same:
            urls = links(page) if links is not None else (
                link.get("url") if isinstance(link, Mapping) else getattr(link, "url", None)
                for link in page.links)
            for url in urls:
                j = alias.get(url) if url else None
                if j is not None and j != i:
                    out[j] = None
        indices.extend(out)
        indptr.append(len(indices))
    # As DiGraph.add_node: the last record of a URL sets its data.
    return SiteGraph(list(records), [same[-1].lang for same in records.values()],
                     [same[-1].text_length for same in records.values()],
                     np.frombuffer(indptr, dtype=np.int64), np.frombuffer(indices, dtype=np.int32))


class SiteGraph:
    """A read-only directed graph of URLs, successors in first-link order (a CSR array):
    the part of ``networkx.DiGraph`` that :class:`ETS` and the report read —
    ``u in g``, ``g.successors(u)``, ``g.nodes`` (``g.nodes[u]["lang"]``,
    ``nx.get_node_attributes``), ``g.edges``, ``g.number_of_nodes()``,
    ``g.number_of_edges()``."""

    def __init__(self, urls: list, langs: list, text_lengths: list, indptr: np.ndarray,
                 indices: np.ndarray):
        self._urls = urls
        self._index = {u: i for i, u in enumerate(urls)}
        self._langs = langs
        self._lengths = text_lengths
        self._indptr = indptr
        self._indices = indices
        self.nodes = _SiteNodes(self)

    def __contains__(self, url) -> bool:
        return url in self._index

    def __len__(self) -> int:
        return len(self._urls)

    def __iter__(self):
        return iter(self._urls)

    def successors(self, url: str):
        i = self._index[url]
        urls = self._urls
        return (urls[j] for j in self._indices[self._indptr[i]:self._indptr[i + 1]].tolist())

    @property
    def edges(self) -> list:
        return [(u, v) for u in self._urls for v in self.successors(u)]

    def number_of_nodes(self) -> int:
        return len(self._urls)

    def number_of_edges(self) -> int:
        return int(self._indptr[-1])


class _SiteNodes(Mapping):
    """URL -> ``{"lang": …, "text_length": …}`` (a new dict each time: read-only)."""

    def __init__(self, graph: SiteGraph):
        self._g = graph

    def __getitem__(self, url):
        i = self._g._index[url]
        return {"lang": self._g._langs[i], "text_length": self._g._lengths[i]}

    def __iter__(self):
        return iter(self._g._urls)

    def __len__(self) -> int:
        return len(self._g._urls)

    def __contains__(self, url) -> bool:
        return url in self._g._index

    def items(self):
        g = self._g
        return ((u, {"lang": lang, "text_length": n})
                for u, lang, n in zip(g._urls, g._langs, g._lengths))
