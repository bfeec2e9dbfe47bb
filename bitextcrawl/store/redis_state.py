"""The crawl state's Redis backing: what one worker of a distributed crawl learns reaches
every worker (:class:`~bitextcrawl.crawl_state.StateBacking`, set on ``context.state``
by the distributed profile's page store pipeline).

* **Pages.** The records other workers stored: read from the store's order list
  (``<key>:order``) from where this worker last looked, those it stored itself left out.
* **Facts** that are no page records (a redirect seen, a guess answered, a link held, a
  sample of a language): one list, ``<key>:facts``, of pickled ``(worker, kind, value)``
  entries, read the same way from a cursor of this worker's.
* **Claims**: a set per kind, ``<key>:claims:<kind>``; ``SADD`` answers 1 to the first
  claim only. It runs once per call (``redis_retry.once_per_token``, the memo
  ``<key>:claims_memo:<worker>``): a retry of a claim whose reply Redis lost gets that
  reply, not the 0 of a second ``SADD``.
* **Values** one worker fetched for all (a site's ``robots.txt``): a hash per kind,
  ``<key>:values:<kind>``, of pickled values.

Each look is two or three round trips (LRANGE, HMGET of the new pages); the workers look
before each request they take, twice a second, and when they run
dry (``scheduler/redis.py``, ``extensions/frontier.py``).
"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Iterator

from bitextcrawl.store.codec import decode_record
from bitextcrawl.store.redis import BATCH
from bitextcrawl.store.redis_retry import Tokens, once_per_token

# KEYS: memo, the kind's claims; ARGV: token, the thing. 1 for the first claim.
_CLAIM = once_per_token("return redis.call('SADD', KEYS[2], ARGV[2])")


class RedisStateBacking:
    def __init__(self, store, name: str | None = None):
        self.store = store            # the crawl's RedisPageStore
        self.server = store.server
        self.name = name or uuid.uuid4().hex
        self.facts_key = f"{store.key}:facts"
        self.claims_key = f"{store.key}:claims"
        self.values_key = f"{store.key}:values"
        self._records_at = 0          # next index of the store's order list to read
        self._facts_at = 0            # next index of the facts list to read
        self._claim = self.server.register_script(_CLAIM)
        self._claim_memo = f"{store.key}:claims_memo:{self.name}"
        self._tokens = Tokens(self.name)

    def new_records(self) -> Iterator:
        own = self.store.added
        while True:
            urls = self.server.lrange(self.store.order_key, self._records_at,
                                      self._records_at + BATCH - 1)
            if not urls:
                return
            self._records_at += len(urls)
            others = [url for url in urls if url.decode() not in own]
            if not others:
                continue
            for blob in self.server.hmget(self.store.pages_key, others):
                if blob is not None:
                    yield decode_record(blob)

    def publish(self, kind: str, value) -> None:
        self.server.rpush(self.facts_key, pickle.dumps((self.name, kind, value),
                                                       protocol=pickle.HIGHEST_PROTOCOL))

    def new_facts(self) -> Iterator[tuple[str, object]]:
        while True:
            blobs = self.server.lrange(self.facts_key, self._facts_at,
                                       self._facts_at + BATCH - 1)
            if not blobs:
                return
            self._facts_at += len(blobs)
            for blob in blobs:
                name, kind, value = pickle.loads(blob)
                if name != self.name:
                    yield kind, value

    def claim(self, kind: str, key: str) -> bool:
        return self._claim(keys=[self._claim_memo, f"{self.claims_key}:{kind}"],
                           args=[self._tokens(), key]) == 1

    def put(self, kind: str, key: str, value) -> None:
        self.server.hset(f"{self.values_key}:{kind}", key,
                         pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def get(self, kind: str, key: str):
        blob = self.server.hget(f"{self.values_key}:{kind}", key)
        return None if blob is None else pickle.loads(blob)

    def clear(self) -> None:
        """Delete the facts, claims and values of this crawl."""
        keys = [self.facts_key, *self.server.scan_iter(f"{self.claims_key}:*"),
                *self.server.scan_iter(f"{self.store.key}:claims_memo:*"),
                *self.server.scan_iter(f"{self.values_key}:*")]
        self.server.delete(*keys)
