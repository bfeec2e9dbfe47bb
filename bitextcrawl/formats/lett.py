"""WMT16 ``.lett`` / ``.lett.gz`` input (the Bitextor / WMT16 document-alignment format).

One page a line, six tab-separated fields::

    lang  mime  encoding  url  base64(html)  base64(text)

The language field is whatever the crawler's language identifier said, and real files get
it wrong (image records labelled ``yo`` or ``vi``, redirect stubs labelled ``en``). It is
kept as *declared* evidence (``content_language``) and the ``identify`` callable decides
``lang``. The text field is ignored: bitextcrawl extracts its own text from the HTML.

Skipped and counted (``bitext/input/skipped/<reason>``): ``broken_line`` (not six fields),
``unknown_url``, ``bad_url``, ``bad_base64``, ``image`` (an image URL or an image body
wrongly typed ``text/html``), ``binary``, ``non_html``, ``empty``.
"""

from __future__ import annotations

import base64
import binascii
import collections
import os
import re
from typing import Iterator

from bitextcrawl.formats.inputs import count as _count
from bitextcrawl.formats.inputs import iter_lines
from bitextcrawl.formats.warc import decode_html
from bitextcrawl.pages.record import PageRecord, build_record
from bitextcrawl.pages.text import body_rejection

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".ico", ".svg",
                    ".tif", ".tiff")
# Image signatures, raw or after a latin-1 -> UTF-8 round trip (how some crawlers stored
# binary bodies in a text field: ``\xff\xd8`` becomes ``\xc3\xbf\xc3\x98``).
IMAGE_MAGIC = (b"\xff\xd8\xff", b"\xc3\xbf\xc3\x98\xc3\xbf", b"GIF87a", b"GIF89a",
               b"\x89PNG", b"\xc2\x89PNG", b"RIFF", b"II*\x00", b"MM\x00*")
_IMAGE_URL = re.compile(r"\.(?:%s)(?:$|[?#&])" % "|".join(e[1:] for e in IMAGE_EXTENSIONS),
                        re.IGNORECASE)
_CHARSET = re.compile(r"charset\s*=\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)


def is_image_url(url: str) -> bool:
    return bool(_IMAGE_URL.search(url))


def is_image_body(body: bytes) -> bool:
    return body.lstrip()[:8].startswith(IMAGE_MAGIC)


def _b64(field: str) -> bytes:
    field = field.strip()
    return base64.b64decode(field + "=" * (-len(field) % 4), validate=True)


def parse_lett_line(line: str, identify=None, stats=None) -> PageRecord | None:
    """The page record of one ``.lett`` line, or None (counted in ``stats``)."""
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) != 6:
        _count(stats, "skipped/broken_line")
        return None
    lang, mime, encoding, url, html_b64, _text_b64 = fields
    url = url.strip()
    if url == "unknown_url" or not url:
        _count(stats, "skipped/unknown_url")
        return None
    if not url.startswith(("http://", "https://")):
        _count(stats, "skipped/bad_url")
        return None
    mime = mime.strip().lower().split(";", 1)[0]
    if mime.startswith("image/") or is_image_url(url):
        _count(stats, "skipped/image")
        return None
    try:
        body = _b64(html_b64)
    except (binascii.Error, ValueError):
        _count(stats, "skipped/bad_base64")
        return None
    if body.strip() and is_image_body(body):
        _count(stats, "skipped/image")
        return None
    reason = body_rejection(body, mime)
    if reason is not None:
        _count(stats, "skipped/" + reason)
        return None
    m = _CHARSET.search(encoding)
    content_type = f"text/html; charset={m.group(1)}" if m else (encoding.strip() or None)
    html, charset, repaired = decode_html(body, content_type)
    return build_record(
        url, html, identify,
        requested_url=url, status=200, charset=charset, charset_repaired=repaired,
        content_type=mime or "text/html",
        content_language=lang.strip() or None,
        fetched_at=0.0,
    )


def iter_lett_pages(path: str | os.PathLike, identify=None,
                    stats: collections.Counter | None = None) -> Iterator[PageRecord]:
    """Page records of the HTML pages of a ``.lett`` / ``.lett.gz`` file.

    Junk lines are skipped and counted, never fatal; a truncated ``.gz`` yields the pages
    before the damage and counts ``bitext/input/errors/truncated``.
    """
    for line in iter_lines(path, stats):
        _count(stats, "records")
        page = parse_lett_line(line, identify, stats)
        if page is not None:
            _count(stats, "pages")
            yield page
