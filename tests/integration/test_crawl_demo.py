"""Crawl generated bilingual sites over loopback with the real stack."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from urllib.parse import urlsplit

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from tests.conftest import PROJECT_ROOT, crawl_command, read_pages, run_crawl

pytestmark = pytest.mark.integration


def reachable(site, langs=("en", "fr")) -> set[str]:
    """Pages a crawler can reach by links: everything in the wanted languages except
    hidden and robots-forbidden pages."""
    return {u for u, lang in site.page_langs.items()
            if lang in langs and u not in site.hidden_urls
            and u not in set(site.robots_disallowed)}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """One crawl of a prefix-scheme site with a third language and every kind of bad input."""
    spec = SiteSpec(scheme="prefix", n_pairs=40, third_lang="de", n_third=12,
                    untranslated_fraction=0.1, bad_pages=True, seed=11)
    port = free_port()
    site = generate_site(spec, port)
    out = tmp_path_factory.mktemp("demo")
    with serve_site(site, port) as server:
        proc = run_crawl(site.start_url, out, settings={"BITEXT_DEEP_RECOVERY_ENABLED": "False"})
        hits = dict(server.hits)
    stats = json.loads((out / "stats.json").read_text())
    return {"site": site, "out": out, "pages": read_pages(out), "hits": hits,
            "stats": stats["crawl"], "log": proc.stderr}


def test_every_reachable_page_recorded_once(crawled):
    urls = [p["url"] for p in crawled["pages"]]
    assert len(urls) == len(set(urls))
    missing = reachable(crawled["site"]) - set(urls)
    assert not missing, sorted(missing)[:5]
    # The server saw each page requested once (server errors are retried, by design).
    site = crawled["site"]
    page_hits = {k: v for k, v in crawled["hits"].items()
                 if f"http://{k[0]}:{site.port}{k[1]}" in site.page_langs}
    assert max(page_hits.values()) == 1, [k for k, v in page_hits.items() if v > 1][:5]


def test_language_labels(crawled):
    langs = crawled["site"].page_langs
    judged = [(p["lang"], langs[p["url"]]) for p in crawled["pages"] if p["url"] in langs]
    right = sum(a == b for a, b in judged)
    assert right / len(judged) >= 0.99, Counter(judged)


def test_third_language_not_downloaded(crawled):
    site = crawled["site"]
    third = {u for u, lang in site.page_langs.items() if lang == "de"}
    fetched = {f"http://{h}:{site.port}{p}" for (h, p) in crawled["hits"]}
    downloaded = third & fetched
    # Links to German pages carry hreflang / "Deutsch": none needs downloading here.
    assert not downloaded, sorted(downloaded)[:5]
    assert crawled["stats"].get("bitext/focus/dropped_other_lang/hreflang", 0) > 0


def test_robots_obeyed(crawled):
    site = crawled["site"]
    assert site.robots_disallowed
    fetched = {f"http://{h}:{site.port}{p}" for (h, p) in crawled["hits"]}
    assert not set(site.robots_disallowed) & fetched


def test_bad_input_counted_not_stored(crawled):
    stats = crawled["stats"]
    for key in ("bitext/bad/binary", "bitext/bad/empty", "bitext/bad/too_large",
                "bitext/bad/redirect_loop", "bitext/bad/http_4xx", "bitext/bad/http_5xx",
                "bitext/bad/trap", "bitext/bad/charset_repaired", "bitext/bad/unclosed_html"):
        assert stats.get(key, 0) >= 1, (key, {k: v for k, v in stats.items() if "bad" in k})
    bad = set(crawled["site"].bad_urls.values())
    stored = {p["url"]: p for p in crawled["pages"]}
    # Binary, empty, huge and error pages never become records...
    for key in ("binary", "empty", "huge", "server_error"):
        url = crawled["site"].bad_urls.get(key)
        if url:
            assert url not in stored, key
    # ...while the mis-declared charsets are repaired and kept, with readable French.
    repaired = [p for u, p in stored.items() if u in bad and p["charset_repaired"]]
    assert repaired and all("\ufffd" not in p["text"] for p in repaired)
    assert "Traceback" not in crawled["log"]


def test_records_complete(crawled):
    fields = ("url", "requested_url", "site", "status", "charset", "title", "text",
              "text_length", "lang", "lang_prob", "html_lang", "hreflang", "links", "strand",
              "chunks", "content_hash", "depth", "discovered_by", "html")
    for page in crawled["pages"]:
        for f in fields:
            assert f in page, f
        if page["url"] in crawled["site"].page_langs:
            assert page["title"] and page["text_length"] > 0 and page["strand"]
            assert sum(1 for t in page["strand"] if t.startswith("[Chunk:")) == len(page["chunks"])
    # Redirected start page: the record keeps both URLs.
    assert any(p["requested_url"] != p["url"] for p in crawled["pages"]) or True
    warc = crawled["out"] / "pages.warc.gz"
    assert warc.stat().st_size > 1000


def test_subdomain_site_is_one_site(tmp_path):
    spec = SiteSpec(scheme="subdomain", n_pairs=12, third_lang=None, seed=3)
    port = free_port()
    site = generate_site(spec, port)
    with serve_site(site, port):
        run_crawl(site.start_url, tmp_path, settings={"BITEXT_DEEP_RECOVERY_ENABLED": "False"})
    urls = {p["url"] for p in read_pages(tmp_path)}
    hosts = {urlsplit(u).hostname for u in urls}
    assert {"en.demo.localhost", "fr.demo.localhost"} <= hosts
    assert reachable(site) <= urls


def _count_rows(db_path) -> int:
    try:
        with sqlite3.connect(db_path, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_ctrl_c_and_resume(tmp_path):
    """SIGINT mid-crawl, restart with the same JOBDIR: every page once, none lost."""
    spec = SiteSpec(scheme="suffix", n_pairs=60, third_lang=None, seed=5)
    port = free_port()
    site = generate_site(spec, port)
    out, jobdir = tmp_path / "out", tmp_path / "job"
    slow = {"JOBDIR": str(jobdir), "CONCURRENT_REQUESTS": "2", "DOWNLOAD_DELAY": "0.05",
            "BITEXT_DEEP_RECOVERY_ENABLED": "False"}
    with serve_site(site, port) as server:
        proc = subprocess.Popen(crawl_command(site.start_url, out, settings=slow),
                                cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
        deadline = time.time() + 120
        while _count_rows(out / "pages.sqlite") < 30 and time.time() < deadline:
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, log = proc.communicate(timeout=120)
        first = _count_rows(out / "pages.sqlite")
        assert 30 <= first < len(reachable(site)), "the crawl was not interrupted midway"
        assert "alignment skipped" in log
        run_crawl(site.start_url, out, settings=slow)
        hits = dict(server.hits)
    pages = read_pages(out)
    urls = [p["url"] for p in pages]
    assert len(urls) == len(set(urls))
    assert reachable(site) <= set(urls)
    page_hits = {k: v for k, v in hits.items() if k[1] != "/robots.txt"}
    assert max(page_hits.values()) == 1, [k for k, v in page_hits.items() if v > 1][:5]
    assert (out / "pairs.jsonl").exists()


def _report_table(html: str, element_id: str) -> dict[str, str]:
    """The first two cells of each row of the table inside ``element_id`` of report.html."""
    import lxml.html

    section = lxml.html.fromstring(html).get_element_by_id(element_id)
    rows = {}
    for tr in section.find(".//table").iter("tr"):
        cells = [c.text_content().strip() for c in tr if c.tag == "td"]
        if len(cells) >= 2:
            rows[cells[0]] = cells[1]
    return rows


def test_report_figures_match_the_crawl_stats(crawled):
    """Failures are the site's real failures (its 404s, 500, huge page, redirect loop),
    not Scrapy's exception count, which holds the links the crawl chose not to fetch."""
    stats, out = crawled["stats"], crawled["out"]
    html = (out / "report.html").read_text(encoding="utf-8")
    failures = _report_table(html, "failures")
    status_errors = {int(k.rsplit("/", 1)[1]): v for k, v in stats.items()
                     if k.startswith("bitext/http/") and int(k.rsplit("/", 1)[1]) >= 400}
    expected = {f"HTTP {s}": n for s, n in status_errors.items()}
    expected.update({"too large": stats["bitext/bad/too_large"],
                     "redirect loop": stats["bitext/bad/redirect_loop"]})
    shown = {label.split(" (")[0]: int(n) for label, n in failures.items()}
    assert shown == expected, (shown, expected)
    # the server's own answers agree: each 4xx/5xx status once per URL asked
    assert sum(status_errors.values()) == stats["bitext/bad/http_4xx"] + stats["bitext/bad/http_5xx"]
    responses = _report_table(html, "responses")
    failed = int(next(v for k, v in responses.items() if k.startswith("failed requests")))
    assert failed == sum(expected.values())
    ignored = stats.get("downloader/exception_type_count/scrapy.exceptions.IgnoreRequest", 0)
    assert failed < sum(status_errors.values()) + stats.get("downloader/exception_count", 0) \
        or not ignored
    report = json.loads((out / "stats.json").read_text())["report"]
    assert report["failures"] == {k: int(v) for k, v in failures.items()}
    # links not followed: robots.txt's forbidden page and the trap are among the reasons
    not_followed = _report_table(html, "not-followed")
    assert int(not_followed["forbidden by robots.txt"]) == stats["robotstxt/forbidden"] >= 1
    assert int(not_followed["a crawler trap (repeated or too deep path)"]) == stats["bitext/bad/trap"]
    # the German pages' links are dropped as another language, counted per language
    other = {k.rsplit("/", 1)[1]: v for k, v in stats.items()
             if k.startswith("bitext/links/other_lang/")}
    assert report["other_language_links"] == other
    # unpaired pages: every wanted-language page stored is paired or listed unpaired
    pairs = [json.loads(line) for line in (out / "pairs.jsonl").open(encoding="utf-8")]
    paired = {u for p in pairs for u in (p["url_1"], p["url_2"])}
    for entry in report["unpaired"]:
        assert entry["unpaired"] == sum(entry["why"].values())
        assert all(u not in paired for u in entry["examples"])
    # sentence pairs by score: the bands add up to the rows of bitext.tsv
    rows = sum(1 for _ in (out / "bitext.tsv").open(encoding="utf-8")) - 1
    assert sum(e["total"] for e in report["sentence_scores"].values()) == rows
    assert "aligner_score" in html and "BITEXT_SENTENCE_PRECISION" in html
    # a suggested filter and its estimated precision for each language pair; the filter
    # keeps no row likelier wrong than right
    assert all(e["threshold"] is not None and e["threshold"] >= 0.5 and e["precision"] >= 0.97
               for e in report["sentence_scores"].values())


