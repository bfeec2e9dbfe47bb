"""Each focus rule's hooks (``bitextcrawl/focus/rules/``), one class a rule: a link found
(``link``), a request the focus schedules (``followed``) and a request before download
(``request``), on small page and request records over the focus's real queue, evidence
and site shape. The policies a rule asks (bars, section indexes, the small side, the
families) have tests of their own; here they are stand-ins that answer as told."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from scrapy import Request
from scrapy.settings import Settings

from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.focus.evidence import LinkEvidence
from bitextcrawl.focus.holding import Priorities
from bitextcrawl.focus.links import LinkJudge
from bitextcrawl.focus.marks import carrying, marked, marks
from bitextcrawl.focus.queue import FocusQueue, FocusState
from bitextcrawl.focus.rules.bar_absence import BarAbsence
from bitextcrawl.focus.rules.base import CONTINUE, DROP, FOLLOW, Discard, LinkCase, Refuse, Rewrite
from bitextcrawl.focus.rules.counterpart_deferral import CounterpartDeferral
from bitextcrawl.focus.rules.family_tests import FamilyTests
from bitextcrawl.focus.rules.held_languages import HeldLanguages
from bitextcrawl.focus.rules.index_aliases import IndexAliases
from bitextcrawl.focus.rules.lang_bonus import LangBonus
from bitextcrawl.focus.rules.one_way import OneWaySoFar
from bitextcrawl.focus.rules.other_lang import DropOtherLang
from bitextcrawl.focus.rules.other_lang_pages import OtherLangPages
from bitextcrawl.focus.rules.promote import Promote
from bitextcrawl.focus.rules.scarce_lang import ScarceLang
from bitextcrawl.focus.rules.section_indexes import SectionIndexes
from bitextcrawl.focus.rules.sent_once import SentOnce
from bitextcrawl.focus.rules.small_side import SmallSideHolds
from bitextcrawl.focus.rules.start_page import StartPageLinks
from bitextcrawl.focus.rules.switch_absence import SwitchAbsence
from bitextcrawl.focus.rules.switches import LanguageSwitches
from bitextcrawl.focus.rules.untranslated import UntranslatedLinks
from bitextcrawl.focus.shape import ABSENCE_MIN_PAGES, SiteShape
from bitextcrawl.focus.yields import YieldLearning
from bitextcrawl.pages.record import PageRecord

LANGS = ("en", "fr")
SITE = "http://site.test"


class Stats:
    def __init__(self):
        self.values: dict = {}

    def inc_value(self, key, count=1):
        self.values[key] = self.values.get(key, 0) + count

    def set_value(self, key, value):
        self.values[key] = value


class Crawl:
    """The focus's parts over a site whose URLs name their language (``/en/``, ``/fr/``:
    six pages of each taught the tokens), and the crawl state's focus section."""

    def __init__(self, small_side=None, bars=None, sections=None, **config):
        state = CrawlState(5, 0.95)
        for i in range(6):
            for lang in LANGS:
                state.learn_page(PageRecord(url=f"{SITE}/{lang}/learned{i}.html", lang=lang))
        self.stats = Stats()
        self.evidence = LinkEvidence(LANGS, state.url_tokens.links)
        self.evidence.learned(f"{SITE}/en/learned0.html")
        self.queue = FocusQueue()
        self.yields = YieldLearning()
        self.shape = SiteShape(LANGS, pages_by_lang=state.pages_by_lang)
        self.scheduled: list = []
        settings = dict(bonus=20, cross_bonus=10, scarce_bonus=5, other_page_priority=-100)
        self.judge = LinkJudge(
            Priorities(**{**settings, **config}), self.queue, self.evidence, self.yields,
            self.shape, self.stats, langs=lambda: LANGS, one_site=lambda: True,
            start_url=lambda: f"{SITE}/en/", small_lang=lambda: None)
        self.parts = self.judge.parts
        self.parts.schedule = self.scheduled.append
        self.parts.site_tokens = lambda: state.url_tokens.site
        self.parts.original_url = state.original_url
        self.focus = FocusState(self.queue, self.evidence, self.yields, self.shape,
                                lambda: small_side, bars, sections, self.judge.holding.waits)

    def case(self, url: str, page=None, link: dict | None = None, meta: dict | None = None,
             bonus: bool = False) -> LinkCase:
        """A link to ``url`` found on ``page`` (None: on no stored page), judged as the
        link judge hands it to the rules (``bonus``: an earlier rule gave the bonus)."""
        lang, evidence = self.evidence.link_language(url, link)
        case = LinkCase(Request(url, meta=meta or {}), {},
                        page.url if page is not None else None, page, lang, evidence, LANGS)
        case.bonus = bonus
        return case


