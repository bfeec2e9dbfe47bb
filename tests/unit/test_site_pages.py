"""One record per content, URLs resolved, unsure languages settled (pages/site.py)."""

from __future__ import annotations

from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pages.site import canonical_pages


def page(url, lang, text, prob=0.99, links=(), hreflang=None, requested=None, method="fasttext"):
    return PageRecord(url=url, requested_url=requested or url, lang=lang, lang_prob=prob,
                      lang_method=method, text=text, text_length=len(text),
                      content_hash=f"h:{text}", links=[{"url": u, "text": "", "hreflang": None}
                                                       for u in links],
                      hreflang=dict(hreflang or {}))


def site_with_fallbacks():
    pages = []
    for i in range(6):
        pages.append(page(f"http://s/m/en/p{i}.html", "en", f"english {i}",
                          links=[f"http://s/m/ja/p{(i + 1) % 6}.html"]))
        pages.append(page(f"http://s/m/fr/p{i}.html", "fr", f"french {i}"))
    for i in range(3):                                   # real Japanese pages
        pages.append(page(f"http://s/m/ja/p{i}.html", "ja", f"japanese {i}"))
    for i in range(3, 6):                                # English served as a fallback
        pages.append(page(f"http://s/m/ja/p{i}.html", "en", f"english {i}"))
    return pages


def test_fallback_copies_fold_into_the_page_whose_url_names_its_language():
    site = canonical_pages(site_with_fallbacks())
    urls = [p.url for p in site.pages]
    assert urls == sorted(urls)
    assert site.duplicates == 3 and site.size == 15
    en3 = next(p for p in site.pages if p.url == "http://s/m/en/p3.html")
    assert en3.aliases == ["http://s/m/ja/p3.html"]
    assert "http://s/m/ja/p3.html" not in urls
    # links written to a fallback URL now lead to the canonical page
    en2 = next(p for p in site.pages if p.url == "http://s/m/en/p2.html")
    assert en2.links[0]["url"] == "http://s/m/en/p3.html"
    # a link to a real Japanese page is left alone
    en0 = next(p for p in site.pages if p.url == "http://s/m/en/p0.html")
    assert en0.links[0]["url"] == "http://s/m/ja/p1.html"


def test_redirects_resolve_links_and_hreflang():
    a = page("http://s/en/x.html", "en", "x en", hreflang={"fr": "http://s/en/fr/x.html"})
    b = page("http://s/fr/x.html", "fr", "x fr", requested="http://s/en/fr/x.html",
             hreflang={"en": "http://s/fr/en/x.html"})
    c = page("http://s/en/x.html#dup", "en", "other")
    site = canonical_pages([b, a, c])
    by_url = {p.url: p for p in site.pages}
    assert by_url["http://s/en/x.html"].hreflang == {"fr": "http://s/fr/x.html"}
    assert by_url["http://s/fr/x.html"].aliases == ["http://s/en/fr/x.html"]
    assert site.resolve["http://s/en/fr/x.html"] == "http://s/fr/x.html"
    # an alternate nobody stored stays as written
    assert by_url["http://s/fr/x.html"].hreflang == {"en": "http://s/fr/en/x.html"}


def test_order_of_input_does_not_change_the_result():
    pages = site_with_fallbacks()
    one = canonical_pages(pages)
    two = canonical_pages(list(reversed(pages)))
    assert [p.to_dict() for p in one.pages] == [p.to_dict() for p in two.pages]


def test_unsure_language_settled_by_url_token_only_when_unsure():
    pages = [page(f"http://s/ru/p{i}.html", "ru", f"русский {i}") for i in range(30)]
    pages += [page(f"http://s/en/p{i}.html", "en", f"english {i}") for i in range(6)]
    pages.append(page("http://s/ru/index.html", "en", "ngx_http_core_module listen", prob=0.2))
    pages.append(page("http://s/ru/eng.html", "en", "an English page", prob=0.97))
    pages.append(page("http://s/ru/decl.html", "en", "declared", prob=0.3, method="html_lang"))
    site = canonical_pages(pages)
    by_url = {p.url: p for p in site.pages}
    assert by_url["http://s/ru/index.html"].lang == "ru"
    assert by_url["http://s/ru/index.html"].lang_method == "url_token"
    assert by_url["http://s/ru/eng.html"].lang == "en"        # fastText was sure
    assert by_url["http://s/ru/decl.html"].lang == "en"       # the page's own declaration
    assert site.relabelled == 1


def test_fallback_copies_do_not_teach_url_tokens():
    # /ja/ holds as many English copies as Japanese pages: counted, they would leave 'ja'
    # naming no language; left out, 'ja' names Japanese and settles an unsure page.
    pages = site_with_fallbacks()
    pages.append(page("http://s/m/ja/short.html", "en", "API", prob=0.3))
    site = canonical_pages(pages)
    assert site.token_langs["ja"] == "ja" and site.token_langs["en"] == "en"
    assert {p.url: p.lang for p in site.pages}["http://s/m/ja/short.html"] == "ja"


