"""Settings module ``settings.base`` of this checkout (``scrapy.cfg``): the package's
profile :mod:`bitextcrawl.settings.base`. This checkout's own settings go below the import."""

from bitextcrawl.settings.base import *  # noqa: F401,F403
