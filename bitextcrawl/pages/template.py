"""A site's template, per language: what recurs across its pages, and each page without it.

Structure, content and candidate filters compare what differs between a page and its
translation. On a real site most of a page can be template: a header, a menu, a sidebar
that lists every page of its section, a footer. Left in, the template decides every
comparison: the STRAND edit distance of two pages becomes the difference of their
sidebars' lengths, and every pair of short pages looks alike.

A **block of text is template** when the same text (a STRAND chunk, a line of the main
text) occurs on at least ``min_pages`` pages of the same language of the site: menu
entries, sidebar entries, footers, repeated headings. An **element is template** when it
holds template text and no other text, and then it goes with all it contains (a sidebar's
``<ul>``, its ``<li>`` and their links). What is left is the page's content view
(:class:`ContentView`): its STRAND tokens and main text without the template.

Departure from Assylbekov et al. (structural EM), who removed boilerplate with
site-specific scripts before STRAND: this is a site-independent equivalent, decided per
language because a template's words are translated with it. A page that is template
through and through (a home page, an index that lists every page) keeps its whole
STRAND sequence: there is nothing else to compare it by.

Pure functions over page records; chunk texts are kept as CRC-32 keys
(:func:`page_chunk_keys`, made once per record by a record worker), so records without
their chunk texts (``pages.compact``) work the same.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from typing import Iterable

from bitextcrawl.pages.compact import derived_feature
from bitextcrawl.pages.strand import is_chunk

__all__ = ["SiteTemplate", "ContentView", "page_chunk_keys", "text_key"]

# A text found on this many pages of one language is the site's, not the page's. Three:
# two pages may quote one another; a text three pages carry in one language belongs to
# their template (and where real content recurs that often, it tells no page apart).
TEMPLATE_MIN_PAGES = 3
# Fewer pages of a language than this: too few to tell template from content.
TEMPLATE_MIN_SIDE = 5


def text_key(text: str) -> int:
    """A block's text as a key: case and spacing do not make another block."""
    return zlib.crc32(" ".join(text.lower().split()).encode("utf-8", "surrogatepass"))


def _chunk_keys(page) -> tuple:
    chunks = page.get("chunks") if isinstance(page, dict) else page.chunks
    return tuple(text_key(c) for c in chunks or ())


def page_chunk_keys(page) -> tuple:
    """The keys of a page's STRAND chunks, in order (``pages.compact.derived_feature``)."""
    return derived_feature(page, "chunk_keys", _chunk_keys)


def _strand_without(tokens: list, template: list) -> list:
    """``tokens`` without the elements whose text is all template (``template``: per chunk,
    in order, True for a template chunk).

    STRAND tokens nest as the DOM did (``[START:X]`` … ``[END:X]``; void elements have no
    end). One pass with a stack of open elements: each knows the output position where it
    started and whether it saw template and content text; an element that saw template
    and no content is cut from the output at its end."""
    out: list = []
    stack: list = []          # [output start, tag, saw template, saw content]
    k = 0
    for tok in tokens:
        if is_chunk(tok):
            is_template = template[k] if k < len(template) else False
            k += 1
            if stack:
                stack[-1][2 if is_template else 3] = True
            if not is_template:
                out.append(tok)
            continue
        if tok.startswith("[START:"):
            stack.append([len(out), tok[7:-1], False, False])
            out.append(tok)
            continue
        if tok.startswith("[END:"):
            tag = tok[5:-1]
            # void elements (no end token) close with the element that holds them
            while stack and stack[-1][1] != tag:
                _close(stack, out)
            if stack:
                start, _, saw_template, saw_content = stack.pop()
                if saw_template and not saw_content:
                    del out[start:]
                else:
                    out.append(tok)
                if stack:
                    stack[-1][2] |= saw_template
                    stack[-1][3] |= saw_content
                continue
        out.append(tok)
    while stack:
        _close(stack, out)
    return out


def _close(stack: list, out: list) -> None:
    """Close an element without an end token (a void element): it passes what it saw up."""
    _, _, saw_template, saw_content = stack.pop()
    if stack:
        stack[-1][2] |= saw_template
        stack[-1][3] |= saw_content


class SiteTemplate:
    """The template of one site, per language, learned from its pages.

    ``fit(pages)`` counts, per language, on how many pages each chunk text and each main
    text line occurs; ``template_`` is lang -> the keys of template texts.
    """

    def __init__(self, min_pages: int = TEMPLATE_MIN_PAGES, min_side: int = TEMPLATE_MIN_SIDE):
        self.min_pages = min_pages
        self.min_side = min_side

    def fit(self, pages: Iterable) -> "SiteTemplate":
        df: dict[str, Counter] = defaultdict(Counter)
        n: Counter = Counter()
        for page in pages:
            n[page.lang] += 1
            keys = set(page_chunk_keys(page))
            keys.update(text_key(line) for line in (page.text or "").split("\n") if line.strip())
            df[page.lang].update(keys)
        self.pages_ = dict(n)
        self.template_ = {lang: frozenset(k for k, d in counts.items() if d >= self.min_pages)
                          for lang, counts in df.items() if n[lang] >= self.min_side}
        return self

    def strand(self, page) -> list:
        """The page's STRAND tokens without its language's template."""
        keys = self.template_.get(page.lang)
        if not keys or not page.strand:
            return list(page.strand or ())
        template = [k in keys for k in page_chunk_keys(page)]
        if not any(template) or all(template):
            return list(page.strand)
        return _strand_without(page.strand, template)

    def text(self, page) -> str:
        """The page's main text without the lines its language's template carries
        (all of it where every line is template)."""
        keys = self.template_.get(page.lang)
        text = page.text or ""
        if not keys:
            return text
        lines = [line for line in text.split("\n") if text_key(line) not in keys]
        return "\n".join(lines) if any(line.strip() for line in lines) else text

    def view(self, page) -> "ContentView":
        return ContentView(page, self.strand(page), self.text(page))

    def views(self, pages: dict) -> dict:
        """url -> :class:`ContentView` of each page of ``pages`` (url -> record)."""
        return {u: self.view(p) for u, p in pages.items()}


class ContentView:
    """A page record seen without its site's template: ``strand``, ``text`` and
    ``text_length`` are the content's; every other field is the record's."""

    __slots__ = ("record", "strand", "text", "text_length")

    def __init__(self, record, strand: list, text: str):
        self.record = record
        self.strand = strand
        self.text = text
        self.text_length = len(text)

    def __getattr__(self, name):
        return getattr(self.record, name)
