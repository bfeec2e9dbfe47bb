"""Bar absence (focus/bars.py): links a counterpart's bar of alternates leaves out, or
whose counterpart URL answered no translation, are kept once tests confirmed the rule,
and all released the moment one turns out a translation."""

from __future__ import annotations

from scrapy import Request

from bitextcrawl.focus.bars import FETCH, KEEP, TEST, BarAbsence


def swap(url: str, lang: str, other: str):
    token = f"/{lang}/"
    return url.replace(token, f"/{other}/") if token in url else None


def lang_of(url: str):
    return "ja" if "/ja/" in url else "en" if "/en/" in url else None


def site_with_bars(translated=("a", "b"), untranslated=("c", "d", "e", "f", "g")):
    bars = BarAbsence(lambda: ("en", "ja"))
    for page in translated:
        bars.observe(f"http://s/en/{page}.html", "en", {"en", "ja", "fr"})
    for page in untranslated:
        bars.observe(f"http://s/en/{page}.html", "en", {"en", "fr"})
    return bars


def test_bar_leaving_a_language_out_is_tested_then_believed():
    bars = site_with_bars()
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    assert bars.judge("http://s/ja/a.html", "ja", swap) == FETCH   # the bar names ja
    verdicts = [bars.judge(u, "ja", swap, request=u) for u in urls]
    assert verdicts == [TEST, TEST, TEST, KEEP, KEEP]
    for u in urls[:3]:   # fallback copies: English pages under /ja/
        assert bars.answered(u, "ja", False, set(), swap) == []
    assert bars.believed()
    assert bars.judge("http://s/ja/zz.html", "ja", swap) == FETCH   # no counterpart known
    assert set(bars.kept) == set(urls[3:])
    assert bars.stalled() == []   # believed: the kept ones stay


def test_one_real_translation_releases_every_kept_link():
    bars = site_with_bars()
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    for u in urls:
        bars.judge(u, "ja", swap, request=u)
    bars.answered(urls[0], "ja", False, set(), swap)
    released = bars.answered(urls[1], "ja", True, set(), swap)
    assert sorted(released) == urls[3:]
    assert bars.refuted and not bars.believed()
    assert bars.judge("http://s/ja/h.html", "ja", swap) == FETCH


def test_a_confirmation_lets_the_next_kept_link_out_as_a_test():
    bars = site_with_bars()
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    for u in urls:
        bars.judge(u, "ja", swap, request=u)
    # a test held by another rule never comes back; the crawl ran dry unlearned
    assert bars.answered(urls[0], "ja", False, set(), swap) == []   # 1 confirmed, 2 out
    assert sorted(bars.stalled()) == urls[3:]


def test_bars_that_never_name_the_language_say_nothing():
    bars = site_with_bars(translated=())
    assert bars.judge("http://s/ja/c.html", "ja", swap) == FETCH


def test_a_dead_counterpart_is_refuted_only_by_a_page_leading_into_its_language():
    bars = BarAbsence(lambda: ("en", "ja"))
    for p in "abcde":
        bars.not_a_translation(f"http://s/ja/{p}.html")
    en = [f"http://s/en/{p}.html" for p in "abcde"]
    assert [bars.judge(u, "en", swap, request=u) for u in en] == [TEST] * 3 + [KEEP] * 2
    # a real English page without a link into Japanese confirms
    assert bars.answered(en[0], "en", True, {"fr"}, swap) == []
    # one that switches into Japanese after all refutes
    assert sorted(bars.answered(en[1], "en", True, {"ja"}, swap)) == en[3:]
    assert bars.judge("http://s/en/f.html", "en", swap) == FETCH


def _watch(first_urls: dict):
    """A BarWatch over ``BarAbsence`` whose items' contents were first seen at
    ``first_urls[item url]`` (absent: the item is the first)."""
    from types import SimpleNamespace

    from bitextcrawl.focus.bars import BarWatch
    bars = BarAbsence(lambda: ("en", "ja"))
    evidence = SimpleNamespace(url_lang=lang_of, swap=swap)
    watch = BarWatch(bars, evidence, lambda item: first_urls.get(item.url), lambda: ("en", "ja"),
                     set(), None, lambda request: None)
    return bars, watch


