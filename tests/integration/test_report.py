"""report.html: its sections in order, self-contained, and rendered by headless Chromium
(Debian's ``chromium``, installed by ``.ci/run``) without a console message."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import lxml.html
import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.outputs import run_closing
from bitextcrawl.pairing.align import AlignConfig
from testkit.records import site_records

pytestmark = pytest.mark.integration

SECTIONS = ["summary", "plots", "samples", "patterns"]
# Chromium writes the page's console messages to stderr as ``...:CONSOLE:<line>] "text"``.
CONSOLE = re.compile(r":CONSOLE[:(]")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    site = generate_site(SiteSpec(scheme="prefix", n_pairs=20, language_switch=True, seed=4),
                         8000)
    crawl = {"downloader/response_count": 60, "bitext/pages/stored/en": 22,
             "bitext/pages/stored/fr": 21, "bitext/pages/stored/de": 2,
             "downloader/response_status_count/200": 45,
             "downloader/response_status_count/301": 5,
             "downloader/response_status_count/404": 10, "elapsed_time_seconds": 12.0}
    timeline = [[0, 0, 0, 0], [4, 20, 15, 4], [8, 45, 35, 12], [12, 60, 45, 19]]
    run_closing(site_records(site), AlignConfig(langs=("en", "fr")), str(out),
                crawl_stats=crawl, timeline=timeline)
    return out / "report.html"


def check_dom(html: str) -> None:
    doc = lxml.html.fromstring(html)
    ids = [s.get("id") for s in doc.iter("section")]
    assert ids == SECTIONS, ids
    summary = doc.get_element_by_id("summary")
    text = summary.text_content()
    for heading in ("Pages per language", "Responses", "Pairs by evidence", "Sentence pairs",
                    "Time per stage"):
        assert heading in text, heading
    assert "pages in other languages" in text and "redirects (3xx)" in text
    plots = doc.get_element_by_id("plots")
    for name in ("plot-scores", "plot-structure", "plot-ets", "plot-timeline"):
        figures = plots.find_class(name)
        assert figures, name
        svg = figures[0].find(".//svg")
        assert svg is not None and len(svg) > 5, name   # axes and data drawn
    samples = doc.get_element_by_id("samples")
    for sub in ("lowest-kept", "best-rejected"):
        assert samples.get_element_by_id(sub) is not None
    first = samples.find_class("pair")[0]
    links = [a.get("href") for a in first.iter("a")]
    assert any("/en/" in u for u in links) and any("/fr/" in u for u in links)
    assert first.findall(".//li"), "no aligned sentence shown"
    rows = doc.get_element_by_id("patterns").findall(".//tr")
    assert len(rows) >= 2 and "kind" in rows[0].text_content()


def test_report_sections_in_order_and_self_contained(report):
    html = report.read_text(encoding="utf-8")
    check_dom(html)
    # nothing to fetch: no script, stylesheet, image or font from anywhere
    assert "<script" not in html
    assert not re.search(r"""\b(?:src|srcset)\s*=|<link\b|@import|url\(""", html)


def chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("chromium not found on PATH (apt-get install chromium; .ci/run installs it)")
    return exe


def render(exe: str, path: Path) -> tuple[str, str]:
    """The DOM after rendering, and Chromium's log."""
    proc = subprocess.run([exe, "--headless", "--disable-gpu", "--no-sandbox",
                           "--enable-logging=stderr", "--v=0", "--dump-dom",
                           path.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def test_report_renders_in_chromium_without_console_messages(report, tmp_path):
    exe = chromium()
    # the check can fail: a page that logs an error is caught
    noisy = tmp_path / "noisy.html"
    noisy.write_text("<!doctype html><p>x</p><script>console.error('broken')</script>")
    _, log = render(exe, noisy)
    assert CONSOLE.search(log) and "broken" in log
    dom, log = render(exe, report)
    assert not [line for line in log.splitlines() if CONSOLE.search(line)]
    check_dom(dom)


def test_compress_writes_gz_outputs_read_by_header(tmp_path):
    import csv
    import gzip

    site = generate_site(SiteSpec(scheme="prefix", n_pairs=8, seed=4), 8000)
    run_closing(site_records(site), AlignConfig(langs=("en", "fr"), compress=True),
                str(tmp_path))
    names = set(p.name for p in tmp_path.iterdir())
    assert {"bitext.tsv.gz", "bitext.tmx.gz", "pairs.jsonl.gz",
            "parallel_links.jsonl.gz"} <= names
    assert not names & {"bitext.tsv", "bitext.tmx", "pairs.jsonl"}
    with gzip.open(tmp_path / "bitext.tsv.gz", "rt", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows and all(r["src_text"] and r["trg_text"] and r["src_lang"] == "en"
                        for r in rows)
