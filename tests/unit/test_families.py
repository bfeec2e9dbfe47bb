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
