"""Scrapy's feed exports (``scrapy crawl bitext -o/-O pages.jsonl``) of page records.

A record's exported fields (``FEED_EXPORT_FIELDS``, set by the bitext spiders to those of
``pages.jsonl``) hold frozensets and tuples where JSON has lists; Scrapy's JSON encoder
knows sets only. The JSON and JSON Lines exporters here write them as lists.
"""

from __future__ import annotations

from scrapy.exporters import JsonItemExporter, JsonLinesItemExporter
from scrapy.utils.serialize import ScrapyJSONEncoder


class RecordJSONEncoder(ScrapyJSONEncoder):
    def default(self, o):
        if isinstance(o, (frozenset, set)):
            return sorted(o, key=str)
        if isinstance(o, bytes):
            return o.decode("utf-8", "replace")
        return super().default(o)


class RecordJsonLinesExporter(JsonLinesItemExporter):
    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self.encoder = RecordJSONEncoder(**self._kwargs)


class RecordJsonExporter(JsonItemExporter):
    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self.encoder = RecordJSONEncoder(**self._kwargs)


FEED_EXPORTERS = {
    "json": "bitextcrawl.extensions.feeds.RecordJsonExporter",
    "jsonlines": "bitextcrawl.extensions.feeds.RecordJsonLinesExporter",
    "jsonl": "bitextcrawl.extensions.feeds.RecordJsonLinesExporter",
    "jl": "bitextcrawl.extensions.feeds.RecordJsonLinesExporter",
}
