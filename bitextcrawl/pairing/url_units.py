"""Marker units (see :mod:`.url_patterns`, "marker units" below): language markers on one
side only, glued to a word, or in two places at once, found by an inverted index of URLs
with their own language's markers deleted; and the ``slug_id`` rule (translated slugs that
share ids). Used by :class:`.url_patterns.UrlPatternLearner`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from operator import itemgetter
from typing import Iterable

from bitextcrawl.pages.urls import site_of
from bitextcrawl.pairing.url_tokens import (
    _SPLIT,
    _URL_PARTS,
    ID_MARKER,
    SEGMENT_ID,
    SEPARATORS,
    SLUG_ID,
    TOKEN,
    _cross_language_groups,
    _mask_keys,
)

# ----------------------------------------------------------------------------- marker units
#
# [Zhang 2013 §2.1] pairs URLs differing by one token on both sides. Real sites also use a marker
# on one side only (/about.html ↔ /about_fr.html, /x ↔ /fr/x, ?id=7 ↔ ?id=7&lang=fr), a
# marker glued to a word (history.htm ↔ historyf.htm) and two differences at once
# (/en/guide_e.html ↔ /fr/guide_f.html). The generalisation (a departure, for those schemes):
# a *unit* is a removable piece of a URL at a *slot* (a host label, a path segment, the last
# token(s) of a segment with their separator, the first token of a segment, 1-2 letters glued
# to the end of the file name's stem, a query parameter). A unit is a *marker* of language L
# on a site when at least ``min_marker_pairs`` URLs of L carry it and ``marker_purity`` of the
# labelled URLs carrying it are in L (as for id_marker: a recurring, language-consistent
# piece). Each URL is indexed by itself with 0, 1 or 2 of its own language's markers deleted
# (an inverted index, a bounded number of keys per URL: linear); URLs of two languages sharing
# a key differ by those markers only. The candidate pattern is (markers deleted on side 1,
# markers deleted on side 2), which then competes with the token patterns, with the same
# N(p,w), C(p,w) and threshold. The two sides may be one marker at one slot each (the token
# index's case, skipped here), nothing against a marker (one-sided), or two places.

ONE_SIDED = "one_sided"
GLUED = "glued"
TWO_PLACE = "two_place"
#: Pattern kinds of the marker-unit index (see above).
UNIT_KINDS = (ONE_SIDED, GLUED, TWO_PLACE)
#: All pattern kinds, in the order reports list them.
KINDS = (TOKEN, ONE_SIDED, GLUED, TWO_PLACE, ID_MARKER, SLUG_ID, SEGMENT_ID)
# At most this many of a URL's markers are considered (the strongest): keys per URL stay
# bounded (1 + 4 + 6).
_MAX_MARKERS = 4
# A unit whose tokens have at most this many characters is code-like (fr, eng, e, zh_TW, 1).
_CODE_LEN = 3
_EXT = re.compile(r"[A-Za-z][A-Za-z0-9]{0,4}")


def _parse(url: str):
    """[head, host labels | None, path segments, query params | None] of a URL."""
    m = _URL_PARTS.match(url)
    head = (m.group(1) or "") + ("//" if m.group(2) is not None else "")
    host = m.group(2)[2:].split(".") if m.group(2) is not None else None
    query = m.group(4)
    return [head, host, m.group(3).split("/"),
            query.split("&") if query is not None else None, url[m.end():]]


def _copy(p) -> list:
    return [p[0], None if p[1] is None else list(p[1]), list(p[2]),
            None if p[3] is None else list(p[3]), p[4]]


def _unparse(p) -> str:
    head, host, segs, params, tail = p
    path = "/".join(segs)
    if host is not None and path and not path.startswith("/"):
        path = "/" + path
    out = head + (".".join(host) if host is not None else "") + path
    if params:
        out += "?" + "&".join(params)
    return out + tail


def _stem_index(toks: list[str]) -> int:
    """Index (in the token/separator list) of a file name's stem token (before a short
    extension), else of its last token."""
    n = len(toks)
    if n >= 3 and toks[n - 2] == "." and _EXT.fullmatch(toks[n - 1]):
        return n - 3
    return n - 1


def _url_parts(url: str, memo: dict) -> tuple:
    """(parsed URL, its units, its mask keys), made once per URL in ``memo``: an online
    learner re-fits on the same URLs and a few more, and these were half of a fit.
    Callers copy a parsed URL before changing it."""
    got = memo.get(url)
    if got is None:
        p = _parse(url)
        got = memo[url] = (p, _units(p), _mask_keys(url))
    return got


def _units(p) -> list[tuple[tuple, str]]:
    """The removable units of a parsed URL: (slot, text); the slot says where the unit sits
    (so that it can be deleted and inserted again), the text what it is."""
    _, host, segs, params, _ = p
    out: list[tuple[tuple, str]] = []
    if host is not None and len(host) >= 3 and host[0]:
        out.append((("host",), host[0] + "."))
    nseg = len(segs)
    for i in range(1, nseg):
        s = segs[i]
        if not s:
            continue
        neg = i - nseg
        if "." not in s or i < nseg - 1:
            out.append((("seg", i - 1), s + "/"))
        toks = _SPLIT.split(s)
        n = len(toks)
        if n >= 3:
            last = _stem_index(toks) if i == nseg - 1 else n - 1
            if toks[0] and last > 0:
                out.append((("tok0", neg), toks[0] + toks[1]))
            for t in (last, last - 2):
                if t >= 2 and toks[t]:
                    out.append((("tok", neg, (n - 1 - t) // 2), toks[t - 1] + toks[t]))
        if i == nseg - 1:  # glued to the file name's stem: history|f.htm, 2019|e.pdf
            t = _stem_index(toks)
            st = toks[t]
            for k in (1, 2):
                suf = st[-k:]
                if len(st) - k >= 3 and suf.isalpha() and suf.islower():
                    out.append((("glued", neg, (n - 1 - t) // 2), suf))
    if params:
        for j, prm in enumerate(params):
            if prm:
                out.append((("q", j), prm))
    return out


def _delete(p, slot: tuple, text: str) -> bool:
    """Delete the unit ``text`` at ``slot`` from parsed URL ``p`` (in place); False if absent."""
    kind = slot[0]
    if kind == "host":
        if p[1] is None or len(p[1]) < 2 or p[1][0] + "." != text:
            return False
        del p[1][0]
        return True
    if kind == "q":
        params = p[3]
        j = slot[1]
        if not params or j >= len(params) or params[j] != text:
            return False
        del params[j]
        if not params:
            p[3] = None
        return True
    segs = p[2]
    if kind == "seg":
        i = slot[1] + 1
        if i >= len(segs) or segs[i] + "/" != text:
            return False
        del segs[i]
        if len(segs) == 1 and p[1] is not None:
            segs.append("")
        return True
    i = slot[1] + len(segs)
    if i < 1 or i >= len(segs):
        return False
    toks = _SPLIT.split(segs[i])
    n = len(toks)
    if kind == "tok0":
        if n < 3 or toks[0] + toks[1] != text:
            return False
        segs[i] = "".join(toks[2:])
        return True
    t = n - 1 - 2 * slot[2]
    if kind == "tok":
        if t < 2 or toks[t - 1] + toks[t] != text:
            return False
        del toks[t - 1:t + 1]
    elif kind == "glued":
        if t < 0 or len(toks[t]) - len(text) < 3 or not toks[t].endswith(text):
            return False
        toks[t] = toks[t][:-len(text)]
    else:
        return False
    segs[i] = "".join(toks)
    return True


def _insert(p, slot: tuple, text: str) -> bool:
    """Insert the unit ``text`` at ``slot`` into parsed URL ``p`` (in place); False if no place."""
    kind = slot[0]
    if kind == "host":
        if p[1] is None:
            return False
        p[1].insert(0, text[:-1])
        return True
    if kind == "q":
        if p[3] is None:
            p[3] = []
        p[3].insert(min(slot[1], len(p[3])), text)
        return True
    segs = p[2]
    if kind == "seg":
        i = slot[1] + 1
        if i > len(segs) or (i == len(segs) and p[1] is not None and len(segs) > 1):
            return False
        segs.insert(i, text[:-1])
        if len(segs) == 2 and p[1] is not None:  # "http://h" + seg -> "http://h/fr/"
            segs.append("")
        return True
    i = slot[1] + len(segs)
    if i < 1 or i >= len(segs) or not segs[i]:
        return False
    toks = _SPLIT.split(segs[i])
    if kind == "tok0":
        segs[i] = text + segs[i]
        return True
    t = len(toks) - 1 - 2 * slot[2]  # the token the unit goes after
    if t < 0:
        return False
    if kind == "tok":
        toks.insert(t + 1, text)
    elif kind == "glued":
        toks[t] += text
    else:
        return False
    segs[i] = "".join(toks)
    return True


def _slot_str(slot: tuple) -> str:
    return ":".join(str(x) for x in slot)


def _slot_of(s: str) -> tuple:
    parts = s.split(":")
    return (parts[0], *(int(x) for x in parts[1:]))


def _unit_kind(side1: tuple, side2: tuple) -> str | None:
    """Kind of a marker-unit pattern (units: ((slot, text), ...)), None for the token index's."""
    if len(side1) == 1 and len(side2) == 1 and side1[0][0] == side2[0][0] \
            and side1[0][0][0] != "glued":
        return None  # one unit at the same slot on each side: a single-token difference
    if any(s[0] == "glued" for s, _ in side1 + side2):
        return GLUED
    if not side1 or not side2:
        return ONE_SIDED
    return TWO_PLACE


