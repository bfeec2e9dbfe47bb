"""One record builder (``pages.record.record_from_body``) behind the crawl, WARC and lett:
the same bytes give the same records and the same rejection and flaw counts from all three."""

from __future__ import annotations

import asyncio
import base64
import collections
import io

import pytest
from scrapy import Request
from scrapy.http import Headers
from scrapy.responsetypes import responsetypes
from scrapy.utils.test import get_crawler
from warcio.archiveiterator import ArchiveIterator

from bitextcrawl.formats.lett import iter_lett_pages
from bitextcrawl.formats.warc import WarcPageWriter, iter_warc_pages, response_member
from bitextcrawl.middlewares.langid import LanguageIdMiddleware
from bitextcrawl.pages.compact import STORED_FEATURES
from bitextcrawl.pages.record import FLAWS, REJECTION_GROUPS, record_from_body
from bitextcrawl.spiders.bitext import BitextSpider

H = "http://www.example.org"
PAGE = ("<html lang='en'><head><title>Opening hours</title></head><body><main><p>The reading "
        "rooms of the library open at nine and close at six, Saturdays included.</p></main>"
        "</body></html>")
FRENCH = ("<html lang='fr'><head><title>Horaires</title></head><body><main><p>Les salles de "
          "lecture de la bibliothèque ouvrent à neuf heures et ferment à dix-huit heures, "
          "le samedi compris.</p></main></body></html>").encode()
