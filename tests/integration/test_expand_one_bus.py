"""An expand crawl of one site hears what a ``bitext`` crawl of it hears.

The expand spider runs each site's own pipelines on the crawler's one signal bus, the
site's events routed to them by site: the page store keeps the redirects the site
answers, and deep page recovery counts the guesses that got a 404 (the direction that
keeps failing stops), as in a single-site crawl of the same site.
"""

from __future__ import annotations

import sqlite3

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pages.urls import site_name
from tests.conftest import FAST_CRAWL, run_crawl
from tests.integration.test_expand import scrapy

pytestmark = pytest.mark.integration

# guesses into untranslated articles answer 404; "/" redirects to the home page
SPEC = {"scheme": "prefix", "n_pairs": 16, "third_lang": None, "hidden_fraction": 0.25,
        "untranslated_fraction": 0.4, "seed": 11}
SETTINGS = {"BITEXT_PARALLEL_LINKS_ENABLED": "False", "BITEXT_ALIGN_ENABLED": "False",
            "CONCURRENT_REQUESTS_PER_DOMAIN": "1", "CONCURRENT_REQUESTS": "1"}


def store_facts(output_dir) -> dict:
    """What the crawl's store kept: its redirects, and deep recovery's outcomes."""
    import json

    with sqlite3.connect(output_dir / "pages.sqlite") as db:
        redirects = dict(db.execute("SELECT url, target FROM redirects"))
        meta = dict(db.execute("SELECT key, value FROM meta"))
    directions = json.loads(meta["crawl_state"])["recovery"]["directions"]
    return {"redirects": redirects,
            "tried": sum(state[0] for _, state in directions),
            "failed": sum(state[2] for _, state in directions),
            "stopped": sum(bool(state[4]) for _, state in directions)}


@pytest.fixture(scope="module")
def site():
    port = free_port()
    generated = generate_site(SiteSpec(host="solo.localhost", **SPEC), port)
    with serve_site(generated, port):
        yield generated, f"http://solo.localhost:{port}/"


def test_expand_site_stores_redirects_and_counts_failures_as_a_bitext_crawl(
        site, tmp_path):
    _, root = site
    single = tmp_path / "single"
    run_crawl(root, single, settings=SETTINGS)

    out = tmp_path / "expand"
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(root + "\n")
    args = ["crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,fr", "-a", "rounds=0",
            "-a", "max_pages=0", "-s", f"BITEXT_OUTPUT_DIR={out}",
            "-s", f"BITEXT_PATTERN_DB={out}/patterns-db.json",
            "-s", "BITEXT_EXPAND_CHECK_SEEDS_ENABLED=False"]
    for key, value in {**FAST_CRAWL, **SETTINGS}.items():
        args += ["-s", f"{key}={value}"]
    scrapy(*args)

    expected = store_facts(single)
    got = store_facts(out / "sites" / site_name(root))
    print("single:", expected, "\nexpand:", got)
    assert expected["redirects"], "the generated site redirects / to its home page"
    assert expected["failed"] >= 1, "some recovery guesses answer 404"
    assert got["redirects"] == expected["redirects"]
    assert (got["tried"], got["failed"], got["stopped"]) == \
        (expected["tried"], expected["failed"], expected["stopped"])
