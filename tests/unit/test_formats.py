"""Readers and writers of offline inputs: WARC (warcio), WMT16 .lett, pages.jsonl."""

from __future__ import annotations

import base64
import collections
import gzip
import json
import os

import pytest

from bitextcrawl.formats.jsonl import iter_jsonl_pages, write_jsonl
from bitextcrawl.formats.lett import iter_lett_pages
from bitextcrawl.formats.readers import input_kind, iter_pages
from bitextcrawl.formats.warc import WarcPageWriter, iter_warc_pages
from bitextcrawl.pages.text import decode_html
from tests.conftest import SHARED_DATA

LETT = SHARED_DATA / "lett" / "v2.lett.gz"

EN_HTML = ("<html lang='en'><head><title>Welcome</title></head><body><main>"
           "<p>This is the English home page of a small bilingual test site.</p>"
           "<a href='/fr/index.html' hreflang='fr'>Français</a></main></body></html>")
FR_HTML = ("<html lang='fr'><head><meta charset='iso-8859-1'><title>Bienvenue</title></head>"
           "<body><main><p>Ceci est la page d'accueil française, écrite en été.</p>"
           "<a href='/en/index.html'>English</a></main></body></html>")


def _write_sample(path, *, append_png=True):
    with WarcPageWriter(path) as w:
        w.write_response("http://example.org/en/index.html", 200,
                         [("Content-Type", "text/html; charset=utf-8"),
                          ("Content-Encoding", "gzip"), ("Content-Length", "5"),
                          ("Content-Language", "en")],
                         EN_HTML.encode("utf-8"), 1_700_000_000.25)
        # No HTTP charset: the <meta charset> decides.
        w.write_response("http://example.org/fr/index.html", 200,
                         [("Content-Type", "text/html")],
                         FR_HTML.encode("iso-8859-1"), 1_700_000_001.0)
        if append_png:
            w.write_response("http://example.org/logo.png", 200,
                             [("Content-Type", "image/png")],
                             b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1_700_000_002.0)


def test_warc_round_trip(tmp_path):
    path = tmp_path / "out" / "pages.warc.gz"
    _write_sample(path)
    stats = collections.Counter()
    pages = list(iter_warc_pages(path, stats=stats))
    # a directory index document is named by its folder (pages.urls.page_name)
    assert [p.url for p in pages] == ["http://example.org/en/", "http://example.org/fr/"]
    en, fr = pages
    assert en.aliases == ["http://example.org/en/index.html"]
    assert en.status == 200 and en.title == "Welcome"
    assert en.content_language == "en" and en.lang == "en"
    assert en.fetched_at == pytest.approx(1_700_000_000.25, abs=1e-5)
    assert en.hreflang == {"fr": "http://example.org/fr/index.html"}
    assert fr.charset == "iso8859-1" and "été" in fr.text and fr.lang == "fr"
    assert stats["bitext/input/skipped/image"] == 1
    assert stats["bitext/input/pages"] == 2
    # Per-record gzip members: the file is a valid multi-member gzip.
    with gzip.open(path, "rb") as fh:
        assert fh.read().count(b"WARC/1.1\r\n") == 3


def test_warc_append_after_reopen(tmp_path):
    path = tmp_path / "pages.warc.gz"
    _write_sample(path, append_png=False)
    with WarcPageWriter(path) as w:  # a restarted crawl appends
        w.write_response("http://example.org/en/about.html", 200,
                         [("Content-Type", "text/html")],
                         EN_HTML.replace("Welcome", "About").encode(), 1_700_000_010.0)
        w.flush()
    assert w.closed
    urls = [p.url for p in iter_pages(path)]
    assert urls == ["http://example.org/en/", "http://example.org/fr/",
                    "http://example.org/en/about.html"]


