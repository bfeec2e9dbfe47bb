"""The site's template per language (pages/template.py) and where links sit (linearise)."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.compact import Interner, compact
from bitextcrawl.pages.record import build_record
from bitextcrawl.pages.template import SiteTemplate, page_chunk_keys, page_link_chunks

ENTRIES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


def page(i: int, lang: str = "en", see: int | None = None, listing: list | None = None):
    """A glossary entry: a sidebar linking every entry, a header and footer; the content
    names the entry, says something of its own, and may link another entry in its text."""
    side = "".join(f'<li><a href="/{lang}/{e}.html">{e}</a></li>' for e in ENTRIES)
    text = f"<h1>{ENTRIES[i]}</h1><p>Entry {ENTRIES[i]} number {i} says its own thing.</p>"
    if see is not None:
        text += f'<p>See also <a href="/{lang}/{ENTRIES[see]}.html">{ENTRIES[see]}</a>.</p>'
    if listing:
        text += "<ul>" + "".join(f'<li><a href="/{lang}/{e}.html">{e}</a></li>'
                                 for e in listing) + "</ul>"
    html = (f"<html><head><title>{ENTRIES[i]}</title></head><body>"
            f'<div class="top"><a href="/{lang}/">Glossary</a><ul><li>Home</li><li>Tags</li></ul></div>'
            f'<div class="side"><h2>Terms</h2><ul>{side}</ul></div>'
            f'<div class="main">{text}</div><div class="foot"><p>Kept by its community.</p></div>'
            "</body></html>")
    return build_record(f"http://g.test/{lang}/{ENTRIES[i]}.html", html)


@pytest.fixture
def pages():
    out = [page(i, see=(i + 1) % len(ENTRIES)) for i in range(len(ENTRIES))]
    out.append(page(0, listing=["echo", "bravo", "foxtrot"]))
    out[-1].url = "http://g.test/en/tag.html"
    return out


def test_links_sit_in_their_chunk():
    rec = build_record("http://x.test/a/b.html",
                       '<ul><li><a href="c.html">C</a></li></ul><p>See <a href="/d.html">d'
                       '</a> and <a href="c.html">c</a>.</p><a href="#x">x</a>')
    assert rec.chunks[:2] == ["C", "See d and c."]
    assert page_link_chunks(rec) == (("http://x.test/a/c.html", 0), ("http://x.test/d.html", 1),
                                     ("http://x.test/a/c.html", 1))


def test_the_sidebar_header_and_footer_are_template(pages):
    tmpl = SiteTemplate().fit(pages)
    entry = pages[2]
    strand = tmpl.strand(entry)
    chunks = [c for c, m in zip(entry.chunks, tmpl.chunk_marks(entry)) if not m]
    assert chunks == ["charlie", "charlie", "Entry charlie number 2 says its own thing.",
                      "See also delta."]
    # the sidebar goes with its tags: no <li> left, and far fewer tokens
    assert "[START:LI]" not in strand and len(strand) < len(entry.strand) / 3
    assert "Kept by its community." not in tmpl.text(entry)
    assert "Entry charlie number 2 says its own thing." in tmpl.text(entry)


def test_a_link_in_the_text_is_content_the_same_link_in_the_sidebar_is_not(pages):
    tmpl = SiteTemplate().fit(pages)
    links = tmpl.content_links(pages[2])
    assert links == ["http://g.test/en/delta.html"]   # from "See also", not the sidebar's
    assert "http://g.test/en/" not in links            # the header's home link


def test_names_listed_in_the_content_stay_content(pages):
    """A tag page lists entries the sidebar lists too, in another order: they recur alone,
    not as a run with their neighbours, and stay."""
    tmpl = SiteTemplate().fit(pages)
    tag = pages[-1]
    assert set(tmpl.content_links(tag)) >= {"http://g.test/en/echo.html",
                                            "http://g.test/en/bravo.html",
                                            "http://g.test/en/foxtrot.html"}


def test_too_few_pages_of_a_language_have_no_template(pages):
    tmpl = SiteTemplate().fit(pages[:4])
    assert tmpl.strand(pages[0]) == pages[0].strand
    assert tmpl.text(pages[0]) == pages[0].text


def test_per_language(pages):
    """French pages are counted apart: four of them make no template of their own."""
    fr = [page(i, "fr") for i in range(4)]
    for p in fr:
        p.lang = "fr"
    tmpl = SiteTemplate().fit(pages + fr)
    assert tmpl.strand(fr[0]) == fr[0].strand
    assert len(tmpl.strand(pages[0])) < len(pages[0].strand)


def test_compact_records_give_the_same_view(pages):
    """The chunk keys and link places are made with the record: a record without its chunk
    texts and HTML (the closing step's) has the same template view."""
    views = SiteTemplate().fit(pages)
    expected = [(views.strand(p), views.text(p), views.content_links(p)) for p in pages]
    for p in pages:
        page_chunk_keys(p)
    compacted = [compact(p, Interner()) for p in pages]
    assert all(not p.chunks and not p.html for p in compacted)
    again = SiteTemplate().fit(compacted)
    assert [(again.strand(p), again.text(p), again.content_links(p)) for p in compacted] == expected


def test_a_banner_whose_link_breaks_its_lines_is_template():
    """The main text breaks lines at a link inside a paragraph; the STRAND chunk holds the
    paragraph whole. Every page's banner goes, in whatever lines it is written."""
    banner = '<div id="b">Join us for the <a href="/call">Community Call</a> on July 22nd.</div>'
    pages = [build_record(f"http://b.test/en/{e}.html",
                          f"<html><body>{banner}<h1>{e}</h1><p>{e} is entry {i}.</p></body></html>")
             for i, e in enumerate(ENTRIES)]
    tmpl = SiteTemplate().fit(pages)
    assert "Community Call" in pages[0].text
    assert "Community Call" not in tmpl.text(pages[0]) and "July" not in tmpl.text(pages[0])
    assert "alpha is entry 0." in tmpl.text(pages[0])


def _lines_without_by_joining(text: str, template: set) -> list:
    """``_lines_without`` spelled out: each run of lines joined and keyed whole."""
    from bitextcrawl.pages.template import MAX_LINES_PER_CHUNK, text_key

    lines = [line for line in text.split("\n") if line.strip()]
    kept, i = [], 0
    while i < len(lines):
        run, joined = 0, ""
        for j in range(i, min(len(lines), i + MAX_LINES_PER_CHUNK)):
            joined = f"{joined} {lines[j]}" if joined else lines[j]
            if text_key(joined) in template:
                run = j - i + 1
        if run:
            i += run
        else:
            kept.append(lines[i])
            i += 1
    return kept


def test_run_keys_continue_each_lines_key():
    """A run's key continued line by line is the key of the joined run, whatever the case,
    spacing and script: final sigmas at a line's ends, lone surrogates, tabs and
    non-breaking spaces inside lines."""
    import random

    from bitextcrawl.pages.template import _lines_without, text_key

    words = ["ΟΔΟΣ", "Σ", "ΑΣ", "σίγμα", "Straße", "İstanbul", "\ud800x", "a\u00a0b", "x\tY",
             "Home", "Menu  Item", "ΚΑΙ'Σ", "'Σ", "Σ'", "日本語", "ǅ", "  lead", "trail  "]
    rng = random.Random(7)
    for _ in range(300):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
                 for _ in range(rng.randint(1, 14))]
        text = "\n".join(lines + [""] * rng.randint(0, 2))
        nonempty = [line for line in lines if line.strip()]
        template = set()
        for _ in range(rng.randint(0, 6)):
            i = rng.randrange(len(nonempty))
            j = rng.randint(i, min(len(nonempty), i + 8) - 1)
            template.add(text_key(" ".join(nonempty[i:j + 1])))
        parts: dict = {}
        assert _lines_without(text, template, parts) == _lines_without_by_joining(text, template)
        assert _lines_without(text, template) == _lines_without_by_joining(text, template)
