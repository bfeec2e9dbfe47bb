"""Settings module ``settings.distributed`` of this checkout (``scrapy.cfg``): the package's
profile :mod:`bitextcrawl.settings.distributed`. This checkout's own settings go below the import."""

from bitextcrawl.settings.distributed import *  # noqa: F401,F403
