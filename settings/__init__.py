"""This checkout's Scrapy settings modules (``scrapy.cfg``), thin: each imports a profile
of the installed package (:mod:`bitextcrawl.settings`). Not installed by ``pip install``."""
