"""Rule: the links of the start page (or of a page not stored) are judged by their
language alone: into a wanted language, the language bonus; of unknown language but
under the folder the user started in, the bonus too (no URL token is known yet, and
that folder is where the start page's language is: nginx.org's /cn/); an untranslated
link (``untranslated.py``), none. Every such link is followed."""

from __future__ import annotations

from bitextcrawl.focus.marks import mark
from bitextcrawl.focus.rules.base import CONTINUE, FOLLOW, FocusRule, LinkCase
from bitextcrawl.focus.rules.untranslated import untranslated_link


def in_start_section(url: str, start: str) -> bool:
    """Is ``url`` under the folder of the start URL ``start`` (not the site's root)?"""
    rest = (start or "").partition("://")[2]
    folder = rest[:rest.rfind("/") + 1] if "/" in rest else ""
    if folder.count("/") < 2:   # the root: says nothing
        return False
    return url.partition("://")[2].startswith(folder)


class StartPageLinks(FocusRule):
    name = "start_page"

    def link(self, case: LinkCase) -> str:
        if not case.from_start:
            return CONTINUE
        parts, request, lang = self.parts, case.request, case.lang
        stats = parts.stats
        if untranslated_link(case.page, lang, case.evidence, case.langs):
            mark(request.meta, untranslated=True)
            parts.queue.untranslated[request.url] = lang
            stats.inc_value("bitext/focus/untranslated_link")
        elif lang in case.langs:
            request.priority += parts.config.bonus
            stats.inc_value(f"bitext/focus/lang_link/{case.evidence}")
        elif lang is None and in_start_section(request.url, parts.start_url()):
            request.priority += parts.config.bonus
            stats.inc_value("bitext/focus/lang_link/start_section")
        return FOLLOW