def page(lang: str, name: str = "page.html", **kw) -> PageRecord:
    return PageRecord(url=f"{SITE}/{lang}/{name}", lang=lang, **kw)


def url(lang: str, name: str = "other.html") -> str:
    return f"{SITE}/{lang}/{name}"


class TestDropOtherLang:
    def test_a_link_into_a_language_nobody_wants_is_dropped(self):
        crawl = Crawl()
        rule = DropOtherLang(crawl.parts)
        case = crawl.case(url("de"), page("en"), link={"hreflang": "de", "text": "Deutsch"})
        assert rule.link(case) == DROP
        assert crawl.stats.values["bitext/links/other_lang/de"] == 1
        assert rule.link(crawl.case(url("fr"), page("en"))) == CONTINUE

    def test_a_queued_link_learned_unwanted_is_discarded_unless_a_switch_names_it(self):
        crawl = Crawl()
        rule = DropOtherLang(crawl.parts)
        crawl.queue.unwanted.add(url("de"))
        verdict = rule.request(Request(url("de")), crawl.focus)
        assert isinstance(verdict, Discard) and verdict.stat.startswith("dropped_other_lang")
        crawl.queue.add_switch_target(url("de"))
        assert rule.request(Request(url("de")), crawl.focus) is None


class TestPromote:
    def test_a_queued_url_found_worth_a_switch_more_is_sent_again_past_the_filter(self):
        crawl = Crawl()
        rule = Promote(crawl.parts)
        crawl.queue.queued[url("en")] = (0, 1)
        low = rule.followed(Request(url("en"), priority=5), None)
        assert not low.dont_filter and url("en") not in crawl.queue.promoted
        high = rule.followed(Request(url("en"), priority=10), None)
        assert high.dont_filter and marks(high.meta).promoted
        assert url("en") in crawl.queue.promoted
        # (once: the next copy is not promoted again)
        assert not rule.followed(Request(url("en"), priority=40), None).dont_filter

    def test_the_second_copy_of_a_promoted_url_is_discarded(self):
        crawl = Crawl()
        rule = Promote(crawl.parts)
        crawl.queue.promoted.add(url("en"))
        assert rule.request(Request(url("en")), crawl.focus) is None
        crawl.queue.requested.add(url("en"))
        verdict = rule.request(Request(url("en")), crawl.focus)
        assert isinstance(verdict, Discard) and verdict.counted_done
        assert rule.request(Request(url("en"), meta={"retry_times": 1}), crawl.focus) is None


class TestSentOnce:
    def test_a_url_goes_out_once_but_a_retry_goes(self):
        crawl = Crawl()
        rule = SentOnce(crawl.parts)
        assert rule.request(Request(url("en")), crawl.focus) is None
        crawl.queue.requested.add(url("en"))
        assert isinstance(rule.request(Request(url("en")), crawl.focus), Discard)
        assert rule.request(Request(url("en"), meta={"retry_times": 1}), crawl.focus) is None


class TestIndexAliases:
    def test_the_other_spelling_of_an_index_gone_out_is_discarded(self):
        crawl = Crawl()
        rule = IndexAliases(crawl.parts)
        crawl.queue.requested.add(f"{SITE}/en/docs/")
        verdict = rule.request(Request(f"{SITE}/en/docs/index.html"), crawl.focus)
        assert isinstance(verdict, Discard) and verdict.stat == "index_alias_dropped"
        # a redirect's request: the site chose the spelling
        assert rule.request(Request(f"{SITE}/en/docs/index.html",
                                    meta={"redirect_urls": [f"{SITE}/en/docs"]}),
                            crawl.focus) is None

    def test_an_index_also_linked_as_its_folder_is_fetched_as_the_folder(self):
        crawl = Crawl()
        rule = IndexAliases(crawl.parts)
        assert rule.request(Request(f"{SITE}/en/docs/index.html"), crawl.focus) is None
        crawl.queue.queued[f"{SITE}/en/docs/"] = (0, 1)
        verdict = rule.request(Request(f"{SITE}/en/docs/index.html"), crawl.focus)
        assert isinstance(verdict, Rewrite) and verdict.request.url == f"{SITE}/en/docs/"
        assert verdict.request.dont_filter


