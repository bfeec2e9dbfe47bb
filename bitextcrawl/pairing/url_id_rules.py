"""The learner's rules for pages whose URLs share an identifier instead of differing by a
language token (extensions of [Zhang 2013 §2.1], each its own pattern kind): ``slug_id``
(translated slugs sharing ids once a credible token pattern is applied) and ``segment_id``
(path segments translated around a shared identifier, :mod:`.url_segments`).
:class:`~bitextcrawl.pairing.url_patterns.UrlPatternLearner` has them as methods."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from bitextcrawl.pairing.url_segments import segment_pairs
from bitextcrawl.pairing.url_tokens import SEGMENT_ID, SLUG_ID, Pattern, UrlPair
from bitextcrawl.pairing.url_units import _id_signature


class IdRules:
    """The ``slug_id`` and ``segment_id`` rules of :class:`UrlPatternLearner` (its state:
    ``urls_``, ``url_langs_``, ``langs``, ``_appliers``, its scoring and support)."""

    # -- the slug + id rule
    def _slug_pairs(self, paired: dict[tuple[int, int], set[int]], site_size: int):
        """Translated slugs sharing ids: same host, path depth and numeric tokens (per segment)
        once a credible token pattern is applied; pairs only when unique on both sides.

        Not in the paper (its URL pairs differ by one token); kept as its own pattern kind.
        """
        urls, ulang = self.urls_, self.url_langs_
        patterns, pairs = [], []
        for base, fwd, back in self._appliers:
            l1, l2 = self.langs.index(base.lang1), self.langs.index(base.lang2)
            taken = paired[l1, l2]
            free = [g for g in range(len(urls)) if ulang[g] in (l1, l2) and g not in taken]
            side2: dict[tuple, list[int]] = defaultdict(list)
            for g in free:
                if ulang[g] == l2 and back.matches(urls[g]):
                    sig = _id_signature(urls[g])
                    if sig is not None:
                        side2[sig].append(g)
            side1: dict[tuple, list[int]] = defaultdict(list)
            for g in free:
                if ulang[g] == l1:
                    for cand in fwd.apply(urls[g]):
                        sig = _id_signature(cand)
                        if sig is not None and sig in side2:
                            side1[sig].append(g)
            won = []
            for sig, g1s in side1.items():
                g2s = side2[sig]
                g1 = g1s[0]
                if len(set(g1s)) == 1 and len(g2s) == 1 and g1 not in taken:
                    won.append((g1, g2s[0], None))
                    taken.update((g1, g2s[0]))
            if not won:
                continue
            p = Pattern(base.lang1, base.lang1_token, base.lang2, base.lang2_token, SLUG_ID,
                        candidates=len(won), credible=True)
            score = 0.5 * self._score(base)
            for g1, g2, _ in won:
                pairs.append(UrlPair(urls[g1], urls[g2], p.id, score, p.lang1, p.lang2))
            same = next((q for q in self.patterns_ if q.id == p.id), None)
            if same is not None:  # the slug_id index found some already: one pattern
                same.candidates += len(won)
                same.support += 2 * len(won)
                same.local_credibility = same.support / site_size
                continue
            self._set_support(p, won, site_size)
            p.contexts = Counter()
            p.global_credibility = self._global(p.id)
            patterns.append(p)
        return patterns, pairs

    # -- translated segments
    def _segment_pairs(self, paired: dict[tuple[int, int], set[int]], site_size: int,
                       known_pairs: Iterable[tuple[str, str]] | None):
        """The ``segment_id`` rule (:mod:`.url_segments`) for every language pair: learn the
        segment table, pair through it among the URLs still free.

        Extends [Zhang 2013 §2.1]: their key is one differing token; here a
        table of translated segments is learned from identifier pairs and proven pairs. One
        pattern per combination of translations used (``media+news`` ↔ ``presse+nouvelles``),
        credible by construction (each translation recurs and is one-to-one, see the module),
        without the C(p,w) threshold and never rescued by C(p): a site's vocabulary is its
        own, like a language number. Scored as a floor, at most 0.5 (as a slug_id pair):
        ``0.5 · (1 − 2^−n)``, n the support of its weakest translation.
        """
        urls, ulang = self.urls_, self.url_langs_
        where = {u: g for g, u in enumerate(urls)}
        known: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
        for a, b in known_pairs or ():
            ga = where.get(a.strip().split("#", 1)[0])
            gb = where.get(b.strip().split("#", 1)[0])
            if ga is None or gb is None or ulang[ga] < 0 or ulang[gb] < 0 \
                    or ulang[ga] == ulang[gb]:
                continue
            if ulang[ga] > ulang[gb]:
                ga, gb = gb, ga
            known[ulang[ga], ulang[gb]].append((ga, gb))
        present = sorted({li for li in ulang if li >= 0})
        patterns: dict[str, Pattern] = {}
        won: dict[str, list] = defaultdict(list)
        pairs: list[UrlPair] = []
        for a, la in enumerate(present):
            for lb in present[a + 1:]:
                l1, l2 = self.langs[la], self.langs[lb]
                taken = paired[la, lb]
                table, fold, found = segment_pairs(
                    urls, ulang, la, lb, taken | {g for kp in known[la, lb] for g in kp},
                    known[la, lb], self.min_segment_pairs, self.marker_purity,
                    self.max_name_urls)
                self.segment_tables_[l1, l2] = {x: y for x, (y, _, _) in table.items()}
                self.segment_folded_[l1, l2] = fold
                for g1, g2, used in found:
                    p = Pattern(l1, "+".join(x for x, _ in used), l2,
                                "+".join(y for _, y in used), SEGMENT_ID, credible=True)
                    p = patterns.setdefault(p.id, p)
                    # its weakest translation's pairs (a proven one counts as the minimum)
                    n = min(max(table[x][1], self.min_segment_pairs if table[x][2] else 0)
                            for x, _ in used)
                    score = 0.5 * (1.0 - 0.5 ** n)
                    won[p.id].append((g1, g2, (SEGMENT_ID, "", "", "")))
                    pairs.append(UrlPair(urls[g1], urls[g2], p.id, score, l1, l2))
                    taken.update((g1, g2))
        out = []
        for pid, p in patterns.items():
            self._set_support(p, won[pid], site_size)
            p.candidates = len(won[pid])
            p.contexts = Counter()
            p.global_credibility = self._global(pid)
            out.append(p)
        return out, pairs
