"""Scrapy components for running crawls at scale: crash-safe resume, distributed crawling."""
