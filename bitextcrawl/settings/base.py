"""Settings shared by every profile."""

from bitextcrawl.defaults import *  # noqa: F401,F403  (all BITEXT_ defaults)

BOT_NAME = "bitextcrawl"
SPIDER_MODULES = ["bitextcrawl.spiders"]
NEWSPIDER_MODULE = "bitextcrawl.spiders"
COMMANDS_MODULE = "bitextcrawl.commands"

USER_AGENT = "bitextcrawl/0.1 (+https://github.com/bitextcrawl/bitextcrawl)"
ROBOTSTXT_OBEY = True

# Polite defaults: a few connections per site, AutoThrottle adapts the delay.
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.25
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
DOWNLOAD_TIMEOUT = 30
RETRY_TIMES = 2
# Scrapy 2.19 starts CONCURRENT_ITEMS asyncio tasks for every callback's output (a page's
# record and its requests): at the default, 100, those tasks were a fifth of the crawl's
# CPU (bench/bench_crawl.py). Below 16 the output queue (2 x CONCURRENT_ITEMS) fills on
# a page of many links and holds its requests back, which changed what was crawled.
CONCURRENT_ITEMS = 16

# Bad input: cap page size, bound redirects and depth.
DOWNLOAD_MAXSIZE = 5 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
REDIRECT_MAX_TIMES = 5
DEPTH_LIMIT = 30
URLLENGTH_LIMIT = 1024

# A crawl goes breadth-first: pairs are found sooner and traps hurt less.
DEPTH_PRIORITY = 1
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"

TWISTED_DNS_RESOLVER = "bitextcrawl.resolver.LocalhostResolver"

DOWNLOADER_MIDDLEWARES = {
    # Scrapy 2.19's robots.txt middleware lets through all but the first waiters of a
    # site's robots.txt (see the module); ours is the same middleware, fixed.
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    # Requests queued before their links were held back wait with them (focus.py).
    "bitextcrawl.middlewares.held_links.HeldLinksMiddleware": 50,
    # Requests queued before a redirect rule was learned: rewritten at download (redirects.py).
    "bitextcrawl.middlewares.redirects.QueuedRewriteMiddleware": 60,
    "bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware": 100,
    # max_pages: a budget of responses, counted on the requests that will be downloaded
    "bitextcrawl.middlewares.budget.ResponseBudgetMiddleware": 110,
    "bitextcrawl.middlewares.langid.LanguageIdMiddleware": 950,
}
SPIDER_MIDDLEWARES = {
    "bitextcrawl.middlewares.focus.FocusMiddleware": 800,
    # Links rewritten the way the site keeps redirecting them, before focus judges them.
    "bitextcrawl.middlewares.redirects.RedirectRewriteMiddleware": 850,
}
ITEM_PIPELINES = {
    "bitextcrawl.pipelines.store.PageStorePipeline": 100,
    "bitextcrawl.pipelines.pairing.UrlPairingPipeline": 200,
    # (its idle work runs after deep recovery's, the frontier's order: extensions/frontier.py)
    "bitextcrawl.pipelines.parallel_links.ParallelLinkPipeline": 300,
    "bitextcrawl.pipelines.closing.ClosingPipeline": 900,
}
EXTENSIONS = {
    "bitextcrawl.extensions.resume.FrontierJournal": 0,  # JOBDIR only: crash-safe resume
    "bitextcrawl.extensions.timeline.CrawlTimeline": 0,  # pages and pairs over time (report)
    "bitextcrawl.extensions.collector.CollectorTuning": 0,  # the bitext spiders' GC thresholds
    "bitextcrawl.extensions.outcome.CrawlOutcome": 0,  # warnings and the exit status at close
    # An HTTP server that runs code sent to it: never on by default.
    "scrapy.extensions.remote_control.RemoteControl": None,
}

LOGSTATS_INTERVAL = 30.0
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
