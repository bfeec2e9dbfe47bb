"""The page record and what it is made of: STRAND tokens, main text, URLs, language."""

from __future__ import annotations

import pytest

from bitextcrawl.pages import strand
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier, normalise_tag
from bitextcrawl.pages.record import PageRecord, build_record
from bitextcrawl.pages.text import is_binary, main_text, parse, repair_decoding
from bitextcrawl.pages.urls import (
    UrlLanguageTokens,
    looks_like_trap,
    site_name,
    site_of,
    url_language_tokens,
)

PAGE = """<html lang="fr"><head><title>Titre</title><script>var x = 1;</script>
<link rel="alternate" hreflang="en" href="/en/a.html"></head>
<body><nav><a href="/fr/">Accueil</a> <a href="/en/a.html" hreflang="en">English</a></nav>
<main><h1>Un titre</h1><p>Du texte <b>important</b> ici.<br>Encore.</p>
<p>Un second paragraphe assez long pour que le texte principal soit retenu seul.</p>
<img src="x.png" alt="Une image"></main><footer>Pied de page</footer></body></html>"""


def test_linearise_tags_chunks_inline_ignored():
    tokens, chunks = strand.linearise(parse(PAGE))
    assert tokens[:4] == ["[START:HTML]", "[START:TITLE]", "[Chunk:5]", "[END:TITLE]"]
    assert "[START:SCRIPT]" not in tokens and "[START:B]" not in tokens
    assert "Du texte important ici." in chunks  # inline <b> joins its sentence
    assert "[START:BR]" in tokens and "[END:BR]" not in tokens  # void element
    assert sum(strand.is_chunk(t) for t in tokens) == len(chunks)
    assert sum(strand.chunk_length(t) for t in tokens if strand.is_chunk(t)) == sum(len(c) for c in chunks)


def test_paper_example_tokens():
    html = "<html><title>The Republic of Kazakhstan</title><body><h1>The Republic of</h1>x</body></html>"
    tokens, _ = strand.linearise(parse(html))
    assert tokens == ["[START:HTML]", "[START:TITLE]", "[Chunk:26]", "[END:TITLE]", "[START:BODY]",
                      "[START:H1]", "[Chunk:15]", "[END:H1]", "[Chunk:1]", "[END:BODY]", "[END:HTML]"]


def test_main_text_skips_menus_and_keeps_alt():
    text = main_text(parse(PAGE))
    assert "Accueil" not in text and "Pied de page" not in text
    assert "Un titre" in text and "Une image" in text


def test_record_fields():
    rec = build_record("http://fr.example.org/fr/a.html", PAGE)
    assert rec.site == "http://example.org" and rec.lang == "fr" and rec.lang_method == "html_lang"
    assert rec.hreflang == {"en": "http://fr.example.org/en/a.html"}
    assert {"url": "http://fr.example.org/en/a.html", "text": "English", "hreflang": "en"} in rec.links
    assert rec.text_length == len(rec.text) and rec.content_hash
    back = PageRecord.from_dict(rec.to_dict())
    assert back == rec and "body" not in rec.to_dict()


@pytest.mark.parametrize("html", ["", "   ", "<html", "\x00\x01garbage", "<?xml version='1.0'?><html/>"])
def test_junk_never_raises(html):
    rec = build_record("http://example.org/", html)
    assert rec.text_length == len(rec.text)


def test_binary_and_charset_repair():
    assert is_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    assert not is_binary("<html>é</html>".encode("utf-8"))
    body = ("<p>" + "Les élèves étudient à l'école. " * 20 + "</p>").encode("latin-1")
    wrong = body.decode("utf-8", "replace")
    text, charset, repaired = repair_decoding(body, wrong, "utf-8")
    assert repaired and "élèves" in text and "\ufffd" not in text


