"""Distributed page store: page records in Redis, shared by every worker of a crawl.

Same interface as :class:`~bitextcrawl.store.sqlite.SQLitePageStore`. All keys of one
crawl start with its *crawl key* (:func:`crawl_key`: ``bitext:<output dir>`` unless
``BITEXT_REDIS_KEY`` names one), so crawls of different sites, or of the same site into
different output dirs, share one Redis without meeting:

=====================  =========================================================
``<key>:pages``        hash: URL -> zlib-compressed JSON page record
``<key>:order``        list: URLs in the order they were stored
``<key>:lang``         hash: URL -> language
``<key>:hashes``       set: content hashes
``<key>:meta``         hash: name -> JSON value
``<key>:redirects``    hash: requested URL -> the URL it redirected to
``<key>:facts``        list: what the workers learned, for each other (``redis_state.py``)
``<key>:claims:<k>``   set: things of kind ``k`` one worker does for all (``redis_state.py``)
=====================  =========================================================

:meth:`RedisPageStore.add` is one Lua script (HSETNX, then RPUSH/HSET/SADD only if the
URL was new), so it is atomic across processes: when two workers store the same URL,
exactly one of them gets ``True``; it runs once per call (``redis_retry.once_per_token``,
the memo ``<key>:add_memo:<store>``), so a retry after Redis lost its reply gets that
reply. The scheduler keys of the distributed profile
(``<key>:requests``, ``<key>:dupefilter``, ``<key>:workers``) live under the same key.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.processes import shared_instance
from bitextcrawl.store.codec import decode_dict, decode_html, decode_record, encode_record
from bitextcrawl.store.redis_retry import DEFAULT_SECONDS, Tokens, once_per_token, retry_params

BATCH = 500

# Once per call (``redis_retry.once_per_token``): a retry of an add whose reply Redis lost
# (a restart) gets that reply, 1, not the 0 of a URL found stored.
# KEYS: memo, pages, order, lang, hashes; ARGV: token, URL, record, language, content hash.
_ADD = once_per_token("""
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 0 then
    return 0
