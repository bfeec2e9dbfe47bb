"""bitextcrawl: a Scrapy plugin that crawls bilingual websites, pairs translated pages and
extracts the parallel text inside them.

- In a Scrapy project: ``ADDONS = {"bitextcrawl.Addon": 0}`` (:class:`Addon`).
- From Python: :func:`read_pages`, :func:`align_pages`, :func:`extract_bitext`,
  :func:`score_pairs` (:mod:`bitextcrawl.api`).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    # Lazy: ``import bitextcrawl`` (Scrapy imports it to find the add-on, the spiders and
    # the commands) does not load the closing pipeline's NumPy/SciPy/numba modules.
    if name == "Addon":
        from bitextcrawl.addon import Addon

        return Addon
    raise AttributeError(f"module 'bitextcrawl' has no attribute {name!r}")
