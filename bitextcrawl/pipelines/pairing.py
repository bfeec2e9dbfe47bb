"""Online URL-pattern pairing and deep page recovery [Zhang 2013 §2.1–2.2].

As pages arrive, the URL-pattern learner is re-fitted on the URLs stored per
language. When the crawl runs dry (the frontier's idle task ``deep_recovery``), the
counterpart URLs of pages still unpaired are generated with each credible pattern and
requested (``discovered_by="pattern"``); the crawl stays open for them.
A generated URL that answers in the wrong language is not a counterpart.

Recovery spends responses on guesses, so it has a budget and learns from its
failures (not in the paper, which generates every counterpart once):

* counterparts are generated only into the wanted languages (``langs``), each with
  the language the pattern says it is in;
* per *direction* — (pattern, page language, counterpart language) — the outcome of
  every guess is counted. A direction is stopped once its last
  ``BITEXT_RECOVERY_STOP_AFTER`` guesses all failed (404, not HTML, wrong language)
  while less than ``BITEXT_RECOVERY_MIN_SUCCESS`` of all its guesses succeeded;
* the scarce side first: directions leaving the language with the fewest stored pages
  get the whole round's budget; the others are probed with ``STOP_AFTER`` guesses, and
  get two more for each page they found, no more. A direction is a
  pattern, a language pair and the folder of the page: a site translates some sections
  and not others, and each section is judged on its own; into a folder where no page of
  the counterpart's language is known, a third of ``STOP_AFTER`` failures stop it — and
  such folders wait until the folders of known language have been probed: where the
  pattern failed there (``2 * STOP_AFTER`` failures, too few found), they get no guess.
  Within a direction, stored pages and held links (see the focus middleware) go in URL
  order — whether a page happened to be downloaded says nothing of its translation —,
  but for counterparts a page links and its section's index leaves out (links the
  section rule keeps: ``focus/sections.py``), which go last: where a probe's failures
  stop a direction, they are not spent on pages the site already says are missing;
  pages that pages of the counterpart's language link to by an ordinary link (not a
  language switch) are not guessed at all: a site links to the other language's page
  where its own translation is missing (``skipped_untranslated``, with the pages whose
  switch bar names the language unlinked);
* at most ``BITEXT_RECOVERY_MAX_PER_ROUND`` guesses per idle round, never more than
  ``max_pages`` leaves room for;
* a guess ``dir/index.html`` for a known ``dir/`` (or the reverse) is the same page:
  not requested; pages whose content was already stored under another URL generate
  nothing.

Stats ``bitext/recovery/*``: ``tried``, ``found``, ``failed``, ``wrong_language``,
``rounds``, ``stopped_directions``, ``skipped_stopped``, ``skipped_index_alias``,
``skipped_unlisted`` (a URL the index of its section leaves out, in a folder where every
URL that index left out led nowhere: ``focus/sections.py``),
``deferred`` (left for a later round by the probe size), ``over_budget``
(by the round cap or ``max_pages``).

The pages stored and the pairs learned online are
:class:`bitextcrawl.pairing.online.OnlinePairs`, the guesses and their budgets
:class:`bitextcrawl.pairing.recovery.RecoveryGuesses` (both pure); this pipeline feeds
them the crawl's pages and answers, and requests what it guesses.
"""

from __future__ import annotations

import logging

from scrapy import signals

from bitextcrawl.config import getbool
from bitextcrawl.context import CrawlContext
from bitextcrawl.focus.marks import carrying
from bitextcrawl.pipelines.base import SitePipeline
from bitextcrawl.pages.record import PageRecord
from bitextcrawl.pairing.online import OnlinePairs
from bitextcrawl.pairing.recovery import NO_CAP, STAT, RecoveryGuesses
from bitextcrawl.signals import held_links, pages_paired

logger = logging.getLogger(__name__)


