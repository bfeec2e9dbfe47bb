"""Link lists in a language's own order (``testkit/reorder.py``): the same list takes the
same order on every page of a language, another language's order is unrelated, the rest of
a page is kept, and a page parses to the same links and text apart from the order."""

from __future__ import annotations

from collections import Counter

import pytest

from bitextcrawl.pages.record import build_record
from testkit.reorder import reorder_lists, reordered_copy
from tests.conftest import SHARED_DATA

TERMS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"]


def page(items, current=None, extra="") -> str:
    lis = "".join(f"<li>{t}</li>" if t == current else f'<li><a href="/{t.lower()}.html">{t}</a></li>'
                  for t in items)
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>T</title></head><body>\n'
            f'<div class="side"><ul class="nav">{lis}</ul></div>\n'
            f'<p class="x">Text &amp; more <b>bold</b></p>{extra}\n</body></html>\n')


def order(html: str) -> list[str]:
    record = build_record("http://s.test/a.html", html)
    return [line for line in record.text.splitlines() if line in TERMS]


def test_deterministic_and_one_order_per_language():
    a, b = reorder_lists(page(TERMS), "fr"), reorder_lists(page(TERMS), "fr")
    assert a == b
    assert order(a) != TERMS and sorted(order(a)) == sorted(TERMS)
    # another page of the language, its list given in another order and with the current
    # page unlinked: the same order
    other = reorder_lists(page(TERMS[::-1], current="Delta"), "fr")
    assert order(other) == order(a)
    # a sublist keeps the relative order of the full list
    sub = reorder_lists(page(TERMS[:5]), "fr")
    assert order(sub) == [t for t in order(a) if t in TERMS[:5]]
    # another language: another order
    assert order(reorder_lists(page(TERMS), "ja")) != order(a)


def test_other_markup_kept():
    html = page(TERMS, extra='<ol><li>one</li><li>two</li><li>three</li></ol>'
                              '<ul><li><a href="/x">x</a></li><li><a href="/y">y</a></li></ul>')
    out = reorder_lists(html, "fr")
    assert out.startswith('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>T</title>')
    assert '<p class="x">Text &amp; more <b>bold</b></p>' in out
    # lists without three linked items are untouched
    assert "<ol><li>one</li><li>two</li><li>three</li></ol>" in out
    assert '<ul><li><a href="/x">x</a></li><li><a href="/y">y</a></li></ul>' in out
    assert out.endswith("</body></html>\n")
    # a page with no list to reorder is returned as it is
    plain = '<html><body><ul><li><a href="/a">a</a></li><li>b</li></ul></body></html>'
    assert reorder_lists(plain, "fr") is plain


def test_whitespace_between_items_and_nested_lists_stay():
    html = ('<html><body><ul>\n  <li><a href="/a">A</a>\n    <ul><li><a href="/a1">A1</a></li>'
            '<li><a href="/a2">A2</a></li><li><a href="/a3">A3</a></li></ul></li>\n'
            '  <li><a href="/b">B</a></li>\n  <li><a href="/c">C</a></li>\n  '
            '<li><a href="/d">D</a></li>\n</ul></body></html>')
    out = reorder_lists(html, "ru")
    assert out.count("</li>\n  <li>") == 3 and "</li>\n</ul>" in out
    # the nested list moves with its item
    start = out.index('<a href="/a">A</a>')
    assert out.index('<a href="/a1">', start) < out.index("</ul>", start)


def test_non_ascii_urls_and_fragments_kept():
    html = ('<div><ul><li><a href="/é1.html">é</a></li><li><a href="/b.html">b</a></li>'
            '<li><a href="/c.html?q=ô">c</a></li></ul></div>')
    out = reorder_lists(html, "fr")
    assert not out.lower().startswith(("<html", "<!doctype")) and out.startswith("<div>")
    assert '"/é1.html"' in out and '"/c.html?q=ô"' in out


def test_same_links_and_text():
    html = page(TERMS, current="Golf")
    a, b = build_record("http://s.test/a.html", html), build_record(
        "http://s.test/a.html", reorder_lists(html, "fr"))
    assert Counter(x["url"] for x in a.links) == Counter(x["url"] for x in b.links)
    assert Counter(a.text.splitlines()) == Counter(b.text.splitlines())
    assert a.title == b.title and a.lang == b.lang


def test_reordered_copy(tmp_path):
    src = tmp_path / "src"
    (src / "fr").mkdir(parents=True)
    (src / "en.html").write_text(page(TERMS))
    (src / "fr" / "a.html").write_text(page(TERMS))
    (src / "fr" / "style.css").write_text("body{}")
    out = tmp_path / "out"
    changed = reordered_copy(src, out, lambda rel: "fr" if rel.startswith("fr/") else None)
    assert changed == 1
    assert (out / "en.html").read_text() == page(TERMS)
    assert (out / "fr" / "style.css").read_text() == "body{}"
    assert (out / "fr" / "a.html").read_text() == reorder_lists(page(TERMS), "fr")


@pytest.mark.parametrize("pattern", ["wet/**/*-fr.html", "nginx/site/ru/**/*.html",
                                     "tldr/site/ja/**/*.html"])
def test_real_pages_parse_to_the_same_records(pattern):
    if not (SHARED_DATA / pattern.split("/")[0]).is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the project)")
    files = sorted(SHARED_DATA.glob(pattern))[:40]
    changed = 0
    for path in files:
        html = path.read_bytes().decode("utf-8", "replace")
        new = reorder_lists(html, "xx")
        changed += new != html
        a, b = (build_record("http://s.test/" + path.name, h) for h in (html, new))
        assert Counter(x["url"] for x in a.links) == Counter(x["url"] for x in b.links), path
        assert Counter(a.text.splitlines()) == Counter(b.text.splitlines()), path
        assert Counter(a.strand) == Counter(b.strand) and a.title == b.title, path
    assert changed >= len(files) // 2