class TestStartPageLinks:
    def test_a_start_page_link_is_followed_with_the_bonus_by_its_language_alone(self):
        crawl = Crawl()
        rule = StartPageLinks(crawl.parts)
        case = crawl.case(url("fr"), None, link={"hreflang": "fr", "text": "Français"})
        assert rule.link(case) == FOLLOW and case.request.priority == 20
        # of unknown language under the start URL's folder: the bonus too
        inside = crawl.case(f"{SITE}/en/docs/x", None)
        assert rule.link(inside) == FOLLOW and inside.request.priority == 20
        outside = crawl.case(f"{SITE}/about/x", None)
        assert rule.link(outside) == FOLLOW and outside.request.priority == 0

    def test_a_link_of_a_stored_page_goes_on_to_the_other_rules(self):
        crawl = Crawl()
        case = crawl.case(url("fr"), page("en"))
        assert StartPageLinks(crawl.parts).link(case) == CONTINUE
        assert case.request.priority == 0


class TestOtherLangPages:
    def test_a_link_of_an_unwanted_page_is_followed_only_into_a_wanted_language(self):
        crawl = Crawl()
        rule = OtherLangPages(crawl.parts)
        german = PageRecord(url=f"{SITE}/de/page.html", lang="de")
        into_fr = crawl.case(url("fr"), german)
        assert rule.link(into_fr) == FOLLOW and into_fr.request.priority == 20
        assert rule.link(crawl.case(f"{SITE}/de/x.html", german)) == DROP

    def test_a_page_of_unknown_language_drops_none_and_all_puts_them_last(self):
        crawl = Crawl()
        rule = OtherLangPages(crawl.parts)
        unknown = PageRecord(url=f"{SITE}/x/page.html", lang="und")
        case = crawl.case(f"{SITE}/x/y.html", unknown)
        assert rule.link(case) == FOLLOW and case.request.priority == -100
        every = Crawl(other_lang_links="all")
        german = PageRecord(url=f"{SITE}/de/page.html", lang="de")
        case = every.case(f"{SITE}/de/x.html", german)
        assert OtherLangPages(every.parts).link(case) == FOLLOW
        assert case.request.priority == -100
        assert rule.link(crawl.case(url("fr"), page("en"))) == CONTINUE


class TestLanguageSwitches:
    def test_a_switch_goes_first_and_counts_for_scarcity_and_is_never_held(self):
        crawl = Crawl()
        rule = LanguageSwitches(crawl.parts)
        crawl.queue.held["fr"][url("fr")] = Request(url("fr"))
        case = crawl.case(url("fr"), page("en"), link={"hreflang": "fr", "text": "Français"})
        assert rule.link(case) == FOLLOW and case.request.priority == 30
        assert url("fr") in crawl.queue.switch_targets
        assert crawl.queue.pending_by_lang["fr"] == 1
        assert url("fr") not in crawl.queue.held["fr"]

    def test_a_link_by_its_url_alone_is_no_switch(self):
        crawl = Crawl()
        case = crawl.case(url("fr"), page("en"))
        assert LanguageSwitches(crawl.parts).link(case) == CONTINUE
        assert not crawl.queue.switch_targets


def absent_french(crawl: Crawl) -> None:
    """Most English pages switch into French; the English counterpart of
    ``url("fr")`` names French without a link."""
    crawl.shape.pages_by_lang["en"] = ABSENCE_MIN_PAGES
    crawl.shape.switch_pages["en", "fr"] = ABSENCE_MIN_PAGES
    crawl.shape.observe(url("en"), "en", set(), set(), {"fr"})


