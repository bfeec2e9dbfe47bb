"""WARC output and input (warcio).

:class:`WarcPageWriter` appends HTTP ``response`` records to a ``.warc.gz``: each record is
its own gzip member, so a file reopened after a restart and appended to stays a valid
WARC. :func:`iter_warc_pages` reads ``.warc`` / ``.warc.gz`` files (ours or anyone's) back
into page records; records that are not HTML pages are skipped and counted, never fatal.

Bodies are stored as the crawler saw them *after* transfer decoding (Scrapy has already
removed chunking and gzip/deflate/br), so the writer drops the ``Content-Encoding`` and
``Transfer-Encoding`` headers and rewrites ``Content-Length``: a reader that trusted the
original headers would try to decompress plain bytes.
"""

from __future__ import annotations

import collections
import os
import zlib
from datetime import datetime, timezone
from functools import partial
from http import HTTPStatus
from io import BytesIO
from typing import Iterator
from urllib.parse import urljoin

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import iso_date_to_datetime
from warcio.warcwriter import WARCWriter

from bitextcrawl.formats.inputs import count as _count
from bitextcrawl.pages.record import PageRecord, record_from_body
from bitextcrawl.pages.urls import follow_redirects

# Headers that describe the wire form of a body we no longer have.
_WIRE_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}
# gzip level of a record's member. warcio's own gzip is level 9: on WET's pages twice the
# CPU of level 6 for 1 % fewer bytes, and the crawl writes every response.
GZIP_LEVEL = 6


def warc_date(fetched_at: float) -> str:
    """``WARC-Date`` (WARC/1.1, microseconds) of a Unix time."""
    dt = datetime.fromtimestamp(fetched_at, tz=timezone.utc).replace(tzinfo=None)
    return dt.isoformat(timespec="microseconds") + "Z"


def _text(value) -> str:
    """Header names and values as text (bytes are HTTP's latin-1)."""
    return value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else str(value)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def response_member(url: str, status: int, headers: list[tuple[str, str]], body: bytes,
                    fetched_at: float, gzip: bool = True) -> bytes:
    """One ``response`` record (status line, HTTP headers, body) as the bytes appended to
    a WARC file: its own gzip member with ``gzip``."""
    body = body or b""
    pairs = [(_text(k), _text(v)) for k, v in headers or ()]
    kept = [(k, v) for k, v in pairs if k.lower() not in _WIRE_HEADERS]
    kept.append(("Content-Length", str(len(body))))
    http_headers = StatusAndHeaders(f"{int(status)} {_reason(int(status))}", kept,
                                    protocol="HTTP/1.1")
    buffer = BytesIO()
    writer = WARCWriter(buffer, gzip=False, warc_version="1.1")
    writer.write_record(writer.create_warc_record(
        url, "response", payload=BytesIO(body), length=len(body), http_headers=http_headers,
        warc_headers_dict={"WARC-Date": warc_date(fetched_at)}))
    data = buffer.getvalue()
    if gzip:
        member = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        data = member.compress(data) + member.flush()
    return data