def _unit_context(side1: tuple, side2: tuple) -> tuple[str, str, str, str]:
    """A unit pattern's context, in the 4-string format of a token pattern's (JSON-able)."""
    return ("units", "+".join(_slot_str(s) for s, _ in side1),
            "+".join(_slot_str(s) for s, _ in side2), "")


def _code_like(text: str) -> str | None:
    """The unit's core, lowercased, if it looks like a language code (each token of at most
    ``_CODE_LEN`` characters: ``fr``, ``e``, ``zh_TW``, ``1``; of a query parameter, the value),
    else None."""
    core = text.split("=", 1)[1] if "=" in text else text
    toks = [t for t in _SPLIT.split(core)[::2] if t]
    if toks and all(len(t) <= _CODE_LEN for t in toks):
        return core.strip(SEPARATORS).lower()
    return None


def _unit_index(urls: list[str], ulang: list[int], parsed: list, marker_of) -> dict[str, list]:
    """The inverted index of :func:`_unit_candidates`: each URL under itself, and under
    itself with one or two of its (at most ``_MAX_MARKERS`` strongest) markers deleted:
    ``key -> [(lang_i, url index, deleted (slot, text) units), ...]``."""
    index: dict[str, list] = {}
    for g, item in enumerate(parsed):
        if item is None:
            continue
        p, us = item
        li = ulang[g]
        marks = []
        for slot, text in us:
            n = marker_of(slot, text, li)
            if n:
                marks.append((n, slot, text))
        marks.sort(key=lambda m: -m[0])
        marks = [(s, t) for _, s, t in marks[:_MAX_MARKERS]]
        subsets: list[tuple] = [()]
        subsets += [(m,) for m in marks]
        subsets += [(a, b) for k, a in enumerate(marks) for b in marks[k + 1:]]
        for sub in subsets:
            if sub:
                q = _copy(p)
                # delete right to left so that the slots of the others still hold
                ok = all(_delete(q, s, t) for s, t in sorted(sub, key=_slot_order, reverse=True))
                if not ok:
                    continue
                key = _unparse(q)
            else:
                key = urls[g]
            index.setdefault(key, []).append((li, g, tuple(sorted(sub, key=_slot_order))))
    return index


