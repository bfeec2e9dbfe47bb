"""Walk the small side, guess the big side (sites/small_side.py)."""

from __future__ import annotations

from bitextcrawl.focus.marks import marks
from bitextcrawl.sites.small_side import SmallSide

H = "http://t.test"


def lang_of(url: str):
    return "fr" if "/fr/" in url else "en" if "/en/" in url else None


def swap(url: str, lang: str, other: str):
    return url.replace(f"/{lang}/", f"/{other}/", 1) if f"/{lang}/" in url else None


def partial_site(side: SmallSide, english: int = 40, french: int = 6) -> None:
    """An English index linking ``english`` pages; a French one linking ``french``."""
    for i in range(english):
        side.see(f"{H}/en/p{i}.html")
    for i in range(french):
        side.see(f"{H}/fr/p{i}.html")
    for lang in ("en", "fr"):                   # each side's home and indexes fetched
        for i in range(3):
            side.found(f"{H}/{lang}/index{i}.html", lang)


def test_a_big_side_page_waits_for_its_counterpart():
    side = SmallSide(("en", "fr"), swap, lang_of)
    assert side.small() is None                 # nothing known yet
    for i in range(40):                         # the start page links its own language
        side.see(f"{H}/en/p{i}.html")
    side.found(f"{H}/fr/p0.html", "fr")
    assert side.small() is None                 # a side is sized by its own pages' links
    partial_site(side)
    assert side.small() == "fr"
    page = f"{H}/en/p3.html"
    assert not side.worth(page, "en")           # its counterpart is only linked so far
    assert side.worth(f"{H}/fr/p3.html", "fr")  # the small side is always worth it
    assert side.worth(f"{H}/x/p3.html", None)   # a URL that names no language
    side.hold(page, "en", "request-p3")
    assert side.found(f"{H}/fr/p1.html") == []
    assert side.found(f"{H}/fr/p3.html") == ["request-p3"]
    assert side.worth(page, "en") and not side.held


def test_sides_of_a_size_hold_nothing():
    side = SmallSide(("en", "fr"), swap, lang_of)
    partial_site(side, english=40, french=30)
    assert side.small() is None
    assert side.worth(f"{H}/en/p3.html", "en")


def test_probes_go_on_while_they_reveal_the_small_side_then_stop():
    side = SmallSide(("en", "fr"), swap, lang_of, first_probe=4)
    partial_site(side)
    for i in range(10, 40):
        side.hold(f"{H}/en/p{i}.html", "en", f"r{i}")
    first = side.probe()
    assert len(first) == 4 and len(side.held) == 26
    # the probed pages' switches reveal French pages nobody linked before
    for i in range(10, 12):
        side.see(f"{H}/fr/p{i}.html")
    second = side.probe()
    assert len(second) == 8                      # twice as big
    assert side.probe() == [] and side.done      # this one revealed nothing: the rest stay
    assert len(side.held) == 18


def test_held_pages_go_when_the_site_proves_not_partly_translated():
    side = SmallSide(("en", "fr"), swap, lang_of)
    partial_site(side)
    side.hold(f"{H}/en/p20.html", "en", "r20")
    for i in range(6, 40):                       # the French side turns out as big
        side.see(f"{H}/fr/p{i}.html")
    assert side.probe() == ["r20"]


def test_counterparts_found_again_when_the_url_tokens_change():
    """A request held before the small side's token was known waits for nothing; once it
    is, its counterpart fetched already releases it."""
    known = {"en": "en"}

    def late_swap(url, lang, other):
        return swap(url, lang, other) if other in known else None

    side = SmallSide(("en", "fr"), late_swap, lang_of)
    partial_site(side)
    side.found(f"{H}/fr/p2.html")
    side.hold(f"{H}/en/p2.html", "en", "r2")
    assert side.held[f"{H}/en/p2.html"][2] is None
    known["fr"] = "fr"
    assert side.relearn() == ["r2"]


def test_a_language_code_stands_for_a_token_not_learned_yet():
    from bitextcrawl.pages.urls import UrlLanguageTokens

    tokens = UrlLanguageTokens(min_pages=3)
    for i in range(3):
        tokens.learn(f"{H}/en/p{i}.html", "en")
        tokens.learn(f"{H}/x/q{i}.html", "de")
    assert tokens.swap(f"{H}/en/a.html", "en", "ja") is None
    assert tokens.swap_codes(f"{H}/en/a.html", "en", "ja") == f"{H}/ja/a.html"


def test_a_translation_at_opaque_urls_is_not_sized_by_its_urls():
    """French pages at /p/<hash>.html: the few French URLs that name French (its home)
    say nothing of the side's size, and nothing is held."""
    side = SmallSide(("en", "fr"), swap, lang_of)
    for i in range(40):
        side.see(f"{H}/en/p{i}.html")
    side.see(f"{H}/fr/index.html")
    side.see(f"{H}/fr/about.html")
    side.found(f"{H}/en/index.html", "en")
    side.found(f"{H}/fr/index.html", "fr")
    assert side.small() == "fr"                  # so far, French URLs name French
    for i in range(3):
        side.found(f"{H}/p/{i:04x}.html", "fr")
    assert side.small() is None
    assert side.worth(f"{H}/en/p5.html", "en")


