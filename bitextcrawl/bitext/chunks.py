"""One verified pair's aligned text chunks and their sentences [Shi 2006 §4-§5]: the pair's
trees aligned (:func:`align_pair`), the chunk pairs of the alignment with the gaps between
aligned chunks repaired (:func:`chunk_pairs`), the sentence pairs inside them (Gale–Church,
:func:`pair_sentences`)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

from bitextcrawl.bitext.sentences import GC_S2, align_chunks, estimate_ratio, length_cost
from bitextcrawl.pages.template import text_key
from bitextcrawl.pages.urls import site_of
from bitextcrawl.trees.dom import ITEM_TAGS, LIST_TAGS, is_code, preorder, strip_navigation
from bitextcrawl.trees.domtree import (
    TreeAligner,
    anchors,
    build_tree,
    pair_anchor_cost,
)

# Gap repair of chunk pairs (chunk_pairs): an aligned chunk pair takes in unaligned
# sibling chunks when its text cost (length + anchors, in nats) drops by more than this.
GAP_MIN_GAIN = 0.5
# ...and unaligned runs on both sides between two aligned pairs become a chunk pair when
# their text cost is at most this (a length discrepancy of P(δ) ≈ 0.1 with no anchors).
GAP_MAX_COST = 3.0


class PageTrees:
    """Builds the document tree of a page for the bitext (``trees(html, url, lang)``):
    without its site's navigation template (:func:`trees.dom.strip_navigation`) where
    the template of the page's language is known. ``blocks``: site -> the site's
    :class:`~bitextcrawl.pages.template.TemplateBlocks` (``SiteTemplate.navigation``). Small and picklable: the pool's
    workers build trees with it."""

    def __init__(self, blocks: dict | None = None):
        self.blocks = blocks or {}

    def __call__(self, html, url: str, lang: str | None = None):
        tree = build_tree(html, url)
        blocks = self.blocks.get(site_of(url)) if lang else None
        if blocks is not None:
            marks = blocks.marks(lang, [text_key(n.text) for n in preorder(tree)
                                        if n.is_chunk])
            if marks:
                strip_navigation(tree, marks)
        return tree


def align_pair(aligner: TreeAligner, page1, page2, trees: dict, text_similarity=None,
               page_trees: PageTrees | None = None):
    """(alignment, tree 1, tree 2) of a page pair; trees from ``trees`` when there, else
    built by ``page_trees`` (the whole document where None)."""
    build = page_trees or PageTrees()
    t1 = trees.get(page1.url)
    t2 = trees.get(page2.url)
    if t1 is None:
        t1 = build(page1.html, page1.url, page1.lang)
    if t2 is None:
        t2 = build(page2.html, page2.url, page2.lang)
    return aligner.align(t1, t2, text_similarity), t1, t2


def _repaired_groups(found: list, chunks1: list, chunks2: list, min_gain: float,
                     max_cost: float) -> tuple[list, list]:
    """The anchors' chunk groups with one-sided gaps joined, and the new pairs of two-sided
    gaps as ``(gap index, (chunks 1, chunks 2))`` (see :func:`chunk_pairs`)."""
    groups = [([a[0]], [a[1]]) for a in found]
    extra: list = []   # (gap index, (chunks 1, chunks 2)): new pairs from two-sided gaps
    monotone = all(found[k][0] < found[k + 1][0] and found[k][1] < found[k + 1][1]
                   for k in range(len(found) - 1))
    if monotone:
        c = estimate_ratio([(chunks1[a].text, chunks2[b].text) for a, b, _ in found])
        var = GC_S2 * c * c

        def _shares_anchor(idx1, idx2) -> bool:
            (n1, m1) = anchors("\n".join(chunks1[i].text for i in idx1))
            (n2, m2) = anchors("\n".join(chunks2[j].text for j in idx2))
            return bool(n1 & n2 or m1 & m2)

        def fit(group) -> float:
            t1 = "\n".join(chunks1[i].text for i in group[0])
            t2 = "\n".join(chunks2[j].text for j in group[1])
            return length_cost(len(t1), len(t2), c, var) + pair_anchor_cost(t1, t2)

        bounds = [(-1, -1)] + [(a, b) for a, b, _ in found] + [(len(chunks1), len(chunks2))]
        for k in range(len(bounds) - 1):
            gap1 = list(range(bounds[k][0] + 1, bounds[k + 1][0]))
            gap2 = list(range(bounds[k][1] + 1, bounds[k + 1][1]))
            if not gap1 and not gap2:
                continue
            if gap1 and gap2:
                # Unaligned on both sides (a paragraph merged from two, neither piece close
                # enough alone): one chunk against two or three siblings, as one chunk
                # pair, if they fit as such and share a number or a name.
                if min(len(gap1), len(gap2)) == 1 and max(len(gap1), len(gap2)) <= 3 and \
                        len({id(chunks1[i].parent) for i in gap1}) == 1 and \
                        len({id(chunks2[j].parent) for j in gap2}) == 1 and \
                        _shares_anchor(gap1, gap2) and fit((gap1, gap2)) <= max_cost:
                    extra.append((k, (gap1, gap2)))
                continue
            side, gap, chunks = (0, gap1, chunks1) if gap1 else (1, gap2, chunks2)
            best = None
            for g, at_end in ((k - 1, True), (k, False)):   # anchor before / after the gap
                if not 0 <= g < len(groups):
                    continue
                members = groups[g][side]
                edge = chunks[members[-1] if at_end else members[0]]
                if any(chunks[i].parent is not edge.parent for i in gap):
                    continue
                joined = list(groups[g])
                joined[side] = members + gap if at_end else gap + members
                gain = fit(groups[g]) - fit(joined)
                if gain > min_gain and (best is None or gain > best[0]):
                    best = (gain, g, joined[side])
            if best is not None:
                groups[best[1]][side][:] = best[2]
    return groups, extra


def chunk_pairs(alignment, tree1, tree2, min_score: float = 0.5, *,
                min_gain: float = GAP_MIN_GAIN, max_cost: float = GAP_MAX_COST,
                skip_code: bool = True, skipped: Counter | None = None,
                known_links: tuple = ()) -> list:
    """Aligned text chunks (text_1, text_2, score) for sentence alignment, gaps repaired.

    The tree alignment (§4) pairs one node with one node. When a translator merged two
    paragraphs into one, or split one in two, one of the two is left unaligned: its
    sentences are lost, and the aligned chunk pair holds sentences with no counterpart,
    which Gale–Church may pair wrongly. Departure from the paper, to recover them: the
    aligned chunk pairs (posterior ≥ ``min_score``) are anchors in document order; where
    the unaligned chunks between two anchors are on one side only and are siblings of
    an anchor's chunk on that side, they are joined to that anchor (before or after it)
    if that makes the anchor's text fit better by more than ``min_gain`` nats under the
    aligner's own text model: Gale–Church length cost (ratio estimated on the page
    pair's chunks) plus shared numbers and names. A split-off piece brings the lengths
    closer and the names and numbers the other side was missing; a paragraph only one
    version has brings neither, and stays out. Where one chunk on one side and two or
    three sibling chunks on the other are all unaligned between two anchors (neither
    piece of a merged paragraph was close enough alone), they become one chunk pair if
    their text cost is at most ``max_cost`` and they share a number or a name; its score
    is ``min_score``. Lines are kept apart (a chunk's sentences are split as before).
    ``bench/bench_bitext.py`` measures the effect.

    With ``skip_code``, a pair one of whose sides is code only (:func:`dom.is_code`:
    commands, configuration, markup samples) is left out: code is not translated text,
    fastText cannot tell its language, and its translated placeholders
    (``path/to/file`` / ``chemin/vers/fichier``) are no sentence pair. The code still
    anchors the tree alignment. ``skipped["code"]`` counts the pairs left out.

    ``known_links``: ``(URL on page 1, URL on page 2)`` of the links the two pages have to
    a known page pair (:func:`reordered_lists`): the items of a list that the two pages
    order differently are paired by what they link to and say, not by the tree
    alignment; their chunk pairs come after the others.
    """
    listed = reordered_lists(tree1, tree2, known_links, skipped,
                             aligned=_aligned_chunks(alignment, min_score)) \
        if known_links else None
    chunks1 = [n for n in preorder(tree1) if n.is_chunk]
    chunks2 = [n for n in preorder(tree2) if n.is_chunk]
    if listed:
        chunks1 = [n for n in chunks1 if id(n) not in listed.inside1]
        chunks2 = [n for n in chunks2 if id(n) not in listed.inside2]
    pos1 = {id(n): i for i, n in enumerate(chunks1)}
    pos2 = {id(n): i for i, n in enumerate(chunks2)}
    found = [[pos1[id(u)], pos2[id(v)], score] for u, v, score in alignment.node_pairs
             if u.is_chunk and v.is_chunk and score >= min_score
             and id(u) in pos1 and id(v) in pos2]
    groups, extra = (_repaired_groups(found, chunks1, chunks2, min_gain, max_cost)
                     if found else ([], []))
    # In document order: the new pair of gap k goes before anchor k.
    ordered = [(k - 0.5, g, min_score) for k, g in extra]
    ordered += [(k, g, a[2]) for k, (g, a) in enumerate(zip(groups, found))]
    ordered.sort(key=lambda x: x[0])
    nodes = [([chunks1[i] for i in idx1], [chunks2[j] for j in idx2], score)
             for _, (idx1, idx2), score in ordered]
    if listed:
        nodes += listed.pairs
    out = []
    for side1, side2, score in nodes:
        if skip_code and (all(is_code(n) for n in side1) or all(is_code(n) for n in side2)):
            if skipped is not None:
                skipped["code"] += 1
            continue
        out.append(("\n".join(n.text for n in side1), "\n".join(n.text for n in side2),
                    score))
    return out


# Reordered lists (reordered_lists): the evidence an item pair's link to a known page pair
# counts for, against one shared number or name.
LINK_EVIDENCE = 2.0
# An item pair's chunk score from its evidence e: e / (e + ITEM_SCORE_HALF), 0.8 for one
# link to a known pair, 0.67 for one shared name alone.
ITEM_SCORE_HALF = 0.5


class ListPairs:
    """What :func:`reordered_lists` found: the chunks inside the matched lists on each
    side (``inside1``, ``inside2``: ids of chunk nodes, left out of the tree's chunk
    pairs) and the item pairs' chunk pairs ``(chunks 1, chunks 2, score)``."""

    __slots__ = ("inside1", "inside2", "pairs")

    def __init__(self):
        self.inside1: set = set()
        self.inside2: set = set()
        self.pairs: list = []

    def __bool__(self) -> bool:
        return bool(self.inside1 or self.inside2)


def _link_keys(tree, urls: dict) -> dict:
    """id(node) -> the known link pairs (indices) in the node's subtree, for the nodes
    that have one: each link to a known page is walked up to the root once (links
    only, not every node)."""
    keys: dict[int, set] = {}
    for node in preorder(tree):
        found = urls.get(node.href) if node.href else None
        if found is None:
            continue
        up = node
        while up is not None:
            keys.setdefault(id(up), set()).update(found)
            up = up.parent
    return keys


def _items(node, keys: dict) -> list:
    """A list's items (``trees.dom.LIST_TAGS``, ``ITEM_TAGS``: a layout's nested blocks
    are no list): its block children of the tag most of those that link a known page
    have (the first such tag among equals), or [] where fewer than two of them link one
    (not a list identified by its links)."""
    if node.tag not in LIST_TAGS:
        return []
    linked = [c for c in node.children if not c.inline and id(c) in keys
              and c.tag in ITEM_TAGS]
    if len(linked) < 2:
        return []
    tags = Counter(c.tag for c in linked)
    tag = max(tags, key=lambda t: (tags[t], -next(i for i, c in enumerate(linked)
                                                     if c.tag == t)))
    if tags[tag] < 2:
        return []
    return [c for c in node.children if not c.inline and c.tag == tag]


def _item_chunks(item) -> list:
    return [n for n in item.iter() if n.is_chunk]


def _item_anchors(item) -> set:
    """The numbers and names of an item's text (:func:`anchors`), told apart."""
    nums, names = anchors("\n".join(n.text for n in _item_chunks(item)))
    return {("#", w) for w in nums} | {("@", w) for w in names}


def _shared_matrix(sets1: list, sets2: list) -> np.ndarray:
    """``out[i, j]``: how many elements ``sets1[i]`` and ``sets2[j]`` share, walked by
    element (not by pair of items: a list of a few hundred items)."""
    where: dict = {}
    for j, got in enumerate(sets2):
        for w in got:
            where.setdefault(w, []).append(j)
    out = np.zeros((len(sets1), len(sets2)))
    for i, got in enumerate(sets1):
        for w in got:
            js = where.get(w)
            if js is not None:
                out[i, js] += 1.0
    return out


def _aligned_chunks(alignment, min_score: float) -> set:
    """``(id(chunk 1), id(chunk 2))`` of the chunk pairs the tree alignment keeps."""
    return {(id(u), id(v)) for u, v, score in alignment.node_pairs
            if score >= min_score and u.is_chunk and v.is_chunk}


def _alignment_agrees(linked: list, items1: list, items2: list, aligned: set) -> bool:
    """Every item pair ``(i, j)`` of ``linked`` (matched by their links) has a chunk
    pair the tree alignment kept."""
    for i, j in linked:
        side2 = {id(n) for n in _item_chunks(items2[j])}
        if not any((id(a), b) in aligned for a in _item_chunks(items1[i]) for b in side2):
            return False
    return True


def reordered_lists(tree1, tree2, known_links: tuple, skipped: Counter | None = None,
                    aligned: set | None = None) -> ListPairs:
    """The lists the two pages order differently, their items paired as a set.

    Departure from [Shi 2006 §4.1], whose alignment keeps sibling order: a tag's index or
    a glossary lists its entries in each language's own alphabetical order, and the tree
    alignment pairs such a list position by position, almost every pair wrong. A list
    item that links a page whose translation is known is identified across languages by
    that link: ``known_links`` holds ``(URL on page 1, URL on page 2)`` where the two
    URLs are a known page pair. A list is a node of tree 1 with at least two block
    children linking known pages; its counterpart, the node of tree 2 whose items share
    the most of those link pairs. Items are matched by an assignment (Hungarian method,
    ``scipy.optimize.linear_sum_assignment``) on their evidence: ``LINK_EVIDENCE`` per
    known link pair they share, plus their shared numbers and names (codes, Latin terms
    in another script). Where the link-matched items keep their order on both sides the
    list is left to the tree alignment, unless ``aligned`` (the chunk pairs the tree
    alignment kept, ``(id(chunk 1), id(chunk 2))``) pairs an item with another than the
    one its links name: a list one language has with items missing (entries left
    untranslated) keeps its order, and an alignment by position shifts its items past
    each gap. Otherwise each matched item pair with
    evidence gives its chunks as chunk pairs (one to one where the items have as many,
    else joined), scored ``e / (e + ITEM_SCORE_HALF)``, and items without evidence give
    none: their position says nothing in a list whose order differs. ``skipped``
    counts ``reordered_lists`` and ``list_items_unmatched``.
    """
    out = ListPairs()
    urls1: dict[str, set] = {}
    urls2: dict[str, set] = {}
    for k, (a, b) in enumerate(known_links):
        urls1.setdefault(a, set()).add(k)
        urls2.setdefault(b, set()).add(k)
    keys1, keys2 = _link_keys(tree1, urls1), _link_keys(tree2, urls2)
    if not keys1 or not keys2:
        return out
    # tree 2's lists, by the link pairs their items hold
    lists2: dict[int, object] = {}
    owner2: dict[int, list] = {}
    for node in preorder(tree2):
        if id(node) in keys2 and _items(node, keys2):
            lists2[id(node)] = node
            for k in keys2[id(node)]:
                owner2.setdefault(k, []).append(id(node))
    done1: set = set()
    done2: set = set()
    for u in preorder(tree1):
        if id(u) not in keys1 or id(u) in done1:
            continue
        items1 = _items(u, keys1)
        if not items1:
            continue
        votes: Counter = Counter()
        for k in keys1[id(u)]:
            votes.update(owner2.get(k, ()))
        # the list of tree 2 sharing the most link pairs; the first in document order
        # among equals
        cands = [i for i in lists2 if votes.get(i) and i not in done2]
        if not cands:
            continue
        v = lists2[max(cands, key=lambda i: (votes[i], -cands.index(i)))]
        items2 = _items(v, keys2)
        links = _shared_matrix([keys1.get(id(c), ()) for c in items1],
                               [keys2.get(id(c), ()) for c in items2])
        if not links.any():
            continue
        rows, cols = linear_sum_assignment(links, maximize=True)
        linked = [(int(r), int(c)) for r, c in zip(rows, cols) if links[r, c] > 0]
        if all(a[1] < b[1] for a, b in zip(linked, linked[1:])) and (
                aligned is None or _alignment_agrees(linked, items1, items2, aligned)):
            continue      # the same order on both sides, and aligned so: the tree's
        evidence = links * LINK_EVIDENCE
        evidence += _shared_matrix([_item_anchors(c) for c in items1],
                                   [_item_anchors(c) for c in items2])
        rows, cols = linear_sum_assignment(evidence, maximize=True)
        for c in items1:
            out.inside1.update(id(n) for n in _item_chunks(c))
            done1.update(id(n) for n in c.iter())
        for c in items2:
            out.inside2.update(id(n) for n in _item_chunks(c))
            done2.update(id(n) for n in c.iter())
        done2.add(id(v))
        matched = 0
        for i, j in zip(rows.tolist(), cols.tolist()):
            e = float(evidence[i, j])
            if e <= 0:
                continue
            side1, side2 = _item_chunks(items1[i]), _item_chunks(items2[j])
            if not side1 or not side2:
                continue
            matched += 1
            score = e / (e + ITEM_SCORE_HALF)
            if len(side1) == len(side2):
                out.pairs.extend(([a], [b], score) for a, b in zip(side1, side2))
            else:
                out.pairs.append((side1, side2, score))
        if skipped is not None:
            skipped["reordered_lists"] += 1
            skipped["list_items_unmatched"] += len(items1) - matched
    return out


def pair_sentences(alignment, tree1, tree2, lang_1: str, lang_2: str,
                   min_score: float = 0.5, skipped: Counter | None = None,
                   known_links: tuple = ()) -> list[tuple[str, str, float]]:
    """Sentence pairs of an aligned page pair (§5): Gale–Church inside each chunk pair
    (code left out, counted in ``skipped``; lists ordered differently paired by their
    ``known_links``: :func:`chunk_pairs`)."""
    return align_chunks(chunk_pairs(alignment, tree1, tree2, min_score, skipped=skipped,
                                    known_links=known_links), lang_1, lang_2)