class UrlPairingPipeline(SitePipeline):
    enabled_by = "BITEXT_PATTERNS_ENABLED"

    def __init__(self, crawler, context: CrawlContext | None = None):
        super().__init__(crawler, context)
        s = crawler.settings
        self.recovery = getbool(s, "BITEXT_DEEP_RECOVERY_ENABLED")
        self.max_per_round = s.getint("BITEXT_RECOVERY_MAX_PER_ROUND")
        self.guesses = RecoveryGuesses(self.stats, self.max_per_round,
                                       max(1, s.getint("BITEXT_RECOVERY_STOP_AFTER")),
                                       s.getfloat("BITEXT_RECOVERY_MIN_SUCCESS"))
        state = self.context.state
        # the pages to pair, paired as they arrive (pairing/online.py); the pages that
        # brought pairs, to the focus middleware (``pages_paired``)
        self.pairs = OnlinePairs(
            self.langs, max(1, s.getint("BITEXT_PATTERN_RELEARN_EVERY")), state.url_tokens,
            self.stats, lambda urls: self.context.signals.send_catch_log(
                signal=pages_paired, urls=urls), state.duplicate)
        self.skipped_unlisted: set[str] = set()  # guesses a section's index advised against
        self.context.add_idle_task("deep_recovery", self.spider_idle)
        self.context.state.add_section("recovery", self.guesses.to_state, shared=True)
        self.context.state.on_stored_record(self.pairs.observe)
        # the pages and answers of the other workers of a distributed crawl
        self.context.state.on_remote_record(self.pairs.add)
        self.context.state.on_fact("recovery_outcome", self._remote_outcome)
        self.context.state.on_fact("answered", self.context.state.answered.add)
        self.context.signals.connect(self.response_received, signal=signals.response_received)

    def open_spider(self):
        # read as the crawl starts; read-only here: the closing pipeline updates it
        self.pattern_db = self.context.pattern_db
        # a resumed crawl starts from what is stored
        self.pairs.load(self.context.store.urls_by_lang())
        self.context.replay_store()   # every stored page observed (a resumed crawl)
        self.guesses.load(self.context.state_section("recovery", {}))
        self.pairs.start(self.context.url_pattern_learner(keep_parsed=True))

    @property
    def learner(self):
        """The URL-pattern learner (``OnlinePairs``'s)."""
        return self.pairs.learner

    # ---- outcomes of the guesses ---------------------------------------------------------

    def _outcome(self, url: str, ok: bool) -> None:
        entry = self.guesses.pending.get(url)
        if entry is not None:   # the other workers count it in its direction too
            self.context.state.publish("recovery_outcome", (url, entry[0], ok))
        self._request_held(self.guesses.outcome(url, ok))

    def _remote_outcome(self, value) -> None:
        url, key, ok = value
        self._request_held(self.guesses.remote_outcome(url, tuple(key), ok))

    def _request_held(self, held: tuple | None) -> None:
        if held is not None and held[1] not in self.pairs.known:
            # a held link whose counterpart exists: now the page is worth its download
            self.stats.inc_value(STAT + "held_requested")
            self._crawl(self.context.page_request(held[1], discovered_by="pattern",
                                                  **carrying(released=True)))

    def response_received(self, response, request, spider=None):
        # (a URL a link's request got answered for is no guess: the crawl state's
        # ``answered``, which the dupefilter would drop unseen)
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        if request.meta.get("bitext_discovered_by") != "pattern":
            if response.status >= 400:
                # an error a link got: no guess of it by the other workers of a
                # distributed crawl either
                self.context.state.publish("answered", url)
            return
        if response.status != 200 or request.meta.get("bitext_page") is None:
            self._outcome(url, False)  # 404, an error page, not HTML: no counterpart here
        # a page: its language decides, in process_item

    def process_item(self, item):
        if not isinstance(item, PageRecord):
            return item
        requested = item.requested_url or item.url
        tried = self.guesses.tried
        expected = tried.get(requested) or tried.get(item.url)
        if item.discovered_by == "pattern" and expected:
            if item.lang == expected:
                self.stats.inc_value(STAT + "found")
                self._outcome(requested, True)
            else:  # the site served its default language under the generated URL
                self.stats.inc_value(STAT + "wrong_language")
                self.stats.inc_value(STAT + "failed")
                self._outcome(requested, False)
        self.pairs.observe(item)
        self.pairs.add(item)
        return item

    # ---- deep page recovery ---------------------------------------------------------------

    def _crawl(self, request) -> None:
        self.context.frontier.schedule(request)

    def _recovery_sources(self) -> tuple[list, dict]:
        """Pages whose counterparts are guessed: the unpaired stored pages and the links the
        focus middleware holds, as ``(url, lang, held)``; and the pages of each language."""
        pairs = self.pairs
        sizes = {lang: len(pairs.urls_by_lang.get(lang, ())) for lang in self.langs}
        sources = [(url, lang, False) for url, lang in pairs.unpaired()]
        for _, answer in self.context.signals.send_catch_log(signal=held_links):
            for lang, urls in (answer or {}).items():
                if lang in self.langs:
                    # (the focus holds the links of every site an expand crawl crawls)
                    held = [url for url in urls
                            if url not in pairs.known and self.context.in_scope(url)]
                    sources.extend((url, lang, True) for url in held)
                    # held links are pages of that language too: a language whose links
                    # the focus holds back is not the scarce side
                    sizes[lang] += len(held)
        return sources, sizes

    def _skip_guess(self, url: str) -> bool:
        """Not guessed: a URL a link already got an error for, out of scope, of a
        family of URLs that led only to errors (the focus's, ``focus/families.py``), or
        one its section's index leaves out in a folder where every URL the index left
        out led nowhere (``focus/sections.py``)."""
        if url in self.context.state.answered or not self.context.in_scope(url):
            return True
        focus = self.context.state.focus
        if focus is None:
            return False
        if focus.queue.families.failing(url):
            return True
        if focus.sections is not None and focus.sections.guess_unlikely(url):
            if url not in self.skipped_unlisted:
                self.skipped_unlisted.add(url)
                self.stats.inc_value(STAT + "skipped_unlisted")
            return True
        return False

    def _doubtful_guess(self, url: str) -> bool:
        """Guessed last in its direction: a link of a page that the section rule keeps,
        its section's index leaving it out (``focus/sections.py``). A page of the
        language links it, so it is no deep page; and the index says it is missing."""
        focus = self.context.state.focus
        return focus is not None and focus.sections is not None \
            and url in focus.sections.kept

    def spider_idle(self) -> bool:
        """The idle task ``deep_recovery``: a round of guesses; True if some reached the
        scheduler's queue (a guess the dupefilter drops brings nothing)."""
        pairs = self.pairs
        if not self.recovery or pairs.learner is None:
            return False
        pairs.relearn()
        budget = self.max_per_round if self.max_per_round > 0 else NO_CAP
        left = self.context.budget_left()
        if left is not None:
            budget = min(budget, left)
        sources, sizes = self._recovery_sources()
        candidates, target_dirs, skipped_stopped = self.guesses.candidates(
            sources, lambda url, lang: pairs.learner.counterpart_targets(url, lang, self.langs),
            pairs.known, self._skip_guess, pairs.untranslated, pairs.linked_from,
            self._doubtful_guess)
        if not candidates:
            return False
        if budget <= 0:
            self.stats.inc_value(STAT + "over_budget", sum(map(len, candidates.values())))
            return False
        enqueued = self.context.frontier.enqueued
        scheduled, left, per_direction = self.guesses.round(
            candidates, target_dirs, sizes, pairs.dirs, budget, self._guess)
        if scheduled:
            self.stats.inc_value(STAT + "rounds")
            logger.info("Deep page recovery: requesting %d counterpart URLs (%s; %d left for "
                        "later rounds, %d from stopped directions)", scheduled,
                        ", ".join(f"{k} {n}" for k, n in per_direction.items()), left,
                        skipped_stopped)
        return self.context.frontier.enqueued > enqueued

    def _guess(self, target: str, key: tuple) -> None:
        self._crawl(self.context.page_request(target, discovered_by="pattern"))
