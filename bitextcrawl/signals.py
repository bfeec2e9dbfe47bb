"""Signals of bitextcrawl's own, sent between its components during a crawl.

Scrapy lets any object be a signal (``crawler.signals.send_catch_log(signal=...)``);
these are the ones the components here send to each other, so that none of them
needs a reference to another.
"""

#: Pages found to have a counterpart (URL pattern pair whose two pages are stored):
#: sent by the URL-pairing pipeline with ``urls`` (an iterable of page URLs); the focus
#: middleware counts them as pages that yielded (link yield learning).
pages_paired = object()

#: Sent by the URL-pairing pipeline when it looks for counterparts to guess; the focus
#: middleware answers with the links it holds back, ``{language: [URL, ...]}`` (the
#: language of the page that linked them): deep page recovery guesses their counterparts
#: first, and has a held page requested once its counterpart is found.
held_links = object()

#: Sent by the redirect-rewrite middleware with ``source`` and ``target`` when it requests
#: ``target`` instead of ``source`` (a redirect the site has been answering): the page
#: store records it like a redirect the site answered.
url_rewritten = object()

#: Sent by the held-links downloader middleware with ``request`` when it drops a queued
#: request for good (the other copy of a promoted URL went out, its URL leads to an
#: unwanted language, the site marks it untranslated): the frontier journal counts it
#: done, so that a crash does not have it downloaded after all.
request_discarded = object()

#: Sent by the closing pipeline just before it reads the page store at spider close (no page
#: is stored after it): the page store pipeline starts exporting ``pages.jsonl`` in a record
#: worker then, so that the export runs beside pairing instead of after it (a pipeline's
#: ``close_spider`` runs after those of the pipelines with larger priority numbers).
closing_started = object()
