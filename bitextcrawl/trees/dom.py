"""The document tree of a page [Shi 2006 §4], for DOM tree alignment.

Document tree (§4): element and text nodes only; an image's ALT text is a text node; a text
leaf is merged into its parent element; ``script``/``style`` and other invisible content is
dropped. One departure, for the sake of the chunks: the text of an element is its whole
*run* of phrasing content (text plus inline elements such as ``a``, ``b``, ``span``), so
that ``<p>See <a>the guide</a> now.</p>`` is one chunk "See the guide now." (the STRAND
linearisation in :mod:`bitextcrawl.pages.strand` makes the same choice: translators move
emphasis and links inside a sentence). The inline elements stay in the tree as children
(marked ``inline``), so that ``a``, ``b``/``strong`` and ``img`` nodes are still aligned and
hyperlinks are still paired; their text is not emitted again as a chunk of its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterator
from urllib.parse import urljoin

from bitextcrawl.pages import strand
from bitextcrawl.pages import text as textmod
from bitextcrawl.pages.tokens import WORD_OF_TWO
from bitextcrawl.pages.urls import canonical

TEXT_TAG = "#text"

# Invisible content, dropped with its text (§4 keeps what a reader sees).
DROPPED_TAGS = strand.DROPPED_TAGS | {"iframe", "object", "canvas"}
# Phrasing content: its text joins the run of the enclosing element (see module docstring).
PHRASING_TAGS = frozenset(strand.INLINE_TAGS | {"img", "button", "del", "ins", "map", "area"})
LINK_TAGS = frozenset({"a", "area"})
# Elements whose text is code, commands or sample output, not language: ``pre`` and its
# obsolete kin are blocks; the others are phrasing elements inside a run.
CODE_BLOCK_TAGS = frozenset({"pre", "listing", "xmp", "plaintext"})
CODE_TAGS = CODE_BLOCK_TAGS | {"code", "kbd", "samp", "tt", "var"}
# A list's markup and its items' (a layout's nested blocks are no list): where a site may
# order each language's items its own way, read by the parallel links and the bitext.
LIST_TAGS = frozenset({"ul", "ol", "dl", "menu", "table", "tbody", "thead"})
ITEM_TAGS = frozenset({"li", "dt", "dd", "tr"})
_SKIP_HREF = ("#", "javascript:", "mailto:", "tel:", "data:")
_WORD = re.compile(WORD_OF_TWO)


# --------------------------------------------------------------------------------------
# Document tree (§4)
# --------------------------------------------------------------------------------------

class Node:
    """A node of the document tree: an element, with its text leaf merged in (§4 (iii))."""

    __slots__ = ("tag", "text", "href", "children", "parent", "inline", "index", "depth",
                 "memo")

    def __init__(self, tag: str, text: str = "", href: str | None = None,
                 inline: bool = False):
        self.tag = tag
        self.text = text
        self.href = href
        self.children: list[Node] = []
        self.parent: Node | None = None
        self.inline = inline       # text already part of an ancestor's chunk
        self.index = 0             # breadth-first number (the paper's D_i^N), root = 1
        self.depth = 0
        self.memo: dict | None = None   # the aligner's arrays of the tree rooted here

    def __repr__(self) -> str:
        text = (self.text[:30] + "…") if len(self.text) > 30 else self.text
        return f"<Node {self.index} {self.tag} {text!r}{' href' if self.href else ''}>"

    def append(self, child: "Node") -> None:
        child.parent = self
        self.children.append(child)

    def iter(self) -> Iterator["Node"]:
        """Pre-order (document order) traversal."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def postorder(self) -> list["Node"]:
        out: list[Node] = []
        stack: list[tuple[Node, bool]] = [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                out.append(node)
            else:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(node.children))
        return out

    @property
    def size(self) -> int:
        return sum(1 for _ in self.iter())

    @property
    def is_chunk(self) -> bool:
        """True when the node's text is a chunk of its own (not inside an ancestor's)."""
        return bool(self.text) and not self.inline

    def chunks(self) -> list[str]:
        """Text chunks of the tree in document order."""
        return [n.text for n in self.iter() if n.is_chunk]

    def links(self) -> list[str]:
        return [n.href for n in self.iter() if n.href]

    def to_dict(self) -> dict:
        d: dict = {"tag": self.tag}
        if self.text:
            d["text"] = self.text
        if self.href:
            d["href"] = self.href
        if self.inline:
            d["inline"] = True
        if self.children:
            d["children"] = [c.to_dict() for c in self.children]
        return d


