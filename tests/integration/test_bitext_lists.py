"""Bitext rows of a summary page whose list of entries each language orders its own way
(``testkit/summaries_site.py``), through the closing pipeline as ``scrapy align`` runs
it (the page store, two workers: the known link pairs reach the pool's processes).

The rows kept (``aligner_score`` at or above the language pair's suggested filter,
``stats.json``'s ``sentence_thresholds``) are judged by the blocks the generator made: on
the summary page, a row is right where both sides are the summaries of one entry. The
tree alignment alone pairs such a list position by position (5-10% right,
``bench/bench_rows.py``); paired by the links of the items to known page pairs, all of
them are right. Entry pages keep their rows.
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl import align_pages
from bitextcrawl.formats.tsv import read_bitext_tsv
from bitextcrawl.pages.record import build_record
from testkit.summaries_site import judge_rows, summaries_site

pytestmark = pytest.mark.integration


# hi and bn: a sentence after a danda can start with a name in lower case ("mod_nexus ...")
@pytest.mark.parametrize("other", ["fr", "ja", "ru", "hi", "bn"])
def test_reordered_summaries_are_paired_by_their_links(tmp_path, other):
    site = summaries_site(seed=3, langs=("en", other))
    pages = [build_record(u, h) for u, h in site.pages.items()]
    align_pages(pages, ("en", other), tmp_path, workers=2)
    rows = read_bitext_tsv(tmp_path / "bitext.tsv")
    stats = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))
    judged = judge_rows(site, rows, stats["sentence_thresholds"][f"en-{other}"])
    summary, entry = judged["summary"], judged["entry"]
    print(other, judged)
    assert summary["right"] >= 20, summary            # 24 summaries and "read more"
    assert summary["right"] >= 0.97 * (summary["right"] + summary["wrong"]), summary
    assert entry["wrong"] == 0 and entry["right"] >= 2 * len(site.pairs[("en", other)]) - 10


def test_the_same_rows_whatever_the_workers(tmp_path, monkeypatch):
    # a pool for these 26 pairs (it starts from 50 pairs a worker): the pairs' known
    # link pairs go with their tasks to the pool's processes
    monkeypatch.setattr("bitextcrawl.bitext.pool.MIN_PAIRS_PER_WORKER", 1)
    site = summaries_site(seed=5, langs=("en", "fr"))
    got = []
    for workers in (1, 2):
        out = tmp_path / str(workers)
        align_pages([build_record(u, h) for u, h in site.pages.items()], ("en", "fr"), out,
                    workers=workers)
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))["align"]
        assert stats["bitext/bitext/workers"] == workers
        assert stats["bitext/bitext/reordered_lists"] == 1
        got.append((out / "bitext.tsv").read_bytes())
    assert got[0] == got[1]
