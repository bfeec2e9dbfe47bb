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
import re
from collections import Counter, deque
from typing import Callable, Iterable

from bitextcrawl.pages.tokens import anchor_tokens
from bitextcrawl.trees.dom import ITEM_TAGS, LIST_TAGS, TreeCache, preorder
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


# --------------------------------------------------------------------------------------
# Corroboration: which aligned links the site itself confirms
# --------------------------------------------------------------------------------------

# Containers whose links are the items of one list, and the items inside them: a list's
# markup, and the link lists of navigation and of a menu of options.
LINK_LIST_TAGS = LIST_TAGS | {"nav", "select"}
LINK_ITEM_TAGS = ITEM_TAGS | {"option"}
# What two items' texts share across languages: numbers, and words in Latin script
# (names, code, terms kept untranslated; inside another script, every Latin word is one).
_ITEM_TOKEN = re.compile(r"\d+|[A-Za-z][A-Za-z0-9_+#.\-]*[A-Za-z0-9+#]")
ITEM_TOKEN_MIN = 3
# The key of a proposal made by an item's words alone (:func:`corroborated_links`).
GUESS = None


def _block_and_item(node: Node) -> tuple[Node, Node]:
    """The list a link is an item of and the item holding it (``li``, ``tr``…); a link
    outside any list is an item of its own in the chunk that holds it."""
    item = None
    up = node.parent
    while up is not None:
        if item is None and up.tag in LINK_ITEM_TAGS:
            item = up
        if up.tag in LINK_LIST_TAGS:
            return up, item or node
        up = up.parent
    up = node.parent
    while up is not None and up.inline:
        up = up.parent
    return up or node, node


def _item_tokens(text: str) -> frozenset:
    return frozenset(t.lower() for t in _ITEM_TOKEN.findall(text or "")
                     if t.isdigit() or len(t) >= ITEM_TOKEN_MIN)


def _block_links(block: Node, canon: Callable[[str], str]) -> list[tuple[str, frozenset]]:
    """(target, tokens) of each link of a block; tokens every second item shares are the
    list's own vocabulary (``nginx`` in each entry of a menu), not an item's."""
    links = []
    for node in block.iter():
        if node.href:
            item = _block_and_item(node)[1]
            links.append((canon(node.href), _item_tokens(item.text or node.text)))
    df = Counter(t for _, toks in links for t in toks)
    common = {t for t, n in df.items() if len(links) > 2 and 2 * n > len(links)}
    return [(h, toks - common) for h, toks in links]


def _best(tokens: frozenset, others: list[tuple[str, frozenset]]) -> tuple[int, list[str]]:
    """The largest overlap of ``tokens`` with the items ``others`` and the targets having it."""
    best, who = 0, []
    for h, toks in others:
        n = len(tokens & toks)
        if n > best:
            best, who = n, [h]
        elif n == best and n:
            who.append(h)
    return best, who


