"""Schedulers: the shared frontier of the distributed profile (:mod:`.redis`) and the
registry of its workers (:mod:`.registry`).

The local profile uses Scrapy's own scheduler with a slow start (:mod:`.slow_start`: a
crawl's first requests go out a few at a time; with ``JOBDIR``, backed by the frontier
journal of :mod:`bitextcrawl.extensions.resume`).
"""