def _unit_candidates(urls: list[str], ulang: list[int], max_bucket: int, purity: float,
                     min_count: int, names: dict[str, str] | None = None,
                     langs: tuple = (), parts: dict | None = None
                     ) -> tuple[dict[tuple, list], dict[tuple, tuple]]:
    """Marker-unit candidate pairs (see the section comment), by an inverted index.

    Departure (precision): a side's units must include a language marker, i.e. a code-like
    unit (:func:`_code_like`) or a word that ``names`` (the site's tokens naming a language,
    learned from identified pages) gives to that side's language. Recurring translated words
    (``archive/list-3`` ↔ ``archives/liste-3``) are no language marker: such pages are left to
    the content stages, as translated slugs are.

    Returns (``(lang_i, text_i, lang_j, text_j, kind) -> [(url_i, url_j, context), ...]``,
    ``key -> (unit texts of side 1, unit texts of side 2)``).
    """
    parsed: list = [None] * len(urls)
    counts: dict[tuple, Counter] = defaultdict(Counter)
    for g, url in enumerate(urls):
        li = ulang[g]
        if li < 0:
            continue
        if parts is None:
            p = _parse(url)
            us = _units(p)
        else:
            p, us, _ = _url_parts(url, parts)
        parsed[g] = (p, us)
        for slot, text in us:
            counts[slot[0], text][li] += 1

    names = {k.lower(): v for k, v in (names or {}).items()}

    def marker_of(slot, text, li) -> int:
        c = counts[slot[0], text]
        n = c[li]
        return n if n >= min_count and n >= purity * sum(c.values()) else 0

    def names_language(side, li) -> bool:
        return not side or any(
            _code_like(t) is not None
            or (li < len(langs) and names.get(t.strip(SEPARATORS).lower()) == langs[li])
            for _, t in side)

    index = _unit_index(urls, ulang, parsed, marker_of)
    cands: dict[tuple, list] = defaultdict(list)
    units: dict[tuple, tuple] = {}
    seen: set = set()
    for bucket in index.values():
        if len(bucket) < 2:
            continue
        for la, lb, e1s, e2s in _cross_language_groups(bucket, itemgetter(0), max_bucket):
            for _, g1, s1 in e1s:
                for _, g2, s2 in e2s:
                    kind = _unit_kind(s1, s2)
                    if kind is None or (g1, g2, s1, s2) in seen or not (
                            names_language(s1, la) and names_language(s2, lb)):
                        continue
                    seen.add((g1, g2, s1, s2))
                    t1 = tuple(t for _, t in s1)
                    t2 = tuple(t for _, t in s2)
                    key = (la, "+".join(t1), lb, "+".join(t2), kind)
                    units[key] = (t1, t2)
                    cands[key].append((g1, g2, _unit_context(s1, s2)))
    return cands, units


