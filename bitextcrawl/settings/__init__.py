"""Settings profiles, one module each, for ``SCRAPY_SETTINGS_MODULE`` or a project's own
settings module (``from bitextcrawl.settings.local import *``):

- :mod:`~bitextcrawl.settings.base`: what every profile shares (components, polite crawl
  defaults, every ``BITEXT_`` default);
- :mod:`~bitextcrawl.settings.local`: the embedded profile, pages in SQLite + WARC;
- :mod:`~bitextcrawl.settings.distributed`: frontier and page store in Redis;
- :mod:`~bitextcrawl.settings.scrapyd`: the local profile for jobs a Scrapyd daemon runs.

A project made by ``scrapy startproject`` can use the add-on instead
(:class:`bitextcrawl.Addon`).
"""
