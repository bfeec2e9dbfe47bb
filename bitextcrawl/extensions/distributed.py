"""Old import path of the distributed profile's components (deprecated): the scheduler is
in :mod:`bitextcrawl.scheduler.redis`, the pipelines in :mod:`bitextcrawl.pipelines.distributed`.
Settings that name the old paths keep working, with a warning."""

import warnings

from scrapy.exceptions import ScrapyDeprecationWarning

from bitextcrawl.pipelines.distributed import (DistributedClosingPipeline,
                                               DistributedPageStorePipeline,
                                               DistributedUrlPairingPipeline)
from bitextcrawl.scheduler.redis import FifoPriorityQueue, RedisFrontierScheduler
from bitextcrawl.scheduler.registry import WorkerRegistry, worker_name

__all__ = ["DistributedClosingPipeline", "DistributedPageStorePipeline",
           "DistributedUrlPairingPipeline", "FifoPriorityQueue", "RedisFrontierScheduler",
           "WorkerRegistry", "worker_name"]

warnings.warn("bitextcrawl.extensions.distributed is deprecated: use "
              "bitextcrawl.scheduler.redis and bitextcrawl.pipelines.distributed",
              ScrapyDeprecationWarning, stacklevel=2)
