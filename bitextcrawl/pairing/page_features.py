"""What a page offers the candidate index (``candidates.py``): its numbers, image names,
link targets, rare anchors, text length and chunk count, each read once per record."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from bitextcrawl.pages.compact import derived_feature, html_feature
from bitextcrawl.pages.strand import chunk_length, is_chunk
from bitextcrawl.pages.urls import canonical
from bitextcrawl.pairing.anchors import by_line, page_anchors

__all__ = ["page_field", "page_features", "page_numbers", "page_image_names", "page_text_length",
           "page_chunk_count"]

_NUMBER = re.compile(r"\d{1,3}(?:[\u00a0\u202f ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)*")
_NON_DIGIT = re.compile(r"\D+")
_IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)


def page_field(page, name, default=None):
    """A field of a record or of a dict with the same keys."""
    return page.get(name, default) if isinstance(page, dict) else getattr(page, name, default)


def _numbers(text: str) -> set[str]:
    out = set()
    for match in _NUMBER.finditer(text):
        digits = _NON_DIGIT.sub("", match.group(0)).lstrip("0")
        if len(digits) >= 2:
            out.add(digits)
    return out


def _image_names(html: str) -> set[str]:
    out = set()
    for match in _IMG_SRC.finditer(html):
        src = next(g for g in match.groups() if g is not None).strip()
        if not src or src.startswith("data:"):
            continue
        name = unquote(urlsplit(src).path.rsplit("/", 1)[-1]).lower()
        if name:
            out.add(name)
    return out


def _page_numbers(page) -> frozenset[str]:
    text = page_field(page, "text", "") or ""
    if not text:
        text = "\n".join(page_field(page, "chunks", None) or ())
    return frozenset(by_line((page_field(page, "title", "") or "") + "\n" + text, _line_numbers))


@lru_cache(maxsize=1 << 16)
def _line_numbers(line: str) -> frozenset[str]:
    return frozenset(_numbers(line))


def page_numbers(page) -> frozenset[str]:
    """The numbers of a page's title and text, made once per record
    (``pages.compact.derived_feature``: by the record worker that parses the page)."""
    return derived_feature(page, "text_numbers", _page_numbers)


def page_image_names(page) -> set[str]:
    """The file names of a page's images (made once per record, see ``html_feature``)."""
    return html_feature(page, "image_names", _image_names)


def _link_urls(page) -> list[str]:
    urls = []
    for link in page_field(page, "links", None) or ():
        url = link.get("url") if isinstance(link, dict) else getattr(link, "url", None)
        if url:
            urls.append(canonical(url))
    return urls


def page_text_length(page) -> int:
    """L of a page: its main-text length, else the total length of its STRAND chunks."""
    length = int(page_field(page, "text_length", 0) or 0)
    if length > 0:
        return length
    tokens = page_field(page, "strand", None) or ()
    total = sum(chunk_length(t) for t in tokens if is_chunk(t))
    if total > 0:
        return total
    return sum(len(c) for c in (page_field(page, "chunks", None) or ()))


def page_chunk_count(page) -> int:
    tokens = page_field(page, "strand", None) or ()
    if tokens:
        return sum(1 for t in tokens if is_chunk(t))
    return len(page_field(page, "chunks", None) or ())


def page_features(page, other_urls: frozenset[str] | set[str] = frozenset()) -> set[tuple[str, str]]:
    """The evidence features of one page: ``(kind, value)`` with kind num/img/out/sw/anc."""
    feats: set[tuple[str, str]] = set()
    for num in page_numbers(page):
        feats.add(("num", num))
    for name in page_image_names(page):
        feats.add(("img", name))
    for anchor in page_anchors(page):
        feats.add(("anc", anchor))
    own = canonical(page_field(page, "url"))
    feats.add(("sw", own))
    for url in _link_urls(page):
        if url in other_urls:
            feats.add(("sw", url))
        elif url != own:
            feats.add(("out", url))
    return feats
