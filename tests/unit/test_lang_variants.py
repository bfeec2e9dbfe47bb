"""Language variants (pt-br / pt-pt, zh-cn / zh-tw): codes, a page's declared variant, and
the labels pages get for the languages asked for (pages/language.py, pages/variants.py,
pages/site.py)."""

from __future__ import annotations

import pytest

from bitextcrawl.bitext.langcheck import SentenceLanguageCheck
from bitextcrawl.pages.language import (
    base_lang,
    parse_langs,
    requested_lang,
    tag_parts,
    variant_code,
)
from bitextcrawl.pages.record import build_record
from bitextcrawl.pages.site import canonical_pages, label_variants
from bitextcrawl.pages.variants import (
    hreflang_claims,
    link_lang,
    page_lang,
    page_variant,
    url_variants,
)


@pytest.mark.parametrize("tag, parts", [
    ("pt-BR", ("pt", None, "br")), ("zh_Hant_TW", ("zh", "hant", "tw")),
    ("zh-Hant", ("zh", "hant", None)), ("es-419", ("es", None, "419")), ("fr", ("fr", None, None)),
    ("en-US-x-twain", ("en", None, "us")), ("__label__pt", ("pt", None, None)),
    ("english", None), ("", None), (None, None), ("x-default", None),
])
def test_tag_parts(tag, parts):
    assert tag_parts(tag) == parts


@pytest.mark.parametrize("tag, variant", [
    ("pt-BR", "pt-br"), ("pt_br", "pt-br"), ("PT-PT", "pt-pt"), ("zh-Hant-TW", "zh-tw"),
    ("zh-Hant", "zh-hant"), ("zh_CN", "zh-cn"), ("es-419", "es-419"), ("sr-Latn", "sr-latn"),
    ("iw-IL", "he-il"), ("cn-TW", "zh-tw"),
    ("pt", None), ("fr", None), ("zh-yue", None), ("xx-YY", None), ("", None), (None, None),
])
def test_variant_code(tag, variant):
    assert variant_code(tag) == variant


def test_base_and_requested_lang():
    assert base_lang("pt-br") == "pt" and base_lang("pt") == "pt" and base_lang("und") == "und"
    assert requested_lang("pt-br", ("en", "pt-br")) == "pt-br"
    assert requested_lang("pt-br", ("en", "pt")) == "pt"
    assert requested_lang("pt-pt", ("en", "pt-br")) == "pt"   # never pt-br
    assert requested_lang("pt", ("en", "pt-br")) == "pt"
    assert requested_lang("en", ("en", "pt-br")) == "en"
    assert requested_lang("en-us", ("en", "pt-br")) == "en"


def test_parse_langs_accepts_variants_of_model_languages():
    assert parse_langs("en,zh-tw") == ("en", "zh-tw")
    assert parse_langs("en,pt-BR") == ("en", "pt-br")
    assert parse_langs("EN,zh_Hant_TW") == ("en", "zh-tw")
    assert parse_langs("en,pt") == ("en", "pt")   # the base language, as before
    assert parse_langs("zh-cn,zh-tw") == ("zh-cn", "zh-tw")   # two variants: two languages
    assert parse_langs("en,pt,pt-br") == ("en", "pt", "pt-br")
    with pytest.raises(ValueError, match="unknown language code 'xx-YY' in langs=en,xx-YY"):
        parse_langs("en,xx-YY")


@pytest.mark.parametrize("url, variants", [
    ("http://x.test/pt-br/common/cat.html", ["pt-br"]),
    ("http://x.test/zh_TW/index.html", ["zh-tw"]),
    ("http://x.test/docs/?lang=pt-BR&page=2", ["pt-br"]),
    ("http://pt-br.x.test/a.html", ["pt-br"]),
    ("http://x.test/index.zh-Hant.html", ["zh-hant"]),
    ("http://x.test/zh-hant-tw/a.html", ["zh-tw"]),
    ("http://x.test/es-419/a.html", ["es-419"]),
    ("http://x.test/en/docs/cat.html", []),
    ("http://x.test/pt-brasil/a.html", []),
    ("http://x.test/de-mail/a.html", []),            # a word, not a script
    ("http://x.test/en/ab-cd-ef.html", ["ab-cd"]),   # looks like a tag: page_variant filters
])
def test_url_variants(url, variants):
    assert url_variants(url) == variants


