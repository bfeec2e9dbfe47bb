"""Schedulers: the shared frontier of the distributed profile (:mod:`.redis`) and the
registry of its workers (:mod:`.registry`).

The local profile uses Scrapy's own scheduler (with ``JOBDIR``, backed by the frontier
journal of :mod:`bitextcrawl.extensions.resume`).
"""