class TestSwitchAbsence:
    def test_a_link_whose_counterpart_names_its_language_unlinked_is_dropped(self):
        crawl = Crawl()
        rule = SwitchAbsence(crawl.parts)
        assert rule.link(crawl.case(url("fr"), page("fr"))) == CONTINUE
        absent_french(crawl)
        assert rule.link(crawl.case(url("fr"), page("fr"))) == DROP
        # a link from another language's page is no same-language link: judged elsewhere
        assert rule.link(crawl.case(url("fr"), page("en"))) == CONTINUE

    def test_a_link_queued_before_its_counterpart_was_stored_is_discarded(self):
        crawl = Crawl()
        rule = SwitchAbsence(crawl.parts)
        assert rule.request(Request(url("fr")), crawl.focus) is None
        absent_french(crawl)
        assert isinstance(rule.request(Request(url("fr")), crawl.focus), Discard)
        # a switch's target names a page that exists
        crawl.queue.add_switch_target(url("fr"))
        assert rule.request(Request(url("fr")), crawl.focus) is None


class TestUntranslatedLinks:
    def test_an_ordinary_link_into_another_wanted_language_gets_no_bonus(self):
        crawl = Crawl()
        case = crawl.case(url("en"), page("fr"))
        assert UntranslatedLinks(crawl.parts).link(case) == CONTINUE
        assert case.no_bonus and marks(case.request.meta).untranslated
        assert crawl.queue.untranslated[url("en")] == "en"

    def test_the_same_language_links_of_an_untranslated_page_get_none_either(self):
        crawl = Crawl()
        rule = UntranslatedLinks(crawl.parts)
        same = crawl.case(url("fr"), page("fr"))
        assert rule.link(same) == CONTINUE and not same.no_bonus
        crawl.queue.untranslated[page("fr").url] = "fr"
        again = crawl.case(url("fr", "next.html"), page("fr"))
        assert rule.link(again) == CONTINUE and again.no_bonus


class TestOneWaySoFar:
    def test_a_link_between_pages_of_a_language_translated_into_one_way_loses_the_bonus(self):
        crawl = Crawl()
        rule = OneWaySoFar(crawl.parts)
        crawl.shape.pages_by_lang["en"] = 3
        crawl.shape.switch_pages["fr", "en"] = 2
        case = crawl.case(url("en"), page("en"))
        assert rule.link(case) == CONTINUE and case.no_bonus
        assert crawl.stats.values["bitext/focus/one_way_so_far"] == 1
        # an English page linking back into French: two-way
        crawl.shape.into_pages["en", "fr"] = 1
        case = crawl.case(url("en", "b.html"), page("en"))
        assert rule.link(case) == CONTINUE and not case.no_bonus


class TestLangBonus:
    def test_an_ordinary_link_into_a_wanted_language_gets_the_bonus(self):
        crawl = Crawl()
        rule = LangBonus(crawl.parts)
        case = crawl.case(url("en"), page("en"))
        assert rule.link(case) == CONTINUE and case.bonus and case.request.priority == 20
        withheld = crawl.case(url("en", "b.html"), page("en"))
        withheld.no_bonus = True
        assert rule.link(withheld) == CONTINUE and withheld.request.priority == 0


class TestCounterpartDeferral:
    def test_a_link_whose_counterpart_will_tell_goes_after_it(self):
        crawl = Crawl()
        rule = CounterpartDeferral(crawl.parts)
        case = crawl.case(url("fr"), page("fr"), bonus=True)
        assert rule.link(case) == CONTINUE and not case.deferred
        crawl.shape.pages_by_lang["en"] = ABSENCE_MIN_PAGES
        crawl.shape.switch_pages["en", "fr"] = ABSENCE_MIN_PAGES
        crawl.shape.unlinked_pages["en", "fr"] = 1   # the site marks missing translations
        case = crawl.case(url("fr"), page("fr"), bonus=True)
        assert rule.link(case) == CONTINUE and case.deferred and case.request.priority == -5


class TestScarceLang:
    def test_a_link_with_the_bonus_into_the_scarcest_language_goes_first(self):
        crawl = Crawl()
        rule = ScarceLang(crawl.parts)
        crawl.shape.pages_by_lang["en"] += 5   # French is the scarce one
        into_fr = crawl.case(url("fr"), page("fr"), bonus=True)
        assert rule.link(into_fr) == CONTINUE and into_fr.request.priority == 5
        into_en = crawl.case(url("en"), page("en"), bonus=True)
        assert rule.link(into_en) == CONTINUE and into_en.request.priority == 0


