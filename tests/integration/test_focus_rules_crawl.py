"""The focus's rules switched off one by one in ``BITEXT_FOCUS_RULES``: with every rule
off (``None``), a crawl downloads what an unfocused crawl (``BITEXT_FOCUS_ENABLED`` off)
does, on a generated site over loopback."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.defaults import DEFAULTS
from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

# Both crawls choose no links but by the focus: no counterpart guesses, no parallel links,
# no closing alignment (nothing it writes is compared).
COMMON = {"BITEXT_DEEP_RECOVERY_ENABLED": "False", "BITEXT_PARALLEL_LINKS_ENABLED": "False",
          "BITEXT_ALIGN_ENABLED": "False"}
ALL_OFF = json.dumps({path: None for path in DEFAULTS["BITEXT_FOCUS_RULES"]})


def downloaded(site, settings: dict, out) -> set[tuple[str, str]]:
    """The (host, path) the server answered for one crawl of ``site``."""
    with serve_site(site, site.port) as server:
        run_crawl(site.start_url, out, timeout=180, settings={**COMMON, **settings})
        return set(server.hits)


def test_every_rule_off_downloads_what_an_unfocused_crawl_does(tmp_path):
    # a third language and untranslated pages: links the focus drops, holds and orders
    spec = SiteSpec(scheme="prefix", n_pairs=25, third_lang="de", n_third=8,
                    untranslated_fraction=0.2, seed=5)
    site = generate_site(spec, free_port())
    unfocused = downloaded(site, {"BITEXT_FOCUS_ENABLED": "False"}, tmp_path / "unfocused")
    all_off = downloaded(site, {"BITEXT_FOCUS_RULES": ALL_OFF}, tmp_path / "all_off")
    focused = downloaded(site, {}, tmp_path / "focused")
    assert all_off == unfocused, (sorted(all_off - unfocused)[:5],
                                  sorted(unfocused - all_off)[:5])
    # (the rules on download less: the German pages, linked by hreflang, are dropped)
    assert focused < unfocused
