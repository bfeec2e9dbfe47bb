"""The closing step over a page store (records held without HTML, a pair's HTML read when
it is aligned) writes what it wrote from whole records in memory."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.outputs import run_closing
from bitextcrawl.pages.site import canonical_records
from bitextcrawl.pairing.align import AlignConfig
from bitextcrawl.store.export import export_pages
from bitextcrawl.store.sqlite import SQLitePageStore
from testkit.records import site_records

pytestmark = pytest.mark.integration

OUTPUTS = ("pairs.jsonl", "bitext.tsv", "parallel_links.jsonl", "patterns.json")
# Timings, and the processes used, are not outputs.
NOT_COMPARED = ("bitext/bitext/workers", "bitext/bitext/workers_read_store")


def records():
    # Two sites: one paired by its URLs, one where a single hreflang pair seeds the
    # parallel-link stage (DOM alignment of HTML during pairing).
    mixed = generate_site(SiteSpec(scheme="mixed", n_pairs=110, third_lang=None, seed=7), 8000)
    opaque = generate_site(SiteSpec(scheme="opaque", n_pairs=40, language_switch=False,
                                    anchors=False, third_lang=None, seed=35), 8001)
    return site_records(mixed) + site_records(opaque)


def comparable(out) -> dict:
    stats = json.loads((out / "stats.json").read_text())
    return {k: v for k, v in stats["align"].items() if k not in NOT_COMPARED}


def test_store_gives_the_outputs_of_records_in_memory(tmp_path):
    pages = records()
    redirects = {pages[0].url + "?old": pages[0].url}
    store = SQLitePageStore(str(tmp_path / "store"))
    for page in records():
        store.add(page)
    for url, target in redirects.items():
        store.add_redirect(url, target)
    run_closing(pages, AlignConfig(langs=("en", "fr")), str(tmp_path / "memory"),
                redirects=redirects, workers=1)
    try:
        run_closing(store, AlignConfig(langs=("en", "fr")), str(tmp_path / "store"),
                    redirects=store.redirects(), workers=2)
    finally:
        store.close()
    memory, streamed = comparable(tmp_path / "memory"), comparable(tmp_path / "store")
    # the pool's workers read the pages from the store (records in memory: in the tasks)
    assert json.loads((tmp_path / "store" / "stats.json").read_text())["align"][
        "bitext/bitext/workers_read_store"] == 1
    assert memory["bitext/align/en-fr/parallel_link_pairs"] > 0
    assert memory["bitext/bitext/sentence_pairs"] > 100
    assert streamed == memory
    for name in OUTPUTS:
        assert ((tmp_path / "memory" / name).read_bytes()
                == (tmp_path / "store" / name).read_bytes()), name


def test_export_pages_is_the_export_of_whole_records(tmp_path):
    pages = records()[:150]
    store = SQLitePageStore(str(tmp_path))
    for page in pages:
        store.add(page)
    store.add_redirect(pages[3].url + "x", pages[3].url)
    whole = tmp_path / "whole.jsonl"
    write_jsonl(whole, (p.to_dict() for p in canonical_records(
        list(store), redirects=store.redirects())))
    n = export_pages(store, str(tmp_path / "pages.jsonl"))
    store.close()
    assert n == len(whole.read_text().splitlines()) > 100
    assert (tmp_path / "pages.jsonl").read_bytes() == whole.read_bytes()
