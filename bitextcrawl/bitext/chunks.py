"""One verified pair's aligned text chunks and their sentences [Shi 2006 §4-§5]: the pair's
trees aligned (:func:`align_pair`), the chunk pairs of the alignment with the gaps between
aligned chunks repaired (:func:`chunk_pairs`), the sentence pairs inside them (Gale–Church,
:func:`pair_sentences`)."""

from __future__ import annotations

from collections import Counter

from bitextcrawl.bitext.sentences import GC_S2, align_chunks, estimate_ratio, length_cost
from bitextcrawl.pages.template import text_key
from bitextcrawl.pages.urls import site_of
from bitextcrawl.trees.dom import is_code, preorder, strip_navigation
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
                skip_code: bool = True, skipped: Counter | None = None) -> list:
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
    """
    chunks1 = [n for n in preorder(tree1) if n.is_chunk]
    chunks2 = [n for n in preorder(tree2) if n.is_chunk]
    pos1 = {id(n): i for i, n in enumerate(chunks1)}
    pos2 = {id(n): i for i, n in enumerate(chunks2)}
    found = [[pos1[id(u)], pos2[id(v)], score] for u, v, score in alignment.node_pairs
             if u.is_chunk and v.is_chunk and score >= min_score
             and id(u) in pos1 and id(v) in pos2]
    if not found:
        return []
    groups, extra = _repaired_groups(found, chunks1, chunks2, min_gain, max_cost)
    # In document order: the new pair of gap k goes before anchor k.
    ordered = [(k - 0.5, g, min_score) for k, g in extra]
    ordered += [(k, g, a[2]) for k, (g, a) in enumerate(zip(groups, found))]
    ordered.sort(key=lambda x: x[0])
    out = []
    for _, (idx1, idx2), score in ordered:
        if skip_code and (all(is_code(chunks1[i]) for i in idx1)
                          or all(is_code(chunks2[j]) for j in idx2)):
            if skipped is not None:
                skipped["code"] += 1
            continue
        out.append(("\n".join(chunks1[i].text for i in idx1),
                    "\n".join(chunks2[j].text for j in idx2), score))
    return out


def pair_sentences(alignment, tree1, tree2, lang_1: str, lang_2: str,
                   min_score: float = 0.5, skipped: Counter | None = None
                   ) -> list[tuple[str, str, float]]:
    """Sentence pairs of an aligned page pair (§5): Gale–Church inside each chunk pair
    (code left out, counted in ``skipped``: :func:`chunk_pairs`)."""
    return align_chunks(chunk_pairs(alignment, tree1, tree2, min_score, skipped=skipped),
                        lang_1, lang_2)
