"""Translated URL segments around a shared identifier (the ``segment_id`` kind, see
:mod:`.url_patterns`). Pure functions, used by :class:`.url_patterns.UrlPatternLearner`.

Extends [Zhang 2013 §2.1]. Their pairing key is a single-token difference
learned without supervision and kept when it pairs enough of the site (C(p,w) > 0.1). Many
sites translate whole path segments instead, and keep an identifier that ties a page to its
translation::

    /media/news/releases?id=0189   ↔  /presse/nouvelles/communiques?id=0189
    /en/news/2019/                 ↔  /fr/nouvelles/2019/
    /En/About.aspx                 ↔  /fr/about.aspx

Such URLs differ in several tokens, so the paper's inverted index never sees them. What is
learned here instead is a *segment table*: ``media ↔ presse``, ``news ↔ nouvelles``, from

1. URL pairs of two languages that share the rest of the URL: an identifier bucket (scheme,
   number of slots, the numeric tokens with their slot, a rare file name with its slot) that
   holds exactly one URL of each language, where at least one slot carrying the identifier
   is equal on both sides; every other slot where they differ is an observed translation;
2. pairs proven by other evidence (``known_pairs``: hreflang, parallel links), which need no
   shared identifier.

A *slot* is the host (``//`` + host), a path segment, or a query parameter (``?`` + ``k=v``),
so that a host, a directory and a parameter are never taken for each other.

A translation ⟨a, b⟩ is kept when (departures from the paper's C(p,w) > 0.1, each for
precision; the C(p,w) threshold itself is not applied, since a segment table is vouched for
by recurrence and by the identifier, and a partial translation explains little of |w| however
right it is — the same reason that rescues a site's own language tokens in ``_judge``):

* it is supported by at least ``min_pairs`` (2) distinct URL pairs, or by a proven pair;
* it is one-to-one: no rival ⟨a, b'⟩ or ⟨a', b⟩ is itself supported that well, and the weak
  rivals together have fewer pairs than it has;
* each side belongs to its language (observed pairs only): ``purity`` (0.8) of the URLs of the
  two languages carrying ``a`` are in the first language, and likewise ``b`` in the second, so
  words both languages use alike are no translation;
* it is no case-only difference (``About`` ↔ ``about``): that is evidence about the site's
  case, not a translation.

Case: a site whose URL list holds two URLs equal but for the case of their path, or whose
identifier pairs differ only by case in at least ``min_pairs`` pairs (``/En/About.aspx`` ↔
``/fr/about.aspx``), is compared case-insensitively (path and query folded); any other site
exactly (hosts are always folded). The web server decides whether ``/About`` and ``/about``
are one page; the site's own URLs are the only evidence of it here.

Pairing: a URL of the first language whose slots map through the table (or are equal) to the
slots of exactly one URL of the second language, with at least one slot translated and an
identifier (a numeric token or a file name carried by at most ``max_name_urls`` URLs of each
language) in a slot that is not, is paired with it, among URLs no stronger pattern took.
Without the shared identifier nothing pairs: ``/media/news/`` ↔ ``/presse/nouvelles/`` is
structure, not evidence that the two pages are translations.

These pairs are weaker than a token pattern's (one table entry learned from two pairs may
still be wrong): they get the kind ``segment_id``, a floor for the later stages, not a proof.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Iterable

from bitextcrawl.pairing.url_tokens import _SPLIT, _URL_PARTS, _mask_keys

#: A translation needs this many distinct supporting URL pairs (or one proven pair).
DEFAULT_MIN_SEGMENT_PAIRS = 2
#: A file name is an identifier when at most this many URLs of each language carry it
#: (``cat.html`` under two platforms is; ``index.html`` in every folder is not).
DEFAULT_MAX_NAME_URLS = 2
# A file name: a stem and a short extension (about.aspx, report-2019.pdf, cat.html).
_FILE_NAME = re.compile(r".+\.[A-Za-z][A-Za-z0-9]{0,4}")


def slots(url: str, fold: bool) -> tuple[str, tuple[str, ...], int] | None:
    """(scheme, slots, index of the last path segment) of a URL, or None without a host.

    Slots: ``//host`` (folded), the path segments, ``?k=v`` per query parameter; the path and
    query are lowercased when ``fold``.
    """
    m = _URL_PARTS.match(url)
    scheme, host, path, query = m.group(1) or "", m.group(2), m.group(3), m.group(4)
    if host is None:
        return None
    if fold:
        path = path.lower()
        query = query.lower() if query is not None else None
    segs = path.split("/")[1:] if path.startswith("/") else ([path] if path else [])
    out = [host.lower()] + segs
    last = len(out) - 1 if segs else -1
    if query:
        out += ["?" + q for q in query.split("&")]
    return scheme.lower(), tuple(out), last


def _numeric(slot: str) -> list[str]:
    if slot.startswith("//"):
        return []
    return [t for t in _SPLIT.split(slot.lstrip("?"))[::2] if t.isdigit()]


class _Site:
    """The URLs of two languages of one site, parsed into slots, with their identifiers."""

    def __init__(self, urls: list[str], ulang: list[int], la: int, lb: int, fold: bool,
                 max_name_urls: int):
        self.la, self.lb = la, lb
        self.parsed: dict[int, tuple] = {}
        names: dict[int, Counter] = {la: Counter(), lb: Counter()}
        for g, url in enumerate(urls):
            if ulang[g] in (la, lb):
                p = slots(url, fold)
                if p is not None:
                    self.parsed[g] = p
                    if p[2] > 0 and _FILE_NAME.fullmatch(p[1][p[2]]):
                        names[ulang[g]][p[1][p[2]].lower()] += 1
        self.ulang = ulang
        # file names that identify a page: few URLs of either language carry them
        self.id_names = {n for c in names.values() for n in c
                         if all(names[x][n] <= max_name_urls for x in (la, lb))}
        self._slot_langs: dict[str, Counter] | None = None
        self._ids: dict[int, list[tuple[int, str]]] = {}
        self._pairs: list[tuple[int, int]] | None = None

    def id_slots(self, g: int) -> list[tuple[int, str]]:
        """(slot index, identifier) of URL ``g``: numeric tokens, an identifying file name."""
        out = self._ids.get(g)
        if out is None:
            _, s, last = self.parsed[g]
            out = [(k, t) for k, slot in enumerate(s) if any(c.isdigit() for c in slot)
                   for t in _numeric(slot)]
            if last > 0 and s[last].lower() in self.id_names:
                out.append((last, s[last].lower()))
            self._ids[g] = out
        return out

    def pure(self, text: str, li: int, lj: int, purity: float) -> bool:
        if self._slot_langs is None:  # (made once, when a translation is judged)
            self._slot_langs = defaultdict(Counter)
            for g, (_, s, _) in self.parsed.items():
                for t in set(s):
                    self._slot_langs[t][self.ulang[g]] += 1
        c = self._slot_langs.get(text)
        return c is not None and c[li] >= purity * (c[li] + c[lj])


def _identifier_pairs(site: _Site) -> list[tuple[int, int]]:
    """Cross-language pairs sharing an identifier bucket, one URL of each language in it
    (inverted index: linear in the URLs). Identifiers compare folded here; the caller checks
    the slots."""
    if site._pairs is not None:
        return site._pairs
    index: dict[tuple, list[int]] = defaultdict(list)
    for g, (scheme, s, _) in site.parsed.items():
        ids = site.id_slots(g)
        if ids:
            key = (scheme, len(s), tuple((k, t.lower()) for k, t in ids))
            index[key].append(g)
    out = []
    for bucket in index.values():
        if len(bucket) < 2:
            continue
        g1s = [g for g in bucket if site.ulang[g] == site.la]
        g2s = [g for g in bucket if site.ulang[g] == site.lb]
        if len(g1s) == 1 and len(g2s) == 1:
            out.append((g1s[0], g2s[0]))
    site._pairs = out
    return out


def case_evidence(urls: list[str], ulang: list[int], la: int, lb: int, min_pairs: int,
                  max_name_urls: int = DEFAULT_MAX_NAME_URLS, raw: "_Site | None" = None,
                  known: Iterable[tuple[int, int]] = ()) -> bool:
    """Does the site compare its paths case-insensitively (see the module docstring)?

    Two of its URLs equal but for case, or at least ``min_pairs`` identifier pairs of the two
    languages (or one proven pair of ``known``) with a slot that differs only by case.
    ``raw``: the site parsed unfolded, if the caller has it.
    """
    seen: dict[str, str] = {}
    for url in urls:
        m = _URL_PARTS.match(url)
        cut = m.end(2) if m.group(2) else m.end(1) if m.group(1) else 0
        rest = url[cut:]
        other = seen.setdefault(url[:cut].lower() + rest.lower(), rest)
        if other != rest:
            return True
    # identifiers compare folded in the index whether the site is folded or not
    site = raw if raw is not None else _Site(urls, ulang, la, lb, False, max_name_urls)

    def case_only(g1: int, g2: int) -> bool:
        p1, p2 = site.parsed.get(g1), site.parsed.get(g2)
        return (p1 is not None and p2 is not None and len(p1[1]) == len(p2[1])
                and any(a != b and a.lower() == b.lower() for a, b in zip(p1[1], p2[1])))

    if any(case_only(g1, g2) for g1, g2 in known):
        return True
    return sum(1 for g1, g2 in _identifier_pairs(site) if case_only(g1, g2)) >= min_pairs


def _observations(site: _Site, g1: int, g2: int, need_id: bool) -> list[tuple[str, str]] | None:
    """The differing slots of two URLs (side 1, side 2), None if they cannot be compared
    (other scheme or slot count, nothing differs, or, with ``need_id``, no slot carrying an
    identifier is equal on both sides)."""
    p1, p2 = site.parsed.get(g1), site.parsed.get(g2)
    if p1 is None or p2 is None or p1[0] != p2[0] or len(p1[1]) != len(p2[1]):
        return None
    s1, s2 = p1[1], p2[1]
    diff = [(a, b) for a, b in zip(s1, s2) if a != b]
    if not diff:
        return None
    if need_id and not any(s1[k] == s2[k] for k, _ in site.id_slots(g1)):
        return None
    return diff


def learn_table(site: _Site, known: Iterable[tuple[int, int]], min_pairs: int,
                purity: float) -> dict[str, tuple[str, int, bool]]:
    """The segment table of two languages: side-1 slot -> (side-2 slot, pairs, proven)."""
    support: dict[tuple[str, str], set] = defaultdict(set)
    proven: set[tuple[str, str]] = set()
    for g1, g2 in _identifier_pairs(site):
        for a, b in _observations(site, g1, g2, True) or ():
            support[a, b].add((g1, g2))
    for g1, g2 in known:
        for a, b in _observations(site, g1, g2, False) or ():
            proven.add((a, b))
            support[a, b].add((g1, g2))
    by_a: dict[str, list[tuple[str, int]]] = defaultdict(list)
    by_b: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (a, b), ps in support.items():
        by_a[a].append((b, len(ps)))
        by_b[b].append((a, len(ps)))

    def strong(a: str, b: str) -> bool:
        return len(support[a, b]) >= min_pairs or (a, b) in proven

    table: dict[str, tuple[str, int, bool]] = {}
    for (a, b), ps in support.items():
        n = len(ps)
        if not strong(a, b) or a.lower() == b.lower():
            continue
        if (a, b) not in proven and not (site.pure(a, site.la, site.lb, purity)
                                         and site.pure(b, site.lb, site.la, purity)):
            continue
        rivals = [(x, m) for x, m in by_a[a] if x != b] + [(x, m) for x, m in by_b[b] if x != a]
        if any(strong(a, x) for x, _ in by_a[a] if x != b) \
                or any(strong(x, b) for x, _ in by_b[b] if x != a) \
                or sum(m for _, m in rivals) >= n:
            continue
        table[a] = (b, n, (a, b) in proven)
    return table


def pair_through(site: _Site, table: dict[str, tuple[str, int, bool]], taken: set[int]
                 ) -> list[tuple[int, int, tuple[tuple[str, str], ...]]]:
    """1-1 pairs of URLs whose slots map through the table or are equal, sharing an
    identifier in an untranslated slot: ``(g1, g2, ((a, b), ...) translations used)``."""
    side2: dict[tuple, list[int]] = defaultdict(list)
    for g, (scheme, s, _) in site.parsed.items():
        if site.ulang[g] == site.lb and g not in taken:
            side2[scheme, s].append(g)
    side1: dict[tuple, list[tuple[int, tuple]]] = defaultdict(list)
    for g, (scheme, s, _) in site.parsed.items():
        if site.ulang[g] != site.la or g in taken:
            continue
        used = tuple((k, t, table[t][0]) for k, t in enumerate(s) if t in table)
        if not used:
            continue
        done = {k for k, _, _ in used}
        if not any(k not in done for k, _ in site.id_slots(g)):
            continue  # no identifier left to share
        out = list(s)
        for k, _, b in used:
            out[k] = b
        side1[scheme, tuple(out)].append((g, tuple((a, b) for _, a, b in used)))
    pairs = []
    for key, g1s in side1.items():
        g2s = side2.get(key)
        if g2s and len(g1s) == 1 and len(g2s) == 1:
            pairs.append((g1s[0][0], g2s[0], g1s[0][1]))
    pairs.sort()
    return pairs


def segment_pairs(urls: list[str], ulang: list[int], la: int, lb: int, taken: set[int],
                  known: Iterable[tuple[int, int]] = (), min_pairs: int = DEFAULT_MIN_SEGMENT_PAIRS,
                  purity: float = 0.8, max_name_urls: int = DEFAULT_MAX_NAME_URLS):
    """Learn the segment table of languages ``la``/``lb`` and pair through it.

    Returns ``(table, fold, pairs)``: side-1 slot -> (side-2 slot, supporting pairs, proven),
    whether paths compared case-insensitively, and ``(g1, g2, translations used)`` among the
    URLs not in ``taken``. ``known``: ``(g1, g2)`` index pairs proven by other evidence.
    """
    known = list(known)
    site = _Site(urls, ulang, la, lb, False, max_name_urls)
    fold = case_evidence(urls, ulang, la, lb, min_pairs, max_name_urls, site, known)
    if fold:
        site = _Site(urls, ulang, la, lb, True, max_name_urls)
    table = learn_table(site, known, min_pairs, purity)
    if not table:
        return table, fold, []
    # Two URLs differing by a single token (or locale run) are the paper's own candidates:
    # its competition and C(p,w) > 0.1 judged their key, and a weak key pairs nothing
    # [Zhang 2013 §2.1]. Such pairs teach the table, but it does not pair them.
    pairs = [(g1, g2, used) for g1, g2, used in pair_through(site, table, taken)
             if set(_mask_keys(urls[g1])).isdisjoint(_mask_keys(urls[g2]))]
    return table, fold, pairs
