"""The focus's rules as the crawl's settings order them: ``BITEXT_FOCUS_RULES``
(``defaults.py``), loaded as Scrapy loads its middleware lists. A dict set by the user
changes the rules it names and leaves the others as the defaults have them; ``None``
switches a rule off, and so does its own switch (``FocusRule.switch``) set to False. A
rule's thresholds (``FocusRule.thresholds``) are read here once and passed to it."""

from __future__ import annotations

from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from bitextcrawl.config import getbool
from bitextcrawl.defaults import DEFAULTS


def active_rules(settings) -> list[type]:
    """The classes of the active rules, in their order."""
    rules = {**DEFAULTS["BITEXT_FOCUS_RULES"], **settings.getdict("BITEXT_FOCUS_RULES")}
    classes = [load_object(path) for path in build_component_list(rules)]
    return [cls for cls in classes if cls.switch is None or getbool(settings, cls.switch)]


def build_rules(classes: list[type], parts, settings) -> list:
    """The rules of ``classes`` made over the focus's ``parts``, each with its thresholds
    as the settings have them (read as the type of their default, which they fall back
    to: settings of another project)."""
    rules = []
    for cls in classes:
        kwargs = {}
        for keyword, name in cls.thresholds.items():
            get = settings.getfloat if isinstance(DEFAULTS[name], float) else settings.getint
            kwargs[keyword] = get(name, DEFAULTS[name])
        rules.append(cls(parts, **kwargs))
    return rules
