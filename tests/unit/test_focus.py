"""Focused crawling and deep-recovery budget: the parts testable without a crawl."""

from __future__ import annotations

import pytest
from scrapy import Request, signals
from scrapy.http import HtmlResponse
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from bitextcrawl.focus.marks import carrying, marks
from bitextcrawl.middlewares.focus import FocusMiddleware
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.urls import UrlLanguageTokens
from bitextcrawl.pairing.recovery import Direction, index_aliases
from bitextcrawl.pairing.url_patterns import UrlPatternLearner
from bitextcrawl.pipelines.pairing import UrlPairingPipeline
from bitextcrawl.pipelines.store import PageStorePipeline
from bitextcrawl.spiders.bitext import BitextSpider, skip_extensions

H = "http://www.example.org"


def make_crawler(tmp_path, langs="en,zh", **settings):
    crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / "out"),
                                         "BITEXT_PATTERN_DB": str(tmp_path / "db.json"),
                                         **settings})
    crawler.stats = MemoryStatsCollector(crawler)
    crawler.spider = BitextSpider.from_crawler(crawler, start_url=f"{H}/cn/", langs=langs)
    return crawler


def with_engine(crawler) -> list:
    """Give ``crawler`` an engine that keeps what is scheduled (a language probe, a
    released request); the list of it."""
    scheduled: list = []
    crawler.engine = type("Engine", (), {"crawl": lambda self, r: scheduled.append(r)})()
    return scheduled


def stop_cleanly(crawler):
    """The spider closes: the focus's counts and the crawl state (its section) are kept."""
    crawler.signals.send_catch_log(signals.spider_closed, spider=crawler.spider,
                                   reason="finished")


def response_of(url, lang, discovered_by="link", **meta):
    page = PageRecord(url=url, lang=lang, discovered_by=discovered_by)
    request = Request(url, meta={"bitext_page": page, "bitext_discovered_by": discovered_by,
                                 **meta})
    return HtmlResponse(url, body=b"<html></html>", request=request), page


def made(mw, page, response=None):
    """A page record as the spider makes it: learned once by the crawl state, then the
    focus sees it."""
    mw.context.state.learn_page(page)
    return mw.get_processed_item(page, response)


def link_request(url, text=""):
    return Request(url, meta={"bitext_link": {"url": url, "text": text, "hreflang": None}})


def test_url_tokens_swap_one_language_token():
    t = UrlLanguageTokens(min_pages=2, purity=0.9)
    for i in range(3):
        t.learn(f"{H}/en/docs/a{i}.html", "en")
        t.learn(f"{H}/cn/docs/a{i}.html", "zh")
    assert t.swap(f"{H}/cn/docs/x.html?v=1", "zh", "en") == f"{H}/en/docs/x.html?v=1"
    assert t.swap(f"{H}/docs/x.html", "zh", "en") is None   # no token to swap
    assert t.swap(f"{H}/cn/docs/x.html", "zh", "ru") is None  # no token known for ru


def test_url_tokens_version_counts_the_pages_that_change_a_token_language():
    t = UrlLanguageTokens(min_pages=2, purity=0.9)
    for i in range(3):
        t.learn(f"{H}/en/a{i}.html", "en")
    # one language seen: no token names it yet
    assert t.version == 0 and t.token_lang("en") is None
    # the first page of a second language: ``en`` names English, though not in its URL
    t.learn(f"{H}/cn/a0.html", "zh")
    assert t.version == 1 and t.token_lang("en") == "en"
    t.learn(f"{H}/en/a3.html", "en")     # ``en`` named English already
    assert t.version == 1
    t.learn(f"{H}/cn/a1.html", "zh")     # ``cn`` now names Chinese
    assert t.version == 2 and t.token_lang("cn") == "zh"


def test_link_languages_are_kept_while_no_token_language_changes():
    """The focus's answers for a link are kept across pages that change no token's
    language, and each answer is the one made afresh after every page."""
    import random

    from bitextcrawl.focus.evidence import LinkEvidence

    rng = random.Random(3)
    tokens = UrlLanguageTokens(min_pages=2, purity=0.9)
    evidence = LinkEvidence(("en", "zh"), tokens)
    probes = [f"{H}/{d}/{n}.html" for d in ("en", "cn", "ja", "doc", "en/doc")
              for n in ("a", "faq", "x1")]
    kept = 0
    for step in range(60):
        lang, folder = rng.choice([("en", "en"), ("zh", "cn"), ("en", "doc"), ("zh", "doc")])
        url = f"{H}/{folder}/p{step}.html"
        tokens.learn(url, lang)
        before = dict(evidence.link_langs)
        evidence.learned(url)
        kept += bool(before) and evidence.link_langs == before
        fresh = LinkEvidence(("en", "zh"), tokens)
        fresh.learned(url)
        for probe in probes:
            assert evidence.link_language(probe, None) == fresh.link_language(probe, None)
    assert kept > 30      # most pages change no token's language


def test_index_aliases():
    assert index_aliases(f"{H}/cn/docs/index.html") == [f"{H}/cn/docs/"]
    assert f"{H}/cn/docs/index.html" in index_aliases(f"{H}/cn/docs/")
    assert index_aliases(f"{H}/cn/docs/faq.html") == []


def test_skip_extensions():
    exts = skip_extensions("asc, .tar.gz")
    assert "/download/nginx-1.2.tar.gz".endswith(exts)
    assert "/download/nginx-1.2.zip.asc".endswith(exts)
    assert "/x.png".endswith(exts)               # Scrapy's IGNORED_EXTENSIONS
    assert not "/en/docs/index.html".endswith(exts)
    assert skip_extensions("-") == ()