def test_warc_skips_junk_and_survives_truncation(tmp_path):
    path = tmp_path / "junk.warc.gz"
    with WarcPageWriter(path) as w:
        w.write_response("http://example.org/a.html", 200, [("Content-Type", "text/html")],
                         EN_HTML.encode(), 1.0)
        w.write_response("http://example.org/bin", 200, [("Content-Type", "text/html")],
                         b"\x00\x01\x02\x03" * 100, 2.0)
        w.write_response("http://example.org/moved", 301,
                         [("Location", "http://example.org/a.html")], b"", 3.0)
        w.write_response("http://example.org/data.json", 200,
                         [("Content-Type", "application/json")], b"{}", 4.0)
        w.write_response("http://example.org/nohdr", 200, [], b"<!DOCTYPE html><html>"
                         b"<body><p>Sniffed as HTML without a Content-Type.</p></body></html>",
                         5.0)
    stats = collections.Counter()
    pages = list(iter_warc_pages(path, stats=stats))
    assert [p.url for p in pages] == ["http://example.org/a.html", "http://example.org/nohdr"]
    assert stats["bitext/input/bad/binary"] == 1
    # the 301 is a redirect, not junk: its URL is an alias of the page it leads to
    assert stats["bitext/input/redirects"] == 1
    assert pages[0].aliases == ["http://example.org/moved"]
    assert stats["bitext/input/skipped/non_html"] == 1

    data = path.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    stats = collections.Counter()
    pages = list(iter_warc_pages(cut, stats=stats))  # never raises
    assert [p.url for p in pages] == ["http://example.org/a.html"]
    assert stats["bitext/input/errors/truncated"] == 1

    garbage = tmp_path / "garbage.warc"
    garbage.write_bytes(b"this is not a WARC file at all\n" * 10)
    stats = collections.Counter()
    assert list(iter_warc_pages(garbage, stats=stats)) == []
    assert stats["bitext/input/errors/truncated"] == 1


def test_decode_html_order_and_repair():
    body = "<meta charset='windows-1252'><p>café</p>".encode("cp1252")
    text, charset, repaired = decode_html(body, "text/html")
    assert "café" in text and charset == "cp1252" and not repaired
    # The HTTP charset wins over <meta>.
    text, charset, _ = decode_html("<p>é</p>".encode("utf-8"), "text/html; charset=UTF-8")
    assert charset == "utf-8" and "é" in text
    # Undeclared Latin-1 text: UTF-8 fails visibly and the repair steps in.
    latin = ("<html><body><p>Bienvenue sur notre site. Nous sommes une petite entreprise "
             "française spécialisée dans la fabrication de meubles en bois massif. Depuis "
             "plus de vingt ans, nous créons des pièces uniques pour nos clients, à la main, "
             "dans notre atelier près de Lyon. Découvrez nos créations et n'hésitez pas à "
             "nous contacter.</p></body></html>").encode("latin-1")
    text, _, repaired = decode_html(latin, None)
    assert repaired and "française" in text and "\ufffd" not in text


def _lett_line(lang, url, html, mime="text/html", enc="charset=utf-8"):
    b64 = base64.b64encode(html if isinstance(html, bytes) else html.encode()).decode()
    return "\t".join([lang, mime, enc, url, b64, base64.b64encode(b"text").decode()])