def is_code(node: Node) -> bool:
    """True when a chunk's text is code: the chunk is inside a ``pre`` (a command, a
    configuration example, an HTML sample), or every word of it is inside ``code``,
    ``kbd``, ``samp``, ``tt`` or ``var`` elements (``<td><code>proxy_pass URL;</code></td>``).
    A sentence that only mentions code (``See also: <code>lsattr</code>.``) is prose."""
    up: Node | None = node
    while up is not None:
        if up.tag in CODE_BLOCK_TAGS:
            return True
        up = up.parent
    rest = node.text
    found = False
    for child in node.children:
        if child.inline and child.tag in CODE_TAGS and child.text:
            rest = rest.replace(child.text, " ", 1)
            found = True
    return found and not _WORD.search(rest)


def _tag_of(el) -> str | None:
    tag = el.tag
    if not isinstance(tag, str):      # comment, processing instruction
        return None
    return _local_name(tag)


@lru_cache(maxsize=1024)
def _local_name(tag: str) -> str:
    return tag.lower().rsplit("}", 1)[-1]


@lru_cache(maxsize=1 << 14)
def _resolve(href: str | None, base_url: str) -> str | None:
    """An ``href`` made absolute, without fragment (None: no page to follow). Cached: a
    page's menus and cross-references repeat the same links."""
    href = (href or "").strip()
    if not href or href.lower().startswith(_SKIP_HREF):
        return None
    try:
        return canonical(urljoin(base_url, href)) if base_url else canonical(href)
    except ValueError:
        return None


# What a phrasing element may hold and still be phrasing content.
_IN_PHRASING = PHRASING_TAGS | DROPPED_TAGS | {"br"}


def _all_phrasing(el) -> bool:
    """Every descendant of ``el`` is phrasing content (``<a><div>`` is a block)."""
    for d in el.iterdescendants():
        t = d.tag
        if isinstance(t, str) and _local_name(t) not in _IN_PHRASING:
            return False
    return True


def _inline_node(el, tag: str, base_url: str, out: list[str]) -> Node:
    """Node of a phrasing element inside a run (its text belongs to the run's chunk);
    its visible text (ALT text included, without its tail) is appended to ``out``, the
    run's pieces, in the same walk."""
    node = Node(tag, inline=True)
    if tag in LINK_TAGS:
        node.href = _resolve(el.get("href"), base_url)
    if tag == "img":
        alt = el.get("alt")
        if alt:
            out.append(" " + alt + " ")
            node.text = strand.normalise_space(alt)
        return node
    start = len(out)
    if el.text:
        out.append(el.text)
    for child in el:
        t = child.tag
        if isinstance(t, str):
            t = _local_name(t)
            if t == "br":
                out.append(" ")
            elif t not in DROPPED_TAGS:
                node.append(_inline_node(child, t, base_url, out))
        if child.tail:
            out.append(child.tail)
    node.text = strand.normalise_space("".join(out[start:]))
    return node


