"""Deep page recovery's guesses [Zhang 2013 §2.2], pure (no Scrapy): which counterpart
URLs of unpaired pages are guessed in a round, and what their answers teach (a direction
stopped, a pattern's budget spent). The rules are told in
:mod:`bitextcrawl.pipelines.pairing`, the pipeline that feeds :class:`RecoveryGuesses`
the crawl's pages and answers and requests the URLs it guesses.

``stats`` is anything with ``inc_value`` (Scrapy's stats collector)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from urllib.parse import urlsplit

from bitextcrawl.pages.urls import page_name

logger = logging.getLogger("bitextcrawl.pipelines.pairing")

STAT = "bitext/recovery/"
NO_CAP = 10 ** 9
# Guesses into a language, to start with, per page of it stored (their misses cost at
# most a quarter response per pair its pages can make); the cap of 2 x STOP_AFTER holds.
GUESSES_PER_TARGET_PAGE = 0.25


def index_aliases(url: str) -> list[str]:
    """Other spellings of a directory index URL: ``a/index.html`` <-> ``a/``."""
    if "?" in url or "#" in url:
        return []
    name = page_name(url)   # (one page on nearly every server)
    if name != url:
        return [name]
    if url.endswith("/"):
        return [url + "index.html", url + "index.htm"]
    return []


def folder(url: str) -> str:
    """Host and folder of a URL: ``www.example.org/en/docs/``."""
    parts = urlsplit(url)
    return parts.netloc + parts.path[:parts.path.rfind("/") + 1]


class _Allowance(dict):
    """Guesses left per family; a family not guessed yet starts at ``first(family)``."""

    def __init__(self, first: Callable[[tuple], int], left: dict):
        super().__init__(left)
        self.first = first

    def __missing__(self, family: tuple) -> int:
        value = self[family] = self.first(family)
        return value


class Direction:
    """Outcomes of the guesses made with one pattern from one language into another."""

    __slots__ = ("tried", "found", "failed", "streak", "stopped", "limit")

    def __init__(self, tried=0, found=0, failed=0, streak=0, stopped=False, limit=0):
        self.tried, self.found, self.failed = tried, found, failed
        self.streak, self.stopped, self.limit = streak, stopped, limit

    def to_list(self) -> list:
        return [self.tried, self.found, self.failed, self.streak, self.stopped, self.limit]


class RecoveryGuesses:
    def __init__(self, stats, max_per_round: int, stop_after: int, min_success: float):
        self.stats = stats
        self.max_per_round, self.stop_after, self.min_success = \
            max_per_round, stop_after, min_success
        self.tried: dict[str, str] = {}      # generated URL -> expected language
        self.pending: dict[str, tuple] = {}  # generated URL -> its direction, until answered
        self.directions: dict[tuple, Direction] = {}
        self.spent: set[tuple] = set()       # (pattern, language, language) out of guesses

    # ---- state ------------------------------------------------------------------------

    def load(self, saved: dict) -> None:
        self.tried = saved.get("tried") or {}
        for key, state in (saved.get("directions") or []):
            self.directions[tuple(key)] = Direction(*state)

    def to_state(self) -> dict:
        """Recovery's section of the crawl state: the guesses made, each direction's outcomes."""
        return {"tried": self.tried,
                "directions": [[list(k), d.to_list()]
                               for k, d in sorted(self.directions.items())]}

    # ---- outcomes of the guesses ------------------------------------------------------

    def outcome(self, url: str, ok: bool) -> tuple | None:
        """A guess answered: found (``ok``) or not. ``(key, source)`` when it was found for
        a held link ``source`` (then worth its download), else None."""
        entry = self.pending.pop(url, None)
        if entry is None:
            return None
        self._count(entry[0], ok)
        return entry if ok and entry[1] is not None else None

    def remote_outcome(self, url: str, key: tuple, ok: bool) -> tuple | None:
        """A guess of direction ``key`` that another worker of the crawl had answered:
        counted as if answered here (this worker's own guess of it, if any, was dropped
        by the shared dupefilter and is answered with it); as :meth:`outcome`. A guess
        this worker did not make counts among its direction's guesses too: the budgets
        (``batch``, ``family_allowance``) are the crawl's, whichever worker guessed."""
        entry = self.pending.pop(url, None)
        self.tried.setdefault(url, key[2])
        if entry is None:
            self.directions.setdefault(key, Direction()).tried += 1
        self._count(key, ok)
        return entry if ok and entry is not None and entry[1] is not None else None

    def _count(self, key: tuple, ok: bool) -> None:
        d = self.directions.setdefault(key, Direction())
        if ok:
            d.found += 1
            d.streak = 0
            return
        d.failed += 1
        d.streak += 1
        done = d.found + d.failed
        if not d.stopped and d.streak >= (d.limit or self.stop_after) \
                and d.found < self.min_success * done:
            self.stop(d)
            logger.info("Deep page recovery: stopped generating %s -> %s URLs with pattern %s "
                        "in %s (%d failures in a row, %d of %d found)", key[1], key[2],
                        key[0], key[3], d.streak, d.found, done)

    def stop(self, d: Direction) -> None:
        d.stopped = True
        self.stats.inc_value(STAT + "stopped_directions")

    def count(self, **counts: int) -> None:
        for name, n in counts.items():
            if n:
                self.stats.inc_value(STAT + name, n)

    # ---- budgets ----------------------------------------------------------------------

    def family_failing(self, key: tuple) -> bool:
        """Has this pattern, between these languages, failed in the folders tried so far
        (at least twice ``STOP_AFTER`` failures, too few found)?"""
        found = failed = 0
        for k, d in self.directions.items():
            if k[:3] == key[:3]:
                found += d.found
                failed += d.failed
        return failed >= 2 * self.stop_after and found < self.min_success * (found + failed)

    def batch(self, key: tuple, scarce: bool, target_dir_known: bool) -> int:
        d = self.directions.setdefault(key, Direction())
        if not d.limit:
            # failures in a row that stop it: fewer into a folder where no page of the
            # counterpart's language is known yet, one where the pattern has failed in
            # the other folders too (set at the direction's first batch here: for a
            # direction another worker of the crawl started, after its guesses)
            if target_dir_known:
                d.limit = self.stop_after
            elif self.family_failing(key):
                # the pattern failed where pages of that language are known: into a
                # folder where none is, it is not tried at all
                self.stop(d)
                return 0
            else:
                d.limit = max(1, self.stop_after // 3)
        if scarce:
            return self.max_per_round if self.max_per_round > 0 else NO_CAP
        # in all: the probe, and two more guesses for each page found
        left = d.limit + 2 * d.found - d.tried
        if left <= 0 and d.tried:
            self.stop(d)
        return max(0, left)

    def family_allowance(self, sizes: dict | None = None) -> dict[tuple, int]:
        """Guesses left for each (pattern, language, language) family: 2 x STOP_AFTER, and two
        more for each page found (the per-folder rule of ``batch``, over all folders).
        With ``sizes`` (pages per language), no more to start with than
        ``GUESSES_PER_TARGET_PAGE`` per page of the language guessed into (at least one):
        guesses into a translation of five pages are paid by those five pairs."""
        start = 2 * self.stop_after

        def first(family: tuple) -> int:
            if sizes is None:
                return start
            return min(start, max(1, int(GUESSES_PER_TARGET_PAGE * sizes.get(family[2], 0))))

        left: dict[tuple, int] = {}
        for key, d in self.directions.items():
            family = key[:3]
            left[family] = left.get(family, first(family)) + 2 * d.found - d.tried
        return _Allowance(first, left)

    def budget_spent(self, key: tuple) -> None:
        d = self.directions[key]
        if d.stopped:
            return
        self.stop(d)
        if key[:3] not in self.spent:   # said once for the pattern
            self.spent.add(key[:3])
            self.stats.inc_value(STAT + "budget_spent")
            family = [x for k, x in self.directions.items() if k[:3] == key[:3]]
            logger.info("Deep page recovery: stopped generating %s -> %s URLs with pattern %s "
                        "(its budget is spent: %d found in %d guesses over %d folders)",
                        key[1], key[2], key[0], sum(x.found for x in family),
                        sum(x.tried for x in family), sum(bool(x.tried) for x in family))

    # ---- a round ----------------------------------------------------------------------

    def candidates(self, sources: list, targets: Callable, known: set,
                   skip: Callable[[str], bool], untranslated: dict,
                   linked_from: dict,
                   doubtful: Callable[[str], bool] = lambda target: False
                   ) -> tuple[dict, dict, int]:
        """Counterpart URLs to guess, by direction ``(pattern, lang, other, folder)``, each
        direction's in the order they are guessed; the language and folder each
        direction's guesses go into; how many were skipped for a stopped direction.
        ``sources``: ``(url, lang, held)``; ``targets(url, lang)``: the learner's
        ``(target, pattern id, other language)``; ``known``: the stored URLs;
        ``skip(target)``: answered already, or out of scope; ``untranslated``,
        ``linked_from``: URL -> languages its switch bar shows unlinked, languages whose
        pages link it by an ordinary link; ``doubtful(target)``: the site already says
        the target is likely missing (guessed after the others of its direction)."""
        candidates: dict[tuple, list] = defaultdict(list)
        skipped_stopped = skipped_alias = 0
        target_dirs: dict[tuple, tuple[str, str]] = {}
        skipped_untranslated = 0
        for url, lang, held in sources:
            for target, pid, other in targets(url, lang):
                if other in untranslated.get(url, ()):
                    skipped_untranslated += 1
                    continue
                if target in known or target in self.tried or skip(target):
                    continue
                if any(a in known or a in self.tried for a in index_aliases(target)):
                    skipped_alias += 1
                    continue
                key = (pid, lang, other, folder(url))
                d = self.directions.get(key)
                if d is not None and d.stopped:
                    skipped_stopped += 1
                    continue
                if other in linked_from.get(url, ()):
                    # the other language's pages link to this page instead of their own
                    # version: the site says there is none (nginx.org's /cn/ menu links
                    # ../en/books.html)
                    skipped_untranslated += 1
                    continue
                candidates[key].append((url, held, target))
                target_dirs.setdefault(key, (other, folder(target)))
        self.count(skipped_index_alias=skipped_alias, skipped_untranslated=skipped_untranslated,
                   skipped_stopped=skipped_stopped)
        for cands in candidates.values():
            # URL order, whichever page happened to be downloaded first, but for the
            # doubtful ones: last, so that a probe's few failures are not theirs
            cands.sort(key=lambda c: (doubtful(c[2]), c))
        return candidates, target_dirs, skipped_stopped

    def round(self, candidates: dict, target_dirs: dict, sizes: dict, dirs: set,
              budget: int, guess: Callable[[str, tuple], None]) -> tuple[int, int, dict]:
        """A round's guesses, the scarce side first, each passed to ``guess(target, key)``:
        (guesses made, left for later rounds, guesses per ``lang->other``)."""
        scarcest = min(sizes.values())
        # the scarce side first: directions leaving the language with the fewest pages
        order = sorted(candidates, key=lambda k: (sizes.get(k[1], 0), k))
        scheduled = deferred = over = 0
        per_direction: dict[str, int] = {}
        # Folders of unknown language wait while folders of known language of the same
        # pattern and languages are probed for the first time: how those fare decides how
        # far the others are probed.
        probing = {k[:3] for k in order if target_dirs[k] in dirs
                   and sizes.get(k[1], 0) != scarcest
                   and not getattr(self.directions.get(k), "tried", 0)}
        allowance = self.family_allowance(sizes)
        for key in order:
            cands = candidates[key]
            known_dir = target_dirs[key] in dirs
            if not known_dir and key[:3] in probing and not getattr(
                    self.directions.get(key), "tried", 0):
                deferred += len(cands)
                continue
            scarce = sizes.get(key[1], 0) == scarcest
            batch = min(self.batch(key, scarce, known_dir), len(cands))
            if not scarce:
                # the folders of one pattern share its budget (nginx.org's /cn/ hides one
                # page: it took 13 guesses in 4 folders, then 10 in folders of one page each)
                batch = min(batch, allowance[key[:3]])
                allowance[key[:3]] -= batch
                if batch <= 0:
                    if not any(k[:3] == key[:3] for k, _ in self.pending.values()):
                        self.budget_spent(key)
                    deferred += len(cands)
                    continue
            take = cands[:max(0, min(batch, budget - scheduled))]
            over += batch - len(take)
            deferred += len(cands) - batch
            for source, held, target in take:
                self.tried[target] = key[2]
                self.pending[target] = (key, source if held else None)
                d = self.directions.setdefault(key, Direction())
                d.tried += 1
                guess(target, key)
            if take:
                name = f"{key[1]}->{key[2]}"
                per_direction[name] = per_direction.get(name, 0) + len(take)
            scheduled += len(take)
        self.count(deferred=deferred, over_budget=over, tried=scheduled)
        return scheduled, deferred + over, per_direction
