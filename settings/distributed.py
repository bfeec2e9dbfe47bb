"""Distributed profile (SCRAPY_PROJECT=distributed): frontier and page store in Redis.

Several ``scrapy crawl bitext`` processes started with the same arguments share
one site's frontier (scrapy-redis scheduler + dupefilter), so no page is
downloaded twice; page records go to Redis.
"""

import os

from settings.base import *  # noqa: F401,F403

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
SCHEDULER_PERSIST = True
SCHEDULER_QUEUE_CLASS = "scrapy_redis.queue.PriorityQueue"
BITEXT_PAGE_STORE = "bitextcrawl.store.redis.RedisPageStore"
