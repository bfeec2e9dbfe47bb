"""The focus's rules as the crawl's settings order them: ``BITEXT_FOCUS_RULES``
(``defaults.py``), loaded as Scrapy loads its middleware lists. A dict set by the user
changes the rules it names and leaves the others as the defaults have them; ``None``
switches a rule off, and so does its own switch (``FocusRule.switch``) set to False."""

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
