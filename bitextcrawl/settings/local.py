"""Embedded default profile: page store in SQLite + WARC under the output dir."""

from bitextcrawl.settings.base import *  # noqa: F401,F403

BITEXT_PAGE_STORE = "bitextcrawl.store.sqlite.SQLitePageStore"

# Scrapy's scheduler, whose first requests go out a few at a time (scheduler/slow_start.py)
SCHEDULER = "bitextcrawl.scheduler.slow_start.SlowStartScheduler"