def test_counterpart_targets_name_the_counterpart_language():
    one = [f"{H}/en/p{i}.html" for i in range(20)]
    lr = UrlPatternLearner(langs=("en", "fr", "de")).fit({
        "en": one, "fr": [u.replace("/en/", "/fr/") for u in one],
        "de": [u.replace("/en/", "/de/") for u in one]})
    got = sorted(lr.counterpart_targets(f"{H}/fr/z.html", "fr"))
    assert [(u, lang) for u, _, lang in got] == [(f"{H}/de/z.html", "de"),
                                                  (f"{H}/en/z.html", "en")]
    assert [u for u, _, _ in lr.counterpart_targets(f"{H}/fr/z.html", "fr", ("en",))] == [
        f"{H}/en/z.html"]


def test_links_of_unwanted_language_pages_need_evidence(tmp_path):
    mw = FocusMiddleware(make_crawler(tmp_path))
    response, _ = response_of(f"{H}/ja/", "ja")
    assert mw.get_processed_request(link_request(f"{H}/ja/docs/"), response) is None
    kept = mw.get_processed_request(link_request(f"{H}/en/", "English"), response)
    assert kept is not None and kept.priority > 0
    assert mw.stats.get_value("bitext/focus/dropped_from_other_lang") == 1
    # the old behaviour: every link, after everything else
    old = FocusMiddleware(make_crawler(tmp_path, BITEXT_FOCUS_OTHER_LANG_LINKS="all"))
    request = old.get_processed_request(link_request(f"{H}/ja/docs/"), response)
    assert request is not None and request.priority < 0
    # pages of unknown language and the start page keep their links
    response, _ = response_of(f"{H}/", "und")
    assert mw.get_processed_request(link_request(f"{H}/ja/docs/"), response) is not None
    response, _ = response_of(f"{H}/ja/", "ja", discovered_by="start")
    assert mw.get_processed_request(link_request(f"{H}/ja/docs/"), response) is not None


def test_same_language_links_held_once_they_yield_nothing(tmp_path):
    crawler = make_crawler(tmp_path, BITEXT_FOCUS_YIELD_ENABLED=True,
                           BITEXT_FOCUS_YIELD_MIN_PAGES=5)
    with_engine(crawler)   # (the English pages link no Chinese one: a language probe)
    mw = FocusMiddleware(crawler)
    mw.pages_by_lang.update({"en": 30, "zh": 10})
    for i in range(10):  # the host is no language's token
        mw.tokens.learn(f"{H}/cn/p{i}.html", "zh")
    for i in range(5):  # five English pages reached from English pages, none paired
        response, page = response_of(f"{H}/en/s{i}.html", "en", **carrying(chain="en"))
        made(mw, page, response)
    response, _ = response_of(f"{H}/en/a.html", "en")
    # no contrast yet: nothing of any language yielded (as on a site with opaque URLs)
    assert not mw.holding.should_hold("en")
    for i in range(3):  # Chinese pages reached from Chinese pages carry switches
        mw._sample(f"{H}/cn/y{i}.html", "zh", yielded=True)
    assert mw.get_processed_request(link_request(f"{H}/en/b.html"), response) is None
    assert mw.held_links() == {"en": [f"{H}/en/b.html"]}
    # a switch into the other wanted language is never held
    switch = mw.get_processed_request(link_request(f"{H}/cn/a.html", "中文"), response)
    assert switch is not None
    # the scarce language is not held either
    response, _ = response_of(f"{H}/cn/a.html", "zh")
    for i in range(5):
        mw._sample(f"{H}/cn/s{i}.html", "zh")
    assert mw.get_processed_request(link_request(f"{H}/cn/b.html"), response) is not None
    # pairs found later bring the yield back: released when the crawl runs dry
    mw.pages_paired([f"{H}/en/s{i}.html" for i in range(3)])
    assert not mw.holding.should_hold("en")


def test_recovery_direction_stops_after_failures_in_a_row(tmp_path):
    crawler = make_crawler(tmp_path, BITEXT_RECOVERY_STOP_AFTER=5)
    pipe = UrlPairingPipeline(crawler)
    key = ("en:en|zh:cn", "en", "zh", "/en/docs/")
    pipe.guesses.batch(key, scarce=False, target_dir_known=True)
    pipe.guesses.pending.update({f"{H}/cn/docs/{i}.html": (key, None) for i in range(7)})
    pipe._outcome(f"{H}/cn/docs/0.html", True)
    for i in range(1, 5):
        pipe._outcome(f"{H}/cn/docs/{i}.html", False)
    assert not pipe.guesses.directions[key].stopped   # 4 in a row
    pipe._outcome(f"{H}/cn/docs/5.html", False)
    assert pipe.guesses.directions[key].stopped       # 5 in a row, 1 of 6 found < 20 %
    assert crawler.stats.get_value("bitext/recovery/stopped_directions") == 1
    # into a folder where no page of the counterpart's language is known: a third
    other = ("en:en|zh:cn", "en", "zh", "/en/docs/stream/")
    assert pipe.guesses.batch(other, scarce=False, target_dir_known=False) == 1