def _page(url, lang="pt", html_lang=None, content_language=None, hreflang=None):
    return {"url": url, "lang": lang, "html_lang": html_lang,
            "content_language": content_language, "hreflang": hreflang or {}}


def test_page_variant_from_each_declaration():
    assert page_variant(_page("http://x/pt-br/a.html")) == "pt-br"
    assert page_variant(_page("http://x/a.html", html_lang="pt-BR")) == "pt-br"
    assert page_variant(_page("http://x/a.html", content_language="pt-PT, en")) == "pt-pt"
    assert page_variant(_page("http://x/a.html",
                              hreflang={"pt": "http://x/a.html", "pt-br": "http://x/a.html",
                                        "en": "http://x/en.html"})) == "pt-br"
    # another page's alternate declared for this URL
    assert page_variant(_page("http://x/a.html"), claims={"pt-br"}) == "pt-br"
    assert page_variant(_page("http://x/a.html", html_lang="pt")) is None


def test_page_variant_needs_agreement_in_the_page_language():
    # declarations of another language are ignored (a pt page linking en-US alternates)
    assert page_variant(_page("http://x/en-us/a.html", html_lang="pt-BR")) == "pt-br"
    assert page_variant(_page("http://x/pt-br/a.html", lang="en")) is None
    # two regions: no variant, never the wrong one
    assert page_variant(_page("http://x/zh-tw/a.html", lang="zh", html_lang="zh-CN")) is None
    assert page_variant(_page("http://x/a.html", html_lang="pt-BR"), claims={"pt-pt"}) is None
    # a script agrees with a region where it is written there
    assert page_variant(_page("http://x/zh-tw/a.html", lang="zh", html_lang="zh-Hant")) == "zh-tw"
    assert page_variant(_page("http://x/zh-tw/a.html", lang="zh", html_lang="zh-Hans")) is None
    assert page_variant(_page("http://x/a.html", lang="zh", html_lang="zh-Hant")) == "zh-hant"
    assert page_variant(_page("http://x/pt-br/a.html", lang="und")) is None


def test_page_lang_for_the_languages_asked_for():
    br = _page("http://x/pt-br/a.html")
    pt = _page("http://x/pt-pt/a.html")
    plain = _page("http://x/pt/a.html")
    # (``plain`` on a site that declares variants of Portuguese: the other variant)
    assert [page_lang(p, ("en", "pt-br"), declaring={"pt"}) for p in (br, pt, plain)] == \
        ["pt-br", "pt", "pt"]
    assert [page_lang(p, ("en", "pt")) for p in (br, pt, plain)] == ["pt", "pt", "pt"]
    assert [page_lang(p, ("en", "pt-br", "pt-pt")) for p in (br, pt, plain)] == \
        ["pt-br", "pt-pt", "pt"]
    # a record labelled by a crawl that asked for pt-br, aligned again for pt
    assert page_lang({**br, "lang": "pt-br"}, ("en", "pt")) == "pt"
    assert page_lang({**br, "lang": "pt-br"}, ("en", "pt-br")) == "pt-br"


def test_link_lang():
    langs = ("en", "zh-tw")
    assert link_lang("zh-tw", langs) == "zh-tw"
    assert link_lang("zh-cn", langs) == "zh"      # another variant: not wanted
    assert link_lang("zh", langs) is None         # which variant? the URL must tell
    assert link_lang("en", langs) == "en"
    assert link_lang("fr", langs) == "fr"
    assert link_lang("zh-tw", ("en", "zh")) == "zh"
    assert link_lang(None, langs) is None


