"""WMT16 ``.lett`` / ``.lett.gz`` input (the Bitextor / WMT16 document-alignment format).

One page a line, six tab-separated fields::

    lang  mime  encoding  url  base64(html)  base64(text)

The language field is whatever the crawler's language identifier said, and real files get
it wrong (image records labelled ``yo`` or ``vi``, redirect stubs labelled ``en``). It is
kept as *declared* evidence (``content_language``) and the ``identify`` callable decides
``lang``. The text field is ignored: bitextcrawl extracts its own text from the HTML.

Lines skipped and counted (``bitext/input/skipped/<reason>``): ``broken_line`` (not six
fields), ``unknown_url``, ``bad_url``, ``bad_base64``. Bodies that are no page are counted
with the crawl's names (``skipped/image`` for an image URL or an image body wrongly typed
``text/html``, ``skipped/non_html``, ``bad/empty``, ``bad/binary``; see ``pages.record``).
"""

from __future__ import annotations

import base64
import binascii
import collections
import os
import re
from functools import partial
from typing import Iterator

from bitextcrawl.formats.inputs import count as _count
from bitextcrawl.formats.inputs import iter_lines
from bitextcrawl.pages.record import PageRecord, record_from_body

_CHARSET = re.compile(r"charset\s*=\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)


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
    try:
        body = _b64(html_b64)
    except (binascii.Error, ValueError):
        _count(stats, "skipped/bad_base64")
        return None
    mime = mime.strip().lower().split(";", 1)[0]
    m = _CHARSET.search(encoding)
    return record_from_body(
        url, body, identify, partial(_count, stats),
        content_type=f"{mime}; charset={m.group(1)}" if m else mime,
        requested_url=url, status=200,
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