def test_recovery_folders_of_one_pattern_share_its_budget(tmp_path):
    """nginx.org from /cn/: guesses spread over four folders found one hidden page in 13;
    the folders of one pattern now share 2 x STOP_AFTER guesses, and two per page found."""
    crawler = make_crawler(tmp_path, BITEXT_RECOVERY_STOP_AFTER=4)
    pipe = UrlPairingPipeline(crawler)
    pattern = ("en:en|zh:cn", "en", "zh")
    assert pipe.guesses.family_allowance()[pattern] == 8
    for i, folder in enumerate(("/en/", "/en/docs/", "/en/docs/http/")):
        pipe.guesses.directions[pattern + (folder,)] = Direction(tried=3, found=int(i == 1))
    assert pipe.guesses.family_allowance()[pattern] == 8 - 9 + 2
    # another pair of languages keeps its own
    assert pipe.guesses.family_allowance()[("en:en|zh:cn", "zh", "en")] == 8


def test_recovery_guesses_into_a_language_are_paid_by_its_pages(tmp_path):
    """A quarter guess per page stored in the language guessed into (at least one), up
    to 2 x STOP_AFTER: a translation of five pages gets one guess, of 34 the eight."""
    crawler = make_crawler(tmp_path, langs="en,he", BITEXT_RECOVERY_STOP_AFTER=4)
    guesses = UrlPairingPipeline(crawler).guesses
    pattern = ("en:en|he:he", "en", "he")
    assert guesses.family_allowance({"en": 160, "he": 5})[pattern] == 1
    assert guesses.family_allowance({"en": 160, "he": 0})[pattern] == 1
    assert guesses.family_allowance({"en": 160, "he": 34})[pattern] == 8
    guesses.directions[pattern + ("/en/",)] = Direction(tried=1, found=1)
    assert guesses.family_allowance({"en": 160, "he": 5})[pattern] == 1 - 1 + 2


def test_recovery_guesses_links_a_section_index_leaves_out_last(tmp_path):
    """A counterpart that a page links but its section's index leaves out (a link the
    section rule keeps) is guessed after the others of its direction: a probe of four is
    not spent on it where the site already says it is missing, and the hidden page after
    it in URL order is guessed (nginx.org's /cn/docs/dirindex.html, behind control.html
    that the Chinese home links)."""
    crawler = make_crawler(tmp_path, BITEXT_RECOVERY_STOP_AFTER=4)
    mw = FocusMiddleware(crawler)
    pipe = UrlPairingPipeline(crawler)
    names = ["beginners", "configure", "contributing", "control", "dirindex", "example"]
    sources = [(f"{H}/en/docs/{n}.html", "en", True) for n in names]

    def targets(url, lang):
        return [(url.replace("/en/", "/cn/"), "en:en|zh:cn", "zh")]

    mw.sections.kept[f"{H}/cn/docs/control.html"] = (None, f"{H}/cn/")
    assert pipe._doubtful_guess(f"{H}/cn/docs/control.html")
    assert not pipe._doubtful_guess(f"{H}/cn/docs/dirindex.html")
    cands, target_dirs, _ = pipe.guesses.candidates(
        sources, targets, set(), lambda t: False, {}, {}, pipe._doubtful_guess)
    guessed = []
    pipe.guesses.round(cands, target_dirs, {"en": 100, "zh": 30},
                       {("zh", "www.example.org/cn/docs/")}, 10,
                       lambda target, key: guessed.append(target))
    assert guessed == [f"{H}/cn/docs/{n}.html"
                       for n in ("beginners", "configure", "contributing", "dirindex")]


def test_switch_absence_drops_links_the_site_marks_untranslated(tmp_path):
    crawler = make_crawler(tmp_path, langs="en,ru")
    mw = FocusMiddleware(crawler)
    for i in range(12):   # English pages with a switch into Russian
        url = f"{H}/en/p{i}.html"
        page = PageRecord(url=url, lang="en", links=[
            {"url": f"{H}/ru/p{i}.html", "text": "русский", "hreflang": None}])
        made(mw, page, None)
        mw.tokens.learn(f"{H}/ru/p{i}.html", "ru")
    # untranslated: the name without a link; a fragment: no switch at all
    for name, html in (("x", '<p><span>english</span> <a class="notrans">русский</a></p>'), ("frag", "<p>hi</p>")):
        made(mw, PageRecord(url=f"{H}/en/{name}.html", lang="en", html=html), None)
    response, _ = response_of(f"{H}/ru/p1.html", "ru")
    assert mw.get_processed_request(link_request(f"{H}/ru/x.html"), response) is None
    assert mw.stats.get_value("bitext/focus/dropped_no_translation") == 1
    assert mw.get_processed_request(link_request(f"{H}/ru/frag.html"), response) is not None


