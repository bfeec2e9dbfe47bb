"""Embedded page store: one SQLite file in the output dir, written as the crawl goes.

Each record is committed when it arrives (WAL journal), so a crawl stopped at any
moment keeps every page it stored, and a resumed crawl adds to the same file; a
URL already stored is not stored twice.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
from collections.abc import Iterator

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.processes import shared_instance
from bitextcrawl.store.codec import decode_dict, decode_html, decode_record, encode_record

SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT UNIQUE NOT NULL,
    lang TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    record BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS pages_hash ON pages (content_hash);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS redirects (url TEXT PRIMARY KEY, target TEXT NOT NULL);
"""
# URLs per query of get_many (SQLite's default limit of bound parameters is 999 or more).
GET_BATCH = 500


def _blobs(db: sqlite3.Connection, urls) -> Iterator[tuple[str, bytes]]:
    """(URL, stored blob) of the given URLs that are stored."""
    urls = list(urls)
    for start in range(0, len(urls), GET_BATCH):
        batch = urls[start:start + GET_BATCH]
        marks = ",".join("?" * len(batch))
        yield from db.execute(f"SELECT url, record FROM pages WHERE url IN ({marks})", batch)


@contextlib.contextmanager
def _full_disk_as_oserror(path: str):
    """SQLite's "database or disk is full" as the OSError (ENOSPC) that every other write
    of the crawl raises on a full disk: one kind of error for its callers to handle. The
    transaction that failed is rolled back; what the store held is intact."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL \
                or "disk is full" in str(exc):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path) from exc
        raise


class SQLitePageStore:
    filename = "pages.sqlite"

    def __init__(self, output_dir: str):
        os.makedirs(output_dir, exist_ok=True)
        self.path = os.path.join(output_dir, self.filename)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self._hashes: set[str] | None = None   # the stored contents, once has_content asks

    @classmethod
    def from_settings(cls, settings, output_dir: str) -> "SQLitePageStore":
        return cls(output_dir)

    def add(self, record: PageRecord) -> bool:
        """Store a record; False if its URL is already stored."""
        blob = encode_record(record)
        with _full_disk_as_oserror(self.path), self.db:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO pages (url, lang, content_hash, record) VALUES (?, ?, ?, ?)",
                (record.url, record.lang, record.content_hash, blob))
        if cur.rowcount == 1 and self._hashes is not None:
            self._hashes.add(record.content_hash)
        return cur.rowcount == 1

    def __contains__(self, url: str) -> bool:
        return self.db.execute("SELECT 1 FROM pages WHERE url = ?", (url,)).fetchone() is not None

    def has_content(self, content_hash: str) -> bool:
        """Whether a page with this content is stored, from a set of the stored contents
        read once (a query for every page stored was 0.2 ms of the crawl's process each)."""
        if self._hashes is None:
            self._hashes = {h for (h,) in self.db.execute("SELECT content_hash FROM pages")}
        return content_hash in self._hashes

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]

    def urls_by_lang(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for url, lang in self.db.execute("SELECT url, lang FROM pages ORDER BY id"):
            out.setdefault(lang, []).append(url)
        return out

    def __iter__(self) -> Iterator[PageRecord]:
        for (blob,) in self.db.execute("SELECT record FROM pages ORDER BY id"):
            yield decode_record(blob)

    def iter_dicts(self) -> Iterator[dict]:
        for (blob,) in self.db.execute("SELECT record FROM pages ORDER BY id"):
            yield decode_dict(blob)

    def get_many(self, urls) -> dict[str, PageRecord]:
        """URL -> record of the given URLs that are stored (the closing step reads the
        HTML of a few pages at a time, not the whole store)."""
        return {url: decode_record(blob) for url, blob in _blobs(self.db, urls)}

    def get(self, url: str) -> PageRecord | None:
        return self.get_many([url]).get(url)

    def html_reader(self) -> "SQLiteHtmlReader":
        """The stored pages' HTML for another process (the bitext pool's workers)."""
        return SQLiteHtmlReader(self.path)

    def add_redirect(self, url: str, target: str) -> None:
        """Remember that ``url`` answered with a redirect to ``target``."""
        with _full_disk_as_oserror(self.path), self.db:
            self.db.execute("INSERT OR REPLACE INTO redirects (url, target) VALUES (?, ?)",
                            (url, target))

    def redirects(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT url, target FROM redirects ORDER BY url"))

    def get_meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value) -> None:
        with _full_disk_as_oserror(self.path), self.db:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                            (key, json.dumps(value)))

    def close(self) -> None:
        self.db.close()


class SQLiteHtmlReader:
    """``reader(urls) -> {url: html}`` of the stored pages, for another process: pickled
    as the store's path, it opens one connection of its own in each process it is used in
    (``processes.shared_instance``), when first called."""

    def __init__(self, path: str):
        self.path = path
        self._db: sqlite3.Connection | None = None

    def __reduce__(self):
        return shared_instance, (SQLiteHtmlReader, self.path)

    def __call__(self, urls) -> dict[str, str]:
        if self._db is None:
            self._db = sqlite3.connect(self.path)
        return {url: decode_html(blob) for url, blob in _blobs(self._db, urls)}

