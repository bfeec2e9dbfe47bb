"""Settings module ``settings.local`` of this checkout (``scrapy.cfg``): the package's
profile :mod:`bitextcrawl.settings.local`. This checkout's own settings go below the import."""

from bitextcrawl.settings.local import *  # noqa: F401,F403