def test_switch_absence_is_checked_at_download_for_a_link_queued_unmarked(tmp_path):
    """A link queued before its URL token was learned carries no same-language mark; at
    download its URL names Russian, and its English counterpart, stored since, shows
    Russian unlinked (nginx.org's ``<li>english<br></li><li><a class="notrans">``): not
    sent. A language probe of that URL goes by its own evidence."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path, langs="en,ru")
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    for i in range(12):
        made(mw, PageRecord(url=f"{H}/en/p{i}.html", lang="en", links=[
            {"url": f"{H}/ru/p{i}.html", "text": "русский", "hreflang": None}]), None)
        mw.tokens.learn(f"{H}/ru/p{i}.html", "ru")
    bar = '<ul><li>english<br></li><li><a class="notrans">русский</a></li></ul>'
    made(mw, PageRecord(url=f"{H}/en/x.html", lang="en", html=bar), None)
    with pytest.raises(IgnoreRequest):
        downloader.process_request(Request(f"{H}/ru/x.html"))
    assert mw.stats.get_value("bitext/focus/dropped_no_translation") == 1
    probe = Request(f"{H}/ru/x.html", meta=carrying(lang_probe="ru"))
    assert downloader.process_request(probe) is None


def test_a_code_where_the_site_writes_codes_drops_a_link_into_an_unwanted_language(tmp_path):
    """A site of /en/ and /ru/ pages: the first path position holds its pages' codes, so
    a news page's link to /ja/ leads into Japanese before any Japanese page taught ``ja``
    as a token; a link to the root's pages, or into a wanted language, is followed."""
    crawler = make_crawler(tmp_path, langs="en,ru")
    with_engine(crawler)
    mw = FocusMiddleware(crawler)
    for lang in ("en", "ru"):
        for i in range(5):
            made(mw, PageRecord(url=f"{H}/{lang}/docs/p{i}.html", lang=lang, lang_prob=0.9,
                                lang_method="fasttext"), None)
    news, _ = response_of(f"{H}/2011.html", "en")
    assert mw.get_processed_request(link_request(f"{H}/ja/"), news) is None
    assert mw.stats.get_value("bitext/focus/dropped_other_lang/url_slot") == 1
    for url in (f"{H}/2010.html", f"{H}/ru/docs/new.html", f"{H}/en/ja.html"):
        assert mw.get_processed_request(link_request(url), news) is not None, url


def one_way_site(mw, english_pages: int) -> None:
    """nginx.org from /cn/: six Chinese pages with a switch into English, and English
    pages that link nowhere."""
    for i in range(6):
        made(mw, PageRecord(url=f"{H}/cn/p{i}.html", lang="zh", links=[
            {"url": f"{H}/en/p{i}.html", "text": "english", "hreflang": None}]), None)
    for i in range(english_pages):
        made(mw, PageRecord(url=f"{H}/en/q{i}.html", lang="en"), None)


def test_one_way_translation_holds_links_between_pages_of_the_big_side(tmp_path):
    """nginx.org from /cn/: every Chinese page switches into English, no English page
    links into Chinese; links between English pages then lead only to English pages."""
    mw = FocusMiddleware(make_crawler(tmp_path))   # yield learning off: not needed here
    response, _ = response_of(f"{H}/en/a.html", "en")
    one_way_site(mw, english_pages=9)
    assert mw.get_processed_request(link_request(f"{H}/en/b.html"), response) is not None
    made(mw, PageRecord(url=f"{H}/en/q9.html", lang="en"), None)  # 10 pages
    assert mw.get_processed_request(link_request(f"{H}/en/c.html"), response) is None
    assert mw.held_links() == {"en": [f"{H}/en/c.html"]}
    assert mw.stats.get_value("bitext/focus/one_way/en") == 1
    # Chinese links and switches from English pages go on
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    assert mw.get_processed_request(link_request(f"{H}/cn/d.html"), zh_page) is not None


def test_one_way_needs_the_big_side_silent(tmp_path):
    """English pages that link into Chinese (beyond a stray news item) make a two-way site."""
    mw = FocusMiddleware(make_crawler(tmp_path))
    one_way_site(mw, english_pages=0)
    for i in range(12):
        links = [{"url": f"{H}/cn/p{i}.html", "text": "中文", "hreflang": None}] if i < 3 else []
        made(mw, PageRecord(url=f"{H}/en/q{i}.html", lang="en", links=links), None)
    response, _ = response_of(f"{H}/en/a.html", "en")
    assert mw.get_processed_request(link_request(f"{H}/en/b.html"), response) is not None
    # and a site with no switches at all (opaque URLs) never holds anything
    quiet = FocusMiddleware(make_crawler(tmp_path))
    for i in range(30):
        made(quiet, PageRecord(url=f"{H}/p/{i}.html", lang="en"), None)
    assert not quiet.holding.should_hold("en")


def test_recovery_skips_counterparts_a_switch_bar_marks_untranslated(tmp_path):
    crawler = make_crawler(tmp_path, langs="en,ru")
    pipe = UrlPairingPipeline(crawler)
    pipe.open_spider()
    for i in range(6):
        for lang, token in (("en", "en"), ("ru", "ru")):
            pipe.process_item(PageRecord(url=f"{H}/{token}/p{i}.html", lang=lang,
                                         lang_prob=1.0, text_length=10,
                                         content_hash=f"{token}{i}"))
    for name, html in (("x", '<p><span>english</span> <a class="notrans">русский</a></p>'), ("y", "<p>hi</p>"),
                       ("z", "<p>hi</p>")):
        pipe.process_item(PageRecord(url=f"{H}/en/{name}.html", lang="en", html=html,
                                     lang_prob=1.0, text_length=10, content_hash=name))
    # a Russian page links the English z.html itself: there is no Russian z.html
    pipe.process_item(PageRecord(url=f"{H}/ru/menu.html", lang="ru", lang_prob=1.0,
                                 text_length=10, content_hash="menu", links=[
                                     {"url": f"{H}/en/z.html", "text": "книги", "hreflang": None}]))
    requested = []
    pipe._crawl = requested.append
    crawler.engine = type("Engine", (), {})()
    try:
        pipe.spider_idle()
    except Exception as e:  # DontCloseSpider: guesses were made
        assert type(e).__name__ == "DontCloseSpider"
    urls = {r.url for r in requested}
    assert f"{H}/ru/y.html" in urls
    assert f"{H}/ru/x.html" not in urls and f"{H}/ru/z.html" not in urls
    assert crawler.stats.get_value("bitext/recovery/skipped_untranslated") == 2


