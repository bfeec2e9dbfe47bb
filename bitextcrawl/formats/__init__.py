"""Readers and writers of the formats bitextcrawl reads and writes.

:func:`bitextcrawl.formats.readers.iter_pages` is the one entry point for offline inputs
(``scrapy align``): it picks the reader by the file name.
"""
