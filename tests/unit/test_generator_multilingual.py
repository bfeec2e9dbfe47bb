"""The multilingual manual site (demo/multilingual.py): fallbacks, redirecting relative
language switches, gold, determinism, language of the text (Hindi and Bengali too), and
serving over loopback."""

from __future__ import annotations

import http.client
import re
import unicodedata
from collections import Counter, deque
from functools import lru_cache
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from lxml import html as lxml_html

from bitextcrawl.demo.server import free_port, serve_site
from testkit import multilingual_text as mt
from testkit.multilingual import (
    DEFAULT_SHARES,
    LANGS,
    ManualSpec,
    MultilingualSite,
    generate_manual,
)

PORT = 8765


@lru_cache(maxsize=None)
def manual(seed: int = 3, n_pages: int = 60, langs: tuple = LANGS) -> MultilingualSite:
    return generate_manual(ManualSpec(n_pages=n_pages, seed=seed, langs=langs), PORT)


BRAHMIC = ("en", *mt.EXTRA_LANGS)
# The Unicode block of each extra language's script.
SCRIPTS = {"hi": ("\u0900", "\u097f"), "bn": ("\u0980", "\u09ff")}


def path_of(url: str) -> str:
    return urlsplit(url).path


def get(site: MultilingualSite, url: str):
    return site.lookup(urlsplit(url).netloc, path_of(url))


def anchors(url: str, body: bytes) -> list[tuple[str, str | None]]:
    """(absolute href without fragment, hreflang) of every <a href> of a page."""
    doc = lxml_html.fromstring(body)
    return [(urldefrag(urljoin(url, a.get("href")))[0], a.get("hreflang"))
            for a in doc.xpath("//a[@href]")]


def test_ten_languages_and_the_url_scheme():
    s = manual()
    assert s.spec.langs == LANGS and len(LANGS) >= 8
    assert len(s.pages) == 61 and s.pages[0] == "index.html"
    for url in s.page_langs:
        assert re.fullmatch(rf"http://docs\.localhost:{PORT}/manual/[a-z]{{2}}/[\w.]+\.html", url)
    assert len(s.page_langs) == len(LANGS) * len(s.pages)
    assert s.start_url == s.url("en", "index.html")


def test_same_seed_same_site_other_seed_other_site():
    a = generate_manual(ManualSpec(n_pages=30, seed=5), PORT)
    b = generate_manual(ManualSpec(n_pages=30, seed=5), PORT)
    c = generate_manual(ManualSpec(n_pages=30, seed=6), PORT)
    assert a.resources.keys() == b.resources.keys()
    assert all(a.resources[u].body == b.resources[u].body for u in a.resources)
    assert a.gold_pairs == b.gold_pairs and a.fallback_urls == b.fallback_urls
    assert a.gold_pairs != c.gold_pairs
    assert any(a.resources[u].body != c.resources.get(u, a.resources[u]).body
               for u in a.resources)


def test_each_language_translates_its_share():
    s = manual()
    n_modules = len(s.pages) - 1
    for lang in LANGS[1:]:
        modules = s.translated[lang] - {"index.html"}
        assert len(modules) == round(DEFAULT_SHARES[lang] * n_modules), lang
        assert "index.html" in s.translated[lang]
    assert s.translated["en"] == set(s.pages)


def test_fallback_copies_are_the_english_page_byte_for_byte():
    s = manual()
    assert s.fallback_urls
    for lang in LANGS[1:]:
        for page in s.pages:
            url = s.url(lang, page)
            english = s.resources[s.url("en", page)]
            res = get(s, url)
            assert res is not None and res.status == 200
            if page in s.translated[lang]:
                assert url not in s.fallback_urls and s.page_langs[url] == lang
                assert res.body != english.body
                assert f'lang="{lang}"'.encode() in res.body
            else:
                assert url in s.fallback_urls and s.page_langs[url] == "en"
                assert res.body == english.body and res.headers == english.headers


