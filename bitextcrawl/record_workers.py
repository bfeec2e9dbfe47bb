"""Page records made in worker processes while the crawl goes on, on all cores.

Making a page record (parsing the HTML, main text, STRAND tokens, links, fastText on the
text: ``pages.record.record_from_body``) was a third of the crawl process's CPU, and
that process used one core of the machine's. :class:`RecordWorkers` makes records in
processes of their own, each with its own fastText model, while the crawl's process
runs Scrapy, the store, the WARC, the focus and the online patterns.

A worker also makes the response's WARC record (its gzip member: the store pipeline appends
it), the record's content as the page store keeps it (``store.codec``), and the HTML
features the closing step's pairing reads of a page (and the focus reads of its switch bar:
``pairing.html_features.HTML_FEATURES``); the page store keeps them with the record, so they are
not made from the HTML again in the crawl's process.

A worker returns fastText's reading of the text with the record; the language is decided
in the crawl's process (``LanguageIdentifier.decide``), where a site's
:class:`~bitextcrawl.pages.language.DeclarationAgreement` learns from its pages in the
order they come, as it does when the record is made there.

The processes are spawned (a fresh interpreter imports only what a record takes) and end
with the crawl's process (:class:`~bitextcrawl.processes.ProcessPool`). Once they run, the
fork server of the bitext stage's pools is started, so that its imports overlap the crawl.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from concurrent.futures import Future

from bitextcrawl.formats.warc import response_member
from bitextcrawl.pages.language import Identification, LanguageIdentifier
from bitextcrawl.pages.record import PageRecord, record_from_body
from bitextcrawl.pairing.html_features import HTML_FEATURES
from bitextcrawl.processes import ProcessPool, start_forkserver, tune_collector
from bitextcrawl.store.codec import encode_content

logger = logging.getLogger(__name__)

_identifier: LanguageIdentifier | None = None  # a worker's own, loaded as it starts


def _start_worker(model_file: str | None, min_prob: float, gc_young_threshold: int) -> None:
    """A worker's start: its fastText model, then its collector set as the crawl's
    process sets its own (``extensions.collector``): what it has imported frozen."""
    global _identifier
    _identifier = LanguageIdentifier(model_file, min_prob)
    if gc_young_threshold > 0:
        tune_collector(gc_young_threshold)


def make_record(url: str, body: bytes, content_type: str, decoded: tuple | None,
                fields: dict, warc_headers: list | None = None
                ) -> tuple[PageRecord | None, tuple | None, list[str]]:
    """In a worker: :func:`record_from_body`'s record (its language not decided yet),
    fastText's ``(label, probability)`` of its text, and the keys it counted. With the
    response's ``warc_headers``, the record's ``warc_member`` too (the WARC's gzip work)."""
    counts: list[str] = []
    reading: list[tuple] = []

    def identify(text, html_lang, content_language) -> Identification:
        reading.append(_identifier.predict(text))
        return _identifier.decide(*reading[0], html_lang, content_language)

    record = record_from_body(url, body, identify, counts.append, content_type=content_type,
                              decode=(lambda: decoded) if decoded else None, **fields)
    if record is not None:
        for feature in HTML_FEATURES:
            feature(record)
        if warc_headers is not None:
            record.warc_member = response_member(url, record.status, warc_headers, body,
                                                 record.fetched_at)
        record.stored_content = encode_content(record)
    return record, (reading[0] if reading else None), counts


class RecordWorkers:
    """``workers`` processes making page records (:func:`make_record`).

    The processes are started in a thread (about 0.5 s), and the crawl does not wait for
    them: until :attr:`ready`, a caller makes its records itself.
    """

    def __init__(self, workers: int, model_file: str | None = None, min_prob: float = 0.5,
                 gc_young_threshold: int = 0):
        # Spawned, not forked by the fork server: a fresh interpreter imports what a record
        # takes (0.4 s), where the fork server first imports the bitext stage's kernels
        # (1.5 s), and until a worker runs the crawl's process makes the records itself.
        self.pool = ProcessPool(workers, _start_worker,
                                (model_file, min_prob, gc_young_threshold),
                                context=multiprocessing.get_context("spawn"))
        self.ready = False
        self.error: BaseException | None = None
        self._starting = threading.Thread(target=self._start, name="record-workers",
                                          daemon=True)
        self._starting.start()

    def _start(self) -> None:
        started = time.perf_counter()
        try:
            self.pool.start()
        except Exception as exc:  # noqa: BLE001 - reported by the caller, which goes on alone
            self.error = exc
            return
        self.ready = True
        logger.info("Record workers: %d process(es) ready in %.1f s", self.pool.workers,
                    time.perf_counter() - started)
        # The bitext stage's fork server (parallel-link rounds, the closing step) starts
        # now: its imports overlap the crawl, after the records have their worker.
        start_forkserver()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the processes are started; whether they are."""
        self._starting.join(timeout)
        return self.ready

    def submit(self, url: str, body: bytes, content_type: str, decoded: tuple | None,
               fields: dict, warc_headers: list | None = None) -> Future:
        return self.pool.submit(make_record, url, body, content_type, decoded, fields,
                                warc_headers)

    def close(self) -> None:
        self._starting.join()
        self.pool.shutdown(wait=True)   # an export of pages.jsonl may still be running
