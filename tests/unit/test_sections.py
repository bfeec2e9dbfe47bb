"""Section indexes (focus/sections.py): a page's links that the index of their section
leaves out are tested, then kept once the page's tests led nowhere; a page found among
them releases the page's kept links; nothing of a page still learned is lost. Folders
learned from several pages' tests keep their unlisted links, answers that came before the
index count, and a guess is advised against where the index left out only missing URLs."""

from __future__ import annotations

from bitextcrawl.focus.bars import FETCH, KEEP, TEST
from bitextcrawl.focus.sections import SectionIndexes, folders_above, index_folder, page_key
from tests.conftest import first_claims

H = "http://s"


def site():
    sections = SectionIndexes()
    # the translation's section index names three pages of its folder
    sections.observe(f"{H}/xx/docs/index.html",
                     [f"{H}/xx/docs/{p}.html" for p in ("a", "b", "c")] + [f"{H}/en/docs/"])
    return sections


def test_an_index_is_a_folders_index_file_never_the_site_root():
    assert index_folder(f"{H}/xx/docs/index.html") == f"{H}/xx/docs/"
    assert index_folder(f"{H}/xx/docs/") == f"{H}/xx/docs/"
    assert index_folder(f"{H}/index.html") is None
    assert index_folder(f"{H}/xx/docs/a.html") is None
    assert page_key(f"{H}/xx/index.html#top") == f"{H}/xx/"
    assert folders_above(f"{H}/xx/docs/http/a.html") == [f"{H}/xx/docs/http/", f"{H}/xx/docs/",
                                                        f"{H}/xx/"]


def test_an_index_naming_too_few_pages_is_none():
    sections = SectionIndexes()
    sections.observe(f"{H}/xx/index.html", [f"{H}/xx/a.html", f"{H}/en/"])
    assert not sections.listed


def test_listed_links_go_and_unlisted_ones_are_tested_then_kept():
    sections = site()
    home = f"{H}/xx/"
    assert sections.judge(f"{H}/xx/docs/a.html", home) == FETCH        # named by its index
    assert sections.judge(f"{H}/xx/other.html", home) == FETCH         # no index above it
    missing = [f"{H}/xx/docs/m{i}.html" for i in range(6)]
    verdicts = [sections.judge(u, home, request=u) for u in missing]
    assert verdicts == [TEST] * 3 + [KEEP] * 3
    for u in missing[:3]:
        assert sections.answered(u, real=False) == []
    assert sections.judge(f"{H}/xx/docs/http/z.html", home, request="z") == KEEP
    assert sections.stalled() == []          # the home's unlisted links led nowhere: kept
    assert set(sections.kept) == set(missing[3:]) | {f"{H}/xx/docs/http/z.html"}


def test_a_page_found_releases_every_link_its_page_kept():
    sections = site()
    faq = f"{H}/xx/docs/faq.html"
    links = [f"{H}/xx/docs/h{i}.html" for i in range(5)]
    assert [sections.judge(u, faq, request=u) for u in links] == [TEST] * 3 + [KEEP] * 2
    assert sections.answered(links[0], real=False) == []
    assert sorted(sections.answered(links[1], real=True)) == links[3:]
    assert sections.judge(f"{H}/xx/docs/h9.html", faq) == FETCH   # its links prove true


def test_a_failed_test_lets_the_next_kept_link_out():
    sections = SectionIndexes(fail_after=2)
    sections.observe(f"{H}/xx/docs/", [f"{H}/xx/docs/{p}.html" for p in "abc"])
    page = f"{H}/xx/"
    links = [f"{H}/xx/docs/m{i}.html" for i in range(4)]
    assert [sections.judge(u, page, request=u) for u in links] == [TEST, TEST, KEEP, KEEP]
    assert sections.answered(links[0], real=False) == []
    assert sections.answered(links[1], real=False) == []     # two failures: believed
    assert sections.stalled() == []
    assert set(sections.kept) == set(links[2:])


def test_a_kept_link_another_page_links_is_judged_as_that_pages():
    sections = site()
    home, faq = f"{H}/xx/", f"{H}/xx/docs/faq.html"
    missing = [f"{H}/xx/docs/m{i}.html" for i in range(4)]
    for u in missing:
        sections.judge(u, home, request=u)
    for u in missing[:3]:
        sections.answered(u, real=False)
    # a translated page links the kept one: its own first unlisted link, so a test
    assert sections.linked_again(missing[3], faq) == [missing[3]]
    assert missing[3] not in sections.kept


def test_the_crawl_running_dry_releases_the_links_of_pages_still_learned():
    sections = site()
    page = f"{H}/xx/"
    links = [f"{H}/xx/docs/m{i}.html" for i in range(5)]
    for u in links:
        sections.judge(u, page, request=u)
    sections.answered(links[0], real=False)   # one failure; two tests never come back
    assert sorted(sections.stalled()) == links[3:]