def test_an_index_describes_a_module_in_its_pages_language():
    s = manual()
    for lang in ("fr", "ja"):
        doc = lxml_html.fromstring(get(s, s.url(lang, "index.html")).body)
        english = dict(_descriptions(lxml_html.fromstring(get(s, s.url("en", "index.html")).body)))
        for page, words in _descriptions(doc):
            if page in s.translated[lang]:
                assert words != english[page], (lang, page)
            else:   # no translation: the English page's description
                assert words == english[page], (lang, page)


def _descriptions(doc) -> list[tuple[str, str]]:
    return [(dt.xpath(".//a/@href")[0], dt.getnext().text_content()) for dt in doc.iter("dt")]


def test_gold_holds_real_translations_only():
    s = manual()
    for lang in LANGS[1:]:
        gold = s.gold_pairs[lang]
        assert len(gold) == len(s.translated[lang])
        assert len({a for a, _ in gold}) == len({b for _, b in gold}) == len(gold)
        for u1, u2 in gold:
            assert s.page_langs[u1] == "en" and s.page_langs[u2] == lang
            assert u1 not in s.fallback_urls and u2 not in s.fallback_urls
            assert path_of(u1).split("/")[-1] == path_of(u2).split("/")[-1]
        fallbacks = {u for u in s.fallback_urls if f"/manual/{lang}/" in u}
        assert fallbacks and not fallbacks & {b for _, b in gold}


def test_relative_switches_redirect_to_the_canonical_translation():
    s = manual()
    checked = Counter()
    for url, res in s.resources.items():
        page = path_of(url).split("/")[-1]
        switches = [(href, hl) for href, hl in anchors(url, res.body) if hl]
        available = [lg for lg in LANGS if page in s.translated[lg]]
        # every switch has hreflang, names a language the page really exists in,
        # appears in the top and in the bottom bar
        assert sorted(hl for _, hl in switches) == sorted(available * 2), url
        for href, hreflang in switches:
            target = s.url(hreflang, page)
            assert href != target  # written relative to /manual/: not canonical here
            assert path_of(href) == f"{path_of(url).rsplit('/', 1)[0]}/{hreflang}/{page}"
            answer = get(s, href)
            assert answer is not None and answer.status == 301, href
            assert answer.headers["Location"] == target
            assert target not in s.fallback_urls and s.page_langs[target] == hreflang
            checked[hreflang] += 1
        # the raw href attribute is relative, as written by the manual's include
        raw = lxml_html.fromstring(res.body).xpath("//a[@hreflang]/@href")
        assert all(h.startswith(f"./{h.split('/')[1]}/") for h in raw)
    assert set(checked) == set(LANGS)


def test_other_links_resolve_and_everything_is_reachable():
    s = manual()
    seen, queue = {s.start_url}, deque([s.start_url])
    while queue:
        url = queue.popleft()
        res = get(s, url)
        assert res is not None, url
        while res.status == 301:
            url = res.headers["Location"]
            res = get(s, url)
            assert res is not None, url
        assert res.status == 200
        for href, _ in anchors(url, res.body):
            if href not in seen:
                seen.add(href)
                queue.append(href)
    assert set(s.page_langs) <= seen
    assert get(s, s.url("fr", "missing.html")) is None
    assert get(s, f"{s.root}/manual/").headers["Location"] == s.start_url
    assert get(s, f"{s.root}/manual/ja/").headers["Location"] == s.url("ja", "index.html")


def test_translations_are_sentence_by_sentence():
    s = manual()
    for lang in ("fr", "ja", "ru"):
        for u1, u2 in s.gold_pairs[lang]:
            d1 = lxml_html.fromstring(s.resources[u1].body)
            d2 = lxml_html.fromstring(s.resources[u2].body)
            assert len(d1.xpath("//p")) == len(d2.xpath("//p"))
            assert d1.xpath("//code/text()") == d2.xpath("//code/text()")
            assert d1.xpath("//h2/a[1]/text()") == d2.xpath("//h2/a[1]/text()")