_SLOT_RANK = {"host": 0, "seg": 1, "tok0": 2, "tok": 3, "glued": 4, "q": 5}


def _slot_order(unit) -> tuple:
    slot = unit[0]
    return (_SLOT_RANK[slot[0]], slot[1:] if slot[0] != "tok" else (slot[1], -slot[2]))


class _UnitApplier:
    """Rewrites a URL by a marker-unit pattern: deletes one side's units, inserts the other's
    at their slots (deep page recovery, [Zhang 2013 §2.2], for the generalised patterns)."""

    def __init__(self, from_units: tuple, to_units: tuple,
                 contexts: Iterable[tuple[str, str, str, str]], reverse: bool = False):
        self.rules = []
        for ctx in contexts:
            s1 = [_slot_of(x) for x in ctx[1].split("+")] if ctx[1] else []
            s2 = [_slot_of(x) for x in ctx[2].split("+")] if ctx[2] else []
            if reverse:
                s1, s2 = s2, s1
            if len(s1) != len(from_units) or len(s2) != len(to_units):
                continue
            self.rules.append((sorted(zip(s1, from_units), key=_slot_order, reverse=True),
                               sorted(zip(s2, to_units), key=_slot_order)))

    def matches(self, url: str) -> bool:
        """Does the URL carry this side's units (a side without units matches any URL)?"""
        return bool(self.apply(url))

    def apply(self, url: str) -> list[str]:
        out = []
        for dels, ins in self.rules:
            p = _parse(url)
            if any(_insert_conflict(p, s, t) for s, t in ins):
                continue  # it carries the other side's marker already
            if all(_delete(p, s, t) for s, t in dels) and all(_insert(p, s, t) for s, t in ins):
                cand = _unparse(p)
                if cand != url and cand not in out:
                    out.append(cand)
        return out


