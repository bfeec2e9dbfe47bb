"""Untranslated copies: a page under one language's URL with another page's prose, line
for line (``pages/prose.py``), keeps its own language and pairs nothing."""

from __future__ import annotations

import dataclasses

from bitextcrawl.pages.prose import copied_share, is_copy, prose_lines, same_title
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.site import canonical_pages
from bitextcrawl.pairing.align import AlignConfig, align_site, copied_pairs

H = "http://example.org"
EN_BODY = ("Rate limits protect the service from clients that send too many requests.\n"
           "Each account may create fifty certificates per registered domain every week.\n"
           "curl -X POST https://api.example.org/v2/order --data @order.json\n")
FR_NOTICE = "Cette page n'a pas encore été traduite, voici la version originale.\n"


def test_prose_lines_leave_code_and_short_lines_out():
    lines = prose_lines(EN_BODY + "Home\nSee also")
    assert len(lines) == 2
    assert not any("curl" in line for line in lines)


def test_a_copy_shares_most_of_its_prose_a_translation_none():
    en = prose_lines(EN_BODY)
    copy = prose_lines(FR_NOTICE + EN_BODY)
    fr = prose_lines("Les limites protègent le service des clients qui envoient trop de requêtes.\n"
                     "Chaque compte peut créer cinquante certificats par domaine chaque semaine.\n")
    assert is_copy(en, copy) and copied_share(en, copy) > 0.6
    assert not is_copy(en, fr) and copied_share(en, fr) == 0.0
    assert not is_copy(en, frozenset())


def _site(copy_text: str) -> list[PageRecord]:
    """English and French pages under /en/ and /fr/; /fr/limits.html is ``copy_text``,
    which fastText guesses English without being sure of it."""
    pages = []
    for i in range(4):
        pages.append(PageRecord(url=f"{H}/en/p{i}.html", lang="en", lang_prob=0.99,
                                lang_method="fasttext", text=f"English page number {i}."))
        pages.append(PageRecord(url=f"{H}/fr/p{i}.html", lang="fr", lang_prob=0.99,
                                lang_method="fasttext", text=f"Page française numéro {i}."))
    pages.append(PageRecord(url=f"{H}/en/limits.html", lang="en", lang_prob=0.99,
                            lang_method="fasttext", text=EN_BODY, title="Rate limits - Example"))
    pages.append(PageRecord(url=f"{H}/fr/limits.html", lang="en", lang_prob=0.8,
                            lang_method="fasttext", text=copy_text,
                            title="Rate limits - Example, certificats gratuits"))
    return pages


def test_an_untranslated_copy_keeps_the_language_of_its_words():
    site = canonical_pages(_site(FR_NOTICE + EN_BODY))
    copy = next(p for p in site.pages if p.url.endswith("/fr/limits.html"))
    assert copy.lang == "en" and site.relabelled == 0
    # other English words under /fr/, copied from no page: the URL's code settles them
    site = canonical_pages(_site(FR_NOTICE + "Something written here alone, in English words only."))
    page = next(p for p in site.pages if p.url.endswith("/fr/limits.html"))
    assert page.lang == "fr" and page.lang_method == "url_token"


def test_a_copy_of_an_unsure_original_keeps_its_language():
    """An original of code and identifiers is unsure too; its URL agrees with its label,
    and its copy under the other language's URL keeps the original's language."""
    pages = [dataclasses.replace(p, lang_prob=0.85) if p.url.endswith("/en/limits.html") else p
             for p in _site(FR_NOTICE + EN_BODY)]
    site = canonical_pages(pages)
    copy = next(p for p in site.pages if p.url.endswith("/fr/limits.html"))
    original = next(p for p in site.pages if p.url.endswith("/en/limits.html"))
    assert copy.lang == "en" and original.lang == "en" and site.relabelled == 0


def test_a_copy_pairs_nothing_even_where_a_url_rule_proves_it():
    pages = _site(FR_NOTICE + EN_BODY)
    # the copy declared French (its notice's language, as its <html lang> says)
    pages[-1] = dataclasses.replace(pages[-1], lang="fr", lang_prob=0.95, lang_method="declared")
    en = {p.url: p for p in pages if p.lang == "en"}
    fr = {p.url: p for p in pages if p.lang == "fr"}
    assert copied_pairs([(f"{H}/en/limits.html", f"{H}/fr/limits.html"),
                         (f"{H}/en/p1.html", f"{H}/fr/p1.html")], en, fr) == \
        {(f"{H}/en/limits.html", f"{H}/fr/limits.html")}
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    pairs = {(p.url_1, p.url_2) for p in result.pairs}
    assert (f"{H}/en/p1.html", f"{H}/fr/p1.html") in pairs
    assert not any(b.endswith("/fr/limits.html") for _, b in pairs)
    assert result.counts["bitext/align/en-fr/copies"] == 1