# (path, Content-Type, body): one of each way bytes fail to be a page, and two pages.
BODIES = [
    ("/en/hours.html", "text/html; charset=utf-8", PAGE.encode()),
    ("/en/cut.html", "text/html; charset=utf-8", PAGE[:-30].encode()),  # unclosed: kept
    ("/en/blank.html", "text/html; charset=utf-8", b""),                # whitespace kept off
    ("/en/stub.html", "text/html; charset=utf-8", b"<html><body></body></html>"),
    ("/legacy/brochure.html", "text/html", b"\x00\x01\x02\x03" * 100),
    ("/img/logo", "image/png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
    ("/photo.jpg", "text/html", b"<html>not really</html>"),
    ("/report.pdf", "application/pdf", b"%PDF-1.4 text"),
]


def crawled_records(workers=None, bodies=BODIES):
    """The records and counts of BODIES through the crawl's middleware: made in its
    process, or by ``workers`` (a RecordWorkers)."""
    crawler = get_crawler(BitextSpider, {"BITEXT_RECORD_WORKERS": 0})
    mw = LanguageIdMiddleware.from_crawler(crawler)
    mw.workers = workers
    records = []
    for path, content_type, body in bodies:
        request = Request(H + path)
        headers = Headers({"Content-Type": content_type})
        cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
        out = mw.process_response(request, cls(request.url, body=body, headers=headers,
                                               request=request))
        if workers is not None:
            out = asyncio.run(out)
        assert out.url == request.url
        if "bitext_page" in request.meta:
            records.append(request.meta["bitext_page"])
    counts = {k[len("bitext/"):]: v for k, v in crawler.stats.get_stats().items()
              if k.startswith(("bitext/bad/", "bitext/skipped/", "bitext/lang/"))}
    return records, counts


def crawl_counts():
    records, counts = crawled_records()
    return [p.url for p in records], {k: v for k, v in counts.items()
                                      if not k.startswith("lang/")}


def input_counts(pages, stats):
    urls = [p.url for p in pages]
    return urls, {k[len("bitext/input/"):]: v for k, v in stats.items()
                  if k.startswith(("bitext/input/bad/", "bitext/input/skipped/"))}


def warc_counts(tmp_path):
    path = tmp_path / "pages.warc.gz"
    with WarcPageWriter(path) as writer:
        for path_, content_type, body in BODIES:
            writer.write_response(H + path_, 200, [("Content-Type", content_type)], body, 1.0)
    stats = collections.Counter()
    return input_counts(list(iter_warc_pages(path, stats=stats)), stats)


def lett_counts(tmp_path):
    path = tmp_path / "pages.lett"
    lines = []
    for path_, content_type, body in BODIES:
        mime, _, charset = content_type.partition("; ")
        lines.append("\t".join(["en", mime, charset, H + path_, base64.b64encode(body).decode(),
                                base64.b64encode(b"text").decode()]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stats = collections.Counter()
    return input_counts(list(iter_lett_pages(path, stats=stats)), stats)


def test_crawl_warc_and_lett_count_alike(tmp_path):
    crawl = crawl_counts()
    assert crawl == warc_counts(tmp_path) == lett_counts(tmp_path)
    urls, counts = crawl
    assert urls == [H + "/en/hours.html", H + "/en/cut.html", H + "/en/stub.html"]
    assert counts == {"bad/unclosed_html": 1, "bad/empty": 1, "bad/no_text": 1,
                      "bad/binary": 1, "skipped/image": 2, "skipped/non_html": 1}


def _warc_fields(member: bytes) -> tuple:
    """A WARC record but its ID and digest-free parts that differ by nature: what it says."""
    (record,) = ArchiveIterator(io.BytesIO(member))
    return (record.rec_headers.get_header("WARC-Target-URI"),
            record.rec_headers.get_header("WARC-Date"),
            record.http_headers.statusline, record.http_headers.headers,
            record.content_stream().read())


def test_record_workers_make_the_records_the_crawl_process_makes():
    """BITEXT_RECORD_WORKERS: the same records (language decided in the crawl's process)
    and the same counts as records made in the crawl's process; real worker processes."""
    from bitextcrawl.record_workers import RecordWorkers

    bodies = BODIES + [("/fr/heures.html", "text/html", FRENCH)]
    here, here_counts = crawled_records(bodies=bodies)
    workers = RecordWorkers(1)
    assert workers.wait(60)
    try:
        there, there_counts = crawled_records(workers, bodies)
    finally:
        workers.close()
    assert there_counts == here_counts
    assert here_counts["lang/en"] == 2 and here_counts["lang/fr"] == 1

    def fields(p):
        return {k: v for k, v in p.to_dict().items() if k != "fetched_at"}
    assert [fields(p) for p in there] == [fields(p) for p in here]
    # the WARC record, made there: the response the crawl's process would have written
    assert all(p.warc_member and p.body is None for p in there)
    assert all(p.body and p.warc_member is None for p in here)
    for page, made_there in zip(here, there):
        expected = response_member(page.url, page.status, page.http_headers, page.body,
                                   made_there.fetched_at)
        assert _warc_fields(made_there.warc_member) == _warc_fields(expected)
    # and the HTML features pairing reads, made there: the same as made here
    from bitextcrawl.pairing.html_features import HTML_FEATURES

    for page, made_there in zip(here, there):
        # (a page's list items' words only where it has some: pages.record)
        assert set(STORED_FEATURES) - {"link_items"} <= set(made_there.derived)
        assert made_there.derived.get("link_items") == page.derived.get("link_items")
        assert [f(page) for f in HTML_FEATURES] == [f(made_there) for f in HTML_FEATURES]


def test_record_workers_are_spawned_light_with_their_collector_set():
    """A record worker imports what a record takes, not the bitext stage's kernels (which
    made it wait 1.6 s for the fork server), and sets its collector as the crawl does."""
    from bitextcrawl.record_workers import RecordWorkers

    workers = RecordWorkers(1, gc_young_threshold=12345)
    assert workers.wait(60)
    try:
        assert workers.pool._mp_context.get_start_method() == "spawn"
        # a builtin as the task: unpickling it imports nothing in the worker
        probe = ("(__import__('gc').get_threshold()[0], __import__('gc').get_freeze_count() > 0,"
                 " sorted({'numba', 'scipy', 'bitextcrawl.pairing.align',"
                 " 'bitextcrawl.bitext.extract'} & set(__import__('sys').modules)))")
        assert workers.pool.submit(eval, probe).result(60) == (12345, True, [])
    finally:
        workers.close()


def test_a_broken_record_worker_loses_no_page():
    """A worker killed mid-crawl: its page is made in the crawl's process, counted."""
    import os
    import signal

    from bitextcrawl.record_workers import RecordWorkers

    workers = RecordWorkers(1)
    assert workers.wait(60)
    for pid in list(workers.pool._processes):
        os.kill(pid, signal.SIGKILL)
    crawler = get_crawler(BitextSpider, {"BITEXT_RECORD_WORKERS": 0})
    mw = LanguageIdMiddleware.from_crawler(crawler)
    mw.workers = workers
    request = Request(H + "/en/hours.html")
    response = responsetypes.from_args(url=request.url, body=PAGE.encode())(
        request.url, body=PAGE.encode(), request=request,
        headers=Headers({"Content-Type": "text/html; charset=utf-8"}))
    out = mw.process_response(request, response)
    if asyncio.iscoroutine(out):   # the pool may not know yet that its worker died
        out = asyncio.run(out)
    assert out is response and request.meta["bitext_page"].title == "Opening hours"
    assert crawler.stats.get_value("bitext/record_workers/broken") == 1
    assert mw.workers is None


@pytest.mark.parametrize("content_type, body, counted", [
    ("text/html; charset=no-such-codec", PAGE.encode(), "bad/charset"),
    ("", b"Just some words, no markup at all.", "skipped/non_html"),
    ("", b"\xff\xd8\xff\xe0JFIF", "skipped/image"),
])
def test_rejections_are_counted_in_their_group(content_type, body, counted):
    counts = collections.Counter()
    decode = (lambda: (body.decode("no-such-codec"), "no-such-codec")) \
        if "no-such-codec" in content_type else None
    page = record_from_body(H + "/x", body, None, lambda key: counts.update([key]),
                            content_type=content_type, decode=decode)
    assert page is None
    group, reason = counted.split("/")
    assert REJECTION_GROUPS[reason] == group
    assert counts == {counted: 1}


def test_a_page_without_content_type_is_sniffed():
    counts = collections.Counter()
    page = record_from_body(H + "/en/", b"<!DOCTYPE html>" + PAGE.encode(), None,
                            lambda key: counts.update([key]))
    assert page is not None and page.title == "Opening hours" and not counts
    assert page.content_type == "text/html"


def test_flaws_keep_the_record():
    counts = collections.Counter()
    page = record_from_body(H + "/en/", b"<html><body><p>", None,
                            lambda key: counts.update([key]), content_type="text/html")
    assert page is not None
    assert set(counts) == {f"bad/{flaw}" for flaw in FLAWS if flaw != "charset_repaired"}