def _insert_conflict(p, slot: tuple, text: str) -> bool:
    """Does the URL carry ``text`` at ``slot`` already (inserting it again would double it)?"""
    return _delete(_copy(p), slot, text)


def _majority_site(urls: list[str], sample: int = 50) -> str:
    # site_of is costly (public-suffix lookup): a sample decides.
    if not urls:
        return ""
    step = max(1, len(urls) // sample)
    return Counter(site_of(u) for u in urls[::step]).most_common(1)[0][0]



def _id_signature(url: str) -> tuple | None:
    """(scheme+host, path depth, ((segment, id), ...)), or None without ids in path/query.

    An id is a whole token of digits (``42`` in ``42-harbour-opens``, ``id=42``); digits inside
    a word (``item5``, ``wcag21``) are names, not ids.
    """
    scheme, host, path, query = _URL_PARTS.match(url).groups()
    segments = path.split("/")
    ids = tuple((i, t) for i, seg in enumerate(segments) for t in _SPLIT.split(seg)[::2]
                if t.isdigit())
    if query:
        ids += tuple(("?", t) for t in _SPLIT.split(query)[::2] if t.isdigit())
    if not ids:
        return None
    return (scheme, host, len(segments), ids)


def _slug_marker(u: str, v: str) -> tuple[str, str] | None:
    """The language marker of two URLs with translated slugs: the first token where they
    differ, from the start or else from the end, when both are code-like (``en``/``fr``)."""
    a, b = _SPLIT.split(u)[::2], _SPLIT.split(v)[::2]
    for aligned in (zip(a, b), zip(reversed(a), reversed(b))):
        for ta, tb in aligned:
            if ta != tb:
                if 0 < len(ta) <= _CODE_LEN and 0 < len(tb) <= _CODE_LEN:
                    return ta, tb
                break
    return None


def _slug_candidates(urls: list[str], ulang: list[int]) -> dict[tuple, list]:
    """Translated slugs sharing ids, found without a base pattern (the ``slug_id`` rule).

    Inverted index keyed by the id signature (host, path depth, ids with their segment, in
    the path or the query): a key carried by exactly one URL of each of two languages is a
    candidate when the two URLs also differ by a code-like language marker (``/en/`` ↔
    ``/fr/``, ``lang=en`` ↔ ``lang=fr``), which is the pattern's identity. Departure (the
    paper needs one differing token): it lets ``/en/news/12/green-energy`` ↔
    ``/fr/nouvelles/12/energie-verte`` pair on a site where every slug is translated; the
    marker requirement keeps per-language id spaces (French 12 ≠ English 12) from pairing
    unless a marker recurs, and these candidates compete after every other kind.
    """
    index: dict[tuple, list] = defaultdict(list)
    for g, url in enumerate(urls):
        if ulang[g] >= 0:
            sig = _id_signature(url)
            if sig is not None:
                index[sig].append(g)
    cands: dict[tuple, list] = defaultdict(list)
    for bucket in index.values():
        if len(bucket) < 2:
            continue
        by_lang: dict[int, list[int]] = defaultdict(list)
        for g in bucket:
            by_lang[ulang[g]].append(g)
        present = sorted(by_lang)
        for k, la in enumerate(present):
            for lb in present[k + 1:]:
                if len(by_lang[la]) == 1 and len(by_lang[lb]) == 1:
                    g1, g2 = by_lang[la][0], by_lang[lb][0]
                    m = _slug_marker(urls[g1], urls[g2])
                    if m is not None:
                        cands[(la, m[0], lb, m[1], SLUG_ID)].append(
                            (g1, g2, (SLUG_ID, "", "", "")))
    return cands
