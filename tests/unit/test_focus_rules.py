"""The registry of the focus's rules (``BITEXT_FOCUS_RULES``): the order, ``None`` and
each rule's own switch; and the rules as the link judge runs them."""

from __future__ import annotations

import json
import subprocess
import sys

from scrapy.settings import Settings

from bitextcrawl.defaults import DEFAULTS
from bitextcrawl.focus.rules.base import CONTINUE, DROP, FOLLOW, FocusRule
from bitextcrawl.focus.rules.other_lang import DropOtherLang
from bitextcrawl.focus.rules.promote import Promote
from bitextcrawl.focus.rules.start_page import in_start_section
from bitextcrawl.middlewares.focus_rules import active_rules
from tests.conftest import PROJECT_ROOT

RULES = DEFAULTS["BITEXT_FOCUS_RULES"]


def names(settings: dict) -> list[str]:
    return [cls.name for cls in active_rules(Settings(settings))]


def test_the_defaults_are_every_rule_in_order():
    orders = list(RULES.values())
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    # (every rule's switch is on by default)
    classes = active_rules(Settings({}))
    assert [f"{c.__module__}.{c.__name__}" for c in classes] == list(RULES)
    assert all(issubclass(c, FocusRule) for c in classes)
    # one module a rule, named after it
    assert all(c.__module__.rsplit(".", 1)[1] == c.name for c in classes
               if c.name != "drop_other_lang")


def test_none_switches_a_rule_off_and_a_partial_dict_changes_only_what_it_names():
    path = "bitextcrawl.focus.rules.promote.Promote"
    assert "promote" in names({})
    left = names({"BITEXT_FOCUS_RULES": {path: None}})
    assert "promote" not in left and len(left) == len(names({})) - 1
    # as given on the command line (-s), JSON
    assert names({"BITEXT_FOCUS_RULES": json.dumps({path: None})}) == left
    assert names({"BITEXT_FOCUS_RULES": {p: None for p in RULES}}) == []


def test_a_rule_s_switch_leaves_it_out():
    assert "switch_absence" not in names({"BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED": False})
    assert "promote" not in names({"BITEXT_FOCUS_PROMOTE_ENABLED": "False"})
    assert "small_side" not in names({"BITEXT_FOCUS_SMALL_SIDE_ENABLED": False})


def test_an_order_moves_a_rule():
    moved = names({"BITEXT_FOCUS_RULES": {"bitextcrawl.focus.rules.promote.Promote": 5000}})
    assert moved[-1] == "promote"


def test_scrapy_settings_prints_the_ordered_rules():
    out = subprocess.run([sys.executable, "-m", "scrapy", "settings", "--get",
                          "BITEXT_FOCUS_RULES"], cwd=PROJECT_ROOT, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    printed = [p for p in RULES if p in out]
    assert printed == list(RULES) and out.index(printed[0]) < out.index(printed[-1])


class _Stats:
    def __init__(self):
        self.values: dict = {}

    def inc_value(self, key, count=1):
        self.values[key] = self.values.get(key, 0) + count


class _Parts:
    def __init__(self):
        self.stats = _Stats()


class _Case:
    def __init__(self, lang, evidence="hreflang", langs=("en", "fr")):
        self.lang, self.evidence, self.langs = lang, evidence, langs


def test_drop_other_lang_drops_a_link_into_a_language_nobody_wants():
    rule = DropOtherLang(_Parts())
    assert rule.link(_Case("de")) == DROP
    assert rule.link(_Case("fr")) == CONTINUE and rule.link(_Case(None)) == CONTINUE
    assert rule.parts.stats.values == {"bitext/focus/dropped_other_lang/hreflang": 1,
                                       "bitext/links/other_lang/de": 1}


def test_a_rule_does_nothing_by_default():
    rule = FocusRule(_Parts())
    assert rule.link(_Case("fr")) == CONTINUE and rule.request(object(), None) is None
    assert rule.followed("request", None) == "request" and rule.idle() == []
    assert FOLLOW != CONTINUE and Promote.switch == "BITEXT_FOCUS_PROMOTE_ENABLED"


def test_start_section():
    assert in_start_section("http://x/cn/docs/a.html", "http://x/cn/")
    assert not in_start_section("http://x/en/a.html", "http://x/cn/")
    assert not in_start_section("http://x/a.html", "http://x/")   # the root says nothing
