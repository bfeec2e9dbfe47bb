"""Parallel hyperlinks: links aligned to each other in a verified page pair [Shi 2006 §3].

Shi et al.'s mining scheme is iterative: for each verified pair of parallel pages, the
DOM tree alignment (§4) pairs text chunks *and hyperlinks* (step 3); "for each pair of
parallel hyperlinks, the corresponding pair of web pages is downloaded, and then goes to
Step 2 for parallelism verification" (step 5), until no new parallel hyperlinks are found.
Parallel pages share structure, and their aligned links lead to parallel pages: the
menu of an English page and the menu of its French translation point at translations
of each other, item by item, and so do lists of related articles, breadcrumbs, pagers.

This module holds the pure part (no Scrapy): which link pairs of an alignment are
proposals, the verification of a proposed pair (step 2), and
:func:`parallel_link_pairs`, the proposals made by a set of verified pairs, with their
counts (how many verified pairs proposed each), for the closing alignment's evidence.
The crawl-time loop (steps 3 → 5 → 2 while crawling) is
:class:`bitextcrawl.pipelines.parallel_links.ParallelLinkPipeline`; what it does to one
pair, from the pair's pages, is :func:`round_pair` (a pool worker's job).

Verification (step 2). The paper verifies with a maximum-entropy classifier trained on
1,000 hand-labelled pairs (file length ratio, HTML tag similarity, sentence alignment
score). With no labelled pairs, a proposed pair is accepted when the tree alignment
itself is good — ``VERIFY_MIN_ALIGNED`` of the two pages' chunk text is in aligned
chunk pairs (posterior ≥ the aligner's ``min_score``) — and the pages share their
language-independent anchors (numbers, codes, names: cosine ≥ ``VERIFY_MIN_ANCHORS``;
pages without any anchor pass on the first test alone). On generated sites, translated
pairs score 0.90–0.99 aligned and ≥ 0.70 anchors; pages of the same template that are
not translations score up to 0.96 aligned (index pages of two sections) but ≤ 0.45
anchors. The closing pipeline still decides every pair on all its evidence: a wrong
verification costs downloads, not precision.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, deque
from typing import Iterable

from bitextcrawl.pages.tokens import anchor_tokens
from bitextcrawl.trees.dom import TreeCache, preorder
from bitextcrawl.trees.domtree import (
    Alignment,
    Node,
    TreeAligner,
    build_tree,
    e_step_counts,
    fit_aligner,
)

logger = logging.getLogger(__name__)

PARALLEL_LINK_SOURCE = "parallel_link"
VERIFY_MIN_ALIGNED = 0.6
VERIFY_MIN_ANCHORS = 0.5
# Pairs whose alignment trains the aligner (as trees.domtree.fit_aligner's).
TRAINING_PAIRS = 25


def link_proposals(alignment: Alignment, url_1: str, url_2: str) -> list[tuple[str, str]]:
    """Candidate pairs (href_1, href_2) from the aligned hyperlinks of pages url_1 / url_2.

    Left out: identical targets (a link to the same page is no pair: a shared logo or a
    third-language page), the pair itself (self links), and pairs pointing back at the
    other page of the pair (the language toggles, aligned with each other, give the
    reversed pair (url_2, url_1)). Document order, no duplicates.
    """
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for h1, h2 in alignment.link_pairs:
        if h1 == h2 or h1 == url_2 or h2 == url_1 or (h1, h2) == (url_1, url_2):
            continue
        if (h1, h2) not in seen:
            seen.add((h1, h2))
            out.append((h1, h2))
    return out


def _chunk_chars(tree: Node) -> int:
    return sum(len(n.text) for n in tree.iter() if n.is_chunk)


def aligned_share(alignment: Alignment, tree1: Node, tree2: Node) -> float:
    """Share of the two pages' chunk text (characters) in aligned chunk pairs, 0..1."""
    total = _chunk_chars(tree1) + _chunk_chars(tree2)
    if total == 0:
        return 0.0
    aligned = sum(len(a) + len(b) for a, b, _ in alignment.text_pairs)
    return min(1.0, aligned / total)


def anchor_similarity(text1: str, text2: str) -> float | None:
    """Cosine of the anchor-token sets (numbers, codes, names); None if both have none."""
    a, b = set(anchor_tokens(text1 or "")), set(anchor_tokens(text2 or ""))
    if not a and not b:
        return None
    if not a or not b:
        return 0.0
    return len(a & b) / math.sqrt(len(a) * len(b))


