"""A site's own lexicon: the words of its titles, translated as its proven pairs translate them.

A site names its subjects with the same terms on every page, and a translation renders a
term the same way each time: "Context" is "コンテキスト" in every Japanese title of a
manual whose English titles say "Context". The pairs the site proves (URL rules, declared
alternates, the homes, corroborated parallel links, and the pairs a round of the alignment
chose) carry these translations in their titles. Learned here, they let two titles in
different scripts share evidence where they share no string: the anchor overlap
(``anchors.py``) counts a translated title word as the word itself.

Word translations are linked by competitive linking [Melamed 2000]: over the teaching
pairs' titles, a word of each language and its best associate (Dice coefficient of the
titles they occur in) are linked one to one, most associated first, where they co-occur
in at least ``min_pairs`` titles. Not in the five papers: [Liu 2014 §3.2] and
[Germann 2016] take a bilingual lexicon from outside; a site without one still proves a
few dozen pairs, and their titles are enough to learn the terms the site repeats.

A word found in both titles of a pair (a name, a number, a Latin term inside another
script) is already shared there and is not linked. Pure module over page records.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Iterable, Mapping

from bitextcrawl.pairing.anchors import (
    anchor_idf,
    anchor_weights,
    page_title_anchors,
    weighted_overlap,
)

__all__ = ["SiteLexicon"]

# A title word in more than this share of a side's titles (the site's name) proposes no
# candidates.
COMMON_TITLE_SHARE = 0.5


class SiteLexicon:
    """Title words of language 2 linked to their translations in language 1.

    Parameters: ``min_pairs``, the teaching pairs both words' titles must share;
    ``min_dice``, their least Dice coefficient. Fitted: ``translations_`` (a language-2
    title anchor -> the language-1 anchor it translates), ``n_pairs_`` (teaching pairs).
    """

    def __init__(self, min_pairs: int = 2, min_dice: float = 0.5):
        self.min_pairs = min_pairs
        self.min_dice = min_dice

    def fit(self, pairs: Iterable[tuple[object, object]]) -> "SiteLexicon":
        """Learn from (page 1, page 2) records of pairs the site proves."""
        titles = [(page_title_anchors(p1), page_title_anchors(p2)) for p1, p2 in pairs]
        self.n_pairs_ = len(titles)
        n1: Counter = Counter()
        n2: Counter = Counter()
        both: Counter = Counter()
        for t1, t2 in titles:
            # a word in both titles is shared, not translated (and an untranslated copy
            # among the pairs teaches nothing)
            own1 = [w for w in t1 - t2 if not w[2:].isdigit()]
            own2 = [v for v in t2 - t1 if not v[2:].isdigit()]
            n1.update(own1)
            n2.update(own2)
            both.update(product(own1, own2))   # (w, v), w outer: in C
        ranked = sorted(((2.0 * c / (n1[w] + n2[v]), c, w, v) for (w, v), c in both.items()
                         if c >= self.min_pairs),
                        key=lambda r: (-r[0], -r[1], r[2], r[3]))
        linked1: set = set()
        self.translations_: dict[str, str] = {}
        for dice, _, w, v in ranked:
            if dice < self.min_dice:
                break
            if w in linked1 or v in self.translations_:
                continue
            linked1.add(w)
            self.translations_[v] = w
        return self

    def translate(self, anchors: frozenset[str]) -> frozenset[str]:
        """A language-2 page's anchors with its title words' translations added."""
        extra = {self.translations_[a] for a in anchors if a in self.translations_}
        return anchors | extra if extra else anchors

    def nearest(self, pages1: Mapping[str, object], pages2: Mapping[str, object],
                top_k: int = 2) -> list[tuple[str, str]]:
        """Each page 2's ``top_k`` pages 1 by the idf-weighted overlap of their title words,
        the page 2's translated (pages that share a translated title word only). The
        candidate filters see shared strings; a title translated word for word shares
        none, and its counterpart can be missing from the candidates."""
        if not len(self) or top_k <= 0:
            return []
        words1 = {u: page_title_anchors(p) for u, p in pages1.items()}
        own2 = {u: page_title_anchors(p) for u, p in pages2.items()}
        words2 = {u: self.translate(a) for u, a in own2.items()}
        idf = anchor_idf(list(words1.values()) + list(words2.values()))
        having: dict[str, list[str]] = {}
        for u, words in words1.items():
            for w in words:
                having.setdefault(w, []).append(u)
        # a word in many titles (the site's name) tells no page apart
        most = max(top_k, COMMON_TITLE_SHARE * len(words1))
        # each title's idf sum once, not once for every title it is compared with (the
        # comparisons grow with the square of the site: 17.6 million at 20,000 pages)
        weights1 = anchor_weights(words1, idf)
        out = []
        for b, words in words2.items():
            translated = {self.translations_[v] for v in own2[b] if v in self.translations_}
            met = {a for w in translated if len(having.get(w, ())) <= most
                   for a in having.get(w, ())}
            weight = anchor_weights({b: words}, idf)[b]
            ranked = sorted(((-weighted_overlap(words1[a], words, idf, (weights1[a], weight)),
                              a) for a in met))
            out.extend((a, b) for _, a in ranked[:top_k])
        return sorted(out)

    def __len__(self) -> int:
        return len(getattr(self, "translations_", ()))