def test_a_switch_target_is_never_held(tmp_path):
    """An English page linked by an English page (held: one-way) and by a Chinese page's
    switch is a counterpart: neither the link nor the queued request is held."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    one_way_site(mw, english_pages=10)
    en_page, _ = response_of(f"{H}/en/q1.html", "en")
    queued = Request(f"{H}/en/x.html", meta=carrying(chain="en"))  # queued before
    assert mw.get_processed_request(link_request(f"{H}/en/y.html"), en_page) is None
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    for url in (f"{H}/en/x.html", f"{H}/en/y.html"):
        assert mw.get_processed_request(link_request(url, "english"), zh_page) is not None
    assert downloader.process_request(queued) is None
    assert mw.held_links() == {}
    other = Request(f"{H}/en/z.html", meta=carrying(chain="en"))
    try:
        downloader.process_request(other)
        raise AssertionError("an ordinary English link should be held")
    except IgnoreRequest:
        pass


def test_queued_requests_are_not_held_where_the_dupefilter_is_shared(tmp_path):
    """With BITEXT_FOCUS_HOLD_QUEUED_ENABLED=False, a request that passed the dupefilter
    goes out, though its language is held; new links are still held."""
    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path, BITEXT_FOCUS_HOLD_QUEUED_ENABLED=False)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    one_way_site(mw, english_pages=10)
    en_page, _ = response_of(f"{H}/en/q1.html", "en")
    assert mw.get_processed_request(link_request(f"{H}/en/y.html"), en_page) is None
    assert "en" in mw.queue.holding
    assert downloader.process_request(Request(f"{H}/en/x.html",
                                              meta=carrying(chain="en"))) is None


def test_a_request_held_at_download_outlives_a_copy_the_dupefilter_drops(tmp_path):
    """A queued request held at download has passed the dupefilter; a later request for
    the same URL that did not come through the focus middleware (a recovery guess) is
    dropped by that filter, so the held one must stay held, to be released later."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    one_way_site(mw, english_pages=10)
    en_page, _ = response_of(f"{H}/en/q1.html", "en")
    assert mw.get_processed_request(link_request(f"{H}/en/y.html"), en_page) is None  # holding
    try:
        downloader.process_request(Request(f"{H}/en/x.html", meta=carrying(chain="en")))
        raise AssertionError("a queued English request should be held")
    except IgnoreRequest:
        pass
    mw.request_scheduled(Request(f"{H}/en/x.html"))   # the dupefilter will drop this copy
    assert f"{H}/en/x.html" in mw.held_links()["en"]
    mw.request_scheduled(Request(f"{H}/en/x.html", dont_filter=True))  # this one goes out
    assert f"{H}/en/x.html" not in mw.held_links().get("en", [])


def test_a_resumed_crawl_judges_holding_on_the_counts_of_the_last_run(tmp_path):
    """After a clean stop, a resumed crawl knows how many of its English pages link into
    Chinese (the focus's section) and how many it stored (the crawl state, rebuilt from
    the store): new Chinese pages switching into English do not make the site one-way."""
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    store = PageStorePipeline.from_crawler(crawler)
    store.open_spider()
    for i in range(12):
        page = PageRecord(url=f"{H}/en/q{i}.html", lang="en", text=f"page {i}", links=[
            {"url": f"{H}/cn/q{i}.html", "text": "中文", "hreflang": None}])
        made(mw, page, None)
        store.process_item(page)
    store.close_spider()
    stop_cleanly(mw.crawler)
    resumed = FocusMiddleware(make_crawler(tmp_path))
    resumed.spider_opened()
    assert resumed.pages_by_lang["en"] == 12
    assert resumed.shape.into_pages["en", "zh"] == 12
    one_way_site(resumed, english_pages=0)
    assert not resumed.holding.should_hold("en")