def test_hreflang_keeps_variants():
    html = ("<html lang='en'><head><title>T</title>"
            "<link rel='alternate' hreflang='pt-BR' href='/pt-br/a.html'>"
            "<link rel='alternate' hreflang='pt-PT' href='/pt-pt/a.html'>"
            "<link rel='alternate' hreflang='x-default' href='/a.html'></head><body>"
            "<p>Some English text long enough to be a page.</p>"
            "<a href='/zh-tw/a.html' hreflang='zh-Hant-TW'>中文</a>"
            "<a href='/fr/a.html' hreflang='fr'>Français</a></body></html>")
    rec = build_record("http://x.test/en/a.html", html)
    assert rec.hreflang == {"pt": "http://x.test/pt-br/a.html",
                            "pt-br": "http://x.test/pt-br/a.html",
                            "pt-pt": "http://x.test/pt-pt/a.html",
                            "zh": "http://x.test/zh-tw/a.html",
                            "zh-tw": "http://x.test/zh-tw/a.html",
                            "fr": "http://x.test/fr/a.html"}
    assert {link["url"].rsplit("/", 2)[1]: link["hreflang"] for link in rec.links} == \
        {"zh-tw": "zh-tw", "fr": "fr"}
    assert hreflang_claims([rec]) == {"http://x.test/pt-br/a.html": {"pt-br"},
                                      "http://x.test/pt-pt/a.html": {"pt-pt"},
                                      "http://x.test/zh-tw/a.html": {"zh-tw"}}


# ---------------------------------------------------------------- a two-variant site

TEXTS = {
    "en": "The museum opens at nine every morning and closes at six in the evening.",
    "pt": "O museu abre às nove horas todas as manhãs e fecha às seis horas da tarde.",
}


def _record(url, lang, html_lang=None, alternates=()):
    links = "".join(f"<link rel='alternate' hreflang='{h}' href='{u}'>" for h, u in alternates)
    attr = f" lang='{html_lang}'" if html_lang else ""
    text = TEXTS[lang] + " " + url   # a different text on every page
    rec = build_record(url, f"<html{attr}><head><title>{url}</title>{links}</head>"
                            f"<body><p>{text}</p></body></html>")
    rec.lang, rec.lang_prob, rec.lang_method = lang, 0.99, "fasttext"   # fastText's labels
    return rec


def _site():
    return [
        _record("http://x.test/en/a.html", "en", "en",
                [("pt-BR", "http://x.test/br/a.html"), ("pt-PT", "http://x.test/pt/a.html")]),
        _record("http://x.test/br/a.html", "pt"),                        # by hreflang only
        _record("http://x.test/pt/a.html", "pt", "pt-PT"),
        _record("http://x.test/pt-br/b.html", "pt"),                     # by URL only
        _record("http://x.test/pt-pt/b.html", "pt", "pt"),
        _record("http://x.test/misc/c.html", "pt", "pt"),                # declares no variant
        _record("http://x.test/pt-br/d.html", "pt", "pt-PT"),            # contradicts itself
    ]


def test_label_variants_on_a_two_variant_site():
    labels = {p.url.split("x.test")[1]: p.lang for p in label_variants(_site(), ("en", "pt-br"))[0]}
    assert labels == {"/en/a.html": "en", "/br/a.html": "pt-br", "/pt/a.html": "pt",
                      "/pt-br/b.html": "pt-br", "/pt-pt/b.html": "pt", "/misc/c.html": "pt",
                      "/pt-br/d.html": "pt"}
    records, n = label_variants(_site(), ("en", "pt-pt"))
    assert n == 2 and sorted(p.url for p in records if p.lang == "pt-pt") == \
        ["http://x.test/pt-pt/b.html", "http://x.test/pt/a.html"]
    # the base language: every Portuguese page, as without variants
    records, n = label_variants(_site(), ("en", "pt"))
    assert n == 0 and [p.lang for p in records].count("pt") == 6


def test_canonical_pages_labels_variants_only_when_asked():
    site = canonical_pages(_site(), langs=("en", "pt-br"))
    assert site.variants == 2
    assert sorted(p.url for p in site.pages if p.lang == "pt-br") == \
        ["http://x.test/br/a.html", "http://x.test/pt-br/b.html"]
    assert {p.lang for p in canonical_pages(_site()).pages} == {"en", "pt"}