def test_a_link_without_a_linking_page_is_not_judged():
    assert site().judge(f"{H}/xx/docs/zz.html", None) == FETCH


def test_a_folder_whose_unlisted_links_led_nowhere_from_several_pages_keeps_the_next():
    sections = site()
    # three translated pages each test one unlisted link into /xx/docs/http/: none exists
    pages = [f"{H}/xx/docs/p{i}.html" for i in range(3)]
    for i, page in enumerate(pages):
        url = f"{H}/xx/docs/http/m{i}.html"
        assert sections.judge(url, page, request=url) == TEST
        assert sections.answered(url, real=False) == []
    # a fourth page's first unlisted link into that folder is kept, not tested
    fourth, url = f"{H}/xx/docs/p9.html", f"{H}/xx/docs/http/m9.html"
    assert sections.judge(url, fourth, request=url) == KEEP
    assert sections.folder_proved(url)
    # into another folder, that page still tests its links
    assert sections.judge(f"{H}/xx/docs/q.html", fourth, request="q") == TEST
    assert sections.stalled() == []            # the folder's answers keep it
    assert url in sections.kept


def test_one_pages_failures_prove_no_folder():
    sections = site()
    home = f"{H}/xx/"
    for i in range(3):
        url = f"{H}/xx/docs/http/m{i}.html"
        sections.judge(url, home, request=url)
        sections.answered(url, real=False)
    # (a home that copied the original's links is one witness, however many)
    assert not sections.folder_proved(f"{H}/xx/docs/http/z.html")
    faq = f"{H}/xx/docs/faq.html"
    assert sections.judge(f"{H}/xx/docs/http/z.html", faq, request="z") == TEST


def proved_folder_site():
    """A site whose ``/xx/docs/http/`` links, left out by the index, led nowhere from three
    different pages."""
    sections = site()
    for i in range(3):
        url = f"{H}/xx/docs/http/m{i}.html"
        sections.judge(url, f"{H}/xx/docs/p{i}.html", request=url)
        sections.answered(url, real=False)
    return sections


def test_a_page_found_in_a_proved_folder_judges_its_kept_links_again():
    sections = proved_folder_site()
    kept = f"{H}/xx/docs/http/k.html"
    assert sections.judge(kept, f"{H}/xx/docs/p7.html", request=kept) == KEEP
    assert sections.guess_unlikely(f"{H}/xx/docs/http/other.html")
    # a counterpart guessed into the folder is found: the index forgot a page there
    sections.answered(f"{H}/xx/docs/http/found.html", real=True)
    assert not sections.folder_proved(f"{H}/xx/docs/http/other.html")
    assert not sections.guess_unlikely(f"{H}/xx/docs/http/other.html")
    assert sections.judge(f"{H}/xx/docs/http/k2.html", f"{H}/xx/docs/p8.html") == TEST


def test_the_kept_link_of_a_folder_found_true_goes_as_its_pages_test():
    sections = proved_folder_site()
    kept = f"{H}/xx/docs/http/k.html"
    sections.judge(kept, f"{H}/xx/docs/p7.html", request=kept)
    assert sections.answered(f"{H}/xx/docs/http/found.html", real=True) == [kept]
    assert sections.testing[kept] == f"{H}/xx/docs/p7.html"


def test_answers_that_came_before_the_index_count_as_the_pages_tests():
    sections = SectionIndexes()
    home = f"{H}/xx/"
    early = [f"{H}/xx/docs/m{i}.html" for i in range(3)]
    for url in early:   # out before the index came in: no verdict, then errors
        assert sections.judge(url, home) == FETCH
        assert sections.answered(url, real=False, linked_from=home) == []
    sections.observe(f"{H}/xx/docs/", [f"{H}/xx/docs/{p}.html" for p in "abc"])
    assert sections.failures[home] == 3
    assert sections.judge(f"{H}/xx/docs/m9.html", home, request="m9") == KEEP


def test_an_early_answer_the_index_names_counts_for_nothing():
    sections = SectionIndexes()
    home = f"{H}/xx/"
    sections.answered(f"{H}/xx/docs/a.html", real=False, linked_from=home)
    sections.observe(f"{H}/xx/docs/", [f"{H}/xx/docs/{p}.html" for p in "abc"])
    assert sections.failures[home] == 0


