"""The words of the list items that head with a link (pages/record.py:
``list_item_texts``): what bar absence's rule LISTED reads the language of."""

from __future__ import annotations

from bitextcrawl.pages.record import parse_page

BASE = "http://s/ja/index.html"


def items(body: str) -> dict:
    html = f"<html><body>{body}</body></html>"
    return dict(parse_page(BASE, html)["derived"]["link_items"])


def test_a_definition_list_item_takes_its_descriptions_words():
    got = items('<dl><dt><a href="mod_a.html">mod_a</a></dt>'
                '<dd>Provides access control based on the host name</dd>'
                '<dt><a href="mod_b.html">mod_b</a></dt><dd>Compresses content</dd></dl>')
    assert got == {"http://s/ja/mod_a.html": "Provides access control based on the host name"}


def test_list_items_and_table_rows_take_their_words_besides_the_anchor():
    got = items('<ul><li><a href="a.html">Alpha</a> — a page about the first letter</li>'
                '<li><a href="b.html">Beta, the second letter of the alphabet</a></li></ul>'
                '<table><tr><td><a href="c.html">c</a></td>'
                '<td>the third page of the manual</td></tr></table>')
    assert got == {"http://s/ja/a.html": "— a page about the first letter",
                   "http://s/ja/c.html": "the third page of the manual"}


def test_a_menu_branch_gives_no_words_of_its_own():
    got = items('<ul><li><a href="s/">Section</a><ul>'
                '<li><a href="s/a.html">a</a> is the first page of the section</li>'
                '</ul></li></ul>')
    assert got == {"http://s/ja/s/a.html": "is the first page of the section"}