def corroborated_links(alignment: Alignment, url_1: str, url_2: str, sure: dict,
                       canon: Callable[[str], str] = lambda u: u) -> list[tuple]:
    """The aligned links of a pair that the site confirms, list by list:
    (href_1, href_2, the lists' key: both lists' targets, sorted).

    Not in Shi et al. 2006, whose aligner knows translations from a dictionary: here two
    lists are aligned by their order and their texts' lengths, and a site may list each
    language's items in its own order (a translation's sidebar sorted by its own titles).
    Order is trusted for a list only where its items confirm it: an item whose target is
    in a pair already sure (``sure``: url -> counterpart, both directions), or whose
    numbers and Latin-script words are shared with its aligned item more than with any
    other item of the list. One confirming item and none against: the list's aligned
    links are all proposals. Otherwise the two lists are matched as sets, by what their
    items say: sure pairs, and items whose shared tokens make each other's unique best
    match; an item nothing confirms proposes nothing.

    The key says which lists proposed a pair: a template's list, the same on every page,
    is one observation however many pages carry it. An item matched by its words alone
    has the key :data:`GUESS`: a shared word can be a false friend (``course``), so such
    a proposal stays a guess however many lists repeat it.
    """
    proposals = set(link_proposals(alignment, url_1, url_2))
    groups: dict = {}
    for u, v, _ in alignment.node_pairs:
        if u.href and v.href and (u.href, v.href) in proposals:
            b1, b2 = _block_and_item(u)[0], _block_and_item(v)[0]
            groups.setdefault((id(b1), id(b2)), (b1, b2, []))[2].append((u.href, v.href))
    out: list[tuple] = []
    for b1, b2, pairs in groups.values():
        links1, links2 = _block_links(b1, canon), _block_links(b2, canon)
        toks1, toks2 = dict(links1), dict(links2)
        key = (tuple(sorted(toks1)), tuple(sorted(toks2)))
        agree = against = 0
        for h1, h2 in pairs:
            c1, c2 = canon(h1), canon(h2)
            if c1 in sure or c2 in sure:
                if sure.get(c1) == c2:
                    agree += 1
                else:
                    against += 1
                continue
            t1, t2 = toks1.get(c1, frozenset()), toks2.get(c2, frozenset())
            best1, who1 = _best(t1, links2)
            best2, who2 = _best(t2, links1)
            own = len(t1 & t2)
            if own and own == best1 and own == best2:
                agree += 1
            elif (best1 and c2 not in who1) or (best2 and c1 not in who2):
                against += 1
        if agree and not against:
            out.extend((canon(h1), canon(h2), key) for h1, h2 in pairs)
            continue
        for c1, t1 in links1:
            partner = sure.get(c1)
            if partner is not None:
                if partner in toks2:
                    out.append((c1, partner, key))
                continue
            best1, who1 = _best(t1, links2)
            if best1 and len(who1) == 1 and who1[0] not in sure:
                best2, who2 = _best(toks2[who1[0]], links1)
                if who2 == [c1]:
                    out.append((c1, who1[0], GUESS))
    own = {canon(url_1), canon(url_2)}
    kept: dict = {}
    for p in out:
        if p[0] != p[1] and p[0] not in own and p[1] not in own:
            kept.setdefault(p, None)
    return list(kept)


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
                        details: dict | None = None,
                        corroborate: bool = True) -> dict[tuple[str, str], int]:
    """Pairs proposed by aligned hyperlinks of verified pairs: (url_1, url_2) -> count.

    ``pairs``: verified page pairs (objects with ``url_1``/``url_2``, or tuples), url_1 in
    the first language. ``page_index``: url -> page record (``html``, ``lang``, ``text``).
    Each pair with both pages in the index is DOM-aligned (``aligner``, or one trained
    here on the first pairs) and its aligned links are proposals (:func:`link_proposals`).
    A proposal is counted when both pages are in the index in the languages of the pair
    that proposed it (language of url_1's page, of url_2's page); the count is the number
    of distinct lists proposing it (with ``corroborate``: a template's list on every page
    counts once), else of distinct verified pairs (a pair does not propose itself).

    ``recursive``: proposals that pass :func:`verify_pair` are aligned in turn (steps
    3 → 5 → 2 of the paper over the pages at hand), until none is new.
    ``corroborate``: only the aligned links the site confirms are proposals
    (:func:`corroborated_links`: the given pairs and the verified proposals are the sure
    pairs lists are checked against); False: every aligned link, as Shi et al. 2006.
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
    observed: dict[tuple[str, str], set] = {}       # proposal -> the lists that proposed it

    def canon(url: str) -> str:
        page = page_index.get(url)
        return page.url if page is not None else url

    sure: dict[str, str] = {}      # url -> its counterpart, both ways, lists are checked on

    def make_sure(a: str, b: str) -> None:
        sure.setdefault(canon(a), canon(b))
        sure.setdefault(canon(b), canon(a))

    for u1, u2 in queued:
        make_sure(u1, u2)
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
        found = (corroborated_links(alignment, u1, u2, sure, canon) if corroborate
                 else [(h1, h2, (u1, u2)) for h1, h2 in link_proposals(alignment, u1, u2)])
        for h1, h2, key in found:
            q1, q2 = page_index.get(h1), page_index.get(h2)
            if q1 is None or q2 is None or q1.lang != p1.lang or q2.lang != p2.lang:
                continue
            if key is GUESS:
                counts[(h1, h2)] = max(counts[(h1, h2)], 1)
            elif key not in observed.setdefault((h1, h2), set()):
                observed[(h1, h2)].add(key)
                counts[(h1, h2)] += 1
                if corroborate and verified.get((h1, h2)):   # a verified guess, confirmed
                    make_sure(h1, h2)
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
                if corroborate and observed.get((h1, h2)):   # confirmed, not a guess
                    make_sure(h1, h2)
                queued.add((h1, h2))
                queue.append((h1, h2))
                if len(prealigned) < 256:   # bounded memory; past it, aligned again
                    prealigned[(h1, h2)] = al
    return dict(counts)


__all__ = ["PARALLEL_LINK_SOURCE", "link_proposals", "aligned_share", "anchor_similarity",
           "verify_pair", "corroborated_links", "link_evidence", "fit_link_aligner",
           "parallel_link_pairs", "round_pair", "clear_round_trees"]
