"""Pages in CJK, Korean EUC-KR, Japanese EUC-JP / Shift_JIS and Latin-1, crawled for real."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

# (file, encoding, declared where, language, text) — sentences written for this test.
PAGES = [
    ("ko.html", "euc-kr", "meta", "ko",
     "한국어 웹 페이지입니다. 오늘 서울의 날씨는 맑고 따뜻합니다. 우리는 도서관에서 책을 읽고 "
     "친구들과 함께 저녁을 먹었습니다. 이 문서는 문자 인코딩 시험을 위해 만들어졌습니다."),
    ("ja-euc.html", "euc-jp", "header", "ja",
     "これは日本語のウェブページです。今日は東京で雨が降っています。私たちは図書館で本を読み、"
     "友達と一緒に夕食を食べました。この文書は文字コードの試験のために作られました。"),
    ("ja-sjis.html", "shift_jis", "meta", "ja",
     "このページはシフトJISで書かれています。大阪の市場では新鮮な魚や野菜が売られています。"
     "駅の近くに新しい喫茶店が開きました。週末には多くの人が公園を散歩します。"),
    ("zh.html", "gb18030", "meta", "zh",
     "这是一个中文网页。今天北京的天气很好，我们在图书馆里看书，然后和朋友们一起吃晚饭。"
     "这个文件是为了测试字符编码而写的。"),
    ("fr-latin1.html", "iso-8859-1", "header", "fr",
     "Voici une page française écrite en Latin-1. Les élèves étudient à l'école près du "
     "marché, où l'on achète des légumes frais et du pain chaud chaque matin."),
]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    links = "".join(f'<a href="/{name}">{name}</a> ' for name, *_ in PAGES)
    (root / "index.html").write_text(
        f"<html><head><meta charset='utf-8'><title>Index</title></head><body>"
        f"<p>An index of pages in many scripts and encodings, written for a test.</p>"
        f"{links}</body></html>", encoding="utf-8")
    for name, encoding, declared, _, text in PAGES:
        meta = f'<meta charset="{encoding}">' if declared == "meta" else ""
        html = (f"<html><head>{meta}<title>{text[:12]}</title></head><body><main><p>{text}</p>"
                f"</main><a href='/index.html'>index</a></body></html>")
        (root / name).write_bytes(html.encode(encoding))
    out = tmp_path_factory.mktemp("out")
    handler_encodings = {name: enc for name, enc, declared, *_ in PAGES if declared == "header"}

    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        def guess_type(self, path):
            for name, enc in handler_encodings.items():
                if str(path).endswith(name):
                    return f"text/html; charset={enc}"
            return "text/html"

    import functools
    import threading

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        run_crawl(f"http://127.0.0.1:{httpd.server_address[1]}/index.html", out,
                  langs="en,ko,ja,zh,fr", settings={"BITEXT_ALIGN_ENABLED": "False"})
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {p["url"].rsplit("/", 1)[1]: p
            for p in map(json.loads, (out / "pages.jsonl").open(encoding="utf-8"))}


@pytest.mark.parametrize("name,encoding,declared,lang,text", PAGES)
def test_decoded_and_identified(crawl, name, encoding, declared, lang, text):
    page = crawl[name]
    assert text[:20] in page["text"], page["text"][:80]
    assert "\ufffd" not in page["text"]
    assert page["lang"] == lang, (page["lang"], page["lang_prob"])
    assert page["charset"] and not page["charset_repaired"]