def _item(url: str, lang: str):
    from types import SimpleNamespace
    return SimpleNamespace(url=url, requested_url=url, lang=lang, hreflang={}, links=[])


def test_a_fallback_copy_of_another_languages_page_makes_its_url_dead():
    bars, watch = _watch({"http://s/ja/a.html": "http://s/en/a.html"})
    watch.page(_item("http://s/ja/a.html", "ja"))   # declared ja, content of /en/a.html
    assert "http://s/ja/a.html" in bars.dead


def test_a_translation_served_under_two_names_is_no_dead_url():
    # the site serves one Japanese page under two of its own URLs: the second name's
    # English counterpart may well exist (it is another page)
    bars, watch = _watch({"http://s/ja/b.html": "http://s/ja/a.html"})
    watch.page(_item("http://s/ja/b.html", "ja"))
    assert not bars.dead
    assert bars.judge("http://s/en/b.html", "en", swap) == FETCH


def test_a_404_counterpart_keeps_pages_once_tests_lead_nowhere():
    bars = BarAbsence(lambda: ("en", "ja"))
    for p in "abcde":
        bars.missing_page(f"http://s/ja/{p}.html")
    en = [f"http://s/en/{p}.html" for p in "abcde"]
    assert [bars.judge(u, "en", swap, request=u) for u in en] == [TEST] * 3 + [KEEP] * 2
    for u in en[:3]:   # untranslated English pages: no way into Japanese
        assert bars.answered(u, "en", True, {"fr"}, swap) == []
    assert bars.believed() and set(bars.kept) == set(en[3:])


def test_a_404_counterpart_is_refuted_by_a_page_switching_into_its_language():
    # the site's pair sits at another URL than the swapped one: the page says so
    bars = BarAbsence(lambda: ("en", "ja"))
    for p in "abcde":
        bars.missing_page(f"http://s/ja/{p}.html")
    en = [f"http://s/en/{p}.html" for p in "abcd"]
    for u in en:
        bars.judge(u, "en", swap, request=u)
    assert bars.answered(en[0], "en", True, {"ja"}, swap) == [en[3]]
    assert bars.judge("http://s/en/e.html", "en", swap) == FETCH


def test_workers_of_one_crawl_share_a_rules_three_tests():
    """The test slots of a rule are the crawl's: two workers send three tests in all."""
    from bitextcrawl.focus.bars import _Learned
    from tests.conftest import first_claims

    claim = first_claims()
    a, b = _Learned(3, claim), _Learned(3, claim)
    verdicts = [w.judge(f"http://s/en/{i}.html", None) for i, w in enumerate((a, b, a, b, a))]
    assert verdicts.count("test") == 3 and verdicts.count("keep") == 2


# ---- rule LISTED: an index whose items' words follow the translations -------------------

def _listing_watch():
    """A BarWatch whose list items' words are in the language their last word names
    (the unit tests' stand-in for lid.176), and the requests it schedules."""
    from types import SimpleNamespace

    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from bitextcrawl.focus.bars import BarWatch
    bars = BarAbsence(lambda: ("en", "ja"))
    evidence = SimpleNamespace(url_lang=lang_of, swap=swap)
    scheduled = []
    stats = MemoryStatsCollector(get_crawler())
    watch = BarWatch(bars, evidence, lambda item: None, lambda: ("en", "ja"), set(), stats,
                     scheduled.append, words_lang=lambda words: words.split()[-1])
    return bars, watch, scheduled, stats


def _index(url: str, lang: str, items: dict, switches=()):
    from types import SimpleNamespace
    links = [{"url": u, "text": "", "hreflang": None} for u in items]
    links += [{"url": u, "text": "", "hreflang": "en"} for u in switches]
    return SimpleNamespace(url=url, requested_url=url, lang=lang, hreflang={}, links=links,
                           derived={"link_items": tuple(items.items())})


JA_INDEX = {"http://s/ja/a.html": "description ja", "http://s/ja/b.html": "description ja",
            "http://s/ja/c.html": "description en", "http://s/ja/d.html": "description en",
            "http://s/ja/e.html": "description en", "http://s/ja/f.html": "description en",
            "http://s/ja/g.html": "description en"}


