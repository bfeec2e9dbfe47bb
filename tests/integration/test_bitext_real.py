"""The bitext of real sites through the closing pipeline (``align_pages``), records built
by the crawl's own code from ``../shared/data``.

tldr's command pages are a few lines inside a sidebar that lists every command of the
language (hundreds of links, fewer in a partial translation): the trees are aligned
without the site's navigation template, or the alignment follows the sidebar and a page
pair gives next to no sentence pair. nginx.org's pages share prose across modules (the
same directive described in several): that template prose stays bitext.
"""

from __future__ import annotations

import csv
import json
import re

import pytest

from bitextcrawl import align_pages
from testkit import real_sites
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.integration

KANA_OR_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def bitext(site, out) -> tuple[list[dict], dict]:
    align_pages(site.pages, site.langs, out, workers=2)
    with open(out / "bitext.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return rows, json.loads((out / "stats.json").read_text(encoding="utf-8"))


def needs(name: str):
    if not (SHARED_DATA / name / "site").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA / name} (../shared/data beside "
                    "the project)")


def test_short_pages_in_a_heavy_template_give_their_sentences(tmp_path):
    needs("tldr")
    rows, stats = bitext(real_sites.tldr(SHARED_DATA, "ja"), tmp_path)
    # 64 command pages, each a title, a description and three to eight examples
    assert len(rows) >= 5 * stats["pairs"], (len(rows), stats["pairs"])
    japanese = sum(1 for r in rows if KANA_OR_KANJI.search(r["trg_text"]))
    assert japanese >= 0.98 * len(rows)
    assert not any("sudo " in r["src_text"] and "path/to" in r["src_text"] for r in rows)


def test_prose_a_site_repeats_stays_bitext(tmp_path):
    needs("nginx")
    rows, _ = bitext(real_sites.nginx(SHARED_DATA, "ru", "ru"), tmp_path)
    pairs = {(r["src_text"], r["trg_text"]) for r in rows}
    assert ("Defines conditions under which the response will not be taken from a cache.",
            "Задаёт условия, при которых ответ не будет браться из кэша.") in pairs
    assert len(rows) >= 4500
