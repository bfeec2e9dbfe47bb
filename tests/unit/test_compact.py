"""Records without HTML for the closing step (pages/compact.py) and the store's get_many."""

from __future__ import annotations

import json
import pickle

import pytest

from bitextcrawl.pages.compact import STORED_FEATURES, FullRecords, Interner, compact
from bitextcrawl.pages.record import PageRecord, build_record
from bitextcrawl.pages.switches import page_named_unlinked
from bitextcrawl.pages.template import SiteTemplate, page_link_chunks
from bitextcrawl.pairing.anchors import page_anchors, page_text_anchors
from bitextcrawl.pairing.candidates import page_features
from bitextcrawl.pairing.html_features import HTML_FEATURES
from bitextcrawl.pairing.page_features import page_numbers
from bitextcrawl.store.sqlite import SQLitePageStore

HTML = """<html lang="{lang}"><body><nav><span>english</span>
<span>français</span> <a href="/de/x.html">deutsch</a></nav><h1>Title {n}</h1><p>Some text {n}, 2024 figures.</p>
<img src="/img/chart-{n}.png"><pre>nginx_http_core_module listen</pre>
<dl><dt><a href="/{lang}/core.html">core</a></dt><dd>Core features of the server, always on</dd>
</dl></body></html>"""


def record(n: int, lang: str = "en"):
    return build_record(f"http://s.test/{lang}/{n}.html", HTML.format(lang=lang, n=n))


def test_compact_keeps_what_pairing_reads():
    full, page = record(1), record(1)
    compact(page, Interner(), HTML_FEATURES)
    assert "link_items" in full.derived and "link_items" not in page.derived   # (focus's)
    assert page.html == "" and page.chunks == []   # main text and STRAND tokens: not read
    assert page.strand == full.strand and page.links == full.links
    assert page_anchors(page) == page_anchors(full)
    assert page_features(page) == page_features(full)
    # "français" beside the page's own language, not a link itself: no French version
    assert page_named_unlinked(page, ("en", "fr")) == page_named_unlinked(full, ("en", "fr"))
    assert page_named_unlinked(page, ("en", "fr")) == {"fr"}


def test_a_record_read_back_from_json_keeps_its_link_chunks():
    """``pages.jsonl`` keeps no derived features: where each link sits on the page (what
    parallel links, the template and ETS read) is made from the HTML before it is dropped."""
    full = record(1)
    page = PageRecord.from_dict(json.loads(json.dumps(full.to_dict(), default=list)))
    assert "link_chunks" not in page.derived
    compact(page, Interner(), HTML_FEATURES)
    assert page.html == ""
    assert page_link_chunks(page) == page_link_chunks(full) != ()


def test_a_views_text_features_are_its_own_whichever_asks_first():
    """A page seen without its template reads the numbers and identifiers of its own text,
    and its record those of the whole page, whichever asks first (pairing read either,
    depending on the order: an alignment of full records differed from the crawl's)."""
    html = ("<html><body><div>Release 2024 of the manual, build cfg_main_module</div>"
            "<h1>Page {n}</h1><p>What page {n} says about {n}0 things.</p></body></html>")
    for view_first in (True, False):
        pages = [build_record(f"http://s.test/{n}.html", html.format(n=n)) for n in range(1, 13)]
        view = SiteTemplate().fit(pages).view(pages[0])
        assert "2024" not in view.text and "2024" in pages[0].text   # the template is out
        asked = [view, pages[0]] if view_first else [pages[0], view]
        for page in asked:
            page_numbers(page), page_text_anchors(page)
        assert "2024" in page_numbers(pages[0]) and "2024" not in page_numbers(view)
        assert "10" in page_numbers(view)
        assert "cfg_main_module" in " ".join(page_text_anchors(pages[0]))
        assert "cfg_main_module" not in " ".join(page_text_anchors(view))
        # the features of the HTML are the record's
        assert page_link_chunks(view) is page_link_chunks(pages[0])


def test_compact_shares_equal_strings_and_links():
    intern = Interner()
    a, b = compact(record(1), intern), compact(record(2), intern)
    assert a.strand[0] is b.strand[0]
    assert a.links[0] is b.links[0]


def test_store_get_many_and_full_records(tmp_path):
    store = SQLitePageStore(str(tmp_path))
    pages = [record(n) for n in range(3)]
    for page in pages:
        store.add(page)
    got = store.get_many([pages[0].url, "http://s.test/missing", pages[2].url])
    assert sorted(got) == [pages[0].url, pages[2].url]
    assert got[pages[0].url].html == pages[0].html
    assert store.get(pages[1].url).to_dict() == pages[1].to_dict()
    intern = Interner()
    index = {p.url: compact(p, intern) for p in store}
    full = FullRecords(index, store.get_many, keep=1)
    assert len(full) == 3 and pages[1].url in full and "http://s.test/missing" not in full
    assert full[pages[1].url].html == pages[1].html
    assert full[pages[1].url] is full[pages[1].url]   # kept
    assert full[pages[0].url].html == pages[0].html
    with pytest.raises(KeyError):
        full["http://s.test/missing"]
    store.close()