def test_an_index_describing_pages_in_the_other_language_keeps_them_once_tested():
    bars, watch, _, stats = _listing_watch()
    watch.page(_index("http://s/ja/index.html", "ja", JA_INDEX))
    assert set(bars.listed) == {f"http://s/ja/{p}.html" for p in "cdefg"}
    assert stats.get_value("bitext/focus/bar_absence/listed") == 5
    assert bars.judge("http://s/ja/a.html", "ja", swap) == FETCH   # described in Japanese
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    assert [bars.judge(u, "ja", swap, request=u) for u in urls] == [TEST, TEST, TEST, KEEP, KEEP]
    for u in urls[:3]:   # fallback copies: English pages under /ja/
        watch.page(_index(u, "en", {}))
    assert bars.believed()
    # their English counterparts have nothing to pair with either: kept, not tested
    assert bars.judge("http://s/en/g.html", "en", swap, request="en-g") == KEEP
    assert bars.judge("http://s/en/a.html", "en", swap) == FETCH


def test_a_listed_page_that_is_a_translation_releases_everything_the_rule_kept():
    bars, watch, scheduled, _ = _listing_watch()
    watch.page(_index("http://s/ja/index.html", "ja", JA_INDEX))
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    for u in urls:
        bars.judge(u, "ja", swap, request=Request(u))
    watch.page(_index(urls[0], "ja", {}))   # a page of its own, in Japanese
    assert bars.rules["listed"].refuted
    assert sorted(r.url for r in scheduled) == urls[3:]
    assert bars.judge("http://s/en/g.html", "en", swap) == FETCH


def test_the_counterpart_of_a_listed_url_is_refuted_only_by_a_page_leading_into_it():
    bars, watch, _, _ = _listing_watch()
    watch.page(_index("http://s/ja/index.html", "ja", JA_INDEX))
    assert bars.judge("http://s/en/c.html", "en", swap, request="en-c") == TEST
    bars.answered("http://s/en/c.html", "en", True, set(), swap)   # English, no way into ja
    assert not bars.rules["listed"].refuted and bars.rules["listed"].confirmed == 1
    assert bars.judge("http://s/en/d.html", "en", swap, request="en-d") == TEST
    bars.answered("http://s/en/d.html", "en", True, {"ja"}, swap)   # its bar names ja
    assert bars.rules["listed"].refuted


def test_a_switch_naming_a_kept_url_sends_it():
    bars, watch, scheduled, _ = _listing_watch()
    watch.page(_index("http://s/ja/index.html", "ja", JA_INDEX))
    urls = [f"http://s/ja/{p}.html" for p in "cdefg"]
    for u in urls[:3]:
        bars.judge(u, "ja", swap, request=Request(u))
        watch.page(_index(u, "en", {}))
    assert bars.judge(urls[4], "ja", swap, request=Request(urls[4])) == KEEP
    watch.page(_index("http://s/en/g.html", "en", {}, switches=[urls[4]]))
    assert [r.url for r in scheduled] == [urls[4]]
    assert urls[4] not in bars.listed


def test_an_index_in_one_language_throughout_says_nothing():
    bars, watch, _, _ = _listing_watch()
    one_language = {u: "description ja" for u in JA_INDEX}
    one_language["http://s/ja/g.html"] = "description en"   # one misread item
    watch.page(_index("http://s/ja/index.html", "ja", one_language))
    assert not bars.listed and not bars.active()
    english = {u: "description en" for u in JA_INDEX}
    watch.page(_index("http://s/ja/index2.html", "ja", english))   # an untranslated list
    assert not bars.listed


def test_the_english_page_behind_a_tested_fallback_copy_waits_for_the_listing_rule():
    # the test found a fallback copy: its counterpart is dead as well as listed; the
    # listing rule, its tests out, keeps it (DEAD, not learned, would fetch it as a test)
    bars, watch, _, _ = _listing_watch()
    watch.page(_index("http://s/ja/index.html", "ja", JA_INDEX))
    urls = [f"http://s/ja/{p}.html" for p in "cde"]
    for u in urls:
        assert bars.judge(u, "ja", swap, request=Request(u)) == TEST
    watch.page(_index(urls[0], "en", {}))   # the fallback copy of /en/c.html
    assert urls[0] in bars.dead
    assert bars.judge("http://s/en/c.html", "en", swap, request=Request("http://s/en/c.html")) \
        == KEEP