def test_a_switch_to_a_url_queued_low_jumps_the_queue_once(tmp_path):
    """An English URL queued as an ordinary English link, then found as a Chinese page's
    switch: a copy goes past the dupefilter with the switch's priority, and whichever
    copy reaches the downloader second is dropped there."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    url = f"{H}/en/x.html"
    mw.request_scheduled(Request(url, priority=-2))         # queued with no evidence
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    switch = mw.get_processed_request(link_request(url, "english"), zh_page)
    assert switch.dont_filter and switch.priority >= 20
    assert mw.stats.get_value("bitext/focus/promoted") == 1
    mw.request_scheduled(switch)
    assert downloader.process_request(switch) is None
    try:
        downloader.process_request(Request(url, priority=-2))
        raise AssertionError("the queued copy should be dropped")
    except IgnoreRequest:
        pass
    assert mw.stats.get_value("bitext/focus/promoted_copy_dropped") == 1
    # found again: nothing more is scheduled past the filter
    assert not mw.get_processed_request(link_request(url, "english"), zh_page).dont_filter


def test_queued_links_are_judged_again_once_their_url_token_is_learned(tmp_path):
    """Links are queued before any URL token is known, with the bonus of their page's
    language (most links of a page stay in its language): once /de/ is learned to name
    German, the German one is dropped at download; the Chinese one needs no second copy.
    (The start page's links into the folder it was started in, /cn/, have the bonus at
    once.)"""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    crawler.engine = type("Engine", (), {"crawl": lambda self, r: scheduled.append(r)})()
    scheduled = []
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    start, _ = response_of(f"{H}/cn/", "zh", discovered_by="start")
    # (and one more: a folder's index goes ahead of the links below it, focus/sections.py)
    assert mw.get_processed_request(link_request(f"{H}/cn/docs/"), start).priority == 21
    page, _ = response_of(f"{H}/cn/docs/", "zh")
    zh, de = f"{H}/cn/docs/a.html", f"{H}/de/docs/a.html"
    for url in (zh, de):
        queued = mw.get_processed_request(link_request(url), page)
        assert queued is not None and queued.priority == 20
        mw.request_scheduled(queued)
    for i in range(5):
        made(mw, PageRecord(url=f"{H}/cn/p{i}.html", lang="zh"), None)
    for i in range(5):
        made(mw, PageRecord(url=f"{H}/en/p{i}.html", lang="en"), None)
    assert scheduled == []   # the Chinese link had its bonus
    for i in range(5):
        made(mw, PageRecord(url=f"{H}/de/p{i}.html", lang="de"), None)
    try:
        downloader.process_request(Request(de))
        raise AssertionError("a link into German should be dropped")
    except IgnoreRequest:
        pass


def test_an_ordinary_link_into_the_other_language_gets_no_bonus(tmp_path):
    """A Chinese page linking an English page by an ordinary link (no switch) says the
    Chinese version is missing: no bonus, and the English page's own links get none."""
    crawler = make_crawler(tmp_path)
    with_engine(crawler)   # (the first English page links no Chinese one: a language probe)
    mw = FocusMiddleware(crawler)
    for i in range(5):
        made(mw, PageRecord(url=f"{H}/en/p{i}.html", lang="en"), None)
        made(mw, PageRecord(url=f"{H}/cn/p{i}.html", lang="zh"), None)
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    ordinary = mw.get_processed_request(link_request(f"{H}/en/books.html"), zh_page)
    switch = mw.get_processed_request(link_request(f"{H}/en/p1.html", "english"), zh_page)
    assert ordinary.priority == 0 and switch.priority == 30
    assert marks(ordinary.meta).untranslated
    en_page, _ = response_of(f"{H}/en/books.html", "en", **carrying(untranslated=True))
    assert mw.get_processed_request(link_request(f"{H}/en/more.html"), en_page).priority == 0
    assert mw.stats.get_value("bitext/focus/untranslated_link") == 2


def test_a_url_the_dupefilter_had_seen_is_never_promoted(tmp_path):
    """Resumed crawl: a link to a page downloaded by the earlier run is dropped by the
    dupefilter; a switch to it found later must not send a copy past the filter."""
    mw = FocusMiddleware(make_crawler(tmp_path))
    url = f"{H}/en/x.html"
    seen = Request(url, priority=-2)
    mw.request_scheduled(seen)
    mw.request_dropped(seen)
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    assert not mw.get_processed_request(link_request(url, "english"), zh_page).dont_filter


def test_a_learned_token_does_not_overrule_a_language_code_in_the_url(tmp_path):
    """Crawled from /cn/: ``ngx`` (of ngx_http_*) is pure Chinese before ``en`` names
    English; /en/docs/http/ngx_http_x.html still does not lead to Chinese."""
    mw = FocusMiddleware(make_crawler(tmp_path))
    for i in range(6):
        made(mw, PageRecord(url=f"{H}/cn/docs/http/ngx_http_m{i}.html",
                                         lang="zh"), None)
    made(mw, PageRecord(url=f"{H}/en/index.html", lang="en"), None)
    assert mw.evidence.link_language(f"{H}/cn/docs/http/ngx_http_x.html", None)[0] == "zh"
    assert mw.evidence.link_language(f"{H}/en/docs/http/ngx_http_x.html", None) == (None, "")


def test_switch_targets_on_their_way_count_for_scarcity(tmp_path):
    """Chinese pages stored, each with a switch into English still queued: English is
    not the scarce language, and English links get no scarcity bonus."""
    mw = FocusMiddleware(make_crawler(tmp_path))
    for i in range(5):
        made(mw, PageRecord(url=f"{H}/cn/p{i}.html", lang="zh"), None)
    made(mw, PageRecord(url=f"{H}/en/p0.html", lang="en"), None)
    assert mw.judge.scarcest() == "en"
    for i in range(1, 5):
        zh_page, _ = response_of(f"{H}/cn/p{i}.html", "zh")
        mw.get_processed_request(link_request(f"{H}/en/p{i}.html", "english"), zh_page)
    assert mw.judge.scarcest() is None   # 5 Chinese, 1 English stored + 4 on their way



def test_a_pages_links_are_judged_for_scarcity_with_its_switches_counted_first(tmp_path):
    """An Italian home whose switch into English comes after its menu: the menu's links
    get the scarce side's bonus as the links after the switch do (its switch target
    counts from the page's first link on), and the folder index among them goes first."""
    crawler = make_crawler(tmp_path, langs="en,it")
    with_engine(crawler)
    mw = FocusMiddleware(crawler)
    made(mw, PageRecord(url=f"{H}/en/", lang="en"), None)
    response, page = response_of(f"{H}/it/", "it")
    urls = [f"{H}/it/docs/", f"{H}/it/a.html", f"{H}/en/index.html", f"{H}/it/b.html"]
    texts = ["documentazione", "a", "english", "b"]
    page.links = [{"url": u, "text": t, "hreflang": None} for u, t in zip(urls, texts)]
    made(mw, page, response)
    assert mw.judge.scarcest() is None   # one page each: the switch is not judged yet
    out = {u: mw.get_processed_request(link_request(u, t), response)
           for u, t in zip(urls, texts)}
    assert mw.judge.scarcest() == "it"
    assert out[f"{H}/it/a.html"].priority == out[f"{H}/it/b.html"].priority
    assert out[f"{H}/it/docs/"].priority > out[f"{H}/it/b.html"].priority