def _element_node(el, tag: str, base_url: str) -> Node:
    """Node of a block-level element (§4: element + merged text leaf)."""
    node = Node(tag)
    if tag in LINK_TAGS:
        node.href = _resolve(el.get("href"), base_url)
    if tag == "img":                   # §4 (ii): ALT text as a text node, merged (iii)
        node.text = strand.normalise_space(el.get("alt") or "")
        return node
    if tag == "head":                  # only the title of the head is visible
        for title in el.iter("title"):
            node.append(_element_node(title, _tag_of(title), base_url))
            break
        return node

    # Split the content into runs of phrasing content separated by block children: a
    # run is ("run", text, its elements' nodes), a block child its Node.
    segments: list[object] = []
    pieces: list[str] = []
    elements: list[Node] = []
    if el.text:
        pieces.append(el.text)
    for child in el:
        t = child.tag
        if isinstance(t, str):
            t = _local_name(t)
            if t in DROPPED_TAGS:
                pass
            elif t != "br" and t in PHRASING_TAGS and _all_phrasing(child):
                elements.append(_inline_node(child, t, base_url, pieces))
            else:
                if pieces or elements:
                    _close_run(pieces, elements, segments)
                segments.append(_element_node(child, t, base_url))
        if child.tail:
            pieces.append(child.tail)
    if pieces or elements:
        _close_run(pieces, elements, segments)

    if len(segments) == 1 and isinstance(segments[0], tuple):
        # §4 (iii): the text (leaf) merged into its parent element.
        _, text, els = segments[0]
        node.text = text
        for e in els:
            node.append(e)
        return node
    for seg in segments:
        if isinstance(seg, tuple):
            _, text, els = seg
            tnode = Node(TEXT_TAG, text)
            for e in els:
                tnode.append(e)
            node.append(tnode)
        else:
            node.append(seg)
    return node


def _close_run(pieces: list[str], elements: list[Node], segments: list) -> None:
    """The run of phrasing content so far as a segment; ``pieces`` and ``elements`` emptied."""
    text = strand.normalise_space("".join(pieces))
    if text:
        segments.append(("run", text, list(elements)))
    else:
        # A run with no text (an image without ALT, an empty link): its elements are
        # plain children.
        for e in elements:
            e.inline = False
            segments.append(e)
    pieces.clear()
    elements.clear()


def strip_navigation(root: Node, template: list, min_link_share: float = 0.5) -> int:
    """Remove from the tree the elements that hold template text only (``template``: per
    chunk in document order, True for a template chunk) and whose text is mostly link
    text (at least ``min_link_share`` of it): a site's menus and a sidebar listing every
    page of a section. A page whose every chunk is template keeps its tree. Returns the
    elements removed; the tree is numbered again.

    Departure from [Shi 2006 §4], which aligns the whole document tree: a short page
    inside a heavy template is mostly its sidebar, whose entries differ between the
    languages (each lists the pages it has), and the alignment follows the sidebar, not
    the page. Template *prose* stays (a paragraph several pages share is translated text,
    written once in the bitext)."""
    chunks = [n for n in preorder(root) if n.is_chunk]
    if not any(template) or all(template):
        return 0
    marked = {id(n) for n, m in zip(chunks, template) if m}
    removed = 0

    def link_chars(node: Node) -> int:
        if node.tag in LINK_TAGS:
            return len(node.text)
        return sum(link_chars(c) for c in node.children if c.inline)

    # post-order: (template text seen, other text seen, characters, link characters)
    seen: dict[int, tuple] = {}
    for node in root.postorder():
        has_t = has_c = False
        chars = links = 0
        if node.is_chunk:
            has_t, has_c = id(node) in marked, id(node) not in marked
            chars, links = len(node.text), link_chars(node)
        kept = []
        for child in node.children:
            t, c, n, k = seen.pop(id(child))
            has_t, has_c, chars, links = has_t or t, has_c or c, chars + n, links + k
            if t and not c and k >= min_link_share * n and not child.inline:
                release(child)
                removed += 1
            else:
                kept.append(child)
        node.children = kept
        seen[id(node)] = (has_t, has_c, chars, links)
    if removed:
        root.memo = None       # its node list (preorder) is stale
        _number(root)
    return removed


def _number(root: Node) -> Node:
    """Breadth-first indices (the paper's D_i^N, root = 1) and depths."""
    queue = [root]
    root.depth = 0
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        node.index = i
        for c in node.children:
            c.depth = node.depth + 1
            queue.append(c)
    return root


