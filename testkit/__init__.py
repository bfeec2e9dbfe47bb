"""The scaffolding of tests and benchmarks, outside the package (it is not installed):
generated sites and URL lists with their gold, page records without a crawl, the real
sites of ``../shared/data`` as records, crawls and servers run as a test runs them.

``tests/`` and ``bench/`` import it; ``bench/`` never imports ``tests/``, and the package
imports neither (``tests/unit/test_layers.py``)."""