def one_way_so_far(mw):
    """Chinese pages switch into English, three English pages in, none linking back, the
    URL tokens learned: the response of an English page to find links on."""
    response, _ = response_of(f"{H}/en/a.html", "en")
    one_way_site(mw, english_pages=3)
    for i in range(6):
        mw.tokens.learn(f"{H}/cn/p{i}.html", "zh")
        mw.tokens.learn(f"{H}/en/q{i}.html", "en")
    return response


def test_links_of_a_side_that_looks_one_way_wait_without_the_bonus(tmp_path):
    """Before ten English pages have come to judge one-way translation by, links between
    English pages get no bonus while Chinese pages switch into English and none back."""
    mw = FocusMiddleware(make_crawler(tmp_path))
    response = one_way_so_far(mw)
    request = mw.get_processed_request(link_request(f"{H}/en/b.html"), response)
    assert request is not None and request.priority == 0
    assert mw.stats.get_value("bitext/focus/one_way_so_far") == 1
    # an English page that links into Chinese makes the site two-way: the bonus is back
    made(mw, PageRecord(url=f"{H}/en/q3.html", lang="en", links=[
        {"url": f"{H}/cn/p0.html", "text": "中文", "hreflang": None}]), None)
    assert mw.get_processed_request(link_request(f"{H}/en/c.html"), response).priority > 0


def test_queued_links_of_a_side_that_looks_one_way_wait_at_download(tmp_path):
    """A link queued without the bonus while the site looks translated one way into
    English reaches the downloader before ten English pages have come to judge by (a crawl
    with many connections drains the other language's links fast): it waits with the held
    links, and goes when the crawl runs dry with the site judged two-way."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    response = one_way_so_far(mw)
    request = mw.get_processed_request(link_request(f"{H}/en/b.html"), response)
    assert "en" not in mw.queue.holding   # (not judged one-way: too few English pages)
    with pytest.raises(IgnoreRequest):
        downloader.process_request(request)
    assert mw.held_links() == {"en": [f"{H}/en/b.html"]}
    # English pages that link back make the site two-way: the link goes when idle
    for i in range(3, 13):
        made(mw, PageRecord(url=f"{H}/en/q{i}.html", lang="en", links=[
            {"url": f"{H}/cn/p0.html", "text": "中文", "hreflang": None}]), None)
    released = []
    mw.holding.release_languages(released.append)
    assert [r.url for r in released] == [f"{H}/en/b.html"]
    # judged again by the other rules (here the small side's holding), not waiting again
    assert not marks(released[0].meta).released
    with pytest.raises(IgnoreRequest, match="small side"):
        downloader.process_request(released[0])


def test_a_url_goes_out_once_whichever_mechanisms_asked_for_it(tmp_path):
    """A promoted link skips the dupefilter, so a counterpart guess for the same URL passes
    it: the downloader side lets the first copy out and drops the second (a retry of the
    first is no copy)."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    url = f"{H}/en/docs/dirindex.html"
    assert downloader.process_request(Request(url, dont_filter=True)) is None
    with pytest.raises(IgnoreRequest):
        downloader.process_request(Request(url, meta={"bitext_discovered_by": "pattern"}))
    assert downloader.process_request(Request(url, meta={"retry_times": 1})) is None
    assert crawler.stats.get_value("bitext/focus/requested_twice_dropped") == 1