def test_empty_pages_are_not_duplicates_of_each_other():
    pages = [page("http://s/a", "en", ""), page("http://s/b", "en", "")]
    assert canonical_pages(pages).size == 2


def test_the_most_specific_token_settles_the_language():
    # 'faq' is carried only by English pages (most pages are English); 'ja' by Japanese ones
    pages = [page(f"http://s/en/p{i}.html", "en", f"english {i}") for i in range(20)]
    pages += [page(f"http://s/en/faq/q{i}.html", "en", f"question {i}") for i in range(4)]
    pages += [page(f"http://s/ja/p{i}.html", "ja", f"日本語 {i}") for i in range(8)]
    pages.append(page("http://s/ja/faq.html", "en", "worker_connections 1024", prob=0.7))
    site = canonical_pages(pages)
    assert {p.url: p.lang for p in site.pages}["http://s/ja/faq.html"] == "ja"


def test_a_code_where_the_site_writes_language_codes_names_the_language():
    """One Turkish page under /tr/ on a site crawled for en–ru: too few pages to learn
    'tr' as a token, but /tr/ sits where the site writes its codes (/en/, /ru/)."""
    from bitextcrawl.pages.site import language_slots, slot_language

    pages = [page(f"http://s/en/docs/p{i}.html", "en", f"english {i}") for i in range(8)]
    pages += [page(f"http://s/ru/docs/p{i}.html", "ru", f"русский {i}") for i in range(8)]
    turkish = page("http://s/tr/docs/faq.html", "en", "‘sys_errlist’ is deprecated uyarısı",
                   prob=0.76)
    named_file = page("http://s/en/docs/ar.html", "en", "ar - create archives", prob=0.6)
    sure = page("http://s/tr/docs/en.html", "en", "an English page", prob=0.97)
    assert language_slots(pages) == frozenset({0})
    assert slot_language("http://s/tr/docs/faq.html", {0}) == "tr"
    assert slot_language("http://s/cn/docs/x.html", {0}) == "zh"          # a code people write
    assert slot_language("http://s/new/docs/x.html", {0}) is None         # a word, not a code
    by_url = {p.url: p for p in canonical_pages(pages + [turkish, named_file, sure]).pages}
    assert by_url[turkish.url].lang == "tr" and by_url[turkish.url].lang_method == "url_token"
    assert by_url[named_file.url].lang == "en"    # a file named like a code is no folder
    assert by_url[sure.url].lang == "en"          # fastText was sure


def test_language_slots_are_learned_page_by_page_and_read_a_folder_link():
    """The crawl learns the slots online; a link to a language's home (``/ja/``) has its
    code in the slot, as a folder, not a file."""
    from bitextcrawl.pages.site import LanguageSlots, slot_language

    slots = LanguageSlots(min_pages=5, purity=0.95)
    for i in range(4):
        slots.learn(page(f"http://s/en/docs/p{i}.html", "en", f"english {i}"))
    assert slots.slots() == frozenset()   # four pages: not yet
    slots.learn(page("http://s/ru/", "ru", "русский"))   # a home: its folder counts
    assert slots.slots() == frozenset({0})
    slots.learn(page("http://s/en/x.html", "en", "unsure", prob=0.3))   # not counted
    assert slots.coded[0] == 5
    assert slot_language("http://s/ja/", {0}) == "ja"
    assert slot_language("http://s/ja", {0}) is None   # a file named like a code
    assert slot_language("http://s/", {0}) is None


def test_no_language_slot_where_the_codes_disagree_with_the_pages():
    from bitextcrawl.pages.site import language_slots

    # /de/ holds English pages as often as German ones: the position names nothing
    pages = [page(f"http://s/en/p{i}.html", "en", f"english {i}") for i in range(4)]
    pages += [page(f"http://s/de/p{i}.html", "en", f"english de {i}") for i in range(4)]
    assert language_slots(pages) == frozenset()


def test_a_fallback_copy_alone_keeps_the_language_its_bar_names():
    """A copy of an English page under /ru/ whose English page was not fetched: its bar
    of alternates names English and French, not Russian, so the URL does not settle it
    into Russian; a page whose bar names Russian is settled as before."""
    pages = [page(f"http://s/ru/p{i}.html", "ru", f"русский {i}") for i in range(30)]
    pages += [page(f"http://s/en/p{i}.html", "en", f"english {i}") for i in range(6)]
    bar = {"en": "http://s/ru/en/x.html", "fr": "http://s/ru/fr/x.html"}
    pages.append(page("http://s/ru/copy.html", "en", "mod_x directives", prob=0.2,
                      hreflang=bar))
    pages.append(page("http://s/ru/real.html", "en", "mod_y directives", prob=0.2,
                      hreflang={**bar, "ru": "http://s/ru/ru/y.html"}))
    by_url = {p.url: p for p in canonical_pages(pages).pages}
    assert by_url["http://s/ru/copy.html"].lang == "en"
    assert by_url["http://s/ru/real.html"].lang == "ru"