def test_a_language_no_link_names_is_probed_at_the_start_urls_counterpart():
    """The English start page links no French page: its URL with the code swapped is
    probed, once; everything else waits until the probe and its page's French links
    are answered, then only what is worth fetching goes."""
    side = SmallSide(("en", "fr"), swap, lang_of)
    links = [f"{H}/en/p{i}.html" for i in range(40)] + [f"{H}/news.html"]
    side.found(f"{H}/en/", "en")
    side.links(f"{H}/en/", "en", links)
    assert side.lang_probes_for(f"{H}/en/", "en", set(links)) == [(f"{H}/fr/", "fr")]
    assert side.lang_probes_for(f"{H}/en/", "en", set(links)) == []   # one at a time
    assert side.holds(f"{H}/en/p3.html", "en") == (True, None)   # sizing: all wait
    assert side.holds(f"{H}/news.html", None) == (True, None)
    assert side.holds(f"{H}/fr/", "fr") == (False, None)
    side.hold(f"{H}/en/p3.html", "en", "r3")
    side.hold(f"{H}/en/p7.html", "en", "r7")
    side.hold(f"{H}/news.html", None, "news")
    # the French home links 4 French pages, one of which does not exist
    fr_links = [f"{H}/fr/p{i}.html" for i in (3, 4, 5, 6)] + [f"{H}/en/"]
    assert side.found(f"{H}/fr/", "fr") == []
    side.links(f"{H}/fr/", "fr", fr_links)
    assert side.answered(f"{H}/fr/", fr_links) == []    # its French links still out
    assert side.holds(f"{H}/en/p7.html", "en") == (True, None)
    assert side.gone(f"{H}/fr/p6.html") == []
    for i in (3, 4):
        assert side.found(f"{H}/fr/p{i}.html", "fr") == []
    # the last one answered: the sides are known, French is small; p3's counterpart
    # is fetched, p7's is not, and the neutral page has no counterpart by the pattern
    assert side.found(f"{H}/fr/p5.html", "fr") == ["r3"]
    assert side.small() == "fr"
    assert side.held[f"{H}/en/p7.html"][2] == f"{H}/fr/p7.html"
    assert side.holds(f"{H}/news.html", None) == (True, None)
    assert f"{H}/news.html" in side.held
    assert side.lang_probes_for(f"{H}/en/p1.html", "en", set()) == []   # French is found


def test_a_failed_language_probe_releases_what_waited_and_is_not_repeated():
    side = SmallSide(("en", "fr"), swap, lang_of, max_lang_probes=2)
    side.found(f"{H}/en/", "en")
    side.links(f"{H}/en/", "en", [f"{H}/en/p{i}.html" for i in range(10)])
    assert side.lang_probes_for(f"{H}/en/", "en", set()) == [(f"{H}/fr/", "fr")]
    side.hold(f"{H}/en/p1.html", "en", "r1")
    assert side.answered(f"{H}/fr/") == ["r1"]          # no French side found there
    assert side.lang_probes_for(f"{H}/en/", "en", set()) == []   # not repeated
    assert side.lang_probes_for(f"{H}/en/p1.html", "en", set()) == [(f"{H}/fr/p1.html", "fr")]
    side.answered(f"{H}/fr/p1.html")
    assert side.lang_probes_for(f"{H}/en/p2.html", "en", set()) == []   # at most two


def test_no_dry_probe_where_the_big_sides_pages_revealed_nothing():
    """The big side's pages fetched so far (counterparts) linked no small-side URL that
    was not known: they were the probe, and nothing more of the big side is fetched."""
    side = SmallSide(("en", "fr"), swap, lang_of, first_probe=4)
    partial_site(side)
    for i in range(4):
        side.links(f"{H}/en/p{i}.html", "en", [f"{H}/en/p{i + 10}.html", f"{H}/fr/p1.html"])
    side.hold(f"{H}/en/p20.html", "en", "r20")
    assert side.probe() == [] and side.done
    other = SmallSide(("en", "fr"), swap, lang_of, first_probe=4)
    partial_site(other)
    for i in range(4):     # each linked a French page nobody else had
        other.links(f"{H}/en/p{i}.html", "en", [f"{H}/fr/q{i}.html"])
    other.hold(f"{H}/en/p20.html", "en", "r20")
    assert other.probe() == ["r20"]