def verify_pair(alignment: Alignment, tree1: Node, tree2: Node, text1: str,
                text2: str) -> tuple[bool, dict]:
    """Step 2 on a proposed pair: (accepted, the numbers behind the decision)."""
    share = aligned_share(alignment, tree1, tree2)
    anchors = anchor_similarity(text1, text2)
    ok = share >= VERIFY_MIN_ALIGNED and (anchors is None or anchors >= VERIFY_MIN_ANCHORS)
    return ok, {"aligned": round(share, 4),
                "anchors": None if anchors is None else round(anchors, 4)}


def link_evidence(count: int) -> float:
    """Strength of a pair proposed by ``count`` verified pairs, as known evidence (0..1).

    1 − 2^−count: one proposal is weak (0.5: the closing's floor 0.9 × 0.5 is under its
    0.5 threshold, so other evidence must agree), two make 0.75 (a one-way hreflang),
    three 0.875.
    """
    return 1.0 - 0.5 ** max(0, int(count))


def _urls(pair) -> tuple[str, str]:
    if isinstance(pair, (tuple, list)):
        return pair[0], pair[1]
    return pair.url_1, pair.url_2


# The trees of the crawl round's latest pages, in the process that aligns them: a training
# pair is decoded to be verified, then once in each EM iteration.
ROUND_TREES_KEPT = 64
_ROUND_TREES = TreeCache(ROUND_TREES_KEPT)


def clear_round_trees() -> None:
    """Forget the trees :func:`round_pair` kept (the end of a round in the crawl's process)."""
    _ROUND_TREES.clear()


def round_pair(aligner: TreeAligner, task: tuple, *, verify: bool = False,
               counts: bool = False, propose: bool = False):
    """One page pair of the crawl's parallel-link round, from its pages: aligned (§4.3),
    verified (§3 step 2), its Viterbi counts (§4.2), its aligned links (§3 step 5).

    ``task``: (url_1, html_1, text_1, url_2, html_2, text_2), html None for a page not
    stored. Returns ``"tree"`` when a page has no tree, ``"align"`` when the decoder
    failed, else (accepted or None, :func:`e_step_counts` or None, proposals or None).
    Counts are made, as in :meth:`TreeAligner.fit`, only for trees within the aligner's
    ``max_nodes``; a pair asked for nothing else is not decoded beyond them.
    """
    url_1, html_1, text_1, url_2, html_2, text_2 = task
    if html_1 is None or html_2 is None:
        return "tree"
    try:
        t1, t2 = _ROUND_TREES.get(url_1, html_1), _ROUND_TREES.get(url_2, html_2)
    except (ValueError, RecursionError):
        return "tree"
    # sizes from the trees' node lists, made once per tree (Node.size walks it each time)
    countable = counts and len(preorder(t1)) <= aligner.max_nodes \
        and len(preorder(t2)) <= aligner.max_nodes
    if not (verify or propose or countable):
        return None, None, None
    try:
        alignment = aligner.align(t1, t2)
    except (ValueError, RecursionError):
        return "align"
    return (verify_pair(alignment, t1, t2, text_1, text_2)[0] if verify else None,
            e_step_counts(alignment, t2) if countable else None,
            link_proposals(alignment, url_1, url_2) if propose else None)


def proposing_round_pair(args: tuple):
    """:func:`round_pair` of ``(aligner, task, verify)``, its aligned links proposed: a
    pool's task whose ``verify`` differs from pair to pair. It lives here, not in the
    pipeline that sends it, so that a worker unpickles it without importing Scrapy."""
    aligner, task, verify = args
    return round_pair(aligner, task, verify=verify, propose=True)


class _Trees:
    """Document trees built on demand, a bounded number kept (pages recur in pairs)."""

    def __init__(self, page_index: dict, keep: int = 512):
        self.page_index = page_index
        self.keep = keep
        self.cache: dict[str, Node] = {}

    def __call__(self, url: str) -> Node:
        tree = self.cache.get(url)
        if tree is None:
            page = self.page_index[url]
            tree = build_tree(page.html, page.url)
            if len(self.cache) >= self.keep:
                self.cache.pop(next(iter(self.cache)))
            self.cache[url] = tree
        return tree