def build_tree(html, base_url: str = "") -> Node:
    """Document tree of a page (§4): element/text nodes, ALT text as text, leaf merged.

    ``html`` is the decoded HTML (``PageRecord.html``) or an lxml document; hyperlinks are
    resolved against ``base_url`` (and the page's ``<base href>``), fragments removed.
    """
    # (lxml's own elements: the tree reads nothing of lxml.html's)
    doc = textmod.parse(html, textmod.PLAIN_PARSER) if isinstance(html, str) else html
    root_el = doc.getroottree().getroot() if hasattr(doc, "getroottree") else doc
    base = root_el.find(".//base[@href]")
    if base is not None:
        base_url = urljoin(base_url, base.get("href").strip()) if base_url else \
            base.get("href").strip()
    tag = _tag_of(root_el)
    if tag is None:
        return _number(Node("html"))
    return _number(_element_node(root_el, tag, base_url))


def preorder(tree: Node) -> list[Node]:
    """The tree's nodes in document order (:meth:`Node.iter`), listed once per tree (kept
    in its ``memo`` until :func:`release`): the aligner, the chunk pairs and the release
    each walked the tree again."""
    if tree.memo is None:
        tree.memo = {}
    nodes = tree.memo.get("preorder")
    if nodes is None:
        nodes = tree.memo["preorder"] = list(tree.iter())
    return nodes


def release(tree: Node) -> None:
    """Unlink a tree no longer needed (parents, the aligner's arrays): reference counting
    then frees it at once, without waiting for (and adding to) cyclic garbage collection."""
    nodes = preorder(tree)
    tree.memo = None
    for node in nodes:
        node.parent = None


@lru_cache(maxsize=1024)
def _tag_tokens(tag: str) -> tuple[str, str]:
    """The STRAND start and end tokens of a tag."""
    return strand.START.format(tag.upper()), strand.END.format(tag.upper())


class TreeCache:
    """Document trees of pages by (URL, HTML) in a process that aligns a page more than
    once (EM's iterations, a verification then training): the least recently used tree
    is released past ``keep`` (a pair's first tree is the most recent when its second is
    made)."""

    def __init__(self, keep: int):
        self.keep = keep
        self.trees: dict[tuple[str, str], Node] = {}

    def get(self, url: str, html: str | None, read: Callable[[str], str] | None = None,
            build: Callable[[str, str], Node] | None = None) -> Node:
        """The tree of ``url``'s ``html``; ``html`` None: of ``read(url)``, read only
        when the tree is not kept. ``build(html, url)``: how (:func:`build_tree`)."""
        key = (url, html)
        tree = self.trees.pop(key, None)
        if tree is None:
            if len(self.trees) >= self.keep:
                release(self.trees.pop(next(iter(self.trees))))
            tree = (build or build_tree)(html if html is not None else read(url), url)
        self.trees[key] = tree
        return tree

    def clear(self) -> None:
        for tree in self.trees.values():
            release(tree)     # parents and node lists: freed now, not by the cyclic collector
        self.trees.clear()


def linearise(tree: Node) -> list[tuple[str, Node]]:
    """STRAND-style linearisation of a document tree: (token, node) in document order.

    Tokens are ``[START:TAG]``, ``[Chunk]`` (one per text chunk, right after its start
    tag) and ``[END:TAG]``, as in :mod:`bitextcrawl.pages.strand` but keeping inline
    elements, so that hyperlinks can be paired by the fallback alignment.
    """
    out: list[tuple[str, Node]] = []
    stack: list = [tree]          # nodes to open, and the end tokens of open ones
    while stack:
        item = stack.pop()
        if type(item) is tuple:
            out.append(item)
            continue
        start, end = _tag_tokens(item.tag)
        out.append((start, item))
        if item.is_chunk:
            out.append(("[Chunk]", item))
        stack.append((end, item))
        stack.extend(reversed(item.children))
    return out


__all__ = ["Node", "TreeCache", "build_tree", "linearise", "preorder", "release",
           "strip_navigation", "TEXT_TAG"]
