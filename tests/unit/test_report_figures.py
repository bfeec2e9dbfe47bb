"""The report's figures, the crawl's outcome and the output-dir rules: pure functions."""

from __future__ import annotations

from types import SimpleNamespace

from bitextcrawl import outcome, preflight
from bitextcrawl.report import figures

CRAWL = {
    "downloader/response_status_count/404": 10,   # one of them robots.txt's
    "downloader/exception_count": 95,
    "downloader/exception_type_count/scrapy.exceptions.IgnoreRequest": 94,
    "bitext/http/404": 9, "bitext/http/500": 1, "bitext/bad/http_4xx": 9,
    "bitext/bad/http_5xx": 1, "bitext/bad/too_large": 1, "bitext/bad/redirect_loop": 1,
    "bitext/bad/ConnectionRefusedError": 2, "bitext/bad/binary": 1, "bitext/bad/trap": 3,
    "bitext/bad/unclosed_html": 4, "bitext/focus/promoted_copy_dropped": 80,
    "bitext/links/already_answered": 1000, "bitext/focus/dropped_other_lang/url_token": 150,
    "bitext/focus/dropped_other_lang/hreflang": 9, "bitext/links/other_lang/ru": 159,
    "bitext/focus/held": 20, "bitext/focus/released": 5, "robotstxt/forbidden": 1,
}


def test_failures_are_real_failures_by_kind():
    assert figures.failures(CRAWL) == [
        ("HTTP 404 (not found)", 9), ("HTTP 500 (server error)", 1),
        ("connection refused", 2), ("redirect loop", 1),
        ("too large (over DOWNLOAD_MAXSIZE)", 1)]
    assert figures.failure_total(CRAWL) == 14   # not 10 + 95


def test_links_not_followed_by_reason():
    rows = dict(figures.links_not_followed(CRAWL))
    assert rows["already requested or answered (duplicates)"] == 1080
    assert rows["led to a language not asked for"] == 159
    assert rows["held back: that language's links yielded too few pairs"] == 15
    assert rows["a crawler trap (repeated or too deep path)"] == 3
    assert rows["forbidden by robots.txt"] == 1
    assert figures.other_language_links(CRAWL) == {"ru": 159}


def test_unpaired_pages_and_why():
    def page(url, lang, h=None):
        return SimpleNamespace(url=url, lang=lang, content_hash=h)

    pair = SimpleNamespace(url_1="/en/a", url_2="/fr/a")
    pages = [page("/en/a", "en", "A"), page("/en/a/index.html", "en", "A"),
             page("/en/b", "en"), page("/en/c", "en"), page("/en/d", "en"),
             page("/fr/a", "fr"), page("/de/a", "de")]
    rejected = {"site": {"en-fr": [
        {"url_1": "/en/b", "url_2": "/fr/a", "score": 0.8, "why": "rival"},
        {"url_1": "/en/c", "url_2": "/fr/x", "score": 0.3, "why": "threshold"}]}}
    got = figures.unpaired_pages(pages, [pair], rejected, ("en", "fr"))
    assert got[0] == {"lang": "en", "pages": 5, "unpaired": 3,
                      "examples": ["/en/b", "/en/c", "/en/d"],
                      "why": {"its best candidate is paired with another page": 1,
                              "best candidate scored below the pair threshold": 1,
                              "no candidate counterpart among the pages crawled": 1}}
    assert got[1]["unpaired"] == 0


