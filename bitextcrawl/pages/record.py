"""The page record: what bitextcrawl knows about one downloaded HTML page.

Made once per page by :func:`record_from_body`, from the bytes the language-ID middleware
downloaded during a crawl, or a WARC record or lett line read offline; every later stage
works on these records, never on Scrapy responses.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import time
from dataclasses import dataclass, field

from bitextcrawl.pages import strand, template
from bitextcrawl.pages import text as textmod
from bitextcrawl.pages.language import MIN_TEXT_FOR_LID, Identification, normalise_tag
from bitextcrawl.pages.text import text_of
from bitextcrawl.pages.urls import link_base, link_resolver, page_name, site_of
from bitextcrawl.pages.variants import tag_variant

logger = logging.getLogger(__name__)

# Why bytes are no page record (``pages.text.body_rejection``, or a charset that cannot
# decode them), and the stat group each is counted in: ``skipped`` (not a page at all),
# ``bad`` (a page that cannot be read).
REJECTION_GROUPS = {"image": "skipped", "non_html": "skipped",
                    "empty": "bad", "binary": "bad", "charset": "bad"}
# Flaws of a page that still becomes a record, counted under ``bad/``.
FLAWS = ("charset_repaired", "unclosed_html", "no_text")


@dataclass
class PageRecord:
    url: str                       # final URL, after redirects
    requested_url: str = ""
    site: str = ""
    status: int = 200
    charset: str = ""
    charset_repaired: bool = False
    content_type: str = ""
    title: str = ""
    text: str = ""                 # main text, one line per block
    text_length: int = 0
    lang: str = "und"              # decided language
    lang_prob: float = 0.0
    lang_method: str = "none"
    lid_lang: str | None = None    # fastText label, kept apart from declared evidence
    html_lang: str | None = None   # <html lang>
    content_language: str | None = None  # Content-Language header
    hreflang: dict = field(default_factory=dict)  # lang -> URL of declared alternates
    links: list = field(default_factory=list)     # [{"url", "text", "hreflang"}]
    strand: list = field(default_factory=list)    # STRAND tokens
    chunks: list = field(default_factory=list)    # text of each [Chunk] token
    content_hash: str = ""
    depth: int = 0
    discovered_by: str = "link"    # start | link | pattern | parallel_link
    fetched_at: float = 0.0
    html: str = ""                 # decoded raw HTML (DOM alignment needs it)
    aliases: list = field(default_factory=list)  # other URLs of this page: redirects, duplicates
    # Transient, for the WARC writer only; never exported: the response, or its WARC
    # record made already (``formats.warc.response_member``, by a record worker).
    body: bytes | None = field(default=None, repr=False, compare=False)
    http_headers: list | None = field(default=None, repr=False, compare=False)
    warc_member: bytes | None = field(default=None, repr=False, compare=False)
    # Transient: the content fields as the page store keeps them (``store.codec``), made
    # by a record worker; never exported.
    stored_content: bytes | None = field(default=None, repr=False, compare=False)
    # Transient: what several stages of a crawl derive from the record, made once.
    derived: dict = field(default_factory=dict, repr=False, compare=False)
    # Transient, for the WARC writer: the URL the page was downloaded from where its name
    # differs (a directory index document, ``pages.urls.page_name``); "" where it is ``url``.
    fetched_url: str = field(default="", repr=False, compare=False)

    TRANSIENT = ("body", "http_headers", "warc_member", "stored_content", "derived",
                 "fetched_url")

    def to_dict(self) -> dict:
        # Shallow on purpose: dataclasses.asdict deep-copies the HTML and every link.
        return {name: getattr(self, name) for name in _EXPORTED}

    @classmethod
    def from_dict(cls, d: dict) -> "PageRecord":
        names = {f.name for f in dataclasses.fields(cls)}
        rec = cls(**{k: v for k, v in d.items() if k in names})
        return rec

    @property
    def outlinks(self) -> list[str]:
        return [link["url"] for link in self.links]


def extract_links(doc, base_url: str, resolve=None) -> tuple[list[dict], dict]:
    """Outlinks (with anchor text and hreflang) and declared alternates (hreflang map).

    A link's ``hreflang`` is the declared tag's variant where it names one (``pt-br``
    for ``pt-BR``), else its base language (``fr`` for ``fr``); the alternates map has
    the base language of every declared tag (the first URL declared for it) and the
    variant of those that name one."""
    if resolve is None:
        resolve = link_resolver(link_base(doc, base_url))
    links: list[dict] = []
    seen: set[str] = set()
    alternates: dict[str, str] = {}
    for el in doc.iter("a", "area", "link"):
        url = resolve(el.get("href"))
        if url is None:
            continue
        # the base language (``pt``), and the variant a region or script names
        # (``pt-br``: pages.variants), each a key of the alternates
        hreflang = normalise_tag(el.get("hreflang"))
        variant = tag_variant(el.get("hreflang")) if hreflang else None
        if el.tag == "link":
            rel = (el.get("rel") or "").lower()
            if "alternate" in rel and hreflang:
                alternates.setdefault(hreflang, url)
                if variant:
                    alternates.setdefault(variant, url)
            continue
        if hreflang:
            alternates.setdefault(hreflang, url)
            if variant:
                alternates.setdefault(variant, url)
        if url in seen:
            continue
        seen.add(url)
        anchor = strand.normalise_space(text_of(el) or "")
        if not anchor:
            anchor = " ".join(filter(None, (img.get("alt") for img in el.iter("img"))))
        if not anchor:
            anchor = el.get("title") or ""
        links.append({"url": url, "text": anchor[:200], "hreflang": variant or hreflang})
    return links, alternates


# (a list item's own words shorter than pages.language.MIN_TEXT_FOR_LID say nothing of
# their language: lid.176 guesses)
MAX_ITEM_TEXT = 200


def list_item_texts(doc, resolve) -> tuple:
    """``(URL, text)`` of the links that head an item of a list or table: the item's
    words besides the link's anchor (a ``<dt>``'s ``<dd>``, the rest of an ``<li>`` or a
    table row), where there are enough of them to tell their language.

    An index written for one translation describes each page it lists; a generated one
    (a manual's module index) takes a page's description from that page's translation
    where it exists and from the original otherwise, so the language of an item's words
    says whether the page it links is translated (``focus/bars.py``, rule LISTED)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in doc.iter("li", "dt", "tr"):
        if item.tag != "dt" and len(item) == 1 and item[0].tag == "a" \
                and not (item.text or "").strip() and not (item[0].tail or "").strip():
            continue   # a menu's item, its link alone (most items: checked first)
        if item.tag == "li" and any(True for _ in item.iter("ul", "ol")):
            continue   # a branch of a menu tree: its words are its children's
        link = next((a for a in item.iter("a") if a.get("href")), None)
        if link is None:
            continue
        url = resolve(link.get("href"))
        if url is None or url in seen:
            continue
        words = (text_of(item) or "").replace(text_of(link) or "", " ", 1)
        if item.tag == "dt":   # a definition list: the item's words are its <dd>s
            sibling = item.getnext()
            while sibling is not None and sibling.tag == "dd":
                words += " " + (text_of(sibling) or "")
                sibling = sibling.getnext()
        words = strand.normalise_space(words)
        if len(words) >= MIN_TEXT_FOR_LID:
            seen.add(url)
            out.append((url, words[:MAX_ITEM_TEXT]))
    return tuple(out)


def content_hash(title: str, text: str) -> str:
    return hashlib.sha1(f"{title}\n{text}".encode("utf-8", "replace")).hexdigest()


def parse_page(url: str, html: str) -> dict:
    """The language-independent part of a record, from HTML alone."""
    doc = textmod.parse(html, textmod.PLAIN_PARSER)
    title = textmod.title_of(doc)
    main = textmod.main_text(doc)
    hrefs: list = []
    tokens, chunks = strand.linearise(doc, hrefs)
    # each href resolved once, for the links and for where they sit
    resolve = functools.cache(link_resolver(link_base(doc, url)))
    links, alternates = extract_links(doc, url, resolve)
    root = doc.getroottree().getroot()
    derived = {"link_chunks": template.link_chunks(hrefs, resolve)}
    items = list_item_texts(doc, resolve)
    if items:   # (most pages have none: nothing stored)
        derived["link_items"] = items
    return {
        "title": title,
        "text": main,
        "text_length": len(main),
        "html_lang": root.get("lang") or root.get("xml:lang"),
        "hreflang": alternates,
        "links": links,
        "strand": tokens,
        "chunks": chunks,
        "content_hash": content_hash(title, main),
        "derived": derived,
    }


def language_fields(ident: Identification) -> dict:
    """A record's fields of an :class:`Identification` (``build_record``, and the crawl's
    process for a record a worker made)."""
    return {"lang": ident.lang, "lang_prob": round(ident.lid_prob, 4),
            "lang_method": ident.method, "lid_lang": ident.lid_lang}


def build_record(url: str, html: str, identify=None, *, requested_url: str = "",
                 redirect_urls: list | tuple = (),
                 status: int = 200, charset: str = "", content_type: str = "text/html",
                 content_language: str | None = None, depth: int = 0,
                 discovered_by: str = "link", charset_repaired: bool = False,
                 fetched_at: float | None = None) -> PageRecord:
    """Make the record of one page. ``identify(text, html_lang, content_language)``
    returns an :class:`Identification` (see ``pages.language``); without it the page's
    own declarations decide the language."""
    parsed = parse_page(url, html)
    if identify is not None:
        ident = identify(parsed["text"] or parsed["title"], parsed["html_lang"], content_language)
    else:
        declared = normalise_tag(parsed["html_lang"]) or normalise_tag(content_language)
        ident = Identification(declared or "und", None, 0.0,
                               "html_lang" if declared else "none")
    return PageRecord(
        url=url,
        requested_url=requested_url or url,
        site=site_of(url),
        status=status,
        charset=charset,
        charset_repaired=charset_repaired,
        content_type=content_type,
        **language_fields(ident),
        content_language=content_language,
        depth=depth,
        discovered_by=discovered_by,
        fetched_at=time.time() if fetched_at is None else fetched_at,
        html=html,
        aliases=sorted({u for u in (requested_url, *redirect_urls) if u and u != url}),
        **parsed,
    )


# The fields a record is exported with (pages.jsonl, Scrapy's feed exports).
EXPORTED_FIELDS = tuple(f.name for f in dataclasses.fields(PageRecord)
                        if f.name not in PageRecord.TRANSIENT)
_EXPORTED = EXPORTED_FIELDS


def record_from_body(url: str, body: bytes, identify, count, *, content_type: str = "",
                     decode=None, **fields) -> PageRecord | None:
    """The one way bytes become a page record: crawl responses, WARC records, lett lines.

    A rejection is counted as ``count("skipped/<reason>")`` or ``count("bad/<reason>")``
    (see :data:`REJECTION_GROUPS`) and gives None; a flaw (:data:`FLAWS`) is counted and
    the record made. ``content_type``: the declared ``Content-Type``, charset included.
    ``decode()``: (text, encoding) decoded by the caller (Scrapy's response), otherwise
    ``pages.text.decode_html``. ``fields``: :func:`build_record`'s keyword arguments.
    """
    mime = content_type.split(";", 1)[0].strip().lower()
    reason = textmod.body_rejection(body, mime, url)
    if reason is None:
        try:
            html, charset, repaired = (textmod.repair_decoding(body, *decode()) if decode
                                       else textmod.decode_html(body, content_type))
        except (LookupError, UnicodeError) as exc:
            logger.warning("cannot decode %s: %s", url, exc)
            reason = "charset"
    if reason is not None:
        count(f"{REJECTION_GROUPS[reason]}/{reason}")
        return None
    if repaired:
        count("bad/charset_repaired")
    if "</html" not in html[-2000:].lower():
        count("bad/unclosed_html")  # truncated or sloppy: parsed anyway
    record = build_record(url, html, identify, charset=charset, charset_repaired=repaired,
                          content_type=mime or "text/html", **fields)
    if not record.text_length:
        count("bad/no_text")
    return named(record)


def named(record: PageRecord) -> PageRecord:
    """``record`` under its page's name (:func:`~bitextcrawl.pages.urls.page_name`): a
    page downloaded as ``dir/index.html`` is the page ``dir/``, its downloaded URL kept
    among its aliases (as a redirect's source is), in ``fetched_url`` for the WARC."""
    name = page_name(record.url)
    if name != record.url:
        record.fetched_url = record.url
        record.aliases = sorted({*record.aliases, record.url} - {name})
        record.url = name
    return record