def test_links_a_section_index_leaves_out_size_no_side():
    """A translated download page links a change log per release, none of them written:
    the index of their section names none, so they do not make the translation look as
    big as the original (its held pages would go out); one found counts."""
    unlisted: set = set()
    side = SmallSide(("en", "fr"), swap, lang_of)
    side.unlisted = lambda url: url in unlisted
    partial_site(side)
    assert side.small() == "fr"
    logs = [f"{H}/fr/CHANGES.fr-1.{i}" for i in range(20)]
    unlisted.update(logs[:10])
    side.links(f"{H}/fr/download.html", "fr", logs[:10])
    assert side.small() == "fr"                  # the index leaves them out
    unlisted.update(logs[10:])                    # ... links seen before the index came
    side.links(f"{H}/fr/other.html", "fr", logs[10:])
    side.unlisted = lambda url: False
    side.recount()
    assert side.small() is None
    side.unlisted = lambda url: url in unlisted
    side.recount()                                # an index came in
    assert side.small() == "fr"
    known = side.sizes["fr"]
    side.found(logs[0], "fr")                     # an unlisted page that exists counts
    assert side.sizes["fr"] == known + 1
    side.gone(logs[1])                            # (an error it was, and stays uncounted)
    assert side.sizes["fr"] == known + 1 and logs[1] not in side.uncounted
    unlisted.add(f"{H}/fr/linux_packages.html")   # a page no link named, fetched: counts
    side.found(f"{H}/fr/linux_packages.html", "fr")
    assert side.sizes["fr"] == known + 2


def test_a_variant_named_by_its_tag_in_the_urls_is_walked_as_the_small_side():
    """A partial translation under ``/pt-br/``: its tag is one URL token, the counterpart
    of ``/en/X`` is ``/pt-br/X`` (not ``/pt/X`` nor ``/br/X``), and a held English page is
    released once its ``/pt-br/`` counterpart is fetched."""
    from bitextcrawl.focus.evidence import LinkEvidence
    from bitextcrawl.pages.urls import UrlLanguageTokens

    tokens = UrlLanguageTokens(min_pages=3)
    evidence = LinkEvidence(("en", "pt-br"), tokens)
    # before any page is learned, the tag is the code the crawl asked for
    assert evidence.url_lang(f"{H}/pt-br/common/a.html") == "pt-br"
    for i in range(5):
        tokens.learn(f"{H}/en/common/p{i}.html", "en")
        tokens.learn(f"{H}/pt-br/common/p{i}.html", "pt-br")
    assert tokens.token_of("pt-br") == "pt-br"
    assert evidence.swap(f"{H}/en/common/a.html", "en", "pt-br") == f"{H}/pt-br/common/a.html"
    assert evidence.swap(f"{H}/pt-br/common/a.html", "pt-br", "en") == f"{H}/en/common/a.html"
    side = SmallSide(("en", "pt-br"), evidence.swap, evidence.url_lang)
    for i in range(40):
        side.see(f"{H}/en/common/p{i}.html")
    for i in range(6):
        side.see(f"{H}/pt-br/common/p{i}.html")
    for lang in ("en", "pt-br"):
        for i in range(3):
            side.found(f"{H}/{lang}/index{i}.html", lang)
    assert side.small() == "pt-br"
    assert not side.worth(f"{H}/en/common/p3.html", "en")
    side.hold(f"{H}/en/common/p3.html", "en", "r3")
    assert side.found(f"{H}/pt-br/common/p3.html", "pt-br") == ["r3"]


def test_a_language_no_page_came_in_of_is_probed_when_a_crawl_of_three_runs_dry():
    """langs=en,ru,it from /en/, nothing linking an Italian page: once the crawl runs dry,
    the start page's URL with the code swapped, then the next page's; none once Italian
    is found, nor for a language whose pages came in."""
    from bitextcrawl.sites.small_side import LanguageProbes

    probes = LanguageProbes(("en", "ru", "it"), swap)
    probes.page(f"{H}/en/", "en")
    probes.page(f"{H}/en/p1.html", "en")
    probes.page(f"{H}/ru/", "ru")
    assert probes.idle(set()) == [(f"{H}/it/", "it")]
    # the probe found nothing (an error): the next page's counterpart, then no more
    assert probes.idle({f"{H}/it/"}) == [(f"{H}/it/p1.html", "it")]
    assert probes.idle({f"{H}/it/", f"{H}/it/p1.html"}) == []
    found = LanguageProbes(("en", "ru", "it"), swap)
    found.page(f"{H}/en/", "en")
    found.page(f"{H}/ru/", "ru")
    found.page(f"{H}/it/a.html", "it")
    assert found.idle(set()) == []


def test_the_walk_probes_a_missing_language_in_a_crawl_of_three():
    from bitextcrawl.focus.walk import SmallSideWalk

    class Stats:
        def __init__(self):
            self.values = {}

        def inc_value(self, key, n=1):
            self.values[key] = self.values.get(key, 0) + n

    class Page:
        def __init__(self, url, lang):
            self.url, self.lang, self.links, self.requested_url = url, lang, [], None

    class Evidence:
        swap = staticmethod(swap)

    made = []
    walk = SmallSideWalk(True, lambda: ("en", "ru", "it"), lambda: True, Evidence(), set(),
                         Stats(), made.append, lambda url, **meta: (url, meta), 10)
    walk.page(Page(f"{H}/en/", "en"), lambda url: True)
    walk.page(Page(f"{H}/ru/", "ru"), lambda url: True)
    assert walk.side is None
    [(url, meta)] = walk.idle()
    assert url == f"{H}/it/" and marks(meta).lang_probe == "it" and marks(meta).released
    assert walk.stats.values == {"bitext/focus/lang_probes": 1}