def test_sentence_score_bands():
    counts = {"bitext/bitext/en-zh/suggested_threshold": 0.3,
              "bitext/bitext/en-zh/estimated_precision": 0.975,
              "bitext/bitext/en-fr/suggested_threshold": 0.96,
              "bitext/bitext/en-zh/tmx_units": 4}
    thresholds, precisions = figures.suggested_filters(counts)
    assert thresholds == {"en-fr": 0.96, "en-zh": 0.3} and precisions == {"en-zh": 0.975}
    bands = figures.sentence_score_bands([("en", "zh", 0.05), ("en", "zh", 0.3),
                                          ("en", "zh", 0.95), ("en", "zh", 1.0),
                                          ("en", "fr", 0.95), ("en", "fr", 0.97)],
                                         thresholds, precisions)
    assert bands["en-zh"]["at_or_above"] == 3 and bands["en-zh"]["total"] == 4
    assert bands["en-zh"]["threshold"] == 0.3 and bands["en-zh"]["precision"] == 0.975
    assert bands["en-fr"]["at_or_above"] == 1 and bands["en-fr"]["precision"] is None
    assert dict(bands["en-zh"]["bands"]) == {"0.0–0.1": 1, "0.1–0.3": 0, "0.3–0.5": 1,
                                             "0.5–0.7": 0, "0.7–0.9": 0, "0.9–1.0": 2}


def test_outcome_warns_what_was_seen_instead():
    stats = {"bitext/pages/stored/en": 183, "bitext/pages/stored/ja": 3,
             "bitext/links/other_lang/ru": 159, "bitext/pairs": 0}
    warnings, status = outcome.judge(stats, ("en", "ur"), aligned=True)
    assert status == outcome.EXIT_NOTHING_FOUND == 3
    assert warnings[0] == ("no page in Urdu (ur) was found (langs=en,ur); the crawl saw "
                           "instead: 159 links led to Russian (ru); 183 pages stored in "
                           "English (en); 3 pages stored in Japanese (ja)")
    assert warnings[1].startswith("no page pair was found")
    ok = {"bitext/pages/stored/en": 5, "bitext/pages/stored/fr": 5, "bitext/pairs": 4}
    assert outcome.judge(ok, ("en", "fr"), aligned=True) == ([], 0)
    assert outcome.judge(ok, ("en", "fr"), aligned=True, reason="shutdown") == ([], 130)


def test_interrupted_advice(tmp_path):
    said = outcome.interrupted_advice(str(tmp_path), None, ("en", "fr"))
    assert "cannot be resumed" in said and said.endswith("No page was stored.")
    (tmp_path / "pages.warc.gz").write_bytes(b"x")
    said = outcome.interrupted_advice(str(tmp_path), "/jobs/x", ("en", "fr"))
    assert "run the same command again (JOBDIR=/jobs/x)" in said
    assert said.endswith(f"scrapy align {tmp_path}/pages.warc.gz --langs en,fr -o {tmp_path}")
    (tmp_path / "pages.jsonl").write_text("{}\n")
    assert outcome.interrupted_advice(str(tmp_path), None, ("en", "fr")).endswith(
        f"scrapy align {tmp_path}/pages.jsonl --langs en,fr -o {tmp_path}")


def test_previous_crawl_refused_unless_resumed_or_overwritten(tmp_path):
    assert preflight.check_previous_crawl(str(tmp_path), None, False) is None
    (tmp_path / "stats.json").write_text("{}")
    (tmp_path / "bitext.en-de.tmx").write_text("")
    (tmp_path / "mine.txt").write_text("")
    assert "holds another crawl (stats.json)" in preflight.check_previous_crawl(
        str(tmp_path), None, False)
    assert preflight.check_previous_crawl(str(tmp_path), None, True) is None
    job = tmp_path / "job"
    job.mkdir()
    assert preflight.check_previous_crawl(str(tmp_path), str(job), False) is not None
    (job / "requests.seen").write_text("")
    assert preflight.check_previous_crawl(str(tmp_path), str(job), False) is None
    assert preflight.remove_crawl_files(str(tmp_path)) == ["bitext.en-de.tmx", "stats.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job", "mine.txt"]


def test_outcome_of_a_crawl_closed_by_a_limit_or_an_error():
    ok = {"bitext/pages/stored/en": 5, "bitext/pages/stored/fr": 5, "bitext/pairs": 4}
    assert outcome.judge(ok, ("en", "fr"), True, reason="closespider_timeout") == ([], 0)
    assert outcome.judge(ok, ("en", "fr"), True, reason="memusage_exceeded") == ([], 1)