class TestHeldLanguages:
    def test_an_ordinary_link_into_a_held_language_is_kept_aside(self):
        crawl = Crawl()
        rule = HeldLanguages(crawl.parts)
        assert rule.link(crawl.case(url("en"), page("en"))) == CONTINUE
        crawl.queue.holding.add("en")
        assert rule.link(crawl.case(url("en"), page("en"))) == DROP
        assert url("en") in crawl.queue.held["en"]
        crawl.queue.add_switch_target(url("en", "switched.html"))
        assert rule.link(crawl.case(url("en", "switched.html"), page("en"))) == CONTINUE

    def test_a_queued_link_of_a_language_held_since_waits_at_download(self):
        crawl = Crawl()
        rule = HeldLanguages(crawl.parts)
        meta = carrying(chain="en", same_lang="en")
        assert rule.request(Request(url("en"), meta=dict(meta)), crawl.focus) is None
        crawl.queue.holding.add("en")
        assert isinstance(rule.request(Request(url("en"), meta=dict(meta)), crawl.focus),
                          Refuse)
        held = crawl.queue.held["en"][url("en")]
        assert held.dont_filter and url("en") in crawl.queue.filtered
        released = marked(meta, released=True)
        assert rule.request(Request(url("en", "b.html"), meta=released), crawl.focus) is None
        assert HeldLanguages(Crawl(hold_queued=False).parts).request(
            Request(url("en"), meta=dict(meta)), crawl.focus) is None

    def test_a_link_waiting_for_the_one_way_judgement_alone_is_marked_so(self):
        crawl = Crawl()
        crawl.shape.pages_by_lang["en"] = 3
        crawl.shape.switch_pages["fr", "en"] = 2
        meta = carrying(chain="en", same_lang="en")
        verdict = HeldLanguages(crawl.parts).request(Request(url("en"), meta=meta),
                                                     crawl.focus)
        assert isinstance(verdict, Refuse) and "one way" in verdict.reason
        assert marks(crawl.queue.held["en"][url("en")].meta).one_way_wait


class Side:
    """A stand-in for the small side of a partly translated site (sites/small_side.py)."""

    def __init__(self, holds: bool):
        self._holds, self.held, self.unsent = holds, {}, []

    def holds(self, link_url, lang):
        return self._holds, url("fr") if self._holds else None

    def hold(self, link_url, lang, request, counterpart):
        self.held[link_url] = (request, lang, counterpart)

    def not_sent(self, link_url):
        self.unsent.append(link_url)
        return [Request(url("fr", "released.html"))]


class TestSmallSideHolds:
    def test_a_big_side_page_without_a_known_counterpart_waits(self):
        side = Side(holds=True)
        crawl = Crawl(small_side=side)
        verdict = SmallSideHolds(crawl.parts).request(Request(url("en")), crawl.focus)
        assert isinstance(verdict, Refuse) and url("en") in side.held
        assert url("en") in crawl.queue.filtered

    def test_a_switch_target_a_released_copy_or_a_side_that_holds_nothing_goes(self):
        side = Side(holds=True)
        crawl = Crawl(small_side=side)
        rule = SmallSideHolds(crawl.parts)
        assert rule.request(Request(url("en"), meta=carrying(released=True)),
                            crawl.focus) is None
        crawl.queue.add_switch_target(url("en"))
        assert rule.request(Request(url("en")), crawl.focus) is None
        other = Crawl(small_side=Side(holds=False))
        assert SmallSideHolds(other.parts).request(Request(url("en")), other.focus) is None
        assert not side.held


class Families:
    def __init__(self, admit: bool):
        self._admit, self.waiting = admit, []

    def admit(self, link_url, request):
        self.waiting.append(request)
        return self._admit


class TestFamilyTests:
    def test_a_link_waits_while_another_of_its_family_is_tested(self):
        side = Side(holds=False)
        crawl = Crawl(small_side=side)
        rule = FamilyTests(crawl.parts)
        crawl.queue.families = Families(admit=False)   # type: ignore[assignment]
        verdict = rule.request(Request(url("en")), crawl.focus)
        assert isinstance(verdict, Refuse)
        assert marks(crawl.queue.families.waiting[0].meta).family_admitted
        # it sizes no side of the site: what that releases is scheduled
        assert side.unsent == [url("en")]
        assert [r.url for r in crawl.scheduled] == [url("fr", "released.html")]

    def test_an_admitted_link_a_retry_or_a_guess_goes(self):
        crawl = Crawl()
        rule = FamilyTests(crawl.parts)
        crawl.queue.families = Families(admit=False)   # type: ignore[assignment]
        for meta in (carrying(family_admitted=True), {"retry_times": 1},
                     {"bitext_discovered_by": "pattern"}):
            assert rule.request(Request(url("en"), meta=meta), crawl.focus) is None
        crawl.queue.families = Families(admit=True)   # type: ignore[assignment]
        assert rule.request(Request(url("en")), crawl.focus) is None


