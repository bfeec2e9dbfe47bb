"""bitextcrawl: a Scrapy plugin that crawls bilingual websites, pairs translated pages and
extracts the parallel text inside them.

- In a Scrapy project: ``ADDONS = {"bitextcrawl.Addon": 0}`` (:class:`~bitextcrawl.addon.Addon`).
- From Python: :func:`read_pages`, :func:`page_from_html`, :func:`align_pages`,
  :func:`extract_bitext`, :func:`score_pairs` (:mod:`bitextcrawl.api`).
"""

import os

__version__ = "0.1.0"

# One BLAS thread per process unless the user set a number: the closing step's matrices
# are small (the LSI's Gram matrix of a few hundred training pairs, the row model's
# features), and the crawl runs processes of its own on the cores (record workers, the
# bitext pool). On a busy machine a second BLAS thread waits for a core: the LSI's
# eigendecomposition took many times its one-thread time in a crawl's closing step. Set
# here, before numpy loads its BLAS: Scrapy imports this package first, and the fork
# server and the pools' workers inherit the environment.
for _threads in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

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
