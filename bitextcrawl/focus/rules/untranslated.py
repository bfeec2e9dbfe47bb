"""Rule: an ordinary link (no switch) from a page of one wanted language into another gets
no language bonus. A site links another language's page where its own translation is
missing, so the page it leads to most likely has no counterpart; and the pages such a
page links in its own language are of its kind (nginx.org's /cn/ links the English njs
manual). The URLs are kept (``queue.untranslated``): held at download like the links of
their language."""

from __future__ import annotations

from bitextcrawl.focus.marks import mark, marks
from bitextcrawl.focus.rules.base import CONTINUE, FocusRule, LinkCase


def untranslated_link(page, lang: str | None, evidence: str, langs: tuple) -> bool:
    """A link of ``page`` by its URL alone into another wanted language than the page's."""
    return (page is not None and page.lang in langs and lang in langs
            and lang != page.lang and evidence == "url_token")


class UntranslatedLinks(FocusRule):
    name = "untranslated"

    def link(self, case: LinkCase) -> str:
        if not case.ordinary:
            return CONTINUE
        queue, url, page = self.parts.queue, case.request.url, case.page
        lang = case.assumed_lang
        if untranslated_link(page, lang, case.assumed_evidence, case.langs):
            queue.untranslated[url] = lang
        if url in queue.untranslated or (
                lang in (None, page.lang) and (marks(case.response_meta).untranslated
                                               or case.response_url in queue.untranslated)):
            mark(case.request.meta, untranslated=True)
            self.parts.stats.inc_value("bitext/focus/untranslated_link")
            case.no_bonus = True
        return CONTINUE