class Judged:
    """A stand-in for section indexes or bars: judges every request ``verdict``."""

    def __init__(self, verdict: str):
        self.verdict, self.listed, self.copies = verdict, True, []

    def active(self):
        return True

    def judge(self, *args):
        self.copies.append(args[-1])
        return self.verdict


class TestSectionIndexes:
    def test_a_link_its_section_index_leaves_out_is_kept(self):
        sections = Judged("keep")
        crawl = Crawl(sections=sections)
        rule = SectionIndexes(crawl.parts)
        verdict = rule.request(Request(url("en"), meta=carrying(linked_from=url("en", "a"))),
                               crawl.focus)
        assert isinstance(verdict, Refuse) and sections.copies[0].dont_filter
        assert crawl.stats.values["bitext/focus/sections/kept"] == 1

    @pytest.mark.parametrize("verdict", ["test", "go"])
    def test_a_test_or_a_link_the_index_names_goes(self, verdict):
        crawl = Crawl(sections=Judged(verdict))
        assert SectionIndexes(crawl.parts).request(Request(url("en")), crawl.focus) is None
        assert crawl.stats.values.get("bitext/focus/sections/tested", 0) == (verdict == "test")

    def test_a_folder_index_goes_ahead_of_its_page_s_other_links(self):
        crawl = Crawl()
        rule = SectionIndexes(crawl.parts)
        case = crawl.case(f"{SITE}/en/docs/", page("en"))
        assert rule.followed(case.request, case).priority == 1
        assert rule.followed(Request(url("en")), case).priority == 0
        assert rule.followed(Request(f"{SITE}/en/docs/"), None).priority == 0


class TestBarAbsence:
    def test_a_link_its_counterpart_s_bar_leaves_out_is_kept(self):
        side = Side(holds=False)
        bars = Judged("keep")
        crawl = Crawl(small_side=side, bars=bars)
        verdict = BarAbsence(crawl.parts).request(Request(url("fr")), crawl.focus)
        assert isinstance(verdict, Refuse) and side.unsent == [url("fr")]
        assert url("fr") in crawl.queue.filtered

    def test_a_probe_a_retry_or_a_test_goes(self):
        crawl = Crawl(bars=Judged("keep"))
        rule = BarAbsence(crawl.parts)
        for meta in (carrying(lang_probe="fr"), {"retry_times": 1}):
            assert rule.request(Request(url("fr"), meta=meta), crawl.focus) is None
        tested = Crawl(bars=Judged("test"))
        assert BarAbsence(tested.parts).request(Request(url("fr")), tested.focus) is None
        assert tested.stats.values["bitext/focus/bar_absence/tested"] == 1