class WarcPageWriter:
    """Append HTTP ``response`` records to a WARC file (gzip per record when the name ends
    in ``.gz``), creating the file and its folder if needed."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        folder = os.path.dirname(self.path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        self.bytes_dropped = truncate_to_last_record(self.path) if os.path.exists(self.path) else 0
        self._fh = open(self.path, "ab")
        self.gzip = self.path.endswith(".gz")
        self.records_written = 0

    def write_response(self, url: str, status: int, headers: list[tuple[str, str]],
                       body: bytes, fetched_at: float) -> None:
        """Write one ``response`` record: status line, HTTP headers, body."""
        self.write_member(response_member(url, status, headers, body, fetched_at, self.gzip))

    def write_member(self, data: bytes) -> None:
        """Append a record made by :func:`response_member` (a record worker makes it)."""
        if self._fh is None:
            raise ValueError(f"WARC writer for {self.path} is closed")
        self._fh.write(data)
        self.records_written += 1

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            self._fh.close()
            self._fh = None

    @property
    def closed(self) -> bool:
        return self._fh is None

    def __enter__(self) -> "WarcPageWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _complete_gzip_end(path: str, chunk: int = 1 << 20) -> int:
    """Offset just past the last complete gzip member (one WARC record each)."""
    end = consumed = 0
    d = zlib.decompressobj(31)
    with open(path, "rb") as fh:
        while data := fh.read(chunk):
            while data:
                try:
                    d.decompress(data)
                except zlib.error:
                    return end
                if not d.eof:
                    consumed += len(data)
                    break
                used = len(data) - len(d.unused_data)
                consumed += used
                end = consumed
                data = d.unused_data
                d = zlib.decompressobj(31)
    return end


def _complete_warc_end(path: str) -> int:
    """Offset just past the last record warcio reads whole (uncompressed WARC)."""
    end = 0
    try:
        with open(path, "rb") as fh:
            it = ArchiveIterator(fh)
            for record in it:
                it.read_to_end(record)
                end = it.get_record_offset() + it.get_record_length()
    except Exception:  # warcio raises many kinds on a torn record: all mean "stop here"
        pass
    return end


def truncate_to_last_record(path: str) -> int:
    """Cut a WARC back to the end of its last complete record; returns the bytes dropped.

    A crawl killed mid-write leaves half a record at the end; appending after it would
    leave a torn record in the middle of the file. Only the torn tail goes.
    """
    size = os.path.getsize(path)
    end = _complete_gzip_end(path) if path.endswith(".gz") else _complete_warc_end(path)
    if end < size:
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return size - end


# --------------------------------------------------------------------------- reading

def _fetched_at(date: str | None) -> float:
    if not date:
        return 0.0
    try:
        return iso_date_to_datetime(date, tz_aware=True).timestamp()
    except (ValueError, TypeError):
        return 0.0


def _page_from_record(record, identify, stats, redirects=None) -> PageRecord | None:
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    if not url.startswith(("http://", "https://")):
        _count(stats, "skipped/bad_url")
        return None
    http = record.http_headers
    status = http.get_statuscode() if http is not None else None
    try:
        status = int(status)
    except (TypeError, ValueError):
        _count(stats, "skipped/unreadable")
        return None
    if 300 <= status < 400 and redirects is not None:
        location = http.get_header("Location")
        if location:
            redirects[url] = urljoin(url, location.strip())
            _count(stats, "redirects")
            return None
    if not 200 <= status < 300:
        _count(stats, "skipped/status")
        return None
    return record_from_body(
        url, record.content_stream().read(), identify, partial(_count, stats),
        content_type=http.get_header("Content-Type") or "",
        requested_url=url, status=status,
        content_language=http.get_header("Content-Language"),
        fetched_at=_fetched_at(record.rec_headers.get_header("WARC-Date")),
    )


def _tail_is_junk(fh, end: int, compressed: bool) -> bool:
    """True when bytes that no record accounted for follow ``end`` (a cut-off record)."""
    fh.seek(end)
    tail = fh.read(4096)
    return bool(tail) and (compressed or bool(tail.strip()))


def iter_warc_pages(path: str | os.PathLike, identify=None,
                    stats: collections.Counter | None = None) -> Iterator[PageRecord]:
    """Page records of the HTML ``response`` records of a ``.warc`` / ``.warc.gz``.

    Redirect records (3xx with a ``Location``) are counted (``bitext/input/redirects``)
    and the URLs redirecting to a page become its ``aliases`` (see below).
    Records that are no page are counted in ``stats`` under ``bitext/input/`` with the
    crawl's names (``skipped/non_html``, ``bad/binary``, ... see ``pages.record``), other
    non-2xx and unreadable records under ``bitext/input/skipped/<reason>``; a damaged or
    truncated file yields the complete records before the damage and counts
    ``bitext/input/errors/truncated`` (a record cut short is not yielded).
    """
    path = os.fspath(path)
    redirects: dict[str, str] = {}
    pages: dict[str, PageRecord] = {}
    try:
        yield from _iter_warc_records(path, identify, stats, redirects, pages)
    finally:
        # Redirects may come before or after their target: the URLs that redirect to a
        # page join its ``aliases`` once the file is read (the records already yielded
        # are completed in place; ``scrapy align`` aligns only after reading everything).
        for source in redirects:
            page = pages.get(follow_redirects(redirects[source], redirects))
            if page is not None and source != page.url and source not in page.aliases:
                page.aliases = sorted({*page.aliases, source})


def _iter_warc_records(path: str, identify, stats, redirects: dict,
                       pages: dict) -> Iterator[PageRecord]:
    with open(path, "rb") as fh:
        compressed = fh.read(2) == b"\x1f\x8b"
        fh.seek(0)
        it = ArchiveIterator(fh)
        end = 0
        truncated = False
        while True:
            try:
                record = next(it)
            except StopIteration:
                break
            except Exception:  # noqa: BLE001 - warcio fails in many ways on damaged input
                truncated = True
                break
            declared = (record.rec_headers.get_header("Content-Length") or "").strip()
            if not record.rec_type or not declared.isdigit() \
                    or not hasattr(record.raw_stream, "limit"):
                # Headers without a type or a length: the file ended inside them.
                truncated = True
                break
            page = None
            if record.rec_type == "response":
                _count(stats, "records")
                try:
                    page = _page_from_record(record, identify, stats, redirects)
                except (EOFError, zlib.error, OSError, ValueError, LookupError, UnicodeError):
                    # e.g. a body whose Content-Encoding does not decode: this record only.
                    _count(stats, "skipped/unreadable")
            try:
                end = it.get_record_offset() + it.get_record_length()  # reads to the end
            except Exception:  # noqa: BLE001 - damaged stream
                truncated = True
                break
            if record.raw_stream.limit > 0:  # the file ended inside this record
                truncated = True
                break
            if page is not None:
                _count(stats, "pages")
                pages[page.url] = page
                yield page
        if not truncated:
            try:
                truncated = _tail_is_junk(fh, end, compressed)
            except OSError:
                truncated = True
        if truncated:
            _count(stats, "errors/truncated")