def test_url_tokens_never_make_a_variant():
    """An unsure page is settled by the site's URL tokens, but its variant only by its
    own declarations: a ``pt`` page under a token learned from ``pt-br`` pages stays ``pt``;
    a page fastText called Spanish under ``/pt-br/`` is ``pt-br``."""
    pages = [_record(f"http://x.test/pt-br/p{i}.html", "pt") for i in range(6)]
    pages += [_record(f"http://x.test/en/p{i}.html", "en") for i in range(6)]
    unsure = _record("http://x.test/pt-br/q.html", "pt")
    unsure.lang, unsure.lang_prob = "es", 0.4
    undeclared = _record("http://x.test/br/q.html", "pt")   # ``br`` names pt-br here
    undeclared.lang_prob = 0.4
    pages += [_record(f"http://x.test/br/p{i}.html", "pt", "pt-BR") for i in range(6)]
    site = canonical_pages(pages + [unsure, undeclared], langs=("en", "pt-br"))
    got = {p.url: p.lang for p in site.pages}
    assert got["http://x.test/pt-br/q.html"] == "pt-br"
    assert got["http://x.test/br/q.html"] == "pt"


def test_sentence_language_check_reads_a_variant_as_its_base():
    check = SentenceLanguageCheck()
    text = "O museu abre às nove horas todas as manhãs e fecha às seis horas da tarde."
    assert check.reason(text, "pt-br", "en") is None
    assert check.reason(text, "en", "pt-br") == "other_lang"


def test_a_page_declaring_no_variant_counts_as_the_one_variant_asked_for():
    """A site that names no variant (no ``html lang``, opaque URLs) crawled with
    ``langs=en,zh-cn``: its Chinese pages are what the user asks for. Never a page
    declared another variant, nor one whose declarations disagree, nor where the user
    asks for two variants or the base language too, nor on a site declaring variants."""
    zh = _page("http://x/p/0a1b.html", lang="zh")
    assert page_lang(zh, ("en", "zh-cn")) == "zh-cn"
    assert page_lang(_page("http://x/p/0a1b.html", lang="zh", html_lang="zh"),
                     ("en", "zh-cn")) == "zh-cn"
    assert page_lang(zh, ("en", "zh-cn", "zh-tw")) == "zh"
    assert page_lang(zh, ("en", "zh", "zh-cn")) == "zh"
    assert page_lang(zh, ("en", "zh-cn"), declaring={"zh"}) == "zh"
    assert page_lang(_page("http://x/zh-tw/a.html", lang="zh"), ("en", "zh-cn")) == "zh"
    assert page_lang(_page("http://x/zh-tw/a.html", lang="zh", html_lang="zh-CN"),
                     ("en", "zh-cn")) == "zh"
    # a script declared: the one variant asked for that is written in it
    assert page_lang(_page("http://x/a.html", lang="zh", html_lang="zh-Hans"),
                     ("en", "zh-cn")) == "zh-cn"
    assert page_lang(_page("http://x/a.html", lang="zh", html_lang="zh-Hant"),
                     ("en", "zh-cn")) == "zh"
    assert page_lang(_page("http://x/a.html", lang="zh", html_lang="zh-Hans"),
                     ("en", "zh-cn", "zh-sg")) == "zh"
    assert page_lang(zh, ("en", "pt-br")) == "zh"
    # a region declared, a script asked for: the script written there
    assert page_lang(_page("http://x/zh-cn/a.html", lang="zh"), ("en", "zh-hans")) == "zh-hans"
    assert page_lang(_page("http://x/zh-tw/a.html", lang="zh"), ("en", "zh-hans")) == "zh"
    assert page_lang(_page("http://x/pt-pt/a.html", lang="pt"), ("en", "pt-br")) == "pt"


def test_label_variants_on_a_site_declaring_no_variant():
    site = [_record("http://x.test/en/a.html", "en"), _record("http://x.test/p/1.html", "pt"),
            _record("http://x.test/p/2.html", "pt")]
    records, n = label_variants(site, ("en", "pt-br"))
    assert n == 2 and [p.lang for p in records] == ["en", "pt-br", "pt-br"]
    # one page declaring a variant of Portuguese: the undeclared ones are not it
    site.append(_record("http://x.test/pt-br/3.html", "pt"))
    records, n = label_variants(site, ("en", "pt-br"))
    assert n == 1 and [p.lang for p in records] == ["en", "pt", "pt", "pt-br"]