def test_site_of_and_traps():
    assert site_of("https://en.example.co.uk/a") == site_of("https://fr.example.co.uk/b")
    assert site_of("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000"
    assert site_of("http://en.demo.localhost:81/") == "http://demo.localhost:81"
    assert site_name("http://en.demo.localhost:81/") == "demo.localhost_81"
    assert looks_like_trap("http://x.org/cal/next/next/next/next/")
    assert not looks_like_trap("http://x.org/en/news/2020/05/a.html")


def test_url_language_tokens_learned():
    assert "de" in url_language_tokens("http://x.org/de/index.html?lang=de")
    tokens = UrlLanguageTokens(min_pages=3, purity=0.9)
    for i in range(4):
        tokens.learn(f"http://x.org/de/p{i}.html", "de")
        tokens.learn(f"http://x.org/en/p{i}.html", "en")
    assert tokens.predict("http://x.org/de/new.html") == {"de"}
    assert tokens.predict("http://x.org/other.html") == set()


def test_url_language_token_answers_follow_each_page_learned():
    # answers are kept between pages learned: each new page may change them
    tokens = UrlLanguageTokens(min_pages=3, purity=0.9)
    for i in range(3):
        tokens.learn(f"http://x.org/de/p{i}.html", "de")
    assert tokens.token_of("de") is None    # no page of another language yet
    for i in range(3):
        tokens.learn(f"http://x.org/en/p{i}.html", "en")
    assert (tokens.token_of("de"), tokens.token_of("en")) == ("de", "en")
    assert tokens.swap("http://x.org/de/a.html", "de", "en") == "http://x.org/en/a.html"
    for i in range(3):   # ``de`` pages in English now: ``de`` names no language
        tokens.learn(f"http://x.org/de/q{i}.html", "en")
    assert tokens.token_of("de") is None and tokens.token_lang("de") is None
    assert tokens.swap("http://x.org/de/a.html", "de", "en") is None


def test_language_identification_and_declarations():
    lid = LanguageIdentifier()
    assert lid.identify("Ceci est une page écrite en français pour le test.").lang == "fr"
    short = lid.identify("OK", html_lang="de-AT")
    assert short.lang == "de" and short.method == "html_lang"
    assert normalise_tag("fr_CA") == "fr" and normalise_tag("") is None
    # A site whose declarations proved right wins on a mixed page fastText is unsure of.
    agreement = DeclarationAgreement(min_pages=3)
    for _ in range(3):
        agreement.observe("fr", "fr", 0.99)
    mixed = ("Titre de la page en français. " + "This body was never translated into French "
             "and stays in English for the whole paragraph. " * 3)
    ident = lid.identify(mixed, html_lang="fr", agreement=agreement)
    assert ident.lid_lang == "en"
    if ident.lid_prob < lid.confident:
        assert ident.lang == "fr" and ident.method == "declared"
    # A site that declares "en" everywhere does not earn that trust.
    liar = DeclarationAgreement(min_pages=3)
    for _ in range(5):
        liar.observe("en", "fr", 0.99)
    assert not liar.trusted


def test_follow_redirects_ends_at_a_page_a_stop_or_a_loop():
    from bitextcrawl.pages.urls import follow_redirects

    chain = {"a": "b", "b": "c", "x": "y", "y": "x"}
    assert follow_redirects("a", chain) == "c"
    assert follow_redirects("a", chain, stop={"b"}) == "b"
    assert follow_redirects("x", chain) in {"x", "y"}        # a loop stops, it does not hang
    assert follow_redirects("z", chain) == "z"


def test_link_url_kept_per_folder_is_link_url_resolved_afresh():
    """``link_url`` keeps a resolution per (folder of the base, href): the same URL as
    resolving each href from its own base, for every kind of href and base."""
    import itertools
    from urllib.parse import urldefrag, urljoin, urlsplit

    from bitextcrawl.pages import urls

    def afresh(base, href):
        href = (href or "").strip()
        if not href or href.startswith(urls._NOT_A_PAGE):
            return None
        try:
            url = urldefrag(urljoin(base, href))[0]
            if ":" in url.partition("://")[2].split("/", 1)[0]:
                urlsplit(url).port
        except ValueError:
            return None
        return url if url.startswith(urls.LINK_SCHEMES) else None

    bases = ["http://s.test/a/b.html", "http://s.test/a/c.html", "http://s.test/a/",
             "http://s.test/a/b.html?x=1", "http://s.test/a/b.html?y=/z", "http://s.test/a/b;p",
             "http://s.test/a/b.html#top", "http://s.test", "https://s.test/a/b.html",
             "http://s.test/a/d.html", "http://t.test/a/b.html", "//s.test/a/b.html"]
    hrefs = ["x.html", "../y/", "/z", "./", ".", "..", "//o.test/p", "http://o.test/q",
             "https://s.test/r", "http:rel.html", "http://", "http://?q", "//", "//?q", "///w",
             "?page=2", ";p", "", "  x.html ", "x y.html", "a\tb.html", "\x01c.html",
             "mailto:a@b", "javascript:void(0)", "#f", "x.html#f", "http://[bad", "ftp://f/g",
             "HTTP://S.test/U", "http://s.test:port/", "http://s.test:81/v", "x.html?q#f"]
    urls._RESOLVED.clear()
    for _ in range(2):     # the second time from what was kept
        for base, href in itertools.product(bases, hrefs):
            assert urls.link_url(base, href) == afresh(base, href), (base, href)
            assert urls.link_resolver(base)(href) == afresh(base, href), (base, href)


def test_link_hrefs_are_linearises_links():
    """``strand.link_hrefs`` (the link chunks of a record read without them, over lxml.html's
    tree or the plain parser's) finds the
    ``(href, chunk)`` that ``linearise`` gives: chunks of space only, text in tails, a
    comment's and a script's tail, the title, an image's alt, a link without text, a
    link that ends the page."""
    from bitextcrawl.pages.strand import linearise, link_hrefs
    from bitextcrawl.pages.text import PLAIN_PARSER, parse

    pages = [
        "<html><head><title> T </title><base href='/b/'></head><body>"
        "<a href='a1'>one</a> <a href='a2'></a><p>  </p><p>x<a href='a3'><img alt='pic'></a>"
        "</p><!-- c -->after comment<script>var a = '<a href=s>';</script>tail"
        "<div><span> </span><a href='a4'> </a></div><ul><li><a href='a5'>five</a></li>"
        "<li><a>no href</a> <a href=''>empty</a></li></ul>\u00a0<a href='a6'>six</a>"
        "<p>\u2003</p><a href='a7'></a></body></html>",
        "<html><body><div>a</div> <div><a href='x'>x</a></div>\n<p> <a href='w'>w</a></p>"
        "</body></html>",
        "<html><head><title></title></head><body><img alt=' '><a href='y'></a>"
        "<br>text<a href='z'>z</a><noscript><a href='n'>n</a></noscript></body></html>",
        "<p>fragment <a href='f'>f</a> <b><a href='g'>g</a></b></p>",
    ]
    for html in pages:
        hrefs: list = []
        linearise(parse(html), hrefs)
        assert link_hrefs(parse(html)) == hrefs, html
        assert link_hrefs(parse(html, PLAIN_PARSER)) == hrefs, html   # lxml's own elements
    assert link_hrefs(parse(pages[0]))   # (the case has links)


def test_text_of_is_text_content_of_any_element():
    """Records are made from the plain parser's tree (``text.PLAIN_PARSER``): an element's
    text (``text.text_of``) is what lxml.html's ``text_content()`` gives, tails aside."""
    from lxml import etree
    from lxml import html as lxml_html

    from bitextcrawl.pages.text import PLAIN_PARSER, parse, text_of

    page = ("<html><head><title>A &amp; B</title></head><body><ul><li><a href='x'>one "
            "<b>bold</b></a> tail<!-- c --> after <script>s()</script>end</li></ul>"
            "<dl><dt>term</dt><dd>def <i>it</i></dd></dl></body></html>")
    plain, rich = parse(page, PLAIN_PARSER), parse(page)
    assert not isinstance(plain, lxml_html.HtmlElement) and isinstance(rich, lxml_html.HtmlElement)
    for a, b in zip(plain.iter(etree.Element), rich.iter(etree.Element)):
        assert a.tag == b.tag and text_of(a) == b.text_content() == text_of(b), b.tag
    assert text_of(plain.find(".//li")) == "one bold tail after s()end"


def test_a_variant_tag_in_a_url_is_one_token_besides_its_parts():
    assert {"pt", "br", "pt-br"} <= url_language_tokens("http://x.org/pt-br/a.html")
    assert "zh_tw" in url_language_tokens("http://x.org/a.html?lang=zh_TW")
    assert "zh-hant" in url_language_tokens("http://x.org/zh-hant/a.html")
    # a word after a code is no script: ngx_http_core_module names no variant
    assert not any("_" in t for t in url_language_tokens("http://x.org/ngx_http_core.html"))
    tokens = UrlLanguageTokens(min_pages=3, purity=0.9)
    for i in range(4):
        tokens.learn(f"http://x.org/pt-br/p{i}.html", "pt-br")
        tokens.learn(f"http://x.org/pt-pt/p{i}.html", "pt")
        tokens.learn(f"http://x.org/en/p{i}.html", "en")
    assert tokens.token_of("pt-br") == "pt-br"
    assert tokens.swap("http://x.org/pt-br/a.html", "pt-br", "en") == "http://x.org/en/a.html"
    assert tokens.swap("http://x.org/en/a.html", "en", "pt-br") == "http://x.org/pt-br/a.html"
    assert tokens.swap("http://x.org/PT_BR/a.html", "pt-br", "en") is None   # another tag
    # a base language asked for where its pages are under a variant's tag
    assert tokens.token_of("pt") == "pt-pt"