def test_the_big_side_waits_for_its_counterparts_and_survives_a_clean_stop(tmp_path):
    """A partly translated site (40 English URLs known, 4 Japanese): an English request
    whose Japanese counterpart was not fetched is held at download; fetching the
    counterpart releases it; a held one left at a clean stop is judged again on resume."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path, langs="en,ja")
    scheduled = []
    crawler.engine = type("Engine", (), {"crawl": lambda self, r: scheduled.append(r)})()
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    links = [{"url": f"{H}/en/p{i}.html", "text": f"p{i}", "hreflang": None} for i in range(40)]
    links.append({"url": f"{H}/ja/", "text": "日本語", "hreflang": None})   # (no probe needed)
    made(mw, PageRecord(url=f"{H}/en/", lang="en", links=links), None)
    made(mw, PageRecord(url=f"{H}/ja/", lang="ja", links=[
        {"url": f"{H}/ja/p{i}.html", "text": f"p{i}", "hreflang": None} for i in range(4)]), None)
    assert mw.small_side.small() == "ja"
    for i in (1, 2):
        try:
            downloader.process_request(Request(f"{H}/en/p{i}.html"))
            raise AssertionError("an English page with no Japanese one fetched goes out")
        except IgnoreRequest:
            pass
    made(mw, PageRecord(url=f"{H}/ja/p1.html", lang="ja"), None)
    assert [r.url for r in scheduled] == [f"{H}/en/p1.html"]
    assert downloader.process_request(Request(f"{H}/ja/p3.html")) is None   # the small side
    # a request that is no page of the crawl (robots.txt: Scrapy's NO_CALLBACK) is never
    # held, though its URL names no language
    from scrapy.http.request import NO_CALLBACK
    assert downloader.process_request(Request(f"{H}/robots.txt", callback=NO_CALLBACK)) is None
    stop_cleanly(mw.crawler)
    resumed = FocusMiddleware(make_crawler(tmp_path, langs="en,ja"))
    resumed.spider_opened()
    assert [r.url for r in resumed.walk.resumed] == [f"{H}/en/p2.html"]


def test_a_directory_index_goes_out_under_one_spelling(tmp_path):
    """``dir/index.html`` where a link names it ``dir/`` is fetched as ``dir/`` (the
    spelling its counterpart's URL pairs with), once; a redirect between them goes."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    folder = f"{H}/en/docs/"
    mw.request_scheduled(Request(folder))
    rewritten = downloader.process_request(Request(folder + "index.html"))
    assert rewritten.url == folder and rewritten.dont_filter
    assert downloader.process_request(rewritten) is None
    with pytest.raises(IgnoreRequest):
        downloader.process_request(Request(folder + "index.html"))
    with pytest.raises(IgnoreRequest):
        downloader.process_request(Request(folder))
    assert downloader.process_request(Request(f"{H}/en/y/")) is None
    assert downloader.process_request(Request(
        f"{H}/en/y/index.html", meta={"redirect_urls": [f"{H}/en/y/"]})) is None
    assert crawler.stats.get_value("bitext/focus/index_alias_rewritten") == 1


def test_big_side_links_the_small_side_holds_are_recovery_sources_where_the_yield_holds(
        tmp_path):
    """Whichever rule held a big-side link first (the yield's at parse, the small side's at
    download: with several workers, whichever worker took it), deep recovery guesses its
    counterpart where the yield holds its language: the sources are the same either way."""
    from scrapy.exceptions import IgnoreRequest

    from bitextcrawl.middlewares.held_links import HeldLinksMiddleware
    crawler = make_crawler(tmp_path, langs="en,ja")
    with_engine(crawler)
    mw = FocusMiddleware(crawler)
    downloader = HeldLinksMiddleware(crawler)
    links = [{"url": f"{H}/en/p{i}.html", "text": f"p{i}", "hreflang": None} for i in range(40)]
    links.append({"url": f"{H}/ja/", "text": "日本語", "hreflang": None})
    made(mw, PageRecord(url=f"{H}/en/", lang="en", links=links), None)
    made(mw, PageRecord(url=f"{H}/ja/", lang="ja", links=[
        {"url": f"{H}/ja/p{i}.html", "text": f"p{i}", "hreflang": None} for i in range(4)]), None)
    assert mw.small_side.small() == "ja"
    with pytest.raises(IgnoreRequest):
        downloader.process_request(Request(f"{H}/en/p7.html"))
    assert f"{H}/en/p7.html" in mw.small_side.held
    assert mw.held_links().get("en") is None       # the yield does not hold English
    mw.queue.holding.add("en")
    assert mw.held_links()["en"] == [f"{H}/en/p7.html"]


def test_what_comes_back_and_idle_go_to_the_rules_in_the_reverse_order(tmp_path):
    mw = FocusMiddleware(make_crawler(tmp_path))
    # (section indexes learn an index's listing before the small side sizes by its links)
    assert [r.name for r in mw.page_rules] == ["bar_absence", "section_indexes", "small_side"]
    assert [r.name for r in mw.error_rules] == ["bar_absence", "section_indexes", "small_side"]
    assert [r.name for r in mw.idle_rules] == ["bar_absence", "section_indexes", "family_tests",
                                               "small_side", "held_languages"]
    assert [r.name for r in mw.context.state.focus.answer_rules] == ["family_tests"]
    off = FocusMiddleware(make_crawler(tmp_path, BITEXT_FOCUS_SECTION_INDEXES_ENABLED=False))
    assert "section_indexes" not in [r.name for r in off.page_rules + off.idle_rules]
    assert not off.sections.enabled and off.bars.enabled


def test_every_request_the_frontier_schedules_is_judged_once(tmp_path):
    """One judge path: a request handed to the frontier that no rule has judged (a
    parallel link) is judged as a followed link is: its URL held at download and never
    downloaded, it goes past the dupefilter; queued low and asked for higher, it is
    promoted. A request the rules judged already (a link the spider followed, handed to
    the frontier again once released) goes as it is: judged once."""
    crawler = make_crawler(tmp_path)
    scheduled = with_engine(crawler)
    mw = FocusMiddleware(crawler)
    frontier = mw.context.frontier
    held, queued = f"{H}/en/held.html", f"{H}/en/queued.html"
    mw.queue.filtered.add(held)   # held at download: the dupefilter saw it
    mw.request_scheduled(Request(queued, priority=-2))
    found = {"bitext_discovered_by": "parallel_link"}
    frontier.schedule(Request(held, meta=dict(found)))
    frontier.schedule(Request(queued, priority=40, meta=dict(found)))
    assert [r.dont_filter for r in scheduled] == [True, True]
    assert marks(scheduled[1].meta).promoted
    assert all(marks(r.meta).judged for r in scheduled)
    # a link the spider followed: judged there; handed to the frontier, not again
    again = f"{H}/cn/again.html"
    zh_page, _ = response_of(f"{H}/cn/p1.html", "zh")
    followed = mw.get_processed_request(link_request(again), zh_page)
    assert marks(followed.meta).judged and not followed.dont_filter
    mw.queue.filtered.add(again)
    frontier.schedule(followed)
    assert scheduled[-1] is followed and not followed.dont_filter
    assert crawler.stats.get_value("bitext/focus/promoted") == 1
