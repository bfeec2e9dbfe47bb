"""The Scrapy add-on that switches bitextcrawl on in any Scrapy project.

In the ``settings.py`` of a project made by ``scrapy startproject``::

    ADDONS = {"bitextcrawl.Addon": 0}

and ``scrapy crawl bitext -a start_url=URL -a langs=en,fr`` crawls there. The add-on
brings what the local profile (:mod:`bitextcrawl.settings.local`) sets:

- the ``bitext`` and ``expand`` spiders (``bitextcrawl.spiders`` joins ``SPIDER_MODULES``);
- the downloader and spider middlewares, item pipelines and extensions, each added where
  the project has not placed it itself (Scrapy's robots.txt middleware is replaced by
  bitextcrawl's, which is the same middleware with its wait for robots.txt fixed);
- every other setting of the profile (every ``BITEXT_`` default, the crawl limits,
  breadth-first order) at the add-on priority, below the project's own settings: a
  project's ``DOWNLOAD_DELAY`` or ``BITEXT_LANGS`` wins over the add-on's.

The project's name, spiders module, logging and feed settings stay the project's.
"""

from __future__ import annotations

from scrapy.utils.misc import load_object

from bitextcrawl.settings import local as _profile

SPIDERS_MODULE = "bitextcrawl.spiders"
COMPONENT_SETTINGS = ("DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "ITEM_PIPELINES",
                      "EXTENSIONS")
# Read by the crawler process, before the add-ons of a crawler run.
PROCESS_SETTINGS = ("TWISTED_DNS_RESOLVER",)
# The project's own, never the add-on's.
PROJECT_SETTINGS = frozenset({"BOT_NAME", "SPIDER_MODULES", "NEWSPIDER_MODULE",
                              "COMMANDS_MODULE", "ADDONS", "LOG_LEVEL", "FEED_EXPORT_ENCODING"})


def profile_settings() -> dict:
    """The settings the add-on brings: the local profile's, less the project's own."""
    return {name: getattr(_profile, name) for name in dir(_profile)
            if name.isupper() and not name.startswith("_") and name not in PROJECT_SETTINGS}


class Addon:
    """Scrapy add-on: ``ADDONS = {"bitextcrawl.Addon": 0}`` (see :mod:`bitextcrawl.addon`)."""

    @classmethod
    def update_pre_crawler_settings(cls, settings) -> None:
        """The settings read before any crawler exists: ``bitextcrawl.spiders`` joins
        ``SPIDER_MODULES`` before the spider loader reads it, and the DNS resolver that
        answers ``*.localhost`` names (``BITEXT_RESOLVE_LOCALHOST_ENABLED``) is the one the
        crawler process installs, unless the project names another."""
        modules = settings.getlist("SPIDER_MODULES")
        if SPIDERS_MODULE not in modules:
            settings.set("SPIDER_MODULES", [*modules, SPIDERS_MODULE],
                         priority=settings.getpriority("SPIDER_MODULES") or "addon")
        for name in PROCESS_SETTINGS:
            settings.set(name, getattr(_profile, name), priority="addon")

    def update_settings(self, settings) -> None:
        self.update_pre_crawler_settings(settings)
        for name, value in profile_settings().items():
            if name in COMPONENT_SETTINGS:
                for path, order in value.items():
                    settings.setdefault_in_component_priority_dict(name, load_object(path), order)
            else:
                settings.set(name, value, priority="addon")  # below the project's own


def enable(settings) -> None:
    """Put the add-on in ``settings``' ``ADDONS`` unless it is there (the commands that
    crawl outside a bitextcrawl project: ``scrapy demo``)."""
    settings.setdefault_in_component_priority_dict("ADDONS", Addon, 0)
