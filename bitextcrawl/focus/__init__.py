"""The focused crawl's policies, pure (no Scrapy): what is known of a link's language
(:mod:`.evidence`), which links pay (:mod:`.yields`), and what the site's pages say of its
translations — one-way translation, switch absence (:mod:`.shape`); what the focus knows
of the crawl's requests (:mod:`.queue`); a link judged (:mod:`.links`), which languages'
links wait (:mod:`.holding`), the focus's section of the crawl state (:mod:`.persist`).
The small side of a partly translated site is :mod:`bitextcrawl.sites.small_side`. The
focus middleware (``middlewares/focus.py``) hands them the crawl's pages, links and
requests."""
