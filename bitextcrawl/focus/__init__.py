"""The focused crawl's policies, pure (no Scrapy): what is known of a link's language
(:mod:`.evidence`), which links pay (:mod:`.yields`), and what the site's pages say of its
translations — one-way translation, switch absence (:mod:`.shape`). The small side of a
partly translated site is :mod:`bitextcrawl.sites.small_side`. The focus middleware
(``middlewares/focus.py``) applies them to the crawl's links and requests."""
