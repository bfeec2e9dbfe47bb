"""The Python API (bitextcrawl.api): its docstring examples, and the same results as the
commands it wraps on real data."""

from __future__ import annotations

import doctest
import subprocess
import sys
from collections import Counter

import pytest

import bitextcrawl
from bitextcrawl import api
from tests.conftest import PROJECT_ROOT, SHARED_DATA

LETT = SHARED_DATA / "lett" / "v2.lett.gz"
NGINX = SHARED_DATA / "nginx" / "site"


def need(path):
    if not path.exists():
        pytest.skip(f"real data not found at {path} (../shared/data beside the project)")


def test_docstring_examples():
    result = doctest.testmod(api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0


def test_package_exports_the_api():
    for name in api.__all__:
        assert getattr(bitextcrawl, name) is getattr(api, name)
    with pytest.raises(AttributeError):
        bitextcrawl.no_such_name  # noqa: B018


def test_read_pages_of_a_lett_file_counts_what_it_skips():
    need(LETT)
    stats = Counter()
    pages = list(api.read_pages(LETT, stats=stats))
    assert stats["bitext/input/records"] == 97
    assert len(pages) == stats["bitext/input/pages"] > 0
    assert {"en", "de"} <= {p.lang for p in pages}
    assert all(p.html and p.url.startswith("http") for p in pages)


@pytest.mark.integration
def test_align_pages_writes_what_scrapy_align_writes(tmp_path):
    need(LETT)
    pairs = api.align_pages(api.read_pages(LETT), langs=("en", "de"),
                            output_dir=tmp_path / "api")
    proc = subprocess.run([sys.executable, "-m", "scrapy", "align", str(LETT), "--langs",
                           "en,de", "-o", str(tmp_path / "cmd")], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("pairs.jsonl", "bitext.tsv"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cmd" / name).read_bytes()
    scores = api.score_pairs(SHARED_DATA / "lett" / "expected", pairs)
    assert scores["recall"] == 1.0, scores  # every pair Bitextor's aligner finds


def test_extract_bitext_of_a_real_page_pair():
    need(NGINX)
    en = (NGINX / "en" / "docs" / "beginners_guide.html").read_text(encoding="utf-8")
    ru = (NGINX / "ru" / "docs" / "beginners_guide.html").read_text(encoding="utf-8")
    rows = api.extract_bitext(en, ru, langs=("en", "ru"))
    assert len(rows) >= 50
    assert all(r["sentence_1"].strip() and r["sentence_2"].strip() for r in rows)
    assert all(r["sentence_1"] != r["sentence_2"] for r in rows)
    assert ("Beginner’s Guide", "Руководство для начинающих") in \
        {(r["sentence_1"], r["sentence_2"]) for r in rows}
    # The language check drops what fastText reads as neither side's language.
    assert len(api.extract_bitext(en, ru, langs=("en", "ru"), check_languages=False)) > len(rows)


def test_page_from_html_identifies_the_language_unless_told():
    need(NGINX)
    html = (NGINX / "ru" / "docs" / "beginners_guide.html").read_text(encoding="utf-8")
    assert api.page_from_html("http://nginx.org/ru/docs/beginners_guide.html", html).lang == "ru"
    assert api.page_from_html("http://nginx.org/x", html, lang="uk").lang == "uk"