def test_lett_synthetic_junk(tmp_path):
    path = tmp_path / "site.lett"
    lines = [
        _lett_line("yo", "http://example.org/en.html", EN_HTML),   # wrong label kept as declared
        _lett_line("en", "unknown_url", EN_HTML),
        _lett_line("vi", "http://example.org/x.php?img=a.jpg", b"\xff\xd8\xff\xe0JFIF"),
        _lett_line("en", "http://example.org/pic", "\u00ff\u00d8\u00ff\u00e0\x00JFIF"),
        "en\ttext/html\tcharset=utf-8\thttp://example.org/b.html\t!!!notbase64\tx",
        "just one field",
        _lett_line("fr", "http://example.org/fr.html", FR_HTML.encode("latin-1"),
                   enc="charset=iso-8859-1"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stats = collections.Counter()
    pages = list(iter_pages(path, stats=stats))
    assert [p.url for p in pages] == ["http://example.org/en.html", "http://example.org/fr.html"]
    assert pages[0].content_language == "yo" and pages[0].lang == "en"  # <html lang> decides
    assert "été" in pages[1].text
    assert stats["bitext/input/skipped/unknown_url"] == 1
    assert stats["bitext/input/skipped/image"] == 2
    assert stats["bitext/input/skipped/bad_base64"] == 1
    assert stats["bitext/input/skipped/broken_line"] == 1


@pytest.fixture(scope="module")
def lett_pages():
    if not LETT.exists():
        pytest.skip(f"real data not found at {LETT} (../shared/data beside the project)")
    from bitextcrawl.pages.language import LanguageIdentifier

    stats = collections.Counter()
    pages = list(iter_lett_pages(LETT, LanguageIdentifier().identify, stats))
    return pages, stats


def test_lett_real_file_counts(lett_pages):
    pages, stats = lett_pages
    assert stats["bitext/input/records"] == 97
    assert stats["bitext/input/skipped/unknown_url"] == 11
    assert stats["bitext/input/skipped/image"] == 26
    assert len(pages) == stats["bitext/input/pages"] == 60
    assert all(p.url.startswith("http://albatec-al.de/") for p in pages)
    langs = collections.Counter(p.lang for p in pages)
    assert langs["en"] >= 19 and langs["de"] >= 19 and langs["sq"] >= 17


def test_lett_real_file_languages(lett_pages):
    pages, _ = lett_pages
    by_url = {p.url: p for p in pages}
    assert by_url["http://albatec-al.de/17-0-Ueber-Albanien.html"].lang == "de"
    assert by_url["http://albatec-al.de/17-1-About-Albania.html"].lang == "en"
    assert by_url["http://albatec-al.de/17-1-About-Albania.html"].lang_method == "fasttext"
    # Every page of Bitextor's expected en-de pairs is read and identified as such.
    expected = [line.split("\t") for line in
                (SHARED_DATA / "lett" / "expected").read_text().splitlines() if line]
    assert len(expected) == 16
    for en_url, de_url in expected:
        assert by_url[en_url].lang == "en", en_url
        assert by_url[de_url].lang == "de", de_url


def test_jsonl_round_trip_and_broken_lines(tmp_path):
    path = tmp_path / "pages.jsonl"
    pages = list(iter_warc_pages(_sample_warc(tmp_path)))
    assert write_jsonl(path, (p.to_dict() for p in pages)) == 2
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
        fh.write(json.dumps(["a list"]) + "\n")
        fh.write(json.dumps({"title": "no url"}) + "\n")
        fh.write(json.dumps({"url": "http://example.org/x", "unknown_field": 1}) + "\n")
    stats = collections.Counter()
    back = list(iter_jsonl_pages(path, stats))
    assert [p.url for p in back] == [p.url for p in pages] + ["http://example.org/x"]
    assert back[0].to_dict() == pages[0].to_dict()
    assert stats["bitext/input/skipped/broken_line"] == 3
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_write_jsonl_is_atomic(tmp_path):
    path = tmp_path / "pairs.jsonl"
    write_jsonl(path, [{"a": 1}])

    def boom():
        yield {"a": 2}
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        write_jsonl(path, boom())
    assert path.read_text() == '{"a": 1}\n'  # old content intact
    assert os.listdir(tmp_path) == ["pairs.jsonl"]


def _sample_warc(tmp_path):
    path = tmp_path / "sample.warc.gz"
    if not path.exists():
        _write_sample(path)
    return path


def test_iter_pages_dispatch_and_errors(tmp_path):
    assert input_kind("a/b/crawl.WARC.GZ") == "warc"
    assert input_kind("x.lett.gz") == "lett" and input_kind("pages.jsonl") == "jsonl"
    with pytest.raises(ValueError, match="unknown input kind"):
        iter_pages(tmp_path / "pages.csv")
    missing = tmp_path / "missing.warc.gz"
    with pytest.raises(OSError, match="missing.warc.gz"):
        iter_pages(missing)
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    with pytest.raises(OSError, match="dir.jsonl"):
        iter_pages(folder)
    plain = tmp_path / "plain.warc"
    with WarcPageWriter(plain) as w:
        w.write_response("http://example.org/", 200, [("Content-Type", "text/html")],
                         EN_HTML.encode(), 0.0)
    assert plain.read_bytes().startswith(b"WARC/1.1")
    assert [p.url for p in iter_pages(plain)] == ["http://example.org/"]


@pytest.mark.parametrize("cut", [20, 200])
def test_writer_reopened_after_a_torn_record_drops_only_the_tail(tmp_path, cut):
    """A crawl killed mid-write, resumed: the torn record goes, every other one stays."""
    from bitextcrawl.formats.warc import WarcPageWriter, iter_warc_pages

    path = tmp_path / "pages.warc.gz"
    with WarcPageWriter(path) as writer:
        for i in range(3):
            writer.write_response(f"http://a.test/{i}", 200, [("Content-Type", "text/html")],
                                  f"<html><body>page {i}</body></html>".encode(), 1.0)
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(size - cut)
    writer = WarcPageWriter(path)
    assert writer.bytes_dropped > 0
    writer.write_response("http://a.test/9", 200, [("Content-Type", "text/html")],
                          b"<html><body>page 9</body></html>", 2.0)
    writer.close()
    assert [p.url for p in iter_warc_pages(path)] == [
        "http://a.test/0", "http://a.test/1", "http://a.test/9"]
