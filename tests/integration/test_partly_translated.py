"""Sites that translate part of their pages, and serve the rest as untranslated copies.

Generated glossaries (``testkit/glossary.py``) at opaque URLs, 60% of their entries
translated: a side of short entries across scripts, whose titles the site translates
term by term (the site lexicon, ``pairing/site_lexicon.py``, learns them from the pairs
it proves); with ``fallback``, every untranslated entry is served under the other
language's URL all the same, English under a notice in that language, which must pair
nothing. Offline: records built by the crawl's own code, fastText included."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate
from bitextcrawl.pairing.evidence import ALL_STAGES
from testkit import real_sites
from testkit.glossary import glossary_site

pytestmark = pytest.mark.integration


def _records(site):
    identify = real_sites.identifier()
    return [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]


@pytest.mark.parametrize("lang, fallback", [("ja", False), ("ru", False), ("fr", False),
                                            ("ja", True), ("ru", True), ("fr", True)])
def test_partly_translated_opaque_glossary(lang, fallback):
    site = glossary_site(langs=("en", lang), translated=0.6, fallback=fallback)
    pages = _records(site)
    result = align_site(pages, AlignConfig(langs=("en", lang)))
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold], pairs)
    print(lang, fallback, scores)
    assert scores["precision"] >= 0.98, scores
    assert scores["f1"] >= 0.95, scores
    translated = {site.url(b) for _, b in site.gold}
    copies = {site.url(p) for p, lang_ in site.langs.items() if lang_ == lang} - translated
    assert bool(copies) == fallback
    assert not copies & {b for _, b in pairs}
    assert result.counts[f"bitext/align/en-{lang}/site_lexicon_words"] > 0


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_few_copies_teach_the_models_nothing(lang):
    """Nine entries in ten translated, the tenth served as an English copy under a notice:
    each copy is the closest pair there is (the same structure, length and words), and
    the length ratio, the structural model and the LSI space must not learn from it what
    this site's translations look like (``align.without_copies``)."""
    site = glossary_site(langs=("en", lang), translated=0.9, fallback=True)
    result = align_site(_records(site), AlignConfig(langs=("en", lang)))
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold],
                      [(p.url_1, p.url_2) for p in result.pairs])
    print(lang, scores, result.counts[f"bitext/align/en-{lang}/copies"])
    assert result.counts[f"bitext/align/en-{lang}/copies"] == 85 - round(0.9 * 85)
    assert scores["f1"] >= 0.97, scores


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_pages_that_link_their_source_files_pair_without_content_similarity(lang):
    """Each page links its source file in the site's repository ("Edit this page":
    ``content/<lang>/<file>.md``, one file name in every language, as Hugo and Docsy
    have it): the link names the page's language, and read in any language it is a rare
    anchor that only the page and its translation share (``variants.without_language``)."""
    site = glossary_site(langs=("en", lang), translated=0.6, edit_links=True)
    stages = tuple(s for s in ALL_STAGES if s != "content")
    result = align_site(_records(site), AlignConfig(langs=("en", lang), stages=stages))
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold],
                      [(p.url_1, p.url_2) for p in result.pairs])
    print(lang, scores)
    assert scores["f1"] >= 0.95, scores


def test_every_pair_of_one_multilingual_run_as_good_as_alone():
    """One alignment of four languages pairs each as well as its own alignment does."""
    langs = ("en", "fr", "ja", "ru")
    site = glossary_site(langs=langs, translated=0.6, fallback=True)
    pages = _records(site)
    together = align_site(pages, AlignConfig(langs=langs))
    for lang in langs[1:]:
        gold = [(site.url(a), site.url(b)) for a, b in site.golds[lang]]
        both = evaluate(gold, [(p.url_1, p.url_2) for p in together.pairs if p.lang_2 == lang])
        alone = align_site(pages, AlignConfig(langs=("en", lang)))
        own = evaluate(gold, [(p.url_1, p.url_2) for p in alone.pairs])
        print(lang, both["f1"], own["f1"])
        assert both["f1"] >= own["f1"] - 0.01, (lang, both, own)
        assert both["f1"] >= 0.95, (lang, both)


def test_a_shifted_own_order_list_answers_to_the_titles_translations():
    """German titles sort nearly as their English originals do, and a fifth of the entries
    is missing: the sidebars keep items in place, their order is trusted, and each item
    after a gap is aligned with the next language's neighbour. The pages of a pair that
    lists alone settled meet the pages their titles translate to (the site lexicon), and
    the pair gives way where the translation's evidence vouches for another."""
    site = glossary_site(langs=("en", "de"), translated=0.8)
    result = align_site(_records(site), AlignConfig(langs=("en", "de")))
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold],
                      [(p.url_1, p.url_2) for p in result.pairs])
    print(scores)
    assert scores["f1"] >= 0.95, scores


@pytest.mark.parametrize("lang", ["ja", "ru"])
def test_an_older_translation_kept_beside_the_current_one_pairs_nothing(lang):
    """Ten entries renamed in English and translated again: the older translation stays
    under its old URL with the same title and text, without the links of its original
    ("see also", its tag). Content and rare evidence tie between the two translations;
    the original's links, which only the current one has, decide (ETS)."""
    site = glossary_site(langs=("en", lang), translated=0.6, stale=10)
    result = align_site(_records(site), AlignConfig(langs=("en", lang)))
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    scores = evaluate([(site.url(a), site.url(b)) for a, b in site.gold], pairs)
    print(lang, scores)
    assert scores["f1"] >= 0.97, scores