class TestThresholds:
    """A rule's thresholds are settings, read once and passed to it; the rule turns its
    policy on with them, and a rule left out leaves its policy off."""

    def test_every_threshold_is_a_setting(self):
        from bitextcrawl.defaults import DEFAULTS
        from bitextcrawl.middlewares.focus_rules import active_rules
        classes = active_rules(Settings({}))
        named = [name for cls in classes for name in cls.thresholds.values()]
        assert len(named) >= 8 and all(name in DEFAULTS for name in named)

    def test_a_setting_changes_the_rule_s_decision(self):
        from bitextcrawl.middlewares.focus_rules import build_rules
        crawl = Crawl()
        crawl.shape.one_way_enabled = False
        [rule] = build_rules([OneWaySoFar], crawl.parts, Settings({}))
        crawl.shape.pages_by_lang["en"] = 3
        crawl.shape.switch_pages["fr", "en"] = 2
        case = crawl.case(url("en"), page("en"))
        assert rule.link(case) == CONTINUE and case.no_bonus
        fewer = Crawl()
        [rule] = build_rules([OneWaySoFar], fewer.parts,
                             Settings({"BITEXT_FOCUS_ONE_WAY_MIN_PAGES": "3"}))
        fewer.shape.pages_by_lang["en"] = 3
        fewer.shape.switch_pages["fr", "en"] = 2
        case = fewer.case(url("en"), page("en"))
        assert rule.link(case) == CONTINUE and not case.no_bonus   # judged: not one way

    def test_each_rule_turns_its_policy_on_with_its_thresholds(self):
        from bitextcrawl.middlewares.focus_rules import build_rules
        crawl = Crawl()
        crawl.shape.switch_absence = crawl.shape.one_way_enabled = False
        crawl.parts.walk = SimpleNamespace(enabled=False, small_share=0.5)
        build_rules([SwitchAbsence, OneWaySoFar, FamilyTests, SectionIndexes, BarAbsence,
                     SmallSideHolds], crawl.parts, Settings({
                         "BITEXT_FOCUS_SWITCH_ABSENCE_MIN_PAGES": 4,
                         "BITEXT_FOCUS_ONE_WAY_MAX_SHARE": 0.2,
                         "BITEXT_FOCUS_FAMILY_FAIL_AFTER": 5,
                         "BITEXT_FOCUS_SECTION_INDEXES_MIN_LISTED": 6,
                         "BITEXT_FOCUS_SECTION_INDEXES_FAIL_AFTER": 7,
                         "BITEXT_FOCUS_BAR_ABSENCE_MIN_CONFIRMED": 2,
                         "BITEXT_FOCUS_SMALL_SIDE_SHARE": 0.3}))
        shape = crawl.shape
        assert shape.switch_absence and shape.absence_min_pages == 4
        assert shape.one_way_enabled and shape.one_way_max_share == 0.2
        assert crawl.queue.families.fail_after == 5
        assert (crawl.parts.sections.min_listed, crawl.parts.sections.fail_after) == (6, 7)
        assert crawl.parts.bars.enabled
        assert all(r.min_confirmed == 2 for r in crawl.parts.bars.rules.values())
        assert crawl.parts.walk.enabled and crawl.parts.walk.small_share == 0.3

    def test_a_rule_left_out_leaves_its_policy_off(self):
        from bitextcrawl.middlewares.focus_rules import build_rules
        crawl = Crawl()
        crawl.shape.switch_absence = crawl.shape.one_way_enabled = False
        build_rules([LangBonus], crawl.parts, Settings({}))
        assert not crawl.shape.switch_absence and not crawl.shape.one_way_enabled
        assert crawl.parts.bars is None and crawl.parts.sections is None


class Watch:
    """A stand-in for a rule's watch (focus/bars.py, focus/sections.py): what it saw."""

    def __init__(self):
        self.pages, self.errors = [], []

    def page(self, item, *linked_from):
        self.pages.append((item.url, *linked_from))

    def error(self, link_url, *args):
        self.errors.append((link_url, *args))


class Walk:
    """A stand-in for the walk of the small side (focus/walk.py)."""

    def __init__(self, idle=()):
        self.enabled, self.small_share, self.unlisted = False, 0.5, None
        self.pages, self.errors, self._idle, self.recounted = [], [], list(idle), 0

    def page(self, item, in_scope, probe):
        self.pages.append((item.url, probe))

    def error(self, request):
        self.errors.append(request.url)

    def idle(self):
        return self._idle

    def recount(self):
        self.recounted += 1


