"""Parallel hyperlinks of aligned page pairs (bitextcrawl.pairing.parallel_links)."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.record import build_record
from bitextcrawl.pairing.parallel_links import (
    clear_round_trees,
    link_evidence,
    link_proposals,
    parallel_link_pairs,
    round_pair,
    verify_pair,
)
from bitextcrawl.trees.domtree import Alignment, TreeAligner, build_tree

H = "http://site.test"

UI = {
    "en": {"home": "Home", "news": "News", "about": "About us", "title": "City of Lyon",
           "latest": "Latest articles", "related": "Related articles",
           "footer": "All rights reserved."},
    "fr": {"home": "Accueil", "news": "Actualités", "about": "Qui sommes-nous",
           "title": "Ville de Lyon", "latest": "Derniers articles",
           "related": "Articles liés", "footer": "Tous droits réservés."},
}
# url per language of every page: home, news, about, three articles
URLS = {
    "home": {"en": f"{H}/en/", "fr": f"{H}/fr/"},
    "news": {"en": f"{H}/en/news/", "fr": f"{H}/fr/actualites/"},
    "about": {"en": f"{H}/en/about.html", "fr": f"{H}/fr/qui.html"},
    "a1": {"en": f"{H}/n/1001.html", "fr": f"{H}/n/2001.html"},
    "a2": {"en": f"{H}/n/1002.html", "fr": f"{H}/n/2002.html"},
    "a3": {"en": f"{H}/n/1003.html", "fr": f"{H}/n/2003.html"},
}
ARTICLES = {
    "a1": {"en": ("The bridge opens", ["The new bridge over the river opens on 12 May 2021.",
                                        "It cost 4500000 euros and took 3 years to build.",
                                        "Mayor Dupont will cut the ribbon at 10 o'clock."]),
           "fr": ("Le pont ouvre", ["Le nouveau pont sur la rivière ouvre le 12 mai 2021.",
                                    "Il a coûté 4500000 euros et sa construction a duré 3 ans.",
                                    "Le maire Dupont coupera le ruban à 10 heures."])},
    "a2": {"en": ("A museum for children", ["The museum welcomes 250 children every week.",
                                             "Since 2015 the entry has been free on Sundays."]),
           "fr": ("Un musée pour les enfants", ["Le musée accueille 250 enfants chaque semaine.",
                                                "Depuis 2015, l'entrée est gratuite le dimanche."])},
    "a3": {"en": ("The market moves", ["From 3 June the market moves to Place Bellecour.",
                                        "The 84 stalls will open at 7 in the morning.",
                                        "Parking costs 2 euros per hour near the square."]),
           "fr": ("Le marché déménage",
                  ["À partir du 3 juin, le marché s'installe place Bellecour.",
                   "Les 84 stands ouvriront à 7 heures du matin.",
                   "Le stationnement coûte 2 euros de l'heure près de la place."])},
}
RELATED = {"a1": ["a2", "a3"], "a2": ["a1"], "a3": ["a1"]}


def page(lang: str, title: str, main: str, other: str | None) -> str:
    ui = UI[lang]
    toggle = ""
    if other:
        o = "fr" if lang == "en" else "en"
        name = "Français" if o == "fr" else "English"
        toggle = f'<a href="{other}" hreflang="{o}">{name}</a>'
    nav = "".join(f'<li><a href="{URLS[k][lang]}">{ui[k]}</a></li>'
                  for k in ("home", "news", "about"))
    return (f'<!DOCTYPE html><html lang="{lang}"><head><title>{title}</title></head><body>'
            f'<header><a href="{H}/"><img src="/logo.png" alt="Logo"></a>{toggle}'
            f'</header>'
            f'<nav><ul>{nav}</ul></nav><main>{main}</main>'
            f'<footer><p>© 2025 {ui["title"]}. {ui["footer"]}</p></footer></body></html>')


def article(key: str, lang: str, toggle: bool = False) -> str:
    title, sents = ARTICLES[key][lang]
    rel = "".join(f'<li><a href="{URLS[r][lang]}">{ARTICLES[r][lang][0]}</a></li>'
                  for r in RELATED[key])
    main = (f"<article><h1>{title}</h1><p>{' '.join(sents)}</p></article>"
            f"<aside><h2>{UI[lang]['related']}</h2><ul>{rel}</ul></aside>")
    other = URLS[key]["fr" if lang == "en" else "en"] if toggle else None
    return page(lang, title, main, other)


def home(lang: str) -> str:
    latest = "".join(f'<li><a href="{URLS[k][lang]}">{ARTICLES[k][lang][0]}</a></li>'
                     for k in ("a1", "a2"))
    welcome = {"en": "Welcome to the website of the city of Lyon, with news since 2010.",
               "fr": "Bienvenue sur le site de la ville de Lyon, avec des actualités depuis 2010."}
    main = (f"<h1>{UI[lang]['title']}</h1><p>{welcome[lang]}</p>"
            f"<h2>{UI[lang]['latest']}</h2><ul>{latest}</ul>")
    return page(lang, UI[lang]["home"], main, URLS["home"]["fr" if lang == "en" else "en"])


@pytest.fixture(scope="module")
def index():
    out = {}
    for lang in ("en", "fr"):
        out[URLS["home"][lang]] = build_record(URLS["home"][lang], home(lang))
        for key in ARTICLES:
            out[URLS[key][lang]] = build_record(URLS[key][lang], article(key, lang))
    return out


HOME_PAIR = (URLS["home"]["en"], URLS["home"]["fr"])


def pair_of(key):
    return URLS[key]["en"], URLS[key]["fr"]


# ---- link_proposals ----------------------------------------------------------------------

def test_link_proposals_filters_identical_self_and_toggles():
    u1, u2 = f"{H}/en/", f"{H}/fr/"
    al = Alignment(link_pairs=[
        (f"{H}/", f"{H}/"),                      # same target (logo): no pair
        (u1, u2),                                # the pair itself
        (u2, u1),                                # toggles aligned with each other
        (f"{H}/en/x", u1),                       # points back at page 1
        (f"{H}/en/a", f"{H}/fr/a"),
        (f"{H}/en/a", f"{H}/fr/a"),              # duplicate
        (f"{H}/en/b", f"{H}/fr/b"),
    ])
    assert link_proposals(al, u1, u2) == [(f"{H}/en/a", f"{H}/fr/a"),
                                          (f"{H}/en/b", f"{H}/fr/b")]


def test_home_pair_proposes_menu_and_latest_articles(index):
    counts = parallel_link_pairs([HOME_PAIR], index, corroborate=False)
    # news and about pages are not in the index: not counted.
    assert counts == {pair_of("a1"): 1, pair_of("a2"): 1}


def test_counts_are_distinct_proposing_pairs(index):
    # a1 is proposed by the home pair (latest list) and by the a2 pair (related list).
    counts = parallel_link_pairs([HOME_PAIR, pair_of("a2")], index, corroborate=False)
    assert counts[pair_of("a1")] == 2
    assert counts[pair_of("a2")] == 1      # by home only: a pair does not propose itself

    class P:  # pair objects with url_1/url_2 work like tuples
        def __init__(self, a, b):
            self.url_1, self.url_2 = a, b

    assert parallel_link_pairs([P(*HOME_PAIR), P(*pair_of("a2"))], index,
                               corroborate=False) == counts


def test_languages_of_the_proposing_pair(index):
    wrong = dict(index)
    fr_a2 = URLS["a2"]["fr"]
    wrong[fr_a2] = build_record(fr_a2, article("a2", "fr").replace('lang="fr"', 'lang="en"'))
    counts = parallel_link_pairs([HOME_PAIR], wrong, corroborate=False)
    assert pair_of("a1") in counts and pair_of("a2") not in counts


def test_recursive_follows_verified_proposals(index):
    # a3 is linked only from a1's related list: one step further than the home pair.
    flat = parallel_link_pairs([HOME_PAIR], index, corroborate=False)
    assert pair_of("a3") not in flat
    details = {}
    deep = parallel_link_pairs([HOME_PAIR], index, recursive=True, details=details,
                               corroborate=False)
    assert pair_of("a3") in deep
    assert details[pair_of("a1")]["verified"] and details[pair_of("a3")]["verified"]
    # max_pairs bounds the alignments: one pair aligned = the flat result.
    assert parallel_link_pairs([HOME_PAIR], index, recursive=True, max_pairs=1,
                               corroborate=False) == flat


def test_explicit_aligner_is_used(index):
    aligner = TreeAligner()  # untrained: initial tag prior
    assert parallel_link_pairs([HOME_PAIR], index, aligner, corroborate=False) == \
        {pair_of("a1"): 1, pair_of("a2"): 1}


# ---- verification (step 2) ---------------------------------------------------------------

def _verify(index, u1, u2):
    t1 = build_tree(index[u1].html, u1)
    t2 = build_tree(index[u2].html, u2)
    return verify_pair(TreeAligner().align(t1, t2), t1, t2, index[u1].text, index[u2].text)


def test_verify_accepts_translations(index):
    for key in ARTICLES:
        ok, numbers = _verify(index, *pair_of(key))
        assert ok, (key, numbers)
        assert numbers["aligned"] >= 0.6 and numbers["anchors"] >= 0.5


def test_verify_rejects_other_articles_of_the_same_template(index):
    ok, numbers = _verify(index, URLS["a1"]["en"], URLS["a3"]["fr"])
    assert not ok, numbers
    assert numbers["anchors"] < 0.5


# ---- one pair of the crawl's round (a pool worker's job) ----------------------------------

def _task(index, u1, u2, html_2=None):
    p1, p2 = index[u1], index[u2]
    return u1, p1.html, p1.text, u2, html_2 if html_2 is not None else p2.html, p2.text


def test_round_pair_verifies_counts_and_proposes_from_the_pages(index):
    aligner = TreeAligner()
    ok, counts, proposals = round_pair(aligner, _task(index, *HOME_PAIR), verify=True,
                                       counts=True, propose=True)
    assert ok is True
    t1, t2 = (build_tree(index[u].html, u) for u in HOME_PAIR)
    assert proposals == link_proposals(aligner.align(t1, t2), *HOME_PAIR)
    assert {pair_of("a1"), pair_of("a2")} <= set(proposals)
    assert counts["L"] > 0 and counts["counts"]
    # other articles of the same template: decoded, and rejected
    ok, counts, proposals = round_pair(aligner, _task(index, URLS["a1"]["en"], URLS["a3"]["fr"]),
                                       verify=True)
    assert ok is False and counts is None and proposals is None


def test_round_pair_counts_only_trees_the_aligner_trains_on(index):
    small = TreeAligner(max_nodes=3)
    assert round_pair(small, _task(index, *HOME_PAIR), counts=True) == (None, None, None)
    ok, counts, _ = round_pair(small, _task(index, *HOME_PAIR), verify=True, counts=True)
    assert ok is not None and counts is None


def test_round_pair_names_what_failed(index):
    u1, u2 = HOME_PAIR
    assert round_pair(TreeAligner(), (u1, index[u1].html, "", u2, None, ""), verify=True) == "tree"
    clear_round_trees()


def test_link_evidence_grows_with_count():
    assert link_evidence(0) == 0.0
    assert link_evidence(1) == 0.5
    assert link_evidence(2) == 0.75
    assert link_evidence(1) < link_evidence(3) < 1.0


def test_a_link_pair_one_of_whose_ends_is_no_page_is_not_followed():
    """An aligned link pair whose Italian end the server answered with a 404 (a
    translation's page linking untranslated pages): its English end is not requested."""
    from collections import Counter

    from bitextcrawl.pages.record import PageRecord
    from bitextcrawl.pages.urls import UrlLanguageTokens
    from bitextcrawl.pairing.link_index import LinkIndex

    class Stats(Counter):
        def inc_value(self, key, n=1):
            self[key] += n

    index = LinkIndex(("en", "it"), lambda url: True, Stats(), 3, 20, UrlLanguageTokens())
    h = "http://t.test"
    index.remember(PageRecord(url=f"{h}/en/download.html", lang="en"))
    index.remember(PageRecord(url=f"{h}/it/download.html", lang="it"))
    index.answered.update({f"{h}/it/CHANGES.it-1.2", f"{h}/en/download.html",
                           f"{h}/it/download.html"})
    proposals = [(f"{h}/en/CHANGES-1.2", f"{h}/it/CHANGES.it-1.2"),
                 (f"{h}/en/CHANGES-1.4", f"{h}/it/CHANGES.it-1.4")]
    targets = index.follow(proposals, f"{h}/en/download.html", f"{h}/it/download.html")
    assert [url for url, _, _ in targets] == [f"{h}/en/CHANGES-1.4", f"{h}/it/CHANGES.it-1.4"]
    assert index.stats["bitext/parallel_links/end_missing"] == 1
    # the crawl's learning says the Italian change logs lead nowhere (their family of
    # links gave only errors): no end of theirs is requested either
    index.leads_nowhere = lambda url: "/it/CHANGES" in url
    more = [(f"{h}/en/CHANGES-1.6", f"{h}/it/CHANGES.it-1.6")]
    assert index.follow(more, f"{h}/en/download.html", f"{h}/it/download.html") == []
    assert index.stats["bitext/parallel_links/end_missing"] == 2


# ---- corroboration: lists in each language's own order ----------------------------------

def _listing(lang: str, items: list[tuple[str, str]], extra: str = "") -> str:
    """A page whose content is one list of links (href, text), in the order given."""
    lis = "".join(f'<li><a href="{h}">{t}</a></li>' for h, t in items)
    return page(lang, UI[lang]["title"], f"<h1>{UI[lang]['latest']}</h1><ul>{lis}</ul>{extra}",
                None)


ENTRIES = [  # (key, English item, French item): no word in common
    ("e1", "The bridge opens", "Le pont ouvre"),
    ("e2", "A museum for children", "Un musée pour les enfants"),
    ("e3", "The market moves", "Le marché déménage"),
    ("e4", "A new library", "Une nouvelle bibliothèque"),
]


def _entry(key, lang):
    return f"{H}/{lang}/{key}.html"


def _list_index(fr_order, en_text=None, fr_text=None):
    """Two listing pages (the pair) and the entries' own pages, French items in ``fr_order``."""
    en_items = [(_entry(k, "en"), (en_text or {}).get(k, e)) for k, e, _ in ENTRIES]
    by_key = {k: (_entry(k, "fr"), (fr_text or {}).get(k, f)) for k, _, f in ENTRIES}
    out = {f"{H}/en/list.html": build_record(f"{H}/en/list.html", _listing("en", en_items)),
           f"{H}/fr/list.html": build_record(f"{H}/fr/list.html",
                                             _listing("fr", [by_key[k] for k in fr_order]))}
    for key, en, fr in ENTRIES:
        for lang, title in (("en", en), ("fr", fr)):
            out[_entry(key, lang)] = build_record(_entry(key, lang), page(
                lang, title, f"<h1>{title}</h1><p>{title}.</p>", None))
    return out


LIST_PAIR = (f"{H}/en/list.html", f"{H}/fr/list.html")
SAME_ORDER = ["e1", "e2", "e3", "e4"]
OWN_ORDER = ["e3", "e1", "e4", "e2"]   # as a French sort of the French titles would put them


def test_a_list_nothing_confirms_proposes_nothing():
    # Shi et al.'s scheme pairs the items by position: in their own order, all wrong.
    index = _list_index(OWN_ORDER)
    blind = parallel_link_pairs([LIST_PAIR], index, corroborate=False)
    assert blind and not any(k == (_entry(e, "en"), _entry(e, "fr")) for e in ("e1", "e2")
                             for k in blind)
    assert parallel_link_pairs([LIST_PAIR], index) == {}


def test_an_item_of_a_sure_pair_confirms_the_order_of_its_list():
    index = _list_index(SAME_ORDER)
    sure = (_entry("e1", "en"), _entry("e1", "fr"))
    counts = parallel_link_pairs([LIST_PAIR, sure], index)
    assert {(_entry(k, "en"), _entry(k, "fr")) for k in ("e2", "e3", "e4")} <= set(counts)
    assert all(a.rsplit("/", 1)[1] == b.rsplit("/", 1)[1] for a, b in counts)


def test_a_sure_pair_out_of_place_stops_the_order_of_its_list():
    index = _list_index(OWN_ORDER)
    sure = (_entry("e1", "en"), _entry("e1", "fr"))
    counts = parallel_link_pairs([LIST_PAIR, sure], index)
    assert all(a.rsplit("/", 1)[1] == b.rsplit("/", 1)[1] for a, b in counts)
    assert (_entry("e2", "en"), _entry("e2", "fr")) not in counts


def test_reordered_items_match_by_what_they_say_as_a_guess():
    # Names and numbers the translation keeps: the items match as a set, not by position.
    names = {"e1": "Pont Lafayette 1887", "e2": "Musée Gadagne", "e3": "Halles Bocuse",
             "e4": "Bibliothèque Part-Dieu"}
    en = {k: f"{names[k]} opens" for k in names}
    fr = {k: f"Ouverture : {names[k]}" for k in names}
    index = _list_index(OWN_ORDER, en, fr)
    counts = parallel_link_pairs([LIST_PAIR], index)
    assert counts == {(_entry(k, "en"), _entry(k, "fr")): 1 for k in SAME_ORDER}
    # the same list in the same order: its items confirm its order
    same = parallel_link_pairs([LIST_PAIR], _list_index(SAME_ORDER, en, fr))
    assert same == {(_entry(k, "en"), _entry(k, "fr")): 1 for k in SAME_ORDER}


def test_a_template_list_on_every_page_counts_once():
    # Two pairs whose pages carry the same list: one observation, not two.
    index = _list_index(SAME_ORDER)
    for lang in ("en", "fr"):
        index[f"{H}/{lang}/list2.html"] = build_record(f"{H}/{lang}/list2.html",
                                                       index[f"{H}/{lang}/list.html"].html)
    sure = (_entry("e1", "en"), _entry("e1", "fr"))
    counts = parallel_link_pairs([LIST_PAIR, (f"{H}/en/list2.html", f"{H}/fr/list2.html"), sure],
                                 index)
    assert counts[(_entry("e2", "en"), _entry("e2", "fr"))] == 1
