"""A site's template, per language: what recurs across its pages, and each page without it.

Structure, content and candidate filters compare what differs between a page and its
translation. On a real site most of a page can be template: a header, a menu, a sidebar
that lists every page of its section, a footer. Left in, the template decides every
comparison: the STRAND edit distance of two pages becomes the difference of their
sidebars' lengths, and every pair of short pages looks alike.

A **block of text is template** when the same text (a STRAND chunk) occurs on at least ``min_pages`` pages of the same language of the site, and so
does its pair with the block before or after it: menus, sidebars and footers recur as
runs of blocks, while an entry's name listed in a page's own content (a tag's index, a
"see also" line) recurs alone. An **element is template** when it holds template text
and no other text, and then it goes with all it contains (a sidebar's ``<ul>``, its
``<li>`` and their links). What is left is the page's content view
(:class:`ContentView`): its STRAND tokens and main text without the template, and its
links from the content (:meth:`SiteTemplate.content_links`).

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
from bitextcrawl.pages.strand import link_hrefs
from bitextcrawl.pages.text import PLAIN_PARSER, parse
from bitextcrawl.pages.urls import link_base, link_resolver

__all__ = ["SiteTemplate", "ContentView", "TemplateBlocks", "link_chunks", "page_chunk_keys",
           "page_link_chunks", "text_key"]

# A text found on this many pages of one language is the site's, not the page's. Three:
# two pages may quote one another; a text three pages carry in one language belongs to
# their template (and where real content recurs that often, it tells no page apart).
TEMPLATE_MIN_PAGES = 3
# Fewer pages of a language than this: too few to tell template from content.
TEMPLATE_MIN_SIDE = 5
# A site's document trees lose their navigation for the bitext where, in one of its
# languages, the median page is at least this much template (blocks): the template then
# outweighs the page two to one. Measured on the real sites (docs/formats.md, "Bitext"):
# documentation sites are at 0.36-0.50, where their shared prose and structure align as
# they are; a command-help site, each short page inside a sidebar of every command, at
# 0.73-0.93.
HEAVY_TEMPLATE = 2 / 3


def text_key(text: str) -> int:
    """A block's text as a key: case and spacing do not make another block."""
    return zlib.crc32(" ".join(text.lower().split()).encode("utf-8", "surrogatepass"))


def _chunk_keys(page) -> tuple:
    chunks = page.get("chunks") if isinstance(page, dict) else page.chunks
    return tuple(text_key(c) for c in chunks or ())


def page_chunk_keys(page) -> tuple:
    """The keys of a page's STRAND chunks, in order (``pages.compact.derived_feature``)."""
    return derived_feature(page, "chunk_keys", _chunk_keys)


def link_chunks(hrefs, resolve) -> tuple:
    """``(canonical URL, index of the chunk that holds the link)`` for each ``(href,
    chunk index)`` of :func:`~bitextcrawl.pages.strand.linearise`: where on the page a
    link is. ``resolve(href)``: the URL it leads to, or None (:func:`~bitextcrawl.pages.
    urls.link_url` from the page's base)."""
    return tuple((url, i) for url, i in ((resolve(href), i) for href, i in hrefs)
                 if url is not None)


def page_link_chunks(page) -> tuple:
    """:func:`link_chunks` of a page record: made with the record (``pages.record``); for a
    record without them (written by another version), from its HTML."""
    def compute(p):
        html = p.get("html") if isinstance(p, dict) else p.html
        url = p.get("url") if isinstance(p, dict) else p.url
        if not html:
            return ()
        doc = parse(html, PLAIN_PARSER)
        return link_chunks(link_hrefs(doc), link_resolver(link_base(doc, url)))
    return derived_feature(page, "link_chunks", compute)


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
    n_template = len(template)
    for tok in tokens:
        if tok.startswith("[Chunk:"):   # (strand.is_chunk: a call per token saved)
            is_template = template[k] if k < n_template else False
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


# A STRAND chunk is the text between two tags that break a block; the main text breaks
# lines at inline elements too, so one chunk can be up to this many lines of it.
MAX_LINES_PER_CHUNK = 8


def _line_parts(line: str) -> tuple[int, bytes]:
    """A line's :func:`text_key` and its normalised text's bytes after one space: the key of
    a run of lines joined by spaces is the CRC-32 of the first line's normalised bytes
    continued over each next line's (``zlib.crc32(data, value)``), the same number as
    :func:`text_key` of the joined text. Lower case reads no character across a space
    (Python's one context rule, the final sigma, stops at it), so each line's lower case
    is its lower case in the run."""
    normalised = " ".join(line.lower().split()).encode("utf-8", "surrogatepass")
    return zlib.crc32(normalised), b" " + normalised