def test_the_store_keeps_the_html_features_a_record_made(tmp_path):
    """Made where the page was parsed, read back with their types, not made again from the
    HTML; pages.jsonl's fields (``iter_dicts``, ``to_dict``) do not have them."""
    store = SQLitePageStore(str(tmp_path))
    made, plain = record(1), record(2)
    expected = [feature(made) for feature in HTML_FEATURES]
    store.add(made)
    store.add(plain)
    back = store.get(made.url)
    assert set(back.derived) == set(STORED_FEATURES)
    assert [type(back.derived[name]) for name in STORED_FEATURES] == \
        [type(made.derived[name]) for name in STORED_FEATURES]
    assert made.derived["text_numbers"] == {"2024"}     # (the text's features too)
    assert "t:nginx_http_core_module" in made.derived["text_anchors"]
    # what compact leaves, and less: the features are read, not made again
    back.html = back.text = back.title = ""
    assert [feature(back) for feature in HTML_FEATURES] == expected
    # only what the parse itself made (where the links sit, the list items' words), no
    # feature made after it
    assert store.get(plain.url).derived == {
        name: plain.derived[name] for name in ("link_chunks", "link_items")}
    assert made.derived["link_items"] == (
        ("http://s.test/en/core.html", "Core features of the server, always on"),)
    assert all(set(d) == set(made.to_dict()) for d in store.iter_dicts())
    store.close()


def test_the_store_knows_the_contents_it_holds_across_a_resume(tmp_path):
    store = SQLitePageStore(str(tmp_path))
    first, other = record(1), record(2)
    assert not store.has_content(first.content_hash)
    assert store.add(first) and store.has_content(first.content_hash)
    assert not store.add(first)                  # the URL again: not stored twice
    assert not store.has_content(other.content_hash)
    store.close()
    resumed = SQLitePageStore(str(tmp_path))     # a resumed crawl reads them back
    assert resumed.has_content(first.content_hash) and not resumed.has_content(other.content_hash)
    assert resumed.add(other) and resumed.has_content(other.content_hash)
    resumed.close()


def test_a_record_workers_encoded_content_reads_back_as_the_whole_record(tmp_path):
    """The content a record worker encodes, stored with the rest encoded here (its language
    decided after), gives back the record the one-part encoding gives."""
    from bitextcrawl.store.codec import decode_dict, encode_content, encode_record

    store = SQLitePageStore(str(tmp_path))
    made_there, made_here = record(1), record(1)
    for page in (made_there, made_here):
        for feature in HTML_FEATURES:
            feature(page)
    made_there.stored_content = encode_content(made_there)
    made_there.lang = made_here.lang = "fr"          # decided in the crawl's process, after
    made_there.url = made_there.url.replace("/1.html", "/one.html")
    made_there.fetched_at = made_here.fetched_at
    assert store.add(made_there) and store.add(made_here)
    there, here = store.get(made_there.url), store.get(made_here.url)
    assert there.lang == "fr" and there.html == made_here.html
    assert {**there.to_dict(), "url": here.url} == here.to_dict()
    assert there.derived == here.derived
    assert decode_dict(encode_record(made_there)) == made_there.to_dict()
    store.close()


def test_two_part_blobs_written_before_with_their_rest_compressed_still_read(tmp_path):
    """The rest of a two-part blob is plain JSON now; stores written before compressed it."""
    import json
    import zlib

    from bitextcrawl.store import codec

    page = record(1)
    page.stored_content = codec.encode_content(page)
    blob = codec.encode_record(page)
    rest, content = codec._parts(blob)
    assert rest.startswith(b"{")
    old = zlib.compress(rest, codec.COMPRESS_LEVEL)
    old_blob = codec._TWO_PARTS + codec._LENGTH.pack(len(old)) + old + content
    assert codec.decode_dict(old_blob) == codec.decode_dict(blob) == json.loads(
        json.dumps(page.to_dict()))
    assert codec.decode_html(old_blob) == page.html


def _read_in_worker(reader, urls):
    return reader(urls), pickle.loads(pickle.dumps(reader)) is reader


def test_the_stores_html_reader_reads_in_another_process(tmp_path):
    """What the bitext pool's workers read the pages with (``store.html_reader()``): pickled
    as the store's path, one connection a process; one- and two-part blobs alike."""
    from bitextcrawl.processes import ProcessPool
    from bitextcrawl.store.codec import encode_content

    store = SQLitePageStore(str(tmp_path))
    plain, from_worker = record(1), record(2, "fr")
    from_worker.stored_content = encode_content(from_worker)   # a two-part blob
    store.add(plain)
    store.add(from_worker)
    urls = [plain.url, from_worker.url, "http://s.test/missing"]
    want = {plain.url: plain.html, from_worker.url: from_worker.html}
    reader = store.html_reader()
    assert reader(urls) == want
    with ProcessPool(1) as pool:
        got, shared = pool.submit(_read_in_worker, reader, urls).result()
    assert got == want and shared
    store.close()


def test_text_features_read_line_by_line_are_the_whole_texts():
    """A page's numbers and identifiers are read per line and kept per line (a template's
    lines recur on every page, a view has its page's lines): the same sets as read from
    the whole text, and a view's are those of its own text."""
    from bitextcrawl.pairing.anchors import _page_text_anchors, _text_anchors
    from bitextcrawl.pairing.page_features import _numbers, _page_numbers

    text = ("Release 2024\u00a0000 of cfg_main\nmodule_x 12\n345 and $HOME --verbose\n\n"
            "1 234,5 items (a.b/c) «ngx_http»\r\nlast line 99")
    page = PageRecord(url="http://s.test/a.html", title="Title v2.1", text=text)
    whole = "Title v2.1\n" + text
    assert _page_text_anchors(page) == frozenset(_text_anchors(whole))
    assert _page_numbers(page) == frozenset(_numbers(whole))
    assert {"2024", "12", "345", "99"} <= _page_numbers(page)
    view = PageRecord(url=page.url, title=page.title, text="module_x 12\nlast line 99")
    assert _page_numbers(view) == frozenset(_numbers("Title v2.1\nmodule_x 12\nlast line 99"))
    assert _page_text_anchors(view) == frozenset(_text_anchors(
        "Title v2.1\nmodule_x 12\nlast line 99"))