@pytest.mark.parametrize("seed,langs", [(0, LANGS), (1, LANGS), (0, BRAHMIC), (1, BRAHMIC)])
def test_fasttext_labels_every_language(seed, langs):
    from bitextcrawl.pages.language import LanguageIdentifier
    from bitextcrawl.pages.text import main_text, parse

    lid = LanguageIdentifier()
    s = manual(seed=seed, n_pages=40, langs=langs)
    total, wrong = Counter(), []
    for url, lang in s.page_langs.items():
        if url in s.fallback_urls:
            continue
        label, _ = lid.predict(main_text(parse(s.resources[url].body.decode("utf-8"))))
        total[lang] += 1
        if label != lang:
            wrong.append((url, lang, label))
    assert set(total) == set(langs) and min(total.values()) >= 10
    assert not wrong, wrong[:5]


def test_hindi_and_bengali_are_on_request_and_translate_sentence_by_sentence():
    s = manual(langs=BRAHMIC)
    assert s.spec.langs == BRAHMIC and LANGS == manual().spec.langs
    assert not set(mt.EXTRA_LANGS) & set(LANGS)
    n_modules = len(s.pages) - 1
    for lang in mt.EXTRA_LANGS:
        gold = s.gold_pairs[lang]
        assert len(gold) == 1 + round(DEFAULT_SHARES[lang] * n_modules)
        for u1, u2 in gold:
            assert s.page_langs[u2] == lang and f'lang="{lang}"'.encode() in s.resources[u2].body
            d1 = lxml_html.fromstring(s.resources[u1].body)
            d2 = lxml_html.fromstring(s.resources[u2].body)
            assert len(d1.xpath("//p")) == len(d2.xpath("//p"))
            assert d1.xpath("//code/text()") == d2.xpath("//code/text()")
            assert "।" in d2.text_content()


def test_every_entry_has_hindi_and_bengali_in_their_scripts():
    entries = mt.SENTENCES + mt.DESCRIPTIONS + list(mt.UI.values())
    for entry in entries:
        assert tuple(entry) == mt.ALL_LANGS
        for lang, (low, high) in SCRIPTS.items():
            text = entry[lang]
            # the same slots as the English text, the language's own script, NFC
            assert sorted(re.findall(r"\{\w+\}", text)) == \
                sorted(re.findall(r"\{\w+\}", entry["en"])), text
            letters = [c for c in text if c.isalpha() and not c.isascii()]
            assert letters and all(low <= c <= high for c in letters), text
            assert unicodedata.is_normalized("NFC", text), text
    assert {mt.LANG_NAMES[lang] for lang in mt.EXTRA_LANGS} == {"हिन्दी", "বাংলা"}


@pytest.mark.integration
def test_loopback_server_answers_pages_redirects_and_counts_hits():
    port = free_port()
    s = generate_manual(ManualSpec(n_pages=10, seed=2), port)
    fr_page = sorted(s.translated["fr"] - {"index.html"})[0]
    with serve_site(s, port) as server:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            for path, status in ((f"/manual/en/fr/{fr_page}", 301),
                                 (f"/manual/fr/{fr_page}", 200),
                                 ("/manual/xx.html", 404)):
                conn.request("GET", path, headers={"Host": f"docs.localhost:{port}"})
                resp = conn.getresponse()
                body = resp.read()
                assert resp.status == status, path
                if status == 301:
                    assert resp.getheader("Location") == s.url("fr", fr_page)
                if status == 200:
                    assert body == s.resources[s.url("fr", fr_page)].body
        finally:
            conn.close()
        hits = dict(server.hits)
    assert hits[("docs.localhost", f"/manual/en/fr/{fr_page}")] == 1
    assert hits[("docs.localhost", f"/manual/fr/{fr_page}")] == 1
