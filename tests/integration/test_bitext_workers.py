"""The closing pipeline's output does not depend on BITEXT_WORKERS."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.formats.jsonl import write_jsonl
from testkit.records import site_records
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.integration


def align(pages_file, out, workers: int) -> dict:
    cmd = [sys.executable, "-m", "scrapy", "align", str(pages_file), "--langs", "en,fr",
           "-o", str(out), "-s", f"BITEXT_WORKERS={workers}",
           "-s", f"BITEXT_PATTERN_DB={out}/patterns-db.json"]
    done = subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "stats.json").read_text())


def test_pairs_and_bitext_identical_with_one_and_two_workers(tmp_path):
    # Enough pairs for two workers (bitext.pool.MIN_PAIRS_PER_WORKER each)
    site = generate_site(SiteSpec(scheme="mixed", n_pairs=100, third_lang=None, seed=7), 8000)
    pages_file = tmp_path / "pages.jsonl"
    write_jsonl(pages_file, (p.to_dict() for p in site_records(site)))
    stats = {n: align(pages_file, tmp_path / f"w{n}", n) for n in (1, 2)}
    assert stats[1]["align"]["bitext/bitext/workers"] == 1
    assert stats[2]["align"]["bitext/bitext/workers"] == 2   # the pool did the work
    # its workers read the pages' HTML from the page store themselves
    assert stats[2]["align"]["bitext/bitext/workers_read_store"] == 1
    assert "bitext/bitext/workers_read_store" not in stats[1]["align"]
    assert stats[1]["align"]["bitext/bitext/sentence_pairs"] > 100
    # (bitext.tmx carries its creation time, so it is not compared byte for byte)
    for name in ("pairs.jsonl", "bitext.tsv", "parallel_links.jsonl"):
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes(), name
    # the sentence checks read in the workers drop what the one process drops
    drops = {n: {k: v for k, v in s["align"].items() if "/dropped/" in k} for n, s in stats.items()}
    assert drops[1] == drops[2]