end
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[5])
return 1
""")


def crawl_key(settings, output_dir: str) -> str:
    """The Redis key prefix of one crawl: ``BITEXT_REDIS_KEY``, or ``bitext:<output dir>``.

    The output dir is taken as given (normalised, not made absolute), so workers started
    from the same project folder with the same ``BITEXT_OUTPUT_DIR`` meet under one key.
    ``%`` becomes ``_`` (scrapy-redis ``%``-formats its keys).
    """
    key = (settings.get("BITEXT_REDIS_KEY") if settings is not None else "") or (
        "bitext:" + os.path.normpath(output_dir))
    return key.replace("%", "_")  # scrapy-redis %-formats its keys


def redis_from_settings(settings):
    """A Redis client from ``REDIS_URL`` (and ``REDIS_PARAMS``), made as scrapy-redis makes
    it, that waits ``BITEXT_REDIS_RETRY_SECONDS`` for a server it lost (``redis_retry.py``)."""
    from scrapy.utils.misc import load_object
    from scrapy_redis import connection, defaults

    params = defaults.REDIS_PARAMS.copy()
    params.update(settings.getdict("REDIS_PARAMS"))
    for source, dest in connection.SETTINGS_PARAMS_MAP.items():
        value = settings.get(source)
        if value:
            params[dest] = value
    if isinstance(params.get("redis_cls"), str):
        params["redis_cls"] = load_object(params["redis_cls"])
    params.update(retry_params(settings.getfloat("BITEXT_REDIS_RETRY_SECONDS",
                                                 DEFAULT_SECONDS)))
    return connection.get_redis(**params)


def _stored(server, pages_key: str, urls) -> Iterator[tuple[str, bytes]]:
    """(URL, stored blob) of the given URLs that are stored."""
    urls = list(urls)
    for start in range(0, len(urls), BATCH):
        batch = urls[start:start + BATCH]
        for url, blob in zip(batch, server.hmget(pages_key, batch)):
            if blob is not None:
                yield url, blob


class RedisPageStore:
    def __init__(self, server, key: str):
        self.server = server
        self.key = key
        self.pages_key = f"{key}:pages"
        self.order_key = f"{key}:order"
        self.lang_key = f"{key}:lang"
        self.hashes_key = f"{key}:hashes"
        self.meta_key = f"{key}:meta"
        self.redirects_key = f"{key}:redirects"
        self._add = server.register_script(_ADD)
        self._tokens = Tokens(uuid.uuid4().hex)
        self.memo_key = f"{key}:add_memo:{self._tokens.name}"
        self.added: set[str] = set()   # URLs this process stored (the others' are read back)

    @classmethod
    def from_settings(cls, settings, output_dir: str) -> "RedisPageStore":
        return cls(redis_from_settings(settings), crawl_key(settings, output_dir))

    def add(self, record: PageRecord) -> bool:
        """Store a record; False if its URL is already stored (by any worker)."""
        blob = encode_record(record)
        keys = [self.memo_key, self.pages_key, self.order_key, self.lang_key,
                self.hashes_key]
        stored = self._add(keys=keys, args=[self._tokens(), record.url, blob, record.lang,
                                            record.content_hash]) == 1
        if stored:
            self.added.add(record.url)
        return stored

    def __contains__(self, url: str) -> bool:
        return bool(self.server.hexists(self.pages_key, url))

    def has_content(self, content_hash: str) -> bool:
        return bool(self.server.sismember(self.hashes_key, content_hash))

    def __len__(self) -> int:
        return self.server.hlen(self.pages_key)

    def _urls(self) -> Iterator[list[bytes]]:
        """URLs in store order, in batches (the list only grows: batches stay valid)."""
        start = 0
        while True:
            batch = self.server.lrange(self.order_key, start, start + BATCH - 1)
            if not batch:
                return
            yield batch
            start += len(batch)

    def urls_by_lang(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for urls in self._urls():
            for url, lang in zip(urls, self.server.hmget(self.lang_key, urls)):
                out.setdefault(lang.decode(), []).append(url.decode())
        return out

    def _blobs(self) -> Iterator[bytes]:
        """The stored records, in store order."""
        for urls in self._urls():
            for blob in self.server.hmget(self.pages_key, urls):
                if blob is not None:
                    yield blob

    def iter_dicts(self) -> Iterator[dict]:
        return map(decode_dict, self._blobs())

    def __iter__(self) -> Iterator[PageRecord]:
        return map(decode_record, self._blobs())

    def get_many(self, urls) -> dict[str, PageRecord]:
        """URL -> record of the given URLs that are stored."""
        return {url: decode_record(blob)
                for url, blob in _stored(self.server, self.pages_key, urls)}

    def get(self, url: str) -> PageRecord | None:
        return self.get_many([url]).get(url)

    def html_reader(self) -> "RedisHtmlReader":
        """The stored pages' HTML for another process (the bitext pool's workers)."""
        pool = self.server.connection_pool
        # the connection's plain settings (host, port, db, path, credentials, SSL names);
        # redis-py also keeps objects there (locks, handlers) that a process makes anew
        params = tuple(sorted((k, v) for k, v in pool.connection_kwargs.items()
                              if isinstance(v, (str, int, float, bool, type(None)))
                              and not k.startswith("orig_")))
        retry = pool.connection_kwargs.get("retry")
        return RedisHtmlReader(pool.connection_class, params, self.pages_key,
                               getattr(retry, "seconds", 0.0))

    def get_meta(self, key: str, default=None):
        value = self.server.hget(self.meta_key, key)
        return json.loads(value) if value is not None else default

    def set_meta(self, key: str, value) -> None:
        self.server.hset(self.meta_key, key, json.dumps(value))

    def add_redirect(self, url: str, target: str) -> None:
        self.server.hset(self.redirects_key, url, target)

    def redirects(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.server.hgetall(self.redirects_key).items()}

    def clear(self) -> None:
        """Delete this crawl's pages, redirects, meta and shared facts (not its frontier)."""
        claims = list(self.server.scan_iter(f"{self.key}:claims*"))   # (and their memos)
        claims += list(self.server.scan_iter(f"{self.key}:add_memo:*"))
        self.server.delete(self.pages_key, self.order_key, self.lang_key, self.hashes_key,
                           self.meta_key, self.redirects_key, f"{self.key}:facts", *claims)

    def close(self) -> None:
        self.server.delete(self.memo_key)
        self.server.close()


class RedisHtmlReader:
    """``reader(urls) -> {url: html}`` of the stored pages, for another process: pickled
    as the connection's settings and the pages' key, it connects once in each process it
    is used in (``processes.shared_instance``), when first called."""

    def __init__(self, connection_class, params: tuple, pages_key: str,
                 retry_seconds: float = 0.0):
        self.connection_class = connection_class
        self.params = params
        self.pages_key = pages_key
        self.retry_seconds = retry_seconds
        self._server = None

    def __reduce__(self):
        return shared_instance, (RedisHtmlReader, self.connection_class, self.params,
                                 self.pages_key, self.retry_seconds)

    def __call__(self, urls) -> dict[str, str]:
        if self._server is None:
            import redis

            self._server = redis.Redis(connection_pool=redis.ConnectionPool(
                connection_class=self.connection_class, **dict(self.params),
                **retry_params(self.retry_seconds)))
        return {url: decode_html(blob)
                for url, blob in _stored(self._server, self.pages_key, urls)}