def _lines_without(text: str, template: set, parts: dict | None = None) -> list:
    """The non-empty lines of ``text`` that are not template: a line, or a run of lines
    joined by spaces (a banner whose link is a line of its own), whose key is in
    ``template``. ``parts``: line -> :func:`_line_parts`, kept by the caller for the
    site's other pages (a template's lines recur on every page)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if parts is None:
        parts = {}
    keys, tails = [], []
    for line in lines:
        got = parts.get(line)
        if got is None:
            got = parts[line] = _line_parts(line)
        keys.append(got[0])
        tails.append(got[1])
    crc32 = zlib.crc32
    kept, i, n = [], 0, len(lines)
    while i < n:
        run, key = 0, keys[i]
        if key in template:
            run = 1
        for j in range(i + 1, min(n, i + MAX_LINES_PER_CHUNK)):
            key = crc32(tails[j], key)
            if key in template:
                run = j - i + 1
        if run:
            i += run
        else:
            kept.append(lines[i])
            i += 1
    return kept


def _sequence_marks(keys: list, is_frequent, is_frequent_pair) -> list:
    """Per block of a page (a chunk, a line), True where it is template: its text is
    frequent, and so is its pair with the block before or after it (the page's start and
    end count as blocks)."""
    seq = [_START, *keys, _END]
    return [is_frequent(seq[i]) and (is_frequent_pair((seq[i - 1], seq[i]))
                                    or is_frequent_pair((seq[i], seq[i + 1])))
            for i in range(1, len(seq) - 1)]


_START, _END = -1, -2


class _Counts:
    """On how many pages of one language each block text, and each pair of neighbouring
    blocks, occurs."""

    def __init__(self):
        self.pages = 0
        self.blocks: Counter = Counter()
        self.pairs: Counter = Counter()

    def add(self, keys: list) -> None:
        seq = [_START, *keys, _END]
        self.pages += 1
        self.blocks.update(set(keys))
        self.pairs.update(set(zip(seq, seq[1:])))

    def frozen(self, min_pages: int) -> tuple:
        return (frozenset(k for k, d in self.blocks.items() if d >= min_pages),
                frozenset(k for k, d in self.pairs.items() if d >= min_pages))


class SiteTemplate:
    """The template of one site, per language, learned from its pages.

    A block (a STRAND chunk, a line of the main text) is template where its text occurs
    on ``min_pages`` pages of the language **and** so does its pair with the block before
    or after it: a menu, a sidebar, a footer recur as runs; the same entry's name listed
    in a page's own content (an index of a tag, "see also") does not recur with its
    neighbours, and stays content.

    ``fit(pages)`` counts; ``template_`` is lang -> (frequent chunk texts, frequent pairs
    of neighbouring chunks), as keys of :func:`text_key`. The main text's lines are the
    page's chunks, mostly: a line that is a template chunk of the page is template.
    """

    def __init__(self, min_pages: int = TEMPLATE_MIN_PAGES, min_side: int = TEMPLATE_MIN_SIDE):
        self.min_pages = min_pages
        self.min_side = min_side

    def fit(self, pages: Iterable) -> "SiteTemplate":
        chunks: dict[str, _Counts] = defaultdict(_Counts)
        for page in pages:
            chunks[page.lang].add(page_chunk_keys(page))
        self.pages_ = {lang: c.pages for lang, c in chunks.items()}
        self.template_ = {lang: c.frozen(self.min_pages)
                          for lang, c in chunks.items() if c.pages >= self.min_side}
        self._marks: dict = {}
        self._views: dict = {}
        self._texts: dict = {}
        self._line_parts: dict = {}
        return self

    def chunk_marks(self, page) -> list | None:
        """Per STRAND chunk of the page, True where it is template; None where the
        language's template is unknown."""
        learned = self.template_.get(page.lang)
        if learned is None:
            return None
        key = id(page)
        got = self._marks.get(key)
        if got is None or got[0] is not page:
            blocks, pairs = learned[0], learned[1]
            got = self._marks[key] = (page, _sequence_marks(
                list(page_chunk_keys(page)), blocks.__contains__, pairs.__contains__))
        return got[1]

    def strand(self, page) -> list:
        """The page's STRAND tokens without its language's template."""
        marks = self.chunk_marks(page)
        if not marks or not page.strand or not any(marks) or all(marks):
            return list(page.strand or ())
        return _strand_without(page.strand, marks)

    def text(self, page) -> str:
        """The page's main text without the lines that are template chunks of the page
        (all of it where every line is)."""
        key = id(page)
        got = self._texts.get(key)
        if got is None or got[0] is not page:
            got = self._texts[key] = (page, self._text(page))
        return got[1]

    def _text(self, page) -> str:
        marks = self.chunk_marks(page)
        text = page.text or ""
        if not marks or not any(marks):
            return text
        keys = page_chunk_keys(page)
        template = {k for k, m in zip(keys, marks) if m} - {k for k, m in zip(keys, marks) if not m}
        kept = _lines_without(text, template, self._line_parts)
        return "\n".join(kept) if kept else text

    def content_links(self, page) -> list:
        """The URLs a page links to from its content: a link whose every occurrence is in
        its language's template (a menu, a sidebar) is left out; the same target linked
        from the page's own text stays. All links where the template is unknown."""
        urls = [link["url"] for link in page.links or ()]
        marks = self.chunk_marks(page)
        placed = page_link_chunks(page) if marks else ()
        if not placed:
            return urls
        content = {url for url, i in placed if i >= len(marks) or not marks[i]}
        placed_urls = {url for url, _ in placed}
        # links outside <a> (``<area>``) are not placed: kept
        return [u for u in urls if u in content or u not in placed_urls]

    def shares(self, pages: Iterable) -> dict[str, float]:
        """lang -> the share of template blocks on the language's median page (of those
        ``pages`` whose language's template is known)."""
        by_lang: dict[str, list] = defaultdict(list)
        for page in pages:
            marks = self.chunk_marks(page)
            if marks:
                by_lang[page.lang].append(sum(marks) / len(marks))
        return {lang: sorted(v)[len(v) // 2] for lang, v in by_lang.items()}

    def blocks(self) -> "TemplateBlocks":
        """The learned template alone (no page), for marking other block sequences."""
        return TemplateBlocks(self.template_)

    def navigation(self, pages: Iterable) -> "TemplateBlocks | None":
        """The template to take out of the site's document trees (``pages``: the site's
        records), or None where no language of the site is heavy with it
        (:data:`HEAVY_TEMPLATE`)."""
        shares = self.shares(pages)
        if not shares or max(shares.values()) < HEAVY_TEMPLATE:
            return None
        return self.blocks()

    def view(self, page) -> "ContentView":
        """The page without its template, made once per record and shared by every
        language pair that reads the page."""
        key = id(page)
        got = self._views.get(key)
        if got is None or got[0] is not page:
            got = self._views[key] = (page, ContentView(page, self.strand(page),
                                                        self.text(page)))
        return got[1]

    def views(self, pages: dict) -> dict:
        """url -> :class:`ContentView` of each page of ``pages`` (url -> record)."""
        return {u: self.view(p) for u, p in pages.items()}


class TemplateBlocks:
    """A site's learned template per language (``SiteTemplate.template_``) without the
    pages it was learned from: small, picklable, for marking the chunks of a document
    tree (``trees.dom``: a tree chunk is a STRAND chunk of the same page)."""

    __slots__ = ("learned",)

    def __init__(self, learned: dict):
        self.learned = learned

    def marks(self, lang: str, keys: list) -> list | None:
        """Per block key (:func:`text_key`) of a page in ``lang``, True where it is
        template; None where the language's template is unknown."""
        got = self.learned.get(lang)
        if got is None:
            return None
        return _sequence_marks(keys, got[0].__contains__, got[1].__contains__)


# The derived features made from a page's text (``pages.compact.derived_feature``): a
# view's are made from its own text, without the template's numbers and identifiers.
TEXT_FEATURES = frozenset({"text_anchors", "text_numbers"})


class ContentView:
    """A page record seen without its site's template: ``strand``, ``text`` and
    ``text_length`` are the content's; every other field is the record's."""

    __slots__ = ("record", "strand", "text", "text_length", "derived")

    def __init__(self, record, strand: list, text: str):
        self.record = record
        self.strand = strand
        self.text = text
        self.text_length = len(text)
        # features of the text are the content's own; the others are the record's
        self.derived = {k: v for k, v in record.derived.items() if k not in TEXT_FEATURES}

    def __getattr__(self, name):
        return getattr(self.record, name)
