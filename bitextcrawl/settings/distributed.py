"""Distributed profile (SCRAPY_PROJECT=distributed): frontier and page store in Redis.

Several ``scrapy crawl bitext`` processes started with the same arguments (same start
URL, same ``BITEXT_OUTPUT_DIR`` or ``BITEXT_REDIS_KEY``) and the same ``REDIS_URL``
share one site's frontier (scrapy-redis priority queue + request dupefilter), so no page
is downloaded twice; page records go to Redis. The last worker to finish runs the closing
pipeline over the shared store (see ``bitextcrawl/scheduler/redis.py`` and
``bitextcrawl/pipelines/distributed.py``).
"""

import os

from bitextcrawl.settings import base as _base
from bitextcrawl.settings.base import *  # noqa: F401,F403

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

# scrapy-redis's scheduler, queue and dupefilter (not RedisSpider: it predates start()).
SCHEDULER = "bitextcrawl.scheduler.redis.RedisFrontierScheduler"
# first in first out within a priority, as the local profile's queue
SCHEDULER_QUEUE_CLASS = "bitextcrawl.scheduler.redis.FifoPriorityQueue"
DUPEFILTER_CLASS = "bitextcrawl.scheduler.redis.OncePerCallDupeFilter"
SCHEDULER_PERSIST = True    # a stopped worker leaves the frontier to the others / its restart

BITEXT_PAGE_STORE = "bitextcrawl.store.redis.RedisPageStore"
# A promoted copy passes the shared dupefilter; its older copy may be taken by another
# worker, which cannot know to drop it: the page would be downloaded twice.
BITEXT_FOCUS_PROMOTE_ENABLED = False

# A worker takes a batch of requests from the shared queue before it has its robots.txt:
# Scrapy 2.19's RobotsTxtMiddleware would let all but two of them skip the rules.
DOWNLOADER_MIDDLEWARES = {
    **_base.DOWNLOADER_MIDDLEWARES,
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware": 100,
}

ITEM_PIPELINES = {
    **{path: order for path, order in _base.ITEM_PIPELINES.items()
       if path not in ("bitextcrawl.pipelines.store.PageStorePipeline",
                       "bitextcrawl.pipelines.pairing.UrlPairingPipeline",
                       "bitextcrawl.pipelines.closing.ClosingPipeline")},
    "bitextcrawl.pipelines.distributed.DistributedPageStorePipeline":
        _base.ITEM_PIPELINES["bitextcrawl.pipelines.store.PageStorePipeline"],
    "bitextcrawl.pipelines.distributed.DistributedUrlPairingPipeline":
        _base.ITEM_PIPELINES["bitextcrawl.pipelines.pairing.UrlPairingPipeline"],
    "bitextcrawl.pipelines.distributed.DistributedClosingPipeline":
        _base.ITEM_PIPELINES["bitextcrawl.pipelines.closing.ClosingPipeline"],
}
