"""Navigation lists in each language's own order: a trait of real multilingual sites
built into copies of the sites we have.

A static site generator often sorts a translation's sidebar, menu or index by that
language's own titles, so the n-th item of a list in one language is not the translation
of the n-th item in another. Pairing that aligns two lists position by position pairs
wrong pages there. ``reorder_lists`` gives a page's link lists a deterministic order of
one language: every item is placed by ``sha1(key + its normalised text)``, so the same
item text takes the same place on every page of that language (a sidebar shows the same
order everywhere) while another language's order is unrelated.

A list is reordered when it is a ``<ul>`` or ``<ol>`` with at least three ``<li>`` children
that contain a link; all its ``<li>`` children move (an unlinked item such as the
current page's entry or a spacer takes its place by its text like the others), the
whitespace between items stays where it was. A page without such a list is returned
unchanged; a page with one is serialised again by lxml (doctype, comments around the root
and ``<meta charset>`` kept), so its bytes may differ outside the lists (quoting, entity
forms) while the parsed text, links and markup are the same apart from the order.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from typing import Callable

import lxml.etree
import lxml.html

MIN_LINKED_ITEMS = 3
_SPACES = re.compile(r"\s+")
_LISTS = ("ul", "ol")


def _own_text(item) -> str:
    """The item's text without the text of lists nested in it, whitespace collapsed and
    lower-cased: a section's label places the section whatever it holds."""
    parts = [item.text or ""]
    for child in item:
        if not isinstance(child.tag, str):        # comments, processing instructions
            parts.append(child.tail or "")
            continue
        if child.tag not in _LISTS:
            parts.append(child.text_content())
        parts.append(child.tail or "")
    return _SPACES.sub(" ", "".join(parts)).strip().lower()


def _has_link(item) -> bool:
    return any(a.get("href") is not None for a in item.iter("a"))


def _reorder(lst, key: str) -> bool:
    """Sort ``lst``'s ``<li>`` children by the hash of ``key`` and their text, in the slots
    they held (other children and the whitespace after each slot stay). True if changed."""
    children = list(lst)
    slots = [i for i, c in enumerate(children) if c.tag == "li"]
    items = [children[i] for i in slots]
    if sum(map(_has_link, items)) < MIN_LINKED_ITEMS:
        return False
    ranked = sorted(range(len(items)), key=lambda k: (
        hashlib.sha1((key + "\x00" + _own_text(items[k])).encode("utf-8")).hexdigest(), k))
    if ranked == list(range(len(items))):
        return False
    tails = [c.tail for c in children]
    placed = list(children)
    for slot, k in zip(slots, ranked):
        placed[slot] = items[k]
    for child in children:
        lst.remove(child)
    for slot, child in enumerate(placed):
        child.tail = tails[slot]
        lst.append(child)
    return True


def reorder_lists(html: str, key: str) -> str:
    """``html`` with the items of each link list in ``key``'s order (see the module's doc)."""
    parser = lxml.html.HTMLParser(encoding="utf-8")
    try:
        root = lxml.html.document_fromstring(html.encode("utf-8"), parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return html                                # empty or not HTML: nothing to reorder
    changed = False
    for lst in list(root.iter(*_LISTS)):           # outer lists first: keys are their own text
        changed |= _reorder(lst, key)
    if not changed:
        return html
    return _serialise(root, html)


def _serialise(root, source: str) -> str:
    """The document as lxml writes HTML, with what its writer would change put back: a URL
    attribute's non-ASCII characters (percent-encoded by libxml2) are written as they were,
    a doctype only where the source had one, a fragment (no ``<html>``) without the
    ``<html><body>`` lxml wraps it in."""
    kept = {}
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for name, value in element.attrib.items():
            if not value.isascii():
                token = f"reorder-kept-{len(kept)}-attr"
                kept[token] = value
                element.set(name, token)
    head = source[:2048].lower()
    if "<html" not in head and "<html" not in source.lower():
        parts = []
        for part in (root.find("head"), root.find("body")):
            if part is None:
                continue
            parts.append(part.text or "")
            parts += [lxml.html.tostring(child, encoding="unicode") for child in part]
        out = "".join(parts)
    else:
        tree = root.getroottree()
        doctype = tree.docinfo.doctype if "<!doctype" in head else None
        out = lxml.etree.tostring(tree, method="html", encoding="unicode", doctype=doctype or None)
    for token, value in kept.items():
        out = out.replace(token, value.replace("&", "&amp;").replace('"', "&quot;"))
    return out if out.endswith("\n") or not source.endswith("\n") else out + "\n"


def reordered_copy(src_dir: str | Path, out_dir: str | Path,
                   which: Callable[[str], str | None]) -> int:
    """Copy the folder ``src_dir`` to ``out_dir``; each ``*.html`` file for which
    ``which(its path relative to src_dir, with '/')`` gives a key has its lists reordered
    with that key, every other file is copied as it is. Returns how many pages changed."""
    src, out = Path(src_dir), Path(out_dir)
    changed = 0
    for path in sorted(src.rglob("*")):
        target = out / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        key = which(path.relative_to(src).as_posix()) if path.suffix == ".html" else None
        if key is None:
            shutil.copyfile(path, target)
            continue
        html = path.read_bytes().decode("utf-8", "replace")
        new = reorder_lists(html, key)
        if new != html:
            changed += 1
            target.write_bytes(new.encode("utf-8"))
        else:
            shutil.copyfile(path, target)
    return changed