def test_a_guess_the_index_leaves_out_is_unlikely_where_its_folder_led_nowhere():
    sections = site()
    sections.observe(f"{H}/xx/", [f"{H}/xx/docs/", f"{H}/xx/a.html", f"{H}/xx/b.html"])
    # nothing tested in /xx/docs/ yet, and the index names pages there: worth a guess
    assert not sections.guess_unlikely(f"{H}/xx/docs/hidden.html")
    # the index names pages below /xx/docs/ but none in /xx/docs/stream/
    assert sections.guess_unlikely(f"{H}/xx/docs/stream/s.html")
    assert not sections.guess_unlikely(f"{H}/xx/docs/a.html")          # named
    # an unlisted link of /xx/ led nowhere, none to a page: guesses there are unlikely
    sections.judge(f"{H}/xx/c.html", f"{H}/xx/docs/a.html", request="c")
    sections.answered(f"{H}/xx/c.html", real=False)
    assert sections.guess_unlikely(f"{H}/xx/enterprise.html")
    # where the index forgot a page of its folder, a guess there is worth its request
    sections.judge(f"{H}/xx/docs/m.html", f"{H}/xx/docs/a.html", request="m")
    sections.answered(f"{H}/xx/docs/m.html", real=False)
    sections.answered(f"{H}/xx/docs/sys.html", real=True, linked_from=f"{H}/xx/docs/b.html")
    assert not sections.guess_unlikely(f"{H}/xx/docs/hidden.html")


def test_guesses_that_led_nowhere_prove_no_folder_for_links():
    sections = site()
    for i in range(3):   # counterparts guessed into /xx/docs/http/, no page's links
        sections.answered(f"{H}/xx/docs/http/g{i}.html", real=False)
    url = f"{H}/xx/docs/http/m.html"
    assert not sections.folder_proved(url)
    assert sections.judge(url, f"{H}/xx/docs/p.html", request=url) == TEST
    assert sections.guess_unlikely(f"{H}/xx/docs/http/g9.html")   # more guesses: not worth it


def test_workers_of_one_crawl_share_a_pages_three_tests():
    """Two workers judging links of one page: the test slots are the crawl's (claimed
    once), a test sent by one and its error answer count for the other, so the page's
    unlisted links cost three tests in all, not three per worker."""
    claim = first_claims()
    a, b = site(), site()
    sent = []
    for mine, other in ((a, b), (b, a)):
        mine.claim_test = claim
        mine.on_test = lambda url, page, other=other: (sent.append(url),
                                                      other.remote_test(url, page))
    home = f"{H}/xx/"
    verdicts = [(w.judge(f"{H}/xx/docs/m{i}.html", home, f"req-{i}"))
                for i, w in enumerate((a, b, a, b, a, b))]
    assert verdicts == [TEST, TEST, TEST, KEEP, KEEP, KEEP]
    assert len(sent) == 3
    for url in sent:   # every test answered by an error, where it went out and elsewhere
        for worker in (a, b):
            assert worker.answered(url, False) == []
    # both workers learned the page's links lead nowhere: no fourth test, anywhere
    assert b.judge(f"{H}/xx/docs/m9.html", home) == KEEP
    assert a.judge(f"{H}/xx/docs/m8.html", home) == KEEP
    assert len(sent) == 3


def test_a_dry_crawl_frees_the_test_slots_of_tests_that_never_came_back():
    """Tests dropped on their way leave their slots spent: when the crawl runs dry, the
    links released are tested again (kept again for good, the crawl would idle forever)."""
    claim = first_claims()
    sections = site()
    sections.claim_test = claim
    home = f"{H}/xx/"
    verdicts = [sections.judge(f"{H}/xx/docs/m{i}.html", home, f"req-{i}") for i in range(5)]
    assert verdicts == [TEST, TEST, TEST, KEEP, KEEP]
    released = sections.stalled()   # the three tests never came back
    assert sorted(released) == ["req-3", "req-4"]
    assert sections.judge(f"{H}/xx/docs/m3.html", home, "req-3") == TEST


def test_an_index_requested_is_on_its_way_until_answered():
    """An index that went out judges the links below it once it is in: until then it is
    coming for them (not for links outside its folder, nor below a deeper fetched index)."""
    sections = SectionIndexes()
    sections.index_requested(f"{H}/xx/docs/index.html")
    sections.index_requested(f"{H}/xx/docs/a.html")            # no index
    assert sections.index_coming(f"{H}/xx/docs/http/m.html")
    assert not sections.index_coming(f"{H}/xx/download.html")
    assert not sections.index_answered(f"{H}/xx/docs/a.html")
    sections.observe(f"{H}/xx/docs/", [f"{H}/xx/docs/{p}.html" for p in "abc"])
    assert sections.index_answered(f"{H}/xx/docs/")
    assert not sections.index_coming(f"{H}/xx/docs/http/m.html")
    sections.index_requested(f"{H}/xx/")            # above a fetched index: judges nothing
    assert not sections.index_coming(f"{H}/xx/docs/http/m.html")
    assert sections.index_coming(f"{H}/xx/other.html")
    sections.stalled()
    assert not sections.index_coming(f"{H}/xx/other.html")
