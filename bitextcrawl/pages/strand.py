"""STRAND linearisation of an HTML page ([Assylbekov 2015 §2]; Resnik & Smith 2003).

A page becomes a sequence of ``[START:TAG]``, ``[END:TAG]`` and ``[Chunk:LEN]``
tokens, where LEN is the length in characters of a run of text. The chunk texts
are returned beside the tokens so that later stages (DOM/sentence alignment) can
use the text of aligned chunks without parsing the page again.
"""

from __future__ import annotations

from functools import lru_cache

# Dropped with their content: never visible text. (<head> is dropped too, but for its title.)
DROPPED_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "math"})

# Inline formatting is ignored (its text joins the surrounding chunk): translators
# move emphasis and links freely inside a sentence, while the block template of a
# translated page stays the same. Keeping them makes W count noise, not structure.
INLINE_TAGS = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "dfn", "em",
    "font", "i", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong",
    "sub", "sup", "time", "tt", "u", "var", "wbr", "label", "nobr",
})

VOID_TAGS = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
    "param", "source", "track", "wbr",
})

START = "[START:{}]"
END = "[END:{}]"
CHUNK = "[Chunk:{}]"


def normalise_space(text: str) -> str:
    # (str.split() splits on what \s matches: the same result as re.sub(r"\s+", " ", text).strip(),
    # two to three times faster, and every chunk of every page goes through here)
    return " ".join(text.split())


@lru_cache(maxsize=512)
def _start(tag: str) -> str:
    return START.format(tag.upper())


@lru_cache(maxsize=512)
def _end(tag: str) -> str:
    return END.format(tag.upper())


def linearise(doc, links: list | None = None) -> tuple[list[str], list[str]]:
    """Linearise a parsed lxml HTML document into STRAND tokens and chunk texts.

    ``links``, when given, receives ``(href, chunk index)`` for each ``<a href>``: the
    chunk whose text holds the link's (the next chunk, for a link without text)."""
    tokens: list[str] = []
    chunks: list[str] = []
    buf: list[str] = []
    pending: list[str] = []   # hrefs whose chunk is not flushed yet

    def flush():
        if buf:
            text = normalise_space("".join(buf))
            buf.clear()
            if text:
                tokens.append(CHUNK.format(len(text)))
                chunks.append(text)
                if pending:
                    links.extend((href, len(chunks) - 1) for href in pending)
                    pending.clear()

    def walk(el):
        tag = el.tag
        if not isinstance(tag, str):  # comments, processing instructions
            if el.tail:
                buf.append(el.tail)
            return
        tag = tag.lower()
        if tag in DROPPED_TAGS:
            if el.tail:
                buf.append(el.tail)
            return
        if tag == "head":
            title = el.find(".//title")
            if title is not None:
                flush()
                tokens.append(START.format("TITLE"))
                buf.append(title.xpath("string()") or "")   # (text_content, of any element)
                flush()
                tokens.append(END.format("TITLE"))
            if el.tail:
                buf.append(el.tail)
            return
        inline = tag in INLINE_TAGS
        if not inline:
            flush()
            tokens.append(_start(tag))
        if tag == "img" and el.get("alt"):
            buf.append(" " + el.get("alt") + " ")
        if el.text:
            buf.append(el.text)
        for child in el:
            walk(child)
        if not inline:
            flush()
            if tag not in VOID_TAGS:
                tokens.append(_end(tag))
        elif tag == "a" and links is not None and el.get("href"):
            pending.append(el.get("href"))
        if el.tail:
            buf.append(el.tail)

    root = doc.getroottree().getroot() if hasattr(doc, "getroottree") else doc
    walk(root)
    flush()
    return tokens, chunks


def link_hrefs(doc) -> list[tuple[str, int]]:
    """The ``(href, chunk index)`` that :func:`linearise` gives its ``links``, without
    its tokens and chunk texts: a chunk is counted where its text holds more than space.
    (A third of :func:`linearise`'s time, for the link chunks of a record read without
    them: ``pages.template.page_link_chunks``.)"""
    out: list[tuple[str, int]] = []
    pending: list[str] = []   # hrefs whose chunk is not flushed yet
    n = 0                     # chunks flushed
    text = False              # the chunk being read holds more than space

    def flush():
        nonlocal n, text
        if text:
            text = False
            n += 1
            if pending:
                out.extend((href, n - 1) for href in pending)
                pending.clear()

    def walk(el):
        nonlocal text
        tag = el.tag
        if isinstance(tag, str):
            tag = tag.lower()
            if tag == "head":
                title = el.find(".//title")
                if title is not None:
                    flush()
                    words = title.xpath("string()")   # (text_content, of any element)
                    text = bool(words) and not words.isspace()
                    flush()
            elif tag not in DROPPED_TAGS:
                inline = tag in INLINE_TAGS
                if not inline:
                    flush()
                if not text:
                    if tag == "img":
                        alt = el.get("alt")
                        text = bool(alt) and not alt.isspace()
                    words = el.text
                    if words and not text:
                        text = not words.isspace()
                for child in el:
                    walk(child)
                if not inline:
                    flush()
                elif tag == "a":
                    href = el.get("href")
                    if href:
                        pending.append(href)
        if not text:
            tail = el.tail
            if tail:
                text = not tail.isspace()

    root = doc.getroottree().getroot() if hasattr(doc, "getroottree") else doc
    walk(root)
    flush()
    return out



def is_chunk(token: str) -> bool:
    return token.startswith("[Chunk:")


def chunk_length(token: str) -> int:
    return int(token[7:-1])
