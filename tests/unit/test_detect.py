"""Bilingual-site detection [Shi 2006 §3 step 1] and language-switch anchors."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pages.switches import (
    AMBIGUOUS_CODES,
    LANGUAGE_SWITCH_NAMES,
    languages_named_unlinked,
    switch_language,
)
from bitextcrawl.sites.detect import Detection, detect_bilingual
from tests.conftest import SHARED_DATA

SITE = "http://example.org"


def page(path, lang, links=(), head=""):
    anchors = "".join(f"<a href='{href}'>{text}</a>" for href, text in links)
    html = (f"<html lang='{lang}'><head><title>{path}</title>{head}</head><body><main>"
            f"<p>Some text of the page {path} in {lang}.</p>{anchors}</main></body></html>")
    return build_record(SITE + path, html)


@pytest.mark.parametrize("anchor, lang", [
    ("English", "en"), ("Français", "fr"), ("francais", "fr"), ("Deutsch", "de"),
    ("中文", "zh"), ("繁體中文", "zh"), ("中文版", "zh"), ("日本語", "ja"), ("한국어", "ko"),
    ("Español", "es"), ("EN", "en"), ("FR", "fr"), ("fr", "fr"), ("[EN]", "en"),
    ("» English", "en"), ("English version", "en"), ("Version française", "fr"),
    ("auf Deutsch", "de"), ("Español (España)", "es"), ("fr-CA", "fr"), ("zh-TW", "zh"),
    ("English / Anglais", "en"), ("Englisch", "en"), ("shqip", "sq"), ("Русский", "ru"),
    ("IT", "it"), ("NO", "no"), ("🇫🇷 Français", "fr"), ("French flag", "fr"),
])
def test_switch_language_names(anchor, lang):
    assert switch_language(anchor) == lang


@pytest.mark.parametrize("anchor", [
    "", "Home", "English courses", "Contact us", "it", "No", "is", "EN | FR",
    "deutsch|english|shqip", "Read more", "Go", "x" * 100,
])
def test_switch_language_rejects(anchor):
    assert switch_language(anchor) is None


def test_table_shape():
    assert isinstance(LANGUAGE_SWITCH_NAMES, dict)
    for lang, names in LANGUAGE_SWITCH_NAMES.items():
        assert isinstance(names, set) and lang in names
        assert all(name == name.casefold() for name in names)
    for required in ("english", "français", "deutsch", "中文", "日本語", "한국어", "español",
                     "en", "fr"):
        assert any(required in names for names in LANGUAGE_SWITCH_NAMES.values())
    assert "it" in AMBIGUOUS_CODES


def test_switch_anchors_on_both_sides_make_a_bilingual_site():
    root = page("/en/", "en", [("/fr/", "Français"), ("/en/about", "About")])
    fr = page("/fr/", "fr", [("/en/", "English")])
    about = page("/en/about", "en", [("/fr/a-propos", "Français")])
    d = detect_bilingual([root, fr, about], ["en", "fr"])
    assert isinstance(d, Detection) and d.bilingual
    assert d.evidence["reason"] == "switch_anchors"
    assert d.evidence["switch_pages"] == {"en": 1, "fr": 2}
    assert d.evidence["lang_share"]["en"] == pytest.approx(2 / 3, abs=1e-3)
    assert 0 < d.score <= 1


def test_root_page_alone_with_a_switch_is_enough():
    root = page("/", "en", [("/fr/", "Français")])
    d = detect_bilingual([root], ["en", "fr"])
    assert d.bilingual and d.evidence["reason"] == "mixed"
    assert not detect_bilingual([root], ["en", "de"]).bilingual


def test_monolingual_site_with_a_language_portal_is_not_bilingual():
    # Links named after languages, but to other sites: a portal, not a switch.
    root = page("/", "en", [("http://fr.wikipedia.org/", "Français"),
                            ("http://other.org/", "Deutsch"), ("/news", "News")])
    news = page("/news", "en")
    d = detect_bilingual([root, news], ["en", "fr"])
    assert not d.bilingual and d.evidence["reason"] == "missing: fr"
    assert d.evidence["switch_pages"]["fr"] == 0


def test_one_misidentified_page_is_not_enough():
    pages = [page(f"/p{i}", "en") for i in range(5)] + [page("/odd", "fr")]
    d = detect_bilingual(pages, ["en", "fr"])
    assert not d.bilingual and d.evidence["reason"] == "uncorroborated"
    # Two pages in each language without any link evidence do count.
    pages.append(page("/odd2", "fr"))
    assert detect_bilingual(pages, ["en", "fr"]).bilingual


def test_hreflang_alternates():
    head = ("<link rel='alternate' hreflang='en' href='/en/'>"
            "<link rel='alternate' hreflang='fr-CA' href='/fr/'>")
    d = detect_bilingual([page("/en/", "en", head=head)], ["en", "fr"])
    assert d.bilingual and d.evidence["reason"] == "hreflang"
    foreign = "<link rel='alternate' hreflang='fr' href='http://elsewhere.org/fr/'>"
    assert not detect_bilingual([page("/en/", "en", head=foreign)], ["en", "fr"]).bilingual


def test_needs_two_languages():
    assert not detect_bilingual([page("/", "en")], ["en"]).bilingual
    assert not detect_bilingual([], ["en", "fr"]).bilingual


def test_real_sites():
    lett = SHARED_DATA / "lett" / "v2.lett.gz"
    wet = SHARED_DATA / "wet" / "index-en.html"
    if not (lett.exists() and wet.exists()):
        pytest.skip(f"real data not found under {SHARED_DATA} (../shared/data beside the project)")
    from bitextcrawl.formats.lett import iter_lett_pages
    from bitextcrawl.pages.language import LanguageIdentifier

    identify = LanguageIdentifier().identify  # the site's <html lang="en"> is wrong
    root = next(p for p in iter_lett_pages(lett, identify)
                if p.url == "http://albatec-al.de/")
    assert root.lang == "de" and root.html_lang == "en"
    d = detect_bilingual([root], ["en", "de"])  # German root page, "english" / "shqip" switch
    assert d.bilingual and d.evidence["switch_anchors"]["en"] == ["english"]
    assert d.evidence["other_switches"] == {"sq": 1}
    assert detect_bilingual([root], ["de", "sq"]).bilingual
    assert not detect_bilingual([root], ["en", "fr"]).bilingual

    html = wet.read_bytes().decode("utf-8")
    wet_root = build_record("http://127.0.0.1:8000/index-en.html", html, identify)
    d = detect_bilingual([wet_root], ["en", "fr"])
    assert d.bilingual and d.evidence["switch_anchors"]["fr"] == ["Français"]
    assert not detect_bilingual([wet_root], ["en", "de"]).bilingual


@pytest.mark.parametrize("html, marked", [
    # nginx.org: the languages with no version of this page are named, not linked
    ('<a class="notrans">english</a> <a href="../ru/x.html">русский</a>', {"en"}),
    ('<a class="notrans">english</a><a class="notrans">русский</a>', {"en", "ru"}),
    # a language's name alone, or in code, is no switch bar (nginx.org's geo module: RU)
    ('<span>English</span>', set()),
    ('<code>RU</code> <code>EN</code>', set()),
    ('<b>English</b>' + 'x' * 200 + '<a href="/ru/">русский</a>', set()),
    # the page's own language is named without a link in every switch bar
    ('<b>italiano</b> <a href="../en/x.html">English</a>', set()),
    # switches that navigate by script are links, not "not translated" marks
    ('<select><option value="/en/x.html">English</option></select>', set()),
    ('<li data-href="/en/x.html">English</li>', set()),
    ('<p>Read the English manual first.</p>', set()),
])
def test_languages_named_unlinked(html, marked):
    assert set(languages_named_unlinked(html, "it", ("en", "it", "ru"))) == marked


def test_a_bar_naming_its_own_language_before_a_line_break_marks_the_other_untranslated():
    """nginx.org's English pages: the current language is written ``english<br>``, the
    missing translation ``<a class="notrans">``; the line break is no text of the name."""
    bar = '<ul><li>english<br></li><li><a class="notrans">русский</a></li><li><br></li></ul>'
    assert languages_named_unlinked(bar, "en", ("en", "ru")) == {"ru"}
    linked = '<ul><li>english<br/></li><li><a href="../ru/x.html">русский</a></li></ul>'
    assert languages_named_unlinked(linked, "en", ("en", "ru")) == frozenset()


def test_anchor_cleaning_of_ascii_text_keeps_what_the_unicode_rule_keeps():
    """``_clean``'s ASCII shortcut: every ASCII character, and runs of them, kept or blanked
    as the rule by Unicode category (letters, marks, digits, ``-``, ``_``) keeps them."""
    import random
    import unicodedata

    from bitextcrawl.pages.switches import _clean

    def by_category(text):
        kept = "".join(c if unicodedata.category(c)[0] in "LMN" or c in "-_" else " "
                       for c in text)
        return " ".join(kept.split()).strip("-_ ")

    rng = random.Random(7)
    samples = [chr(i) for i in range(128)] + ["  English version ", "[EN]", "» Deutsch",
                                               "fr-CA", "-_x_-", "Español (España)"]
    samples += ["".join(rng.choice([chr(i) for i in range(128)]) for _ in range(12))
                for _ in range(2000)]
    assert [_clean(t) for t in samples] == [by_category(t) for t in samples]


def test_a_command_named_like_a_code_is_no_language_switch():
    """tldr's index lists commands: `ar` and `bg` are commands, not Arabic and Bulgarian."""
    from bitextcrawl.pages.switches import link_named_language, named_like_a_code

    def link(text, url, hreflang=None):
        return {"url": url, "text": text, "hreflang": hreflang}

    commands = [link("apt", "http://t/en/common/apt.html"), link("ar", "http://t/en/common/ar.html"),
                link("arch", "http://t/en/common/arch.html"), link("bg", "http://t/en/common/bg.html")]
    assert named_like_a_code(commands) == {1, 3}
    assert link_named_language({**commands[1], "code_alone": True}) is None
    assert link_named_language(commands[1]) == "ar"        # alone, the text names Arabic
    # a switch bar of codes; a lone toggle to a language's home; one in capitals
    bar = [link("en", "http://t/en/x.html"), link("fr", "http://t/fr/x.html")]
    assert named_like_a_code(bar) == set()
    assert named_like_a_code([link("apt", "http://t/apt"), link("fr", "http://t/fr")]) == set()
    assert named_like_a_code([link("FR", "http://t/docs/fr.html")]) == set()
    assert named_like_a_code([link("fr", "http://t/docs/fr.html", hreflang="fr")]) == set()


def test_a_page_whose_bar_links_its_own_language_marks_no_translation_missing():
    """A Russian page carrying the English page's bar ("english" unlinked, "русский"
    linking the page itself or the Russian home): no missing English translation; a bar
    showing "русский" unlinked beside an unlinked "english" marks it."""
    from bitextcrawl.pages.record import build_record
    from bitextcrawl.pages.switches import page_named_unlinked

    page = ('<html lang="ru"><body><ul>{bar}</ul>'
            '<p>Создание кода при помощи файлов деклараций.</p></body></html>')
    url = "http://s.test/ru/docs/t.html"
    for href in ("/ru/docs/t.html", "/ru/"):
        copied = build_record(url, page.format(
            bar=f'<li>english<br></li><li><a href="{href}">русский</a></li>'))
        copied.lang = "ru"
        assert page_named_unlinked(copied, ("en", "ru")) == frozenset()
    own = build_record(url, page.format(
        bar='<li><a class="notrans">english</a></li><li>русский<br></li>'))
    own.lang = "ru"
    assert page_named_unlinked(own, ("en", "ru")) == {"en"}
