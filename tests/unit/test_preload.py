"""The crawl's process starts without the pairing models; they come in a background thread."""

import json
import subprocess
import sys
from pathlib import Path

from bitextcrawl.preload import import_in_background

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "scipy", "networkx", "bitextcrawl.pairing.align", "bitextcrawl.trees.domtree")
# what ``scrapy crawl bitext`` imports before its first request: the commands, every
# spider module (Scrapy's spider loader), the profile's components
CRAWL_START = ["bitextcrawl.commands.align", "bitextcrawl.commands.crawl",
               "bitextcrawl.commands.demo", "bitextcrawl.commands.evaluate",
               "bitextcrawl.commands.expand", "bitextcrawl.commands.urlpairs",
               "bitextcrawl.spiders.bitext", "bitextcrawl.spiders.expand",
               "bitextcrawl.middlewares.focus", "bitextcrawl.middlewares.held_links",
               "bitextcrawl.middlewares.langid", "bitextcrawl.middlewares.redirects",
               "bitextcrawl.middlewares.robotstxt", "bitextcrawl.pipelines.store",
               "bitextcrawl.pipelines.pairing", "bitextcrawl.pipelines.parallel_links",
               "bitextcrawl.pipelines.closing", "bitextcrawl.extensions.collector",
               "bitextcrawl.extensions.resume", "bitextcrawl.extensions.timeline"]


def loaded_after(code: str) -> dict:
    probe = (f"import importlib, json, sys\n{code}\n"
             f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_crawl_components_import_without_the_pairing_models():
    loaded = loaded_after(f"for m in {CRAWL_START!r}: importlib.import_module(m)")
    assert not any(loaded.values()), loaded


def test_closing_pipeline_imports_them_in_the_background():
    loaded = loaded_after(
        "from scrapy.utils.test import get_crawler\n"
        "from bitextcrawl.pipelines.closing import ClosingPipeline\n"
        "import threading\n"
        "from types import SimpleNamespace\n"
        "ClosingPipeline(get_crawler(), context=SimpleNamespace(langs=())).open_spider()\n"
        "[t.join() for t in threading.enumerate() if t.name == 'bitext-preload']")
    # numba's kernels come with the first decoding, which the bitext pool's workers do
    assert loaded.pop("numba") is False
    # the closing step's site graph is arrays (pairing.page_graph): no networkx
    assert loaded.pop("networkx") is False
    assert all(loaded.values()), loaded


def test_numba_comes_with_the_first_decoding():
    loaded = loaded_after(
        "from bitextcrawl.trees.domtree import TreeAligner, build_tree\n"
        "aligner = TreeAligner()\n"
        "assert 'numba' not in sys.modules\n"
        "page = '<html><body><h1>Title</h1><p>Some text, 2024.</p></body></html>'\n"
        "aligner.align(build_tree(page, 'http://s.test/a'), build_tree(page, 'http://s.test/b'))")
    assert loaded["numba"] is True


def test_a_failed_import_is_said_at_once_and_left_to_the_caller(caplog):
    thread = import_in_background("bitextcrawl.no_such_module", "json")
    thread.join(10)
    assert not thread.is_alive()
    assert "bitextcrawl.no_such_module" not in sys.modules
    assert "Cannot import bitextcrawl.no_such_module" in caplog.text
