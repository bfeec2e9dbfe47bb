"""bitextcrawl: a Scrapy plugin that crawls bilingual websites, pairs translated pages and
extracts the parallel text inside them.

- In a Scrapy project: ``ADDONS = {"bitextcrawl.Addon": 0}`` (:class:`~bitextcrawl.addon.Addon`).
- From Python: :func:`read_pages`, :func:`page_from_html`, :func:`align_pages`,
  :func:`extract_bitext`, :func:`score_pairs` (:mod:`bitextcrawl.api`).
"""

__version__ = "0.1.0"

__all__ = ["Addon", "read_pages", "page_from_html", "align_pages", "extract_bitext",
           "score_pairs"]


def __getattr__(name: str):
    # Imported when first used: Scrapy imports this package to find the add-on, the
    # spiders and the commands, and needs none of the closing pipeline's modules.
    if name == "Addon":
        from bitextcrawl.addon import Addon

        return Addon
    if name in __all__:
        from bitextcrawl import api

        return getattr(api, name)
    raise AttributeError(f"module 'bitextcrawl' has no attribute {name!r}")