class TestWhatComesBack:
    """The hooks on what comes back: a page stored, an error, an answer, the crawl idle."""

    def test_held_languages_releases_at_idle_what_no_longer_waits(self):
        crawl = Crawl()
        rule = HeldLanguages(crawl.parts)
        crawl.queue.holding.add("en")
        crawl.queue.held["en"][url("en")] = Request(url("en"))
        crawl.queue.held["en"][url("en", "done.html")] = Request(url("en", "done.html"))
        crawl.queue.downloaded.add(url("en", "done.html"))
        # held while English yields too little (here: by the one-way judgement)
        crawl.shape.pages_by_lang["en"] = 30
        crawl.shape.one_way_enabled = True
        crawl.shape.switch_pages["fr", "en"] = 6
        assert rule.idle() == [] and "en" in crawl.queue.holding
        crawl.shape.into_pages["en", "fr"] = 20   # English links back: two-way
        released = rule.idle()
        assert [r.url for r in released] == [url("en")]
        assert marks(released[0].meta).released and "en" not in crawl.queue.holding

    def test_family_tests_release_the_family_once_a_test_finds_a_page(self):
        crawl = Crawl()
        rule = FamilyTests(crawl.parts)
        families = crawl.queue.families
        assert rule.request(Request(url("en", "ngx_a.html")), crawl.focus) is None
        assert isinstance(rule.request(Request(url("en", "ngx_b.html")), crawl.focus), Refuse)
        released = rule.answered(url("en", "ngx_a.html"), True)
        assert [r.url for r in released] == [url("en", "ngx_b.html")]
        assert crawl.stats.values["bitext/focus/family/released"] == 1
        assert not families.waiting.get("site.test/en/ngx")

    def test_family_tests_give_way_at_idle_to_the_next_of_a_family(self):
        crawl = Crawl()
        rule = FamilyTests(crawl.parts)
        rule.request(Request(url("en", "ngx_a.html")), crawl.focus)
        rule.request(Request(url("en", "ngx_b.html")), crawl.focus)
        # the test never came back (dropped on its way): the next one goes
        assert [r.url for r in rule.idle()] == [url("en", "ngx_b.html")]

    def test_section_indexes_learn_a_page_with_the_link_it_answered(self):
        crawl = Crawl(sections=None)
        crawl.parts.walk = Walk()
        rule = SectionIndexes(crawl.parts)
        rule.watch = watch = Watch()   # type: ignore[assignment]
        linked = Request(url("en", "a.html"), meta=carrying(linked_from=url("en", "list.html")))
        rule.page(page("en", "a.html"), linked)
        # a link into another language is no test of its page's section; nor a guess
        into_fr = Request(url("fr", "a.html"), meta=carrying(linked_from=url("en", "l.html")))
        rule.page(page("fr", "a.html"), into_fr)
        guess = Request(url("en", "b.html"), meta={**carrying(linked_from=url("en", "l.html")),
                                                   "bitext_discovered_by": "pattern"})
        rule.error(url("en", "b.html"), 404, guess)
        rule.page(page("en", "c.html"), None)   # (another worker's page)
        assert watch.pages == [(url("en", "a.html"), url("en", "list.html")),
                               (url("fr", "a.html"), None), (url("en", "c.html"), None)]
        assert watch.errors == [(url("en", "b.html"), None)]
        # an index come in: the sides sized again, and the families' waiting tests go
        assert rule._index_in() == [] and crawl.parts.walk.recounted == 1
        assert crawl.queue.families.unlisted == crawl.parts.sections.unlisted
        assert crawl.parts.walk.unlisted == crawl.parts.sections.unlisted

    def test_section_indexes_and_bars_release_at_idle_what_they_kept_unlearned(self):
        crawl = Crawl()
        sections, bars = SectionIndexes(crawl.parts), BarAbsence(crawl.parts)
        kept = Request(url("en", "kept.html"))
        crawl.parts.sections.kept[kept.url] = (kept, url("en", "list.html"))
        assert [r.url for r in sections.idle()] == [kept.url]
        assert bars.idle() == []
        bars.watch = watch = Watch()   # type: ignore[assignment]
        bars.page(page("en"), None)
        bars.error(url("fr"), 404, None)
        assert watch.pages == [(page("en").url,)] and watch.errors == [(url("fr"), 404)]

    def test_small_side_hands_its_walk_pages_errors_and_idle(self):
        crawl = Crawl()
        crawl.parts.walk = walk = Walk(idle=[Request(url("en", "probe.html"))])
        rule = SmallSideHolds(crawl.parts)
        assert walk.enabled
        rule.page(page("en"), Request(page("en").url))
        assert walk.pages == []   # (no crawl context: no scope to size the sides by)
        crawl.parts.in_scope = lambda link_url: True
        probe = Request(page("fr").url, meta=carrying(lang_probe="fr"))
        rule.page(page("en"), Request(page("en").url))
        rule.page(page("fr"), probe)
        assert walk.pages == [(page("en").url, None), (page("fr").url, probe)]
        rule.error(url("fr"), 404, Request(url("fr")))
        rule.error(url("fr", "b.html"), 404, None)   # (another worker's answer)
        assert walk.errors == [url("fr")]
        assert [r.url for r in rule.idle()] == [url("en", "probe.html")]
