"""Anchor overlap: identifiers, numbers, code and outside links shared by a pair."""

from __future__ import annotations

import numpy as np
import pytest

from bitextcrawl.pairing.anchors import anchor_idf, anchor_overlap, anchor_overlaps, page_anchors


def page(url, text, html="", links=(), title=""):
    return {"url": url, "title": title, "text": text, "html": html,
            "links": [{"url": u, "text": ""} for u in links]}


EN = page("http://s.org/en/a.html", "The proxy_pass directive sets version 1.25.3 of getElementById.",
          html="<p>Use <code>proxy_pass http://up;</code></p><pre>listen 80;</pre>",
          links=["http://s.org/en/b.html", "https://github.com/x/y", "https://s.org/en/c.html"])
RU = page("http://s.org/p/1.html", "Директива proxy_pass задаёт версию 1.25.3 для getElementById.",
          html="<p>Используйте <code>proxy_pass http://up;</code></p><pre>listen 80;</pre>",
          links=["http://s.org/p/2.html", "https://github.com/x/y/"])
SIBLING = page("http://s.org/p/9.html", "Директива fastcgi_pass задаёт версию 1.9.1.",
               html="<pre>listen 443;</pre>", links=["https://example.com/z"])


def test_page_anchors_kinds():
    a = page_anchors(EN)
    assert {"t:proxy_pass", "t:1.25.3", "t:getelementbyid"} <= a
    assert {"c:proxy_pass", "c:http://up", "c:listen", "c:80"} <= a
    assert "o:https://github.com/x/y" in a
    # plain words, and links inside the site, are not anchors
    assert "t:directive" not in a and not any("s.org" in x for x in a if x.startswith("o:"))


def test_counterpart_beats_sibling():
    assert anchor_overlap(EN, RU) > 0.6 > anchor_overlap(EN, SIBLING)
    assert anchor_overlap(EN, RU) == anchor_overlap(RU, EN)
    assert anchor_overlap(EN, page("http://s.org/x", "nothing here")) == 0.0
    assert anchor_overlap(EN, EN) == 1.0


def test_idf_downweights_anchors_found_everywhere():
    common = page("http://s.org/p/5.html", "listen 80 proxy_pass")
    sets = [page_anchors(p) for p in (EN, RU, SIBLING, common)]
    idf = anchor_idf(sets)
    assert idf["t:1.25.3"] > idf["c:listen"] or "c:listen" not in idf
    assert all(v > 0 for v in idf.values())


def test_vectorised_matches_pairwise_and_checks_keys():
    p1 = {"en": EN}
    p2 = {"ru": RU, "sib": SIBLING}
    pairs = [("en", "ru"), ("en", "sib")]
    got = anchor_overlaps(p1, p2, pairs)
    assert got.shape == (2,) and got[0] > got[1] >= 0.0 and got[0] <= 1.0
    idf = anchor_idf([page_anchors(p) for p in (EN, RU, SIBLING)])
    assert got[0] == pytest.approx(anchor_overlap(EN, RU, idf))
    assert anchor_overlaps(p1, p2, []).shape == (0,)
    with pytest.raises(KeyError):
        anchor_overlaps(p1, p2, [("en", "nope")])


def test_records_without_html_or_text_use_chunks():
    rec = {"url": "http://s.org/a", "chunks": ["set worker_processes 4"], "links": []}
    assert "t:worker_processes" in page_anchors(rec)
    assert np.isfinite(anchor_overlap(rec, {"url": "http://s.org/b"}))


def test_text_anchors_skip_plain_words_without_losing_an_identifier():
    """The words skipped without the regex are exactly those it would not take."""
    from bitextcrawl.pairing.anchors import _ANCHORISH, _TOKEN, _TRIM, _text_anchors

    text = ("Hello world ÉCOLE école Straße iPhone getElementById HelloWorld NGINX x86 "
            "proxy_pass 1.25.3 $host --with-http_ssl_module -v a/b ǅemal ǅ Ⅻ ١٢٣ "
            "日本語 «quoted» (paren) end. Ünïcödé McDonald")
    expected = {"t:" + tok.lower() for tok in (t.strip(_TRIM) for t in _TOKEN.findall(text))
                if tok and _ANCHORISH.search(tok)}
    assert _text_anchors(text) == expected
    assert {"t:iphone", "t:getelementbyid", "t:helloworld", "t:mcdonald", "t:x86",
            "t:proxy_pass", "t:$host"} <= expected
    assert not {"t:hello", "t:école", "t:nginx", "t:straße"} & expected
