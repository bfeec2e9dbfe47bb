"""The generated glossary's options (``testkit/glossary.py``): languages, real or
opaque URLs, partial translation, renamed English slugs, sidebar order."""

from __future__ import annotations

import re

import pytest

from tests.sites.glossary import TAGS, glossary_site

N = 40


def sidebar(html: str) -> list[str]:
    side = html.split('<div class="sidebar">', 1)[1].split("</ul>", 1)[0]
    return re.findall(r'<a href="([^"]+)">', side)


def test_default_is_en_fr_opaque():
    site = glossary_site(n_entries=N)
    assert site.golds == {"fr": site.gold} and len(site.gold) == 1 + TAGS + N
    assert all(fr.startswith("/p/") for _, fr in site.gold)
    assert set(site.langs.values()) == {"en", "fr"}


@pytest.mark.parametrize("langs", [("en", "ja"), ("en", "ru", "zh"), ("en", "fr", "ko"),
                                   ("en", "hi"), ("en", "bn"), ("en", "fr", "hi", "bn")])
def test_languages_and_real_urls(langs):
    site = glossary_site(n_entries=N, langs=langs, opaque=False)
    assert set(site.golds) == set(langs[1:]) and site.gold == site.golds[langs[1]]
    for lang, gold in site.golds.items():
        assert len(gold) == 1 + TAGS + N
        for en, other in gold:
            assert other == en.replace("/en/", f"/{lang}/", 1)
            assert site.langs[en] == "en" and site.langs[other] == lang
    # the English home page leads to every other home page
    assert all(f'<a href="/{lang}/">' in site.pages["/en/"] for lang in langs[1:])
    assert not any("hreflang" in html for html in site.pages.values())
    assert glossary_site(n_entries=N, langs=langs, opaque=False).pages == site.pages


def test_partial_translation():
    site = glossary_site(n_entries=N, langs=("en", "ja", "ru"), translated=0.5)
    for lang in ("ja", "ru"):
        gold = site.golds[lang]
        entries = [other for _, other in gold][1 + TAGS:]
        assert len(entries) == N // 2
        pages = [p for p, lang_ in site.langs.items() if lang_ == lang]
        assert len(pages) == 1 + TAGS + N // 2
        # a sidebar lists the language's own entries, every one of them
        assert sorted(sidebar(site.pages[entries[0]])) == sorted(entries)
        # untranslated entries are never linked
        linked = {u for p in pages for u in re.findall(r'href="([^"]+)"', site.pages[p])}
        assert linked <= set(pages)
    assert {e for e, _ in site.golds["ja"]} != {e for e, _ in site.golds["ru"]}


def test_renamed_slugs():
    site = glossary_site(n_entries=N, langs=("en", "fr"), opaque=False, renamed=4)
    moved = [(en, fr) for en, fr in site.gold if en.replace("/en/", "/fr/", 1) != fr]
    assert len(moved) == 4
    for en, fr in moved:
        assert en in site.pages and fr in site.pages
        assert fr.replace("/fr/", "/en/", 1) not in site.pages     # the URL rule finds nothing
    assert len(site.gold) == 1 + TAGS + N


@pytest.mark.parametrize("langs", [("en", "fr"), ("en", "ja"), ("en", "hi"), ("en", "bn")])
def test_sidebar_order(langs):
    lang = langs[1]
    own = glossary_site(n_entries=N, langs=langs, opaque=False)
    same = glossary_site(n_entries=N, langs=langs, opaque=False, sidebar_order="same")
    english = sidebar(own.pages["/en/"])
    assert sidebar(same.pages["/en/"]) == english
    in_english_order = [u.replace("/en/", f"/{lang}/", 1) for u in english]
    assert sidebar(same.pages[f"/{lang}/"]) == in_english_order
    assert sidebar(own.pages[f"/{lang}/"]) != in_english_order
    assert sorted(sidebar(own.pages[f"/{lang}/"])) == sorted(in_english_order)


@pytest.mark.parametrize("langs", [("en", "hi"), ("en", "bn"), ("en", "fr", "hi", "bn")])
def test_hindi_and_bengali_at_opaque_urls_with_their_gold(langs):
    site = glossary_site(n_entries=N, langs=langs, translated=0.8, stale=2)
    assert set(site.golds) == set(langs[1:])
    for lang, gold in site.golds.items():
        assert len(gold) == 1 + TAGS + round(0.8 * N)
        assert all(other.startswith("/p/") and site.langs[other] == lang for _, other in gold)
    # one stale translation beside each of the first language's current ones
    first = [p for p, lang in site.langs.items() if lang == langs[1]]
    assert len(first) == len(site.golds[langs[1]]) + 2
    # the home pages in the language's script (its Unicode block), with the danda
    for lang, (low, high) in (("hi", ("\u0900", "\u097f")), ("bn", ("\u0980", "\u09ff"))):
        if lang in langs:
            home = site.pages[site.golds[lang][0][1]]
            assert "।" in home and sum(low <= c <= high for c in home) > 50


def test_fasttext_labels_the_hindi_and_bengali_pages():
    from bitextcrawl.pages.language import LanguageIdentifier
    from bitextcrawl.pages.text import main_text, parse

    lid = LanguageIdentifier()
    site = glossary_site(n_entries=N, langs=("en", "hi", "bn"), translated=0.8)
    wrong = [(p, lang, label) for p, lang in site.langs.items()
             for label, _ in [lid.predict(main_text(parse(site.pages[p])))] if label != lang]
    assert set(site.langs.values()) == {"en", "hi", "bn"} and not wrong, wrong[:5]


def test_languages_named_with_a_region_as_hugo_names_them():
    """``pt-br``/``zh-cn``: the code in the URL folder, in ``<html lang>`` with html_lang,
    and as the gold's key; the text is the base language's, the same as the bare code's."""
    langs = ("en", "pt-br", "zh-cn")
    site = glossary_site(n_entries=N, langs=langs, opaque=False, html_lang=True)
    bare = glossary_site(n_entries=N, langs=("en", "pt", "zh"), opaque=False)
    assert set(site.golds) == {"pt-br", "zh-cn"}
    for code, lang in (("pt-br", "pt"), ("zh-cn", "zh")):
        assert site.golds[code] == [(en, other.replace(f"/{lang}/", f"/{code}/", 1))
                                    for en, other in bare.golds[lang]]
        page = f"/{code}/"
        assert site.pages[page].startswith(f'<!DOCTYPE html>\n<html lang="{code}">')
        assert site.pages[page].split("<body>")[1] == \
            bare.pages[f"/{lang}/"].split("<body>")[1].replace(f"/{lang}/", f"/{code}/")
    assert site.pages["/en/"].startswith('<!DOCTYPE html>\n<html lang="en">')
    assert not any(" lang=" in html for html in bare.pages.values())
