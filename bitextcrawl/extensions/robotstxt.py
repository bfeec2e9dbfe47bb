"""Old import path of :class:`bitextcrawl.middlewares.robotstxt.RobotsTxtMiddleware`
(deprecated): settings that name it keep working, with a warning."""

import warnings

from scrapy.exceptions import ScrapyDeprecationWarning

from bitextcrawl.middlewares.robotstxt import RobotsTxtMiddleware

__all__ = ["RobotsTxtMiddleware"]

warnings.warn("bitextcrawl.extensions.robotstxt is deprecated: use "
              "bitextcrawl.middlewares.robotstxt", ScrapyDeprecationWarning, stacklevel=2)
