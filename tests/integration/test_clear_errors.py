"""Bad input to the commands ends in one line that says what to do: the real
``scrapy crawl`` / ``scrapy align`` in a subprocess, checked for exit status, message, no
traceback, no request made and no output written. No crawling: each run takes a second or two.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, one_page_site

pytestmark = pytest.mark.integration

LID_EXAMPLE_CODES = ("af", "en", "fr", "ru", "zh", "yue")  # some of lid.176's 176 labels


def scrapy(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})


def error_line(proc: subprocess.CompletedProcess, command: str) -> str:
    """The one error line of a refused command, after checking how it was refused."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(f"scrapy {command}: error: ")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


@pytest.fixture
def listener():
    """A loopback port that listens and serves nothing: whether a crawl connected to it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)

    def connected() -> bool:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    yield f"http://127.0.0.1:{sock.getsockname()[1]}/", connected
    sock.close()


# ---------------------------------------------------------------- scrapy crawl bitext

def test_crawl_unknown_language_code_refused_before_any_request(listener, tmp_path):
    url, connected = listener
    proc = scrapy("crawl", "bitext", "-a", f"start_url={url}", "-a", "langs=en,xx",
                  "-s", f"BITEXT_OUTPUT_DIR={tmp_path / 'out'}")
    line = error_line(proc, "crawl")
    assert "unknown language code 'xx' in langs=en,xx" in line
    assert "Accepted: af " in line and all(f" {code} " in line or line.endswith(code)
                                           or f" {code};" in line
                                           for code in LID_EXAMPLE_CODES)
    assert "pt-BR -> pt-br" in line
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr  # not even Scrapy's banner
    assert not connected(), "a request was made"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, message", [
    (["-a", "langs=en,xx,klingon"],
     "unknown language codes 'xx', 'klingon' in langs=en,xx,klingon"),
    (["-s", "BITEXT_LANGS=fr,qq"], "unknown language code 'qq' in BITEXT_LANGS=fr,qq"),
    (["-a", "langs=zh-tw,zh_TW"],
     "langs needs two different languages or more, like langs=en,fr"),
    (["-a", "max_pages=ten"],
     "max_pages must be a whole number (0 or more), like -a max_pages=500 (got 'ten')"),
], ids=["codes_all_named", "code_in_setting", "one_language", "bad_max_pages"])
def test_crawl_bad_argument_refused_before_any_request(listener, args, message):
    url, connected = listener
    proc = scrapy("crawl", "bitext", "-a", f"start_url={url}", *args)
    line = error_line(proc, "crawl")
    assert message in line
    assert not connected()


def test_crawl_without_start_url():
    proc = scrapy("crawl", "bitext", "-a", "langs=en,fr")
    line = error_line(proc, "crawl")
    assert line == ("scrapy crawl: error: the bitext spider needs the site to crawl: pass "
                    "-a start_url=URL, e.g. scrapy crawl bitext -a start_url=https://nginx.org/ "
                    "-a langs=en,ru")
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_crawl_aliases_accepted_and_crawl_runs(tmp_path):
    """Variants, case and aliases (zh-CN, EN, cn) pass the check: the crawl runs."""
    with one_page_site() as server:
        proc = scrapy("crawl", "bitext", "-a", f"start_url={server.url}",
                      "-a", "langs=EN,zh-CN,cn", "-s", f"BITEXT_OUTPUT_DIR={tmp_path}",
                      "-s", f"BITEXT_PATTERN_DB={tmp_path}/patterns-db.json",
                      "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
                      timeout=120)
        requests = server.requests
    # the crawl ran; the site has no Chinese page: exit status 3, and a warning says so
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert ("WARNING: no page in Chinese (zh-cn), Chinese (zh) was found "
            "(langs=en,zh-cn,zh)") in proc.stderr
    assert "/" in requests
    assert "error:" not in proc.stderr


def test_crawl_unknown_spider():
    line = error_line(scrapy("crawl", "bitxet"), "crawl")
    assert line == ("scrapy crawl: error: no spider named 'bitxet' in this project: run one of "
                    "bitext, expand (scrapy list)")


# ---------------------------------------------------------------- scrapy crawl expand

def test_expand_without_seeds():
    line = error_line(scrapy("crawl", "expand", "-a", "langs=en,fr"), "crawl")
    assert "the expand spider needs a seed list: pass -a seeds=FILE" in line


def test_expand_missing_seed_file(tmp_path):
    line = error_line(scrapy("crawl", "expand", "-a", f"seeds={tmp_path / 'nope.txt'}"), "crawl")
    assert f"cannot read the seed list {tmp_path / 'nope.txt'}: No such file or directory" in line


def test_expand_empty_seed_file(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# nothing yet\n\n", encoding="utf-8")
    line = error_line(scrapy("crawl", "expand", "-a", f"seeds={seeds}"), "crawl")
    assert f"no seed URL in {seeds}: write one site URL a line" in line


def test_expand_unknown_language(tmp_path, listener):
    url, connected = listener
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(url + "\n", encoding="utf-8")
    line = error_line(scrapy("crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,xx"),
                      "crawl")
    assert "unknown language code 'xx' in langs=en,xx" in line and "Accepted: af " in line
    assert not connected()


# ---------------------------------------------------------------- scrapy align

def align(tmp_path: Path, *inputs, langs: str = "en,fr") -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "out"
    return scrapy("align", *map(str, inputs), "--langs", langs, "-o", str(out)), out


def assert_nothing_written(out: Path) -> None:
    assert not out.exists(), sorted(p.name for p in out.iterdir())


def test_align_empty_file(tmp_path):
    empty = tmp_path / "pages.jsonl"
    empty.write_bytes(b"")
    proc, out = align(tmp_path, empty)
    line = error_line(proc, "align")
    assert f"no readable page in {empty} (no record at all: an empty file?)" in line
    assert "expected a crawl's pages.jsonl or pages.sqlite, a WMT16 .lett/.lett.gz or a .warc/.warc.gz" in line
    assert f"nothing written to {out}" in line
    assert_nothing_written(out)


def test_align_text_file(tmp_path):
    text = tmp_path / "notes.jsonl"
    text.write_text("Just some notes.\nNot pages at all.\n", encoding="utf-8")
    proc, out = align(tmp_path, text)
    line = error_line(proc, "align")
    assert f"no readable page in {text} (2 lines that are not a page record)" in line
    assert_nothing_written(out)


def test_align_corrupt_gz(tmp_path):
    bad = tmp_path / "crawl.warc.gz"
    good = gzip.compress(b"WARC/1.0\r\nWARC-Type: response\r\n" * 50)
    bad.write_bytes(good[: len(good) // 2] + b"\x00garbage" * 20)
    proc, out = align(tmp_path, bad)
    line = error_line(proc, "align")
    assert f"no readable page in {bad} (data that breaks off: corrupt, cut short, " \
           "or not a WARC file)" in line
    assert_nothing_written(out)


def test_align_several_inputs_none_readable(tmp_path):
    empty, text = tmp_path / "a.jsonl", tmp_path / "b.lett"
    empty.write_bytes(b"")
    text.write_text("hello\n", encoding="utf-8")
    proc, out = align(tmp_path, empty, text)
    line = error_line(proc, "align")
    assert "no readable page in any of the 2 inputs" in line
    assert_nothing_written(out)


def test_align_missing_input(tmp_path):
    missing = tmp_path / "nope" / "pages.jsonl"
    proc, out = align(tmp_path, missing)
    assert error_line(proc, "align") == f"scrapy align: error: no such file: {missing}"
    assert_nothing_written(out)


def test_align_directory_input(tmp_path):
    proc, out = align(tmp_path, tmp_path)
    line = error_line(proc, "align")
    assert f"{tmp_path} is a directory: give the files in it" in line
    assert_nothing_written(out)


def test_align_unknown_input_kind(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n", encoding="utf-8")
    proc, out = align(tmp_path, notes)
    line = error_line(proc, "align")
    assert f"{notes}: no known input kind by its name" in line and ".warc.gz" in line
    assert_nothing_written(out)


def test_align_unknown_language(tmp_path):
    empty = tmp_path / "pages.jsonl"
    empty.write_bytes(b"")
    proc, out = align(tmp_path, empty, langs="en,xx")
    line = error_line(proc, "align")
    assert "unknown language code 'xx' in --langs=en,xx" in line and "Accepted: af " in line
    assert_nothing_written(out)


def test_align_no_page_in_the_languages(tmp_path):
    """Readable pages, none in one of --langs: said, with the languages that are there."""
    pages = tmp_path / "pages.jsonl"
    rows = [{"url": f"http://example.com/{lang}/{i}.html", "lang": lang,
             "text": f"page {i}", "html": "<html></html>"}
            for lang in ("en", "de") for i in range(3)]
    pages.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc, out = align(tmp_path, pages, langs="en,fr")
    line = error_line(proc, "align")
    assert "6 pages read, none in fr (pages by language: en 3, de 3)" in line
    assert "e.g. --langs en,de" in line
    assert_nothing_written(out)