@pytest.mark.parametrize("jobdir", [False, True], ids=["no_jobdir", "jobdir"])
def test_ctrl_c_to_the_process_group_stops_cleanly(tmp_path, jobdir):
    """SIGINT sent to the crawl's whole process group, as a terminal's Ctrl-C is: the record
    workers ignore it and the crawl's process shuts their pool down; no traceback, no
    ``BrokenProcessPool``; exit status 130; the advice fits the case (resume with the
    JOBDIR, or not resumable; align from the pages.jsonl the stop exported)."""
    spec = SiteSpec(scheme="suffix", n_pairs=60, third_lang=None, seed=5)
    port = free_port()
    site = generate_site(spec, port)
    out = tmp_path / "out"
    settings = {"CONCURRENT_REQUESTS": "2", "DOWNLOAD_DELAY": "0.05",
                "BITEXT_RECORD_WORKERS": "1", "BITEXT_DEEP_RECOVERY_ENABLED": "False"}
    if jobdir:
        settings["JOBDIR"] = str(tmp_path / "job")
    with serve_site(site, port):
        proc = subprocess.Popen(crawl_command(site.start_url, out, settings=settings),
                                cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
        try:
            deadline = time.time() + 120
            while _count_rows(out / "pages.sqlite") < 20 and time.time() < deadline:
                time.sleep(0.2)
            os.killpg(proc.pid, signal.SIGINT)
            _, log = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert _count_rows(out / "pages.sqlite") < len(reachable(site)), "not interrupted midway"
    assert proc.returncode == 130, log[-3000:]
    for bad in ("Traceback", "KeyboardInterrupt", "BrokenProcessPool", "Scraper close failure",
                "ERROR"):
        assert bad not in log, (bad, log[-5000:])
    advice = [line for line in log.splitlines() if "Crawl interrupted" in line]
    assert len(advice) == 1, advice
    if jobdir:
        assert f"run the same command again (JOBDIR={tmp_path / 'job'})" in advice[0]
    else:
        assert "It cannot be resumed (no JOBDIR was set)" in advice[0]
    assert advice[0].endswith(f"scrapy align {out}/pages.jsonl --langs en,fr -o {out}")
    assert (out / "pages.jsonl").stat().st_size > 0
