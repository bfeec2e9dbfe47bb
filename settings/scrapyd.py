"""Settings module ``settings.scrapyd`` of this checkout (``scrapy.cfg``): the package's
profile :mod:`bitextcrawl.settings.scrapyd`. This checkout's own settings go below the import."""

from bitextcrawl.settings.scrapyd import *  # noqa: F401,F403