def test_a_translated_frame_around_an_untranslated_body_is_a_partial_translation():
    # release notes left in English under a translated title and headings: the site's pair
    en, copy = prose_lines(EN_BODY), prose_lines(FR_NOTICE + EN_BODY)
    assert not is_copy(en, copy, "v4.0.6 - Release notes - Web Experience Toolkit",
                       "v4.0.6 - Notes d'utilisation - Boîte à outils de l'expérience Web")
    assert is_copy(en, copy, "Rate limits", "Rate limits - Kostenlose Zertifikate")
    assert same_title("", "Anything") and not same_title("Downloads", "Téléchargements")
    pages = _site(FR_NOTICE + EN_BODY)
    pages[-1] = dataclasses.replace(pages[-1], lang="fr", lang_prob=0.95, lang_method="declared",
                                    title="Limites de fréquence - Exemple")
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    assert (f"{H}/en/limits.html", f"{H}/fr/limits.html") in {(p.url_1, p.url_2)
                                                              for p in result.pairs}


def test_a_copy_the_site_declares_its_version_stays_paired():
    pages = _site(FR_NOTICE + EN_BODY)
    en_url, fr_url = f"{H}/en/limits.html", f"{H}/fr/limits.html"
    pages[-2] = dataclasses.replace(pages[-2], hreflang={"fr": fr_url})
    pages[-1] = dataclasses.replace(pages[-1], lang="fr", lang_prob=0.95, lang_method="declared",
                                    hreflang={"en": en_url})
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    assert (en_url, fr_url) in {(p.url_1, p.url_2) for p in result.pairs}
    assert result.counts["bitext/align/en-fr/copies"] == 0


def test_the_report_says_a_copy_is_why_it_is_unpaired():
    from bitextcrawl.report.figures import unpaired_pages

    pages = _site(FR_NOTICE + EN_BODY)
    pages[-1] = dataclasses.replace(pages[-1], lang="fr", lang_prob=0.95, lang_method="declared")
    result = align_site(pages, AlignConfig(langs=("en", "fr")))
    assert {"url_1": f"{H}/en/limits.html", "url_2": f"{H}/fr/limits.html"}.items() <= \
        next(r for r in result.rejected["en-fr"] if r["why"] == "copy").items()
    rows = unpaired_pages(pages, result.pairs, {"site": result.rejected}, ("en", "fr"))
    fr = next(r for r in rows if r["lang"] == "fr")
    assert fr["why"] == {"an untranslated copy of a page in the other language": 1}


def test_a_short_copy_whose_links_carry_translated_titles_is_a_copy():
    """A page too short for a sentence line: the same words, its links' texts aside."""
    from collections import Counter

    from bitextcrawl.pages.prose import prose_words, same_prose

    en = ("Warm meal\nWhy does the library present the study?\n"
          "See also: Bright water, Regional timetable, Safe recipe.")
    copy = ("Warm meal\nWhy does the library present the study?\n"
            "See also: Eau lumineuse, Horaire régional, Safe recipe.")
    fr = "Repas chaud\nPourquoi la bibliothèque présente-t-elle l'étude ?\nVoir aussi : Eau lumineuse."
    links_en = prose_words("Bright water Regional timetable Safe recipe")
    links_copy = prose_words("Eau lumineuse Horaire régional Safe recipe")
    assert same_prose(prose_words(en), prose_words(copy), links_en, links_copy)
    # without the links' texts set aside, the translated titles make it differ
    assert not same_prose(prose_words(en), prose_words(copy), Counter(), Counter())
    assert not same_prose(prose_words(en), prose_words(fr), links_en, prose_words("Eau lumineuse"))


def test_a_page_of_prose_keeps_the_language_fasttext_reads():
    """English prose under /fr/, fastText fairly sure of it and no original crawled: the
    URL's code does not relabel it; a short page of the same words is relabelled."""
    long_text = " ".join(["The module writes each request to the log before it answers."] * 20)
    pages = [p for p in _site(FR_NOTICE + EN_BODY) if not p.url.endswith("/en/limits.html")]
    pages = [dataclasses.replace(p, text=long_text, lang_prob=0.85)
             if p.url.endswith("/fr/limits.html") else p for p in pages]
    site = canonical_pages(pages)
    page = next(p for p in site.pages if p.url.endswith("/fr/limits.html"))
    assert page.lang == "en"
    short = [dataclasses.replace(p, text="The module writes the log.")
             if p.url.endswith("/fr/limits.html") else p for p in pages]
    page = next(p for p in canonical_pages(short).pages if p.url.endswith("/fr/limits.html"))
    assert page.lang == "fr" and page.lang_method == "url_token"
