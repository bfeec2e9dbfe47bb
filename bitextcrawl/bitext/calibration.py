"""How likely a bitext row is a translation, per site and language pair, from what the site proves.

The sentence aligner's score (Gale–Church bead probability × chunk score × page pair
score) ranks the rows of one language pair, but the same value means different quality
in two pairs: lengths say much about English–French, little about English–Chinese, and a
list aligned position by position gives wrong rows with confident scores.
:class:`RowProbability` estimates, for each row, the probability that its two sides
translate each other, with no labels and no model from outside:

* **Length**, the Gale–Church distance |δ| [Gale & Church 1993], its mean and variance
  fitted on the language pair's rows instead of fixed constants: ``c`` characters of
  side 2 per character of side 1, and the variance of ``δ = (c·l1 − l2) /
  √((l1 + l2/c)/2)``, robustly (the median absolute deviation: the wrong minority
  weighs nothing). The feature is −|δ| down to ``LENGTH_FLOOR``: the tails of real
  rows are heavier than the normal's (a URL or a list one side spells out), and a
  length far off is evidence, not proof.
* **What translation leaves alone**: the numbers and names (acronyms, capitalised words,
  URLs, Latin-script terms inside CJK text: ``trees.textcost.anchors``) the two sides
  share, and those only one side has; of the words the site keeps untranslated
  (commands, product names: the words its sure rows spell alike on both sides), those
  a row has on both sides and those on one side only.
* **The site's own lexicon**: word translations linked by competitive linking
  [Melamed 2000] over the sure rows (``pairing.site_lexicon.SiteLexicon`` over their
  words; character bigrams of Chinese, Japanese and Korean text, where words are not
  spaced), and how many of a row's words with a known translation find it on the other
  side, or miss it. This is what ranks rows of languages whose lengths say little.

The sure rows are those the aligner scored high. The features are combined by a
logistic regression fitted on half of them (positives), read with a lexicon learnt from
the other half (a lexicon reads the rows it learnt from too well), against the same
rows with their second sides shuffled — each
side 1 against the side 2 of the rows next to it in the order of side 2's length — as
negatives, the trick of training a translation classifier without labels (rows of
mismatched pairs of the same site). The shuffled sides are of the length a right side
would have, as the aligner's own wrong rows are (Gale–Church paired them because their
lengths fit): shuffled rows of any length teach the classifier that a fitting length
makes a row right, and it then finds no fault with a wrong row that only its words
betray (a list or a heading paired one place off, a sentence an older translation says
differently); that matters most where lengths say least, between scripts. (The next
row's side 2 as a shuffled side too, the aligner's neighbouring block, makes the
classifier as wary of the near-identical sentences of a list of counters or a page's
examples, whose right rows it then leaves out.)

The sure rows are the cleanest translations: right rows the aligner was less sure of (a
sentence one side words differently) fall far from them, and the posterior judges them
too harshly. The pair's own rows correct that, with shuffled rows as decoys (the
target–decoy estimate of false discoveries [Elias & Gygi 2007]; the trait: a wrong row
scores like a shuffled one): the share of wrong rows is the share of rows under the
decoys' median score (one row more), twice [Storey, Taylor & Siegmund 2004], and a row's
probability of being wrong is that share times the decoys' density over the rows'
density at its score (an isotonic regression of rows against decoys on the score). Where
that probability of being right is higher than the posterior, it is the row's, but only
for rows scoring above ``DECOY_QUANTILE`` of the decoys: among most shuffled rows, few
rows of a kind (the items of a list aligned position by position) outnumber what the
decoys expect by chance, and the classifier's odds alone judge them.

The rows at or above ``threshold_``
(:meth:`RowProbability.fit`) have an estimated precision (the mean of their
probabilities under a uniform prior: one right and one wrong row counted in, so that a
few rows the model doubts nothing of make no precision of 1) of at least
``target_precision``, and ``threshold_`` is never under ``MIN_THRESHOLD``;
``precision_`` is that estimate.

Pure module over strings: no Scrapy.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Iterable

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.special import expit

from bitextcrawl.pages.tokens import WORD_OF_TWO
from bitextcrawl.pairing.site_lexicon import SiteLexicon
from bitextcrawl.trees.textcost import anchors

__all__ = ["RowProbability", "row_words", "FEATURES", "DEFAULT_PRECISION"]

# The estimated precision of the rows a suggested threshold keeps (BITEXT_SENTENCE_PRECISION).
DEFAULT_PRECISION = 0.97

FEATURES = ("length", "anchors_shared", "anchors_one_side", "lexicon_found",
            "lexicon_missed", "kept_found", "kept_missed")

_LATIN_WORD = re.compile(WORD_OF_TWO)
_CJK_RUN = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
# The length feature's least value (log P(δ)): a length far off is evidence, not proof
# (a URL or a code sample one side spells out).
LENGTH_FLOOR = -4.0
# The least threshold the report suggests: a row under it is likelier wrong than right.
# The rule on the kept rows' mean probability alone would keep such rows where the rest
# are very sure, spending their margin on rows the model itself expects to be wrong.
MIN_THRESHOLD = 0.5
# Rows the decoys are made from at most (evenly spread over the pair's rows): two decoys
# each (``RowProbability._negatives``), enough to read the decoys' density.
DECOY_ROWS = 1000
# The decoys' quantile from which the decoys may raise a row's probability (see the
# module docstring): above nine in ten shuffled rows.
DECOY_QUANTILE = 0.9
# Words of a side the lexicon reads (its first, in order): bounds the competitive
# linking's co-occurrences of a long row.
MAX_WORDS = 16


@lru_cache(maxsize=1 << 16)     # (menus and repeated lines: the same texts again)
def row_words(text: str) -> tuple[str, ...]:
    """The words of a sentence the lexicon links, lower-cased, in order, once each (the
    first ``MAX_WORDS``): letter words of two letters and more; runs of CJK characters
    (Chinese, Japanese kana, Korean) as their character bigrams (one character alone:
    itself)."""
    low = text.lower()
    if _CJK_RUN.search(low) is None:     # most texts: their words, in C
        return tuple(dict.fromkeys(_LATIN_WORD.findall(low)))[:MAX_WORDS]
    out: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(low):
        out += _LATIN_WORD.findall(low, pos, m.start())
        run = m.group()
        out += [run] if len(run) == 1 else [run[k:k + 2] for k in range(len(run) - 1)]
        pos = m.end()
    out += _LATIN_WORD.findall(low, pos)
    return tuple(dict.fromkeys(out))[:MAX_WORDS]


def _title(words: list[str]) -> dict:
    # SiteLexicon reads a record's title words (``h:`` anchors, two characters and more)
    return {"title": " ".join(words)}


class RowProbability:
    """The probability that a bitext row is a translation, for one site and language
    pair (see the module docstring).

    Parameters: ``sure_score``, the aligner score from which a row is sure (the
    positives and the lexicon's teaching rows; where fewer than ``min_sure`` rows reach
    it, the best-scored ``min_sure``); ``max_sure``, the sure rows used at most (the
    best-scored); ``min_pairs`` and ``min_dice``, the lexicon's
    (:class:`~bitextcrawl.pairing.site_lexicon.SiteLexicon`); ``target_precision``, the
    estimated precision of the rows kept at ``threshold_``; ``ridge``, the logistic
    regression's L2 penalty; ``clean_rounds``, its fits again without the sure rows the
    last one found likelier shuffled than right.

    Fitted: ``c_`` and ``var_`` (the length model), ``lexicon_`` (a fitted
    ``SiteLexicon`` over row words), ``coef_`` and ``intercept_`` (log-odds of right
    against shuffled, over :data:`FEATURES`), ``kept_words_`` (the words the site keeps
    untranslated), ``right_share_`` (the estimated share of right rows, EM's),
    ``wrong_share_``, ``knots_``, ``rows_share_`` and ``raise_from_`` (the decoys'
    estimate: :meth:`_calibrate`), ``proba_`` (each row's probability),
    ``threshold_`` and ``precision_`` (the rows with a probability at or above
    ``threshold_``: their estimated precision), ``n_sure_`` (the sure rows).
    """

    def __init__(self, sure_score: float = 0.5, min_sure: int = 40, max_sure: int = 2000,
                 min_pairs: int = 2, min_dice: float = 0.3,
                 target_precision: float = DEFAULT_PRECISION, ridge: float = 1.0,
                 clean_rounds: int = 1):
        self.sure_score = sure_score
        self.min_sure = min_sure
        self.max_sure = max_sure
        self.min_pairs = min_pairs
        self.min_dice = min_dice
        self.target_precision = target_precision
        self.ridge = ridge
        self.clean_rounds = clean_rounds

    # -- fit ----------------------------------------------------------------------------

    def fit(self, rows: Iterable[tuple[str, str, float]]) -> "RowProbability":
        """Learn from the language pair's rows, ``(sentence 1, sentence 2, aligner
        score)`` in the order they were aligned; ``rows`` is read a few times (a list,
        or a sequence kept on disk). Sets ``proba_``, each row's probability."""
        scores, l1, l2 = [], [], []
        for r in rows:
            scores.append(float(r[2]))
            l1.append(len(r[0]))
            l2.append(len(r[1]))
        self._fit_length(np.array(l1, float), np.array(l2, float))
        sure = self._sure(np.array(scores))
        self.n_sure_ = len(sure)
        wanted = set(sure)
        sure_rows = [(r[0], r[1]) for k, r in enumerate(rows) if k in wanted]
        # the classifier learns from rows the lexicon it reads did not learn from (a
        # lexicon reads the rows it learnt from too well); the rows are then read with
        # the lexicon of every sure row, which knows more words
        teach, train = sure_rows[0::2], sure_rows[1::2]
        self._use_lexicon(self._lexicon(teach))
        self.kept_words_ = self._kept_words(teach)
        self._fit_classifier(train)
        self._use_lexicon(self._lexicon(sure_rows))
        self.kept_words_ = self._kept_words(sure_rows)
        odds = np.concatenate([self.log_odds(batch) for batch in _batches(rows)]
                              or [np.zeros(0)])
        self.right_share_ = self._mixture_share(odds)
        self._calibrate(odds, self.log_odds(self._decoys(rows, len(odds))))
        self.proba_ = self._proba(odds)
        self._set_threshold(self.proba_)
        return self

    def _lexicon(self, rows: list) -> SiteLexicon:
        return SiteLexicon(self.min_pairs, self.min_dice).fit(
            (_title(row_words(a)), _title(row_words(b))) for a, b in rows)

    def _kept_words(self, rows: list) -> frozenset:
        """The words the site keeps untranslated (commands, product names): found on
        side 2 of at least ``min_pairs`` rows and of at least half of the rows whose
        side 1 has them."""
        n1: Counter = Counter()
        both: Counter = Counter()
        for a, b in rows:
            w1, w2 = row_words(a), set(row_words(b))
            n1.update(w1)
            both.update(w for w in w1 if w in w2)
        return frozenset(w for w, n in both.items()
                         if n >= self.min_pairs and 2 * n >= n1[w])

    def _use_lexicon(self, lexicon: SiteLexicon) -> None:
        self.lexicon_ = lexicon
        # side-1 word -> its side-2 translation
        self._lex_1to2 = {w[2:]: v[2:] for v, w in lexicon.translations_.items()}
        self._lex_range = set(self._lex_1to2.values())

    def _sure(self, scores: np.ndarray) -> list[int]:
        """Indexes of the sure rows, in row order: the ``max_sure`` best-scored of those
        at or above ``sure_score`` (at least the ``min_sure`` best-scored)."""
        order = np.argsort(-scores, kind="stable")
        n = int((scores >= self.sure_score).sum())
        n = min(len(scores), self.max_sure, max(n, self.min_sure))
        return sorted(order[:n].tolist())

    def _fit_length(self, l1: np.ndarray, l2: np.ndarray) -> None:
        """``c_`` and ``var_`` over the rows' lengths, the variance robustly (the median
        absolute deviation of δ: the wrong minority weighs nothing). Over all the rows,
        not the sure ones alone: those are sure partly because their lengths fit the
        aligner's fixed model, and their spread is too narrow for the others."""
        self.c_ = float(min(5.0, max(0.2, l2.sum() / l1.sum()))) if len(l1) and \
            l1.sum() and l2.sum() else 1.0
        self.var_ = 6.8   # Gale & Church's, where the rows cannot tell
        if len(l1) >= 10:
            e = (self.c_ * l1 - l2) / np.sqrt(np.maximum((l1 + l2 / self.c_) / 2.0, 1.0))
            mad = float(np.median(np.abs(e - np.median(e))))
            if mad > 0:
                self.var_ = (1.4826 * mad) ** 2

    def _negatives(self, train: list) -> list:
        """Each training row's side 1 against the side 2 of its neighbours in the order of
        side 2's length (the next shorter and the next longer, ties in row order), where
        that side 2 differs from its own: mismatched rows whose lengths fit as well as
        the aligner's wrong rows do (module docstring)."""
        m = len(train)
        order = sorted(range(m), key=lambda k: (len(train[k][1]), k))
        pairs = [(order[p], order[p + shift]) for shift in (1, -1) for p in range(m)
                 if 0 <= p + shift < m]
        return [(train[k][0], train[q][1]) for k, q in pairs
                if train[q][1].strip() != train[k][1].strip()]

    def _fit_classifier(self, train: list) -> None:
        """The logistic regression of ``train`` (sure rows) against them shuffled; then,
        ``clean_rounds`` times, again without the sure rows it finds likelier shuffled
        than right (a list the aligner paired position by position with confidence)."""
        negatives = self._negatives(train)
        if not train or not negatives:
            # nothing to learn from: every row as likely as the aligner's share says
            self.coef_ = np.zeros(len(FEATURES))
            self.intercept_ = 0.0
            return
        right, wrong = self.features(train), self.features(negatives)
        keep = np.ones(len(train), bool)
        for k in range(self.clean_rounds + 1):
            x = np.vstack([right[keep], wrong])
            y = np.concatenate([np.ones(int(keep.sum())), np.zeros(len(wrong))])
            # the classes weigh alike: the log-odds are a likelihood ratio
            w = np.where(y == 1, 1.0, keep.sum() / len(wrong))
            self.coef_, self.intercept_ = _logistic(x, y, w, self.ridge)
            self.intercept_ -= math.log(w[y == 1].sum() / w[y == 0].sum())
            if k == self.clean_rounds:
                break
            likelier = right @ self.coef_ + self.intercept_ > 0
            if likelier.sum() < self.min_sure // 2 or (likelier == keep).all():
                break
            keep = likelier

    @staticmethod
    def _mixture_share(odds: np.ndarray, n_iter: int = 200) -> float:
        """The share π of right rows: EM on the mixture weight, the likelihood ratios
        fixed (each row's posterior σ(odds + logit π), π their mean)."""
        if not len(odds):
            return 0.0
        share = 0.5
        for _ in range(n_iter):
            new = float(expit(odds + math.log(share / (1.0 - share))).mean())
            new = min(max(new, 1e-4), 1 - 1e-4)
            if abs(new - share) < 1e-7:
                share = new
                break
            share = new
        return share

    def _decoys(self, rows, n: int) -> list:
        """Shuffled rows (:meth:`_negatives`) of at most ``DECOY_ROWS`` of ``rows``,
        spread evenly over them."""
        step = max(1, -(-n // DECOY_ROWS))
        return self._negatives([(r[0], r[1]) for k, r in enumerate(rows) if k % step == 0])

    def _calibrate(self, odds: np.ndarray, decoys: np.ndarray) -> None:
        """``wrong_share_``, ``knots_``/``rows_share_`` (the rows' share among rows and
        decoys weighed as wrong rows, by score) and ``raise_from_`` (the decoys'
        ``DECOY_QUANTILE``): see the module docstring. Without decoys, the posterior
        alone."""
        n, m = len(odds), len(decoys)
        if not n or not m:
            self.wrong_share_ = 1.0 - self.right_share_
            self.knots_, self.rows_share_ = np.zeros(1), np.full(1, 0.5)
            self.raise_from_ = math.inf
            return
        self.raise_from_ = float(np.quantile(decoys, DECOY_QUANTILE))
        median = float(np.median(decoys))
        # one wrong row more than counted (Storey's estimate for finite samples): no
        # share of 0 from rows that happen to score above half the decoys
        self.wrong_share_ = min(1.0, 2.0 * (float((odds < median).sum()) + 1.0) / n)
        # the rows weigh one each, the decoys as many wrong rows as the share says
        points = np.concatenate([odds, decoys])
        weight = np.concatenate([np.ones(n), np.full(m, self.wrong_share_ * n / m)])
        is_row = np.concatenate([np.ones(n), np.zeros(m)])
        knots, at = np.unique(np.round(points, 3), return_inverse=True)
        w = np.bincount(at, weight)
        share = np.bincount(at, weight * is_row) / w
        self.knots_, self.rows_share_ = knots, isotonic_regression(share, weights=w).x

    def _proba(self, odds: np.ndarray) -> np.ndarray:
        """P(right) of rows of these log-odds: the posterior, or above ``raise_from_``
        the decoys' estimate where higher: 1 − P(wrong), P(wrong) the wrong rows'
        density over the rows' density, (1 − q) / q for q the rows' share. Both rise
        with the log-odds, and so does their combination."""
        posterior = self._posterior(odds)
        q = np.interp(odds, self.knots_, self.rows_share_)
        decoys = np.clip(2.0 - 1.0 / np.maximum(q, 0.5), 0.0, 1.0)
        return np.where(odds >= self.raise_from_, np.maximum(posterior, decoys), posterior)

    def _set_threshold(self, proba: np.ndarray) -> None:
        """The lowest probability, ``MIN_THRESHOLD`` at least, whose rows at or above it
        have an estimated precision of at least ``target_precision`` (the best row's,
        where none does): the mean of their probabilities under a uniform prior (one
        right row and one wrong row more: a handful of rows the model finds sure do not
        make a precision of 1; on a thousand rows it moves the mean by a thousandth)."""
        ranked = np.sort(np.round(proba, 4))[::-1]
        ranked = ranked[ranked >= MIN_THRESHOLD]
        if not len(ranked):
            self.threshold_, self.precision_ = MIN_THRESHOLD, 0.0
            return
        mean = (np.cumsum(ranked) + 1.0) / (np.arange(1, len(ranked) + 1) + 2.0)
        # ties: every row of the threshold's value is kept, so a cut falls where the
        # value changes
        end = np.append(ranked[1:] != ranked[:-1], True)
        ok = np.flatnonzero((mean >= self.target_precision) & end)
        self.threshold_ = float(ranked[ok[-1]] if len(ok) else ranked[0])
        kept = ranked[ranked >= self.threshold_]
        self.precision_ = float((kept.sum() + 1.0) / (len(kept) + 2.0))

    # -- use ----------------------------------------------------------------------------

    def features(self, rows) -> np.ndarray:
        """The :data:`FEATURES` of ``(sentence 1, sentence 2, ...)`` rows, one line each."""
        out = np.zeros((len(rows), len(FEATURES)))
        l1 = np.array([len(r[0]) for r in rows], float)
        l2 = np.array([len(r[1]) for r in rows], float)
        if len(rows):
            mean = np.maximum((l1 + l2 / self.c_) / 2.0, 1.0)
            delta = np.abs(self.c_ * l1 - l2) / np.sqrt(self.var_ * mean)
            out[:, 0] = -np.minimum(delta, -LENGTH_FLOOR)
        lex = self._lex_1to2
        kept = self.kept_words_
        for k, r in enumerate(rows):
            shared, one_side = _anchor_agreement(r[0], r[1])
            out[k, 1] = math.log1p(shared)
            out[k, 2] = math.log1p(one_side)
            w1 = row_words(r[0])
            w2 = set(row_words(r[1]))
            kept1 = kept.intersection(w1)
            kept2 = kept.intersection(w2)
            both = len(kept1 & kept2)
            out[k, 5] = math.log1p(both)
            out[k, 6] = math.log1p(len(kept1) + len(kept2) - 2 * both)
            if lex:
                known1 = [lex[w] for w in w1 if w in lex]
                found = sum(1 for v in known1 if v in w2)
                known = max(len(known1), len(self._known2(w2)))
                out[k, 3] = math.log1p(found)
                out[k, 4] = math.log1p(known - found)
        return out

    def _known2(self, words2: set) -> set:
        return words2 & self._lex_range

    def log_odds(self, rows) -> np.ndarray:
        """log P(features | right) / P(features | shuffled) of each row."""
        return self.features(rows) @ self.coef_ + self.intercept_

    def _posterior(self, odds: np.ndarray) -> np.ndarray:
        share = min(max(self.right_share_, 1e-4), 1 - 1e-4)
        return expit(odds + math.log(share / (1.0 - share)))

    def predict_proba(self, rows) -> np.ndarray:
        """The probability that each row is a translation."""
        return self._proba(self.log_odds(rows))


# Rows whose features are made together (fit reads rows a batch at a time).
BATCH = 4096


def _batches(rows):
    batch: list = []
    for r in rows:
        batch.append(r)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _anchor_agreement(text_1: str, text_2: str) -> tuple[int, int]:
    """(anchors both sides have, anchors one side has alone): numbers by their digits,
    names (``trees.textcost.anchors``; identifiers, words joined by underscores, which
    code keeps in any language; and the Latin words of a CJK text, written against its
    characters with no space as often as not) found in the other side's text whatever
    their case there (a Latin term inside Chinese text is a name there, a plain word in
    the English), so that a name is judged alike from either side. A name is found as a
    word of the other text (:func:`_has_word`), not inside a longer one: the "en" a
    Chinese menu item carries is not in "documentation", nor "acpi" in "acpi_listen"."""
    (n1, m1), (n2, m2) = anchors(text_1), anchors(text_2)
    m1, m2 = m1 | _latin_names(text_1), m2 | _latin_names(text_2)
    shared = len(n1 & n2)
    one_side = len(n1 ^ n2)
    low1, low2 = text_1.lower(), text_2.lower()
    for names, other in ((m1, low2), (m2 - m1, low1)):
        for name in names:
            if _has_word(other, name) or (name.endswith("s") and len(name) > 3
                                          and _has_word(other, name[:-1])):
                shared += 1
            else:
                one_side += 1
    return shared, one_side


# A word joined by underscores (``limit_req``, ``ngx_http_core_module``): an identifier.
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")
# A Latin word of two letters or more (inside CJK text: a name).
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*[A-Za-z0-9]")


def _latin_names(text: str) -> frozenset:
    """The names ``anchors`` leaves out: identifiers, and in a CJK text its Latin words
    (``anchors`` reads words by spaces, and "nginx进程" is one)."""
    if _CJK_RUN.search(text) is not None:
        return frozenset(m.lower() for m in _ASCII_WORD.findall(text))
    if "_" in text:
        return frozenset(m.lower() for m in _IDENTIFIER.findall(text))
    return frozenset()


def _is_word_char(c: str) -> bool:
    return c == "_" or (c.isascii() and c.isalnum())


def _has_word(text: str, word: str) -> bool:
    """``word`` is in ``text`` with no Latin letter, digit or underscore just before it,
    nor just after it but a plural's "s" (a CJK character next to it is a boundary:
    Chinese writes a Latin name against its own characters)."""
    n = len(word)
    at = text.find(word)
    while at >= 0:
        end = at + n
        if at == 0 or not _is_word_char(text[at - 1]):
            if end < len(text) and text[end] == "s":
                end += 1
            if end >= len(text) or not _is_word_char(text[end]):
                return True
        at = text.find(word, at + 1)
    return False


def _logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, ridge: float,
              n_iter: int = 50) -> tuple[np.ndarray, float]:
    """Weighted L2-penalised logistic regression by Newton's method (the intercept not
    penalised): (coefficients, intercept)."""
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, ridge)
    penalty[-1] = 0.0
    for _ in range(n_iter):
        p = expit(xa @ beta)
        grad = xa.T @ (w * (p - y)) + penalty * beta
        hess = (xa * (w * p * (1 - p))[:, None]).T @ xa + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return beta[:-1], float(beta[-1])
