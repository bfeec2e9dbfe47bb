"""The add-on: ``ADDONS = {"bitextcrawl.Addon": 0}`` in a project's settings switches on
the spiders, the components and the defaults, below the project's own settings."""

from __future__ import annotations

from scrapy.settings import Settings
from scrapy.spiderloader import SpiderLoader
from scrapy.utils.test import get_crawler

from bitextcrawl.defaults import DEFAULTS
from bitextcrawl.settings import local

# What ``scrapy startproject x`` writes in x/settings.py, with the add-on line.
STARTPROJECT = {
    "BOT_NAME": "x",
    "SPIDER_MODULES": ["tests.sites"],  # stands for x.spiders: a module that exists
    "NEWSPIDER_MODULE": "x.spiders",
    "ADDONS": {"bitextcrawl.Addon": 0},
    "ROBOTSTXT_OBEY": True,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 1,
    "FEED_EXPORT_ENCODING": "utf-8",
}


def addon_settings(**project) -> Settings:
    crawler = get_crawler(settings_dict={**STARTPROJECT, **project})
    crawler._apply_settings()  # the add-ons, as at the start of a crawl
    return crawler.settings


def test_spider_modules_gain_the_bitext_spiders_before_the_loader_reads_them():
    from scrapy.addons import AddonManager

    settings = Settings(STARTPROJECT, priority="project")
    AddonManager.load_pre_crawler_settings(settings)
    assert settings.getlist("SPIDER_MODULES") == ["tests.sites", "bitextcrawl.spiders"]
    assert {"bitext", "expand"} <= set(SpiderLoader.from_settings(settings).list())


def test_components_and_defaults_switched_on():
    settings = addon_settings()
    for name in ("DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "ITEM_PIPELINES", "EXTENSIONS"):
        enabled = {
            (path if isinstance(path, str) else f"{path.__module__}.{path.__qualname__}"): order
            for path, order in settings.getdict(name).items()}
        assert enabled == getattr(local, name), name
    for name, value in DEFAULTS.items():
        assert settings[name] == value, name
    assert settings["TWISTED_DNS_RESOLVER"] == local.TWISTED_DNS_RESOLVER
    assert settings.getint("DEPTH_PRIORITY") == 1


def test_the_project_settings_win():
    settings = addon_settings(BITEXT_LANGS="en,de", CONCURRENT_ITEMS=50)
    assert settings["BITEXT_LANGS"] == "en,de"
    assert settings.getint("CONCURRENT_ITEMS") == 50
    assert settings.getfloat("DOWNLOAD_DELAY") == 1  # startproject's, not the profile's 0.25
    assert settings["BOT_NAME"] == "x"
