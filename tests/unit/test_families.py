"""Families of links that lead nowhere (focus/families.py)."""

from __future__ import annotations

from bitextcrawl.focus.families import MissingFamilies, family

H = "http://t.test"


def test_a_family_is_a_folder_and_the_file_names_leading_letters():
    assert family(f"{H}/it/docs/http/ngx_http_gzip_module.html") == "t.test/it/docs/http/ngx"
    assert family(f"{H}/it/CHANGES.it-1.26") == "t.test/it/changes"
    assert family(f"{H}/it/docs/") == "t.test/it/docs/"


def test_links_of_a_family_wait_for_its_test_and_go_once_it_finds_a_page():
    families = MissingFamilies(fail_after=3)
    urls = [f"{H}/cn/docs/http/ngx_http_m{i}_module.html" for i in range(5)]
    for url in urls:
        families.linked(url, f"{H}/cn/docs/")
    assert families.admit(urls[0], "r0")
    assert not families.admit(urls[1], "r1") and not families.admit(urls[2], "r2")
    assert families.admit(f"{H}/cn/docs/faq.html", "faq")     # another family
    assert families.answered(urls[0], found=True) == ["r1", "r2"]
    assert families.admit(urls[3], "r3")                          # the family exists


def test_errors_in_a_row_leave_a_pages_links_of_the_family_unfetched():
    """A home linking every module page in its own folder, none of them translated:
    three errors, and its other links of the family wait for good; a link of the
    family from another page (a section index) is tested again."""
    families = MissingFamilies(fail_after=3)
    home = f"{H}/it/"
    urls = [f"{H}/it/docs/http/ngx_http_m{i}_module.html" for i in range(10)]
    for url in urls:
        families.linked(url, home)
    assert families.admit(urls[0], "r0")
    for i in range(1, 10):
        assert not families.admit(urls[i], f"r{i}")
    assert families.answered(urls[0], found=False) == ["r1"]
    assert families.answered(urls[1], found=False) == ["r2"]
    assert families.answered(urls[2], found=False) == []          # three: the rest wait
    assert families.left() == 7
    index_link = f"{H}/it/docs/http/ngx_http_x_module.html"
    families.linked(index_link, f"{H}/it/docs/")
    assert families.admit(index_link, "rx")
    assert families.answered(index_link, found=True) == [f"r{i}" for i in range(3, 10)]


def test_a_test_that_never_came_back_gives_way_when_the_crawl_runs_dry():
    families = MissingFamilies()
    assert families.admit(f"{H}/a/p1.html", "r1")
    assert not families.admit(f"{H}/a/p2.html", "r2")
    assert families.stalled() == ["r2"]


def test_a_family_that_led_only_to_errors_is_failing():
    families = MissingFamilies(fail_after=2)
    urls = [f"{H}/it/CHANGES.it-1.{i}" for i in range(4)]
    for url in urls:
        families.linked(url, f"{H}/it/download.html")
        families.admit(url, url)
    assert not families.failing(f"{H}/it/CHANGES-0.5")
    families.answered(urls[0], found=False)
    families.answered(urls[1], found=False)
    assert families.failing(f"{H}/it/CHANGES-0.5")       # a guess into it: not made
    assert not families.failing(f"{H}/it/docs/x.html")


def test_a_link_its_index_leaves_out_waits_once_its_family_led_to_an_error():
    """A translated page linking module pages never translated: the first of them
    answered 404, and the index of their section names none of them. Another page's
    link into the family, the index leaving it out, waits (not that page's first test),
    and a guess there is not made; a link the index names is tested, and a page found
    releases the family."""
    docs = f"{H}/it/docs/http"
    unlisted = {f"{docs}/ngx_http_m{i}_module.html" for i in range(4)}
    families = MissingFamilies(fail_after=3, unlisted=lambda url: url in unlisted)
    home, page = f"{H}/it/", f"{docs}/request_processing.html"
    families.linked(f"{docs}/ngx_http_m0_module.html", home)
    families.linked(f"{docs}/ngx_http_m1_module.html", page)
    assert families.admit(f"{docs}/ngx_http_m0_module.html", "r0")
    assert not families.failing(f"{docs}/ngx_http_m2_module.html")
    assert families.answered(f"{docs}/ngx_http_m0_module.html", found=False) == []
    assert not families.admit(f"{docs}/ngx_http_m1_module.html", "r1")   # waits
    assert families.failing(f"{docs}/ngx_http_m2_module.html")   # a guess: not made
    assert not families.failing(f"{docs}/ngx_http_listed_module.html")
    families.linked(f"{docs}/ngx_http_listed_module.html", page)
    assert families.admit(f"{docs}/ngx_http_listed_module.html", "rl")
    assert families.answered(f"{docs}/ngx_http_listed_module.html", found=True) == ["r1"]


def test_a_familys_next_test_waits_for_the_index_on_its_way():
    """A home links its section's index and the section's module pages together: the
    first module link goes, it answers 404, and the next waits until the index is in
    (where the index leaves it out, it waits on for good)."""
    coming = [True]
    families = MissingFamilies(fail_after=3)
    families.index_coming = lambda url: coming[0]
    urls = [f"{H}/it/docs/http/ngx_http_m{i}_module.html" for i in range(3)]
    for url in urls:
        families.linked(url, f"{H}/it/")
    assert families.admit(urls[0], "r0")          # a first test goes all the same
    assert not families.admit(urls[1], "r1")
    assert families.answered(urls[0], found=False) == []     # waits for the index
    assert not families.admit(urls[2], "r2")
    coming[0] = False
    assert families.index_answered() == ["r1"]
    assert families.answered(urls[1], found=False) == ["r2"]


def test_a_family_waiting_for_an_index_that_never_came_tests_when_the_crawl_runs_dry():
    families = MissingFamilies(fail_after=3)
    families.index_coming = lambda url: True
    urls = [f"{H}/it/docs/http/ngx_http_m{i}_module.html" for i in range(2)]
    assert families.admit(urls[0], "r0")
    assert not families.admit(urls[1], "r1")
    assert families.answered(urls[0], found=False) == []
    families.index_coming = lambda url: False    # (the section indexes forget it)
    assert families.stalled() == ["r1"]


def test_the_workers_of_a_crawl_count_each_others_family_answers():
    """Two workers (focus/sharing.py relays on_answer to remote_answered): the other's
    errors count with the pages that linked them, and a page it found lets this worker's
    waiting links of the family go (but for the URL it answered)."""
    one, two = MissingFamilies(fail_after=2), MissingFamilies(fail_after=2)
    one.on_answer = lambda url, found, pages: two.remote_answered(url, found, pages)
    urls = [f"{H}/it/docs/http/ngx_http_m{i}_module.html" for i in range(8)]
    for url in urls[1:4]:
        two.linked(url, f"{H}/it/docs/x.html")
    assert two.admit(urls[1], "r1")
    assert not two.admit(urls[2], "r2") and not two.admit(urls[3], "r3")
    for url in (urls[0], urls[4]):                 # the home's links, fetched by one
        one.linked(url, f"{H}/it/")
        assert one.admit(url, url)
        assert one.answered(url, found=False) == []
    assert two.failing(urls[7])                    # two errors of the family, over there
    assert two.failures[family(urls[0]), f"{H}/it/"] == 2
    one.linked(urls[3], f"{H}/it/docs/")          # the section's index links it
    assert one.admit(urls[3], urls[3])
    assert one.answered(urls[3], found=True) == []
    assert two.alive == {family(urls[3])} and two.waiting == {}
    assert not two.failing(urls[7])
    assert two.answered(urls[1], found=True) == []  # its own test, answered later
