"""Rule: the ordinary links into a language that is held wait (``focus/holding.py``: its
same-language links yield too little, ``BITEXT_FOCUS_YIELD_ENABLED``, or the site is
translated one way into it, ``one_way.py``): kept aside at their discovery, and, where
they were queued before the language was held, before download
(``BITEXT_FOCUS_HOLD_QUEUED_ENABLED``). A switch's target is never held: it is a
counterpart. Released when the crawl runs dry and the yield has come back."""

from __future__ import annotations

from bitextcrawl.focus.marks import mark, marks
from bitextcrawl.focus.rules.base import CONTINUE, DROP, FocusRule, LinkCase, Refuse


class HeldLanguages(FocusRule):
    name = "held_languages"

    def link(self, case: LinkCase) -> str:
        chain, holding = case.chain, self.parts.holding
        if chain is not None and holding.update(chain) \
                and case.request.url not in self.parts.queue.switch_targets:
            holding.hold(case.request, chain)
            return DROP
        return CONTINUE

    def idle(self):
        """Held links whose URL now names another wanted language go with it; then the
        held links of each language whose yield has come back (``focus/holding.py``)."""
        released: list = []
        holding = self.parts.holding
        holding.rejudge_held(self.parts.site_tokens(), released.append)
        holding.release_languages(released.append)
        return released

    def request(self, request, focus):
        if not self.parts.config.hold_queued:
            return None
        queue, url, meta = focus.queue, request.url, request.meta
        facts = marks(meta)
        lang = facts.chain or queue.untranslated.get(url)
        # (a switch target is a counterpart: the switch's own request may have been
        # dropped by the dupefilter in favour of this one)
        if not lang or facts.released or facts.one_way_waited \
                or url in queue.switch_targets \
                or not focus.holds(lang, facts.same_lang == lang):
            return None
        # a copy that the dupefilter lets through when released (this one was seen)
        held = request.replace(dont_filter=True, meta=dict(meta))
        if lang in queue.holding:
            reason = f"held: links between {lang} pages yield too little"
        else:   # (released to be judged by the other rules: focus/holding.py)
            mark(held.meta, one_way_wait=True)
            reason = f"waits: the site looks translated one way into {lang} so far"
        if queue.hold(url, held, lang):
            self.parts.stats.inc_value("bitext/focus/held")
        queue.filtered.add(url)
        return Refuse(reason)
