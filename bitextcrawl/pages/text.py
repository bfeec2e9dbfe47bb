"""Bytes to text: charset repair, binary detection, parsing, title and main text."""

from __future__ import annotations

import codecs
import re

import charset_normalizer
from lxml import etree
from lxml import html as lxml_html

from bitextcrawl.pages.strand import normalise_space

# Boilerplate containers: language ID runs on what a reader reads, not on menus
# (a French page's menu often lists "English", "Deutsch", ...).
BOILERPLATE_TAGS = ("nav", "header", "footer", "aside", "form")
INVISIBLE_TAGS = ("script", "style", "noscript", "template", "svg", "math", "head")
BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "main", "li", "ul", "ol", "table", "tr", "td", "th",
    "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "dd", "dt", "dl", "br",
    "figcaption", "caption", "body", "title",
})
# Below this, boilerplate is all a page has: use the whole body instead.
MIN_MAIN_TEXT = 80

_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def is_binary(body: bytes) -> bool:
    """True for bodies that no text page has: NUL bytes or many control bytes."""
    head = body[:4096]
    if not head:
        return False
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    return len(_CONTROL.findall(head)) > len(head) * 0.05


# Media types of HTML pages; a response, WARC record or lett line of another declared type
# is no page (none declared: the body is looked at).
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".ico", ".svg",
                    ".tif", ".tiff")
# Image signatures, raw or after a latin-1 -> UTF-8 round trip (how some crawlers stored
# binary bodies in a text field: ``\xff\xd8`` becomes ``\xc3\xbf\xc3\x98``).
IMAGE_MAGIC = (b"\xff\xd8\xff", b"\xc3\xbf\xc3\x98\xc3\xbf", b"GIF87a", b"GIF89a",
               b"\x89PNG", b"\xc2\x89PNG", b"RIFF", b"II*\x00", b"MM\x00*")
_IMAGE_URL = re.compile(r"\.(?:%s)(?:$|[?#&])" % "|".join(e[1:] for e in IMAGE_EXTENSIONS),
                        re.IGNORECASE)
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_HTML_SNIFF = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b",
                         re.IGNORECASE | re.DOTALL)


def is_image_url(url: str) -> bool:
    return bool(_IMAGE_URL.search(url))


def is_image_body(body: bytes) -> bool:
    return body.lstrip()[:8].startswith(IMAGE_MAGIC)


def looks_like_html(body: bytes) -> bool:
    return bool(_HTML_SNIFF.match(body[:2048].lstrip(codecs.BOM_UTF8)))


def body_rejection(body: bytes, mime: str = "", url: str = "") -> str | None:
    """Why a body is no HTML page, one set of reasons for the crawl and for every input
    format: ``image`` (declared, named or shaped so), ``non_html`` (another media type
    declared, or none and no HTML start), ``empty``, ``binary``; None if it may be one.
    ``mime``: the declared type, lower case, without parameters."""
    if mime.startswith("image/") or (url and is_image_url(url)):
        return "image"
    if mime and mime not in HTML_TYPES:
        return "non_html"
    if not body.strip():
        return "empty"
    if is_image_body(body):
        return "image"
    if is_binary(body):
        return "binary"
    if not mime and not looks_like_html(body):
        return "non_html"
    return None


def repair_decoding(body: bytes, text: str, encoding: str) -> tuple[str, str, bool]:
    """Re-decode a body whose declared charset was wrong (many U+FFFD in ``text``).

    Returns (text, charset, repaired). Scrapy already decoded with header, meta and
    BOM; this only steps in when that decoding visibly failed.
    """
    bad = text.count("\ufffd")
    if bad == 0 or bad < max(3, len(text) // 1000):
        return text, encoding, False
    best = charset_normalizer.from_bytes(body).best()
    if best is None or not best.encoding:
        return text, encoding, False
    redecoded = str(best)
    if redecoded.count("\ufffd") >= bad:
        return text, encoding, False
    return redecoded, best.encoding, True


def _valid_codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.strip().strip("\"'")).name
    except LookupError:
        return None


def charset_from_content_type(content_type: str | None) -> str | None:
    m = _HEADER_CHARSET.search(content_type or "")
    return _valid_codec(m.group(1)) if m else None


def charset_from_meta(body: bytes) -> str | None:
    """The charset of ``<meta charset>`` / ``<meta http-equiv content="...; charset=">``."""
    m = _META_CHARSET.search(body[:4096])
    return _valid_codec(m.group(1).decode("ascii", "ignore")) if m else None


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str, bool]:
    """Bytes of an HTML page to text: BOM, then the HTTP charset, then ``<meta charset>``,
    then UTF-8; a decoding that visibly failed is repaired (``repair_decoding``).
    Returns (text, charset, repaired)."""
    encoding = None
    for bom, name in _BOMS:
        if body.startswith(bom):
            encoding = name
            break
    encoding = encoding or charset_from_content_type(content_type) \
        or charset_from_meta(body) or "utf-8"
    text = body.decode(encoding, errors="replace")
    return repair_decoding(body, text, encoding)


def parse(html: str, parser=None):
    """Parse HTML leniently; returns an lxml document (never raises on junk).
    ``parser``: lxml.html's (the default) or :data:`PLAIN_PARSER`."""
    parser = parser or lxml_html.html_parser
    if not html or not html.strip():
        return lxml_html.document_fromstring("<html><body></body></html>", parser)
    # lxml refuses str input carrying an XML encoding declaration.
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)
    try:
        return lxml_html.document_fromstring(html, parser)
    except (etree.ParserError, ValueError):
        return lxml_html.document_fromstring("<html><body></body></html>", parser)


# The same tree as lxml.html's parser, of lxml's own elements: no ``text_content()`` (see
# :data:`text_of`) and no element class looked up in Python for each element a walk meets
# (a fifth of the time of a walk that reads little of each element: ``strand.link_hrefs``).
PLAIN_PARSER = etree.HTMLParser()
# An element's text, its descendants' included: lxml.html's ``text_content()``, of any
# element (lxml.html's own definition).
text_of = etree.XPath("string()", smart_strings=False)


def title_of(doc) -> str:
    el = doc.find(".//title")
    return normalise_space(text_of(el)) if el is not None else ""


def _block_text(el, out: list[str], skip: tuple[str, ...]) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    if tag in skip:
        if el.tail:
            out.append(el.tail)
        return
    block = tag in BLOCK_TAGS
    if block:
        out.append("\n")
    if tag == "img" and el.get("alt"):
        out.append(" " + el.get("alt") + " ")
    if el.text and tag:
        out.append(el.text)
    for child in el:
        _block_text(child, out, skip)
    if block:
        out.append("\n")
    if el.tail:
        out.append(el.tail)


def visible_text(doc, skip: tuple[str, ...] = INVISIBLE_TAGS) -> str:
    """Text of the body, one line per block element, whitespace normalised."""
    body = doc.find(".//body")
    root = body if body is not None else doc
    out: list[str] = []
    _block_text(root, out, skip)
    lines = (normalise_space(line) for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def main_text(doc) -> str:
    """Visible text without navigation, header, footer and forms, where enough is left."""
    main = doc.find(".//main")
    if main is not None:
        out: list[str] = []
        _block_text(main, out, INVISIBLE_TAGS + BOILERPLATE_TAGS)
        text = "\n".join(filter(None, (normalise_space(x) for x in "".join(out).split("\n"))))
        if len(text) >= MIN_MAIN_TEXT:
            return text
    text = visible_text(doc, INVISIBLE_TAGS + BOILERPLATE_TAGS)
    if len(text) >= MIN_MAIN_TEXT:
        return text
    return visible_text(doc)