def fit_link_aligner(pairs, page_index: dict, trees=None) -> TreeAligner:
    """A tree aligner trained (Viterbi EM, §4.2) on the first ``TRAINING_PAIRS`` pairs."""
    trees = trees or _Trees(page_index)
    training = []
    for pair in pairs:
        u1, u2 = _urls(pair)
        if u1 in page_index and u2 in page_index:
            training.append((trees(u1), trees(u2)))
            if len(training) >= TRAINING_PAIRS:
                break
    return fit_aligner(training)


def parallel_link_pairs(pairs: Iterable, page_index: dict, aligner: TreeAligner | None = None,
                        *, recursive: bool = False, max_pairs: int | None = None,
                        details: dict | None = None) -> dict[tuple[str, str], int]:
    """Pairs proposed by aligned hyperlinks of verified pairs: (url_1, url_2) -> count.

    ``pairs``: verified page pairs (objects with ``url_1``/``url_2``, or tuples), url_1 in
    the first language. ``page_index``: url -> page record (``html``, ``lang``, ``text``).
    Each pair with both pages in the index is DOM-aligned (``aligner``, or one trained
    here on the first pairs) and its aligned links are proposals (:func:`link_proposals`).
    A proposal is counted when both pages are in the index in the languages of the pair
    that proposed it (language of url_1's page, of url_2's page); the count is the number
    of distinct verified pairs proposing it (a pair does not propose itself).

    ``recursive``: proposals that pass :func:`verify_pair` are aligned in turn (steps
    3 → 5 → 2 of the paper over the pages at hand), until none is new.
    ``max_pairs`` bounds the number of tree alignments made (verifications included;
    the aligner's own training is not counted). ``details``, if given, receives per proposal the verification numbers
    (``{(u1, u2): {"aligned": .., "anchors": .., "verified": ..}}``).
    """
    pairs = [p for p in pairs]
    trees = _Trees(page_index)
    if aligner is None:
        aligner = fit_link_aligner(pairs, page_index, trees)
    counts: Counter = Counter()
    queue: deque = deque()
    queued: set[tuple[str, str]] = set()
    for pair in pairs:
        u1, u2 = _urls(pair)
        if u1 in page_index and u2 in page_index and (u1, u2) not in queued:
            queued.add((u1, u2))
            queue.append((u1, u2))
    verified: dict[tuple[str, str], bool] = {}
    prealigned: dict[tuple[str, str], Alignment] = {}   # verification alignments, reused
    done = 0                                            # alignments made (max_pairs)

    def budget() -> bool:
        return max_pairs is None or done < max_pairs

    while queue and budget():
        u1, u2 = queue.popleft()
        p1, p2 = page_index[u1], page_index[u2]
        alignment = prealigned.pop((u1, u2), None)
        if alignment is None:
            done += 1
            try:
                alignment = aligner.align(trees(u1), trees(u2))
            except (ValueError, RecursionError) as exc:
                logger.warning("cannot align %s / %s: %s", u1, u2, exc)
                continue
        for h1, h2 in link_proposals(alignment, u1, u2):
            q1, q2 = page_index.get(h1), page_index.get(h2)
            if q1 is None or q2 is None or q1.lang != p1.lang or q2.lang != p2.lang:
                continue
            counts[(h1, h2)] += 1
            if not recursive or (h1, h2) in queued or (h1, h2) in verified or not budget():
                continue
            done += 1
            try:
                al = aligner.align(trees(h1), trees(h2))
            except (ValueError, RecursionError):
                verified[(h1, h2)] = False
                continue
            ok, numbers = verify_pair(al, trees(h1), trees(h2), q1.text, q2.text)
            verified[(h1, h2)] = ok
            if details is not None:
                details[(h1, h2)] = {**numbers, "verified": ok}
            if ok:
                queued.add((h1, h2))
                queue.append((h1, h2))
                if len(prealigned) < 256:   # bounded memory; past it, aligned again
                    prealigned[(h1, h2)] = al
    return dict(counts)


__all__ = ["PARALLEL_LINK_SOURCE", "link_proposals", "aligned_share", "anchor_similarity",
           "verify_pair", "link_evidence", "fit_link_aligner", "parallel_link_pairs", "round_pair",
           "clear_round_trees"]
