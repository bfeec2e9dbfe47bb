"""Language-independent content similarity of two pages.

Three measures, from the cheapest to the strongest:

* :func:`shared_token_similarity` — the overlap of the tokens a translation keeps
  unchanged: numbers, years, codes, URLs, e-mail addresses, capitalised names.
* :func:`lexicon_similarity` — the share of words of page 1 whose translation (from a
  bilingual lexicon given by the user, ``word1<TAB>word2`` lines, :func:`load_lexicon`)
  occurs in page 2: the content-based similarity of [Liu 2014 §3.2].
* :class:`LSIModel` — Latent Semantic Indexing trained on known parallel pairs of the
  same site [Germann 2016]: each training "document" is the concatenation of both
  pages of a known pair, so that the words of both languages co-occur in it and the
  SVD puts translations of each other close together in one latent space. Any page
  is then folded into that space; ``cos`` compares two folded pages, ``lcos`` compares
  them after the site's mean direction has been subtracted (the site's boilerplate, which
  every page shares, stops counting as common content).

No Scrapy import here: pure functions over strings. The first two, and the tokenisation
(:func:`tokenize`), live in :mod:`bitextcrawl.pages.tokens`, shared with the bitext stage;
they are re-exported here.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from bitextcrawl.pages.tokens import (
    Lexicon,
    anchor_tokens,
    lexicon_similarity,
    load_lexicon,
    shared_token_similarity,
    tokenize,
)
from bitextcrawl.pairing.lsi_terms import (
    SiteTerms,
    _hash_bucket,
    _row_blocks,
    _tf,
    _TokenCache,
    _unit,
    row_cosines,
    site_term_stats,
)

# Up to this many training documents, the SVD comes from their Gram matrix (LAPACK).
GRAM_SVD_MAX_DOCS = 2000

__all__ = [
    "tokenize", "anchor_tokens", "shared_token_similarity", "lexicon_similarity",
    "load_lexicon", "Lexicon", "LSIModel", "SiteTerms", "row_cosines", "site_term_stats",
]


# --------------------------------------------------------------------------------------
# LSI [Germann 2016]
# --------------------------------------------------------------------------------------

# Texts folded in at a time (``LSIModel.transform``, ``LSIModel._mean``).
TRANSFORM_BATCH = 4096
# Pairs compared at a time by ``LSIModel.pair_similarities`` (a few arrays of this many
# rows by the rank: 6.5 MB each at rank 100).
PAIR_BLOCK = 8192
# Similarities ``LSIModel.nearest_pairs`` computes at a time, at most (about 50 MB).
NEAREST_BLOCK_CELLS = 1 << 22


class LSIModel:
    """LSI content similarity trained on known parallel pairs of one site [Germann 2016].

    Parameters
    ----------
    rank : int or None
        Number of latent dimensions. ``None`` picks it from the data size:
        ``min(max_rank, n_pairs - 1, n_terms - 1)``. (Germann uses 1000 on the whole
        WMT16 training set; a single site gives tens to thousands of known pairs, and
        a truncated SVD needs ``rank < min(n_terms, n_pairs)``.) A given rank is
        clipped to the same bound.
    max_rank : int
        Upper bound of the automatic rank.
    min_df : int
        A term counts only if it occurs in at least this many documents of the idf
        population (the site's pages), and in at least one training pair.
    max_df : float
        Terms in more than this share of the site's pages are dropped (1.0 keeps all;
        idf and ``lcos`` already discount boilerplate).
    min_pairs : int
        With fewer known pairs there is nothing to learn a joint space from: the model
        falls back to the *degenerate mode* (see below).
    normalize_docs : bool
        L2-normalise each training pair's tf-idf column before the SVD, so that a few
        very long pages do not dominate the latent space. (Not in the paper, which
        does not say; standard LSI practice.)
    degenerate_dim : int
        Size of the hashed vectors of the degenerate mode.
    random_state : int
        Seed of the ARPACK start vector (results are reproducible).
    token_cache : int
        Tokens of the texts read kept for the model's later reads, at most this many
        in all (each fit starts afresh); a pointer each, the words being shared.

    Degenerate mode (``mode_ == "shared_tokens"``): fewer than ``min_pairs`` training
    pairs, or no term/rank left. Pages are represented by the idf-weighted anchor
    tokens of :func:`anchor_tokens` (numbers, codes, URLs, names), hashed into
    ``degenerate_dim`` dimensions with a sign bit; ``cos``/``lcos`` are computed on
    those vectors exactly as in LSI mode. Pages without any such token get a zero
    vector and similarity 0.0 — never NaN.

    Fitted attributes: ``mode_`` ("lsi" | "shared_tokens"), ``vocabulary_`` (term ->
    column), ``idf_``, ``components_`` (rank x n_terms, the left singular vectors
    U_k^T), ``singular_values_`` (descending), ``rank_``, ``n_pairs_``,
    ``n_site_docs_``, ``site_mean_`` (the mean folded vector of the site's pages),
    ``explained_variance_ratio_`` (share of ||X||_F^2 kept by the rank).
    """

    def __init__(self, rank: int | None = None, *, max_rank: int = 100, min_df: int = 2,
                 max_df: float = 1.0, min_pairs: int = 3, normalize_docs: bool = True,
                 degenerate_dim: int = 1024, random_state: int = 0,
                 token_cache: int = 5_000_000):
        self.rank = rank
        self.token_cache = token_cache
        self._tokenize = _TokenCache(token_cache)
        self.max_rank = max_rank
        self.min_df = min_df
        self.max_df = max_df
        self.min_pairs = min_pairs
        self.normalize_docs = normalize_docs
        self.degenerate_dim = degenerate_dim
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting

    def fit(self, pair_texts: Sequence[tuple[str, str]],
            site_texts: Sequence[str] | None = None,
            site_terms: SiteTerms | None = None) -> "LSIModel":
        """Fit on known pairs (tf = 1 + log f, per-site idf, truncated SVD; [Germann 2016] "Technical procedure").

        ``pair_texts``: ``(text_1, text_2)`` of known parallel pairs of the site.
        ``site_texts``: the texts of all pages of the site (the idf population, and
        the pages whose mean vector ``lcos`` subtracts); without them, the pages of
        the training pairs stand in. The site's pages are read for their terms
        (:func:`site_term_stats`) and folded in once more for their mean direction.
        ``site_terms``: the site's tokens and document frequencies kept by the caller for
        the models it fits on the same pages (:class:`SiteTerms`); None: read afresh.
        """
        pair_texts = [(a or "", b or "") for a, b in pair_texts]
        site_texts = list(site_texts) if site_texts else []
        tokenize = self._tokenize = (site_terms.tokenize if site_terms is not None
                                     else _TokenCache(self.token_cache))
        population = site_texts or [t for pair in pair_texts for t in pair]
        self.n_pairs_ = len(pair_texts)
        self.n_site_docs_ = len(site_texts)
        self.n_idf_docs_ = len(population)

        if self.n_pairs_ < max(self.min_pairs, 2):
            return self._fit_degenerate(population, "too few training pairs")

        # idf per web domain: log(|D_d| / df_t). Germann's documents are the training
        # documents of the domain; here they are the site's pages (site_texts), since the
        # same idf weighs every single page folded in later, and a site has far more
        # pages than known pairs.
        site_stats = (site_terms.stats(population) if site_terms is not None
                      else site_term_stats(population, tokenize))
        df = site_stats["df"]
        pair_counts = [Counter(tokenize(a) + tokenize(b)) for a, b in pair_texts]
        in_pairs: set[str] = set().union(*pair_counts) if pair_counts else set()
        n_docs = max(site_stats["n_docs"], 1)
        max_count = self.max_df * n_docs
        # A training-pair term missing from ``site_texts`` (a caller's inconsistency) gets
        # df = 1: never an infinite idf; with min_df >= 2 it is dropped like any rare term.
        terms = sorted(t for t in in_pairs
                       if max(df.get(t, 0), 1) >= self.min_df and df.get(t, 0) <= max_count)
        vocab = {t: i for i, t in enumerate(terms)}
        idf = np.array([math.log(n_docs / max(df.get(t, 0), 1)) for t in terms], dtype=float)
        idf = np.maximum(idf, 0.0)
        n_terms = len(terms)

        bound = min(self.max_rank if self.rank is None else self.rank,
                    self.n_pairs_ - 1, n_terms - 1)
        if bound < 1:
            return self._fit_degenerate(population, "no usable term or rank")

        X = self._training_matrix(pair_counts, vocab, idf)
        if X is None:
            return self._fit_degenerate(population, "training pairs have no usable term")
        total = float(X.multiply(X).sum())
        if total <= 0:
            return self._fit_degenerate(population, "all-zero term-document matrix")

        if X.shape[1] <= GRAM_SVD_MAX_DOCS:
            # Few training documents: the left singular vectors from the eigenvectors of
            # the documents' Gram matrix XᵀX (a few hundred square) instead of ARPACK's k
            # of nearly all of them (3 s for 300 pairs at rank 100).
            w, v = np.linalg.eigh((X.T @ X).toarray())
            top = np.argsort(-w)[:bound]
            s = np.sqrt(np.maximum(w[top], 0.0))
            nonzero = s > 1e-10 * max(s[0], 1e-300)
            s, v = s[nonzero], v[:, top[nonzero]]
            u = np.asarray(X @ v) / s
        else:
            rng = np.random.default_rng(self.random_state)
            v0 = rng.standard_normal(min(X.shape))
            u, s, _ = svds(X, k=bound, v0=v0, random_state=self.random_state)
        order = np.argsort(-s)
        s, u = s[order], u[:, order]
        keep = s > 1e-10 * max(s[0], 1e-300)
        s, u = s[keep], u[:, keep]
        if len(s) == 0:
            return self._fit_degenerate(population, "SVD found no signal")

        self.mode_ = "lsi"
        self.degenerate_reason_ = None
        self.vocabulary_ = vocab
        self.idf_ = idf
        self.components_ = np.ascontiguousarray(u.T)    # rank x n_terms
        self.singular_values_ = s
        self.rank_ = int(len(s))
        self.explained_variance_ratio_ = float((s ** 2).sum() / total)
        self.site_mean_ = self._mean(population)
        return self

    def _training_matrix(self, pair_counts: list, vocab: dict, idf: np.ndarray):
        """The term x training-pair tf-idf matrix (each pair one document), or None."""
        rows, cols, vals = [], [], []
        for j, counts in enumerate(pair_counts):
            kept = Counter({t: c for t, c in counts.items() if t in vocab})
            if not kept:
                continue
            ts, tf = _tf(kept)
            idx = np.fromiter((vocab[t] for t in ts), dtype=np.int64, count=len(ts))
            w = tf * idf[idx]
            if self.normalize_docs:
                norm = np.linalg.norm(w)
                if norm > 0:
                    w = w / norm
            rows.append(idx)
            cols.append(np.full(len(idx), j, dtype=np.int64))
            vals.append(w)
        if not rows:
            return None
        return sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(len(vocab), len(pair_counts)))

    def _fit_degenerate(self, population: Sequence[str], reason: str) -> "LSIModel":
        df: Counter = Counter()
        for text in population:
            df.update(set(anchor_tokens(text)))
        n_docs = max(len(population), 1)
        self.mode_ = "shared_tokens"
        self.degenerate_reason_ = reason
        self.vocabulary_ = {}
        # Unseen anchor tokens get the idf of a token seen once (they are rare by definition).
        self.default_idf_ = math.log(n_docs / 1.0) if population else 1.0
        self.anchor_idf_ = {t: math.log(n_docs / c) for t, c in df.items()}
        self.idf_ = np.zeros(0)
        self.components_ = np.zeros((0, 0))
        self.singular_values_ = np.zeros(0)
        self.rank_ = 0
        self.explained_variance_ratio_ = 0.0
        self.site_mean_ = self._mean(population)
        return self

    def _mean(self, texts: Sequence[str]) -> np.ndarray:
        dim = self.rank_ if self.mode_ == "lsi" else self.degenerate_dim
        if not texts:
            return np.zeros(dim)
        total = np.zeros(dim)
        for start in range(0, len(texts), TRANSFORM_BATCH):   # bounded memory on big sites
            total += _unit(self.transform(texts[start:start + TRANSFORM_BATCH])).sum(axis=0)
        return total / len(texts)

    # ---------------------------------------------------------------- folding in

    def _check(self) -> None:
        if not hasattr(self, "mode_"):
            raise RuntimeError("LSIModel is not fitted: call fit() first")

    def tfidf(self, texts: Sequence[str]) -> sp.csr_matrix:
        """The tf-idf vectors of ``texts`` over the fitted vocabulary (n x n_terms, sparse)."""
        self._check()
        vocab, idf = self.vocabulary_, self.idf_
        tokenize = self._tokenize
        indptr = [0]
        indices: list[np.ndarray] = []
        data: list[np.ndarray] = []
        for text in texts:
            counts = Counter(t for t in tokenize(text) if t in vocab)
            if counts:
                ts, tf = _tf(counts)
                idx = np.fromiter((vocab[t] for t in ts), dtype=np.int64, count=len(ts))
                indices.append(idx)
                data.append(tf * idf[idx])
                indptr.append(indptr[-1] + len(idx))
            else:
                indptr.append(indptr[-1])
        if indices:
            ind, dat = np.concatenate(indices), np.concatenate(data)
        else:
            ind, dat = np.zeros(0, dtype=np.int64), np.zeros(0)
        return sp.csr_matrix((dat, ind, np.asarray(indptr, dtype=np.int64)),
                             shape=(len(texts), len(vocab)))

    def _hashed(self, texts: Sequence[str]) -> np.ndarray:
        dim = self.degenerate_dim
        out = np.zeros((len(texts), dim))
        for i, text in enumerate(texts):
            for tok, c in Counter(anchor_tokens(text)).items():
                b, sign = _hash_bucket(tok, dim)
                out[i, b] += sign * (1.0 + math.log(c)) * self.anchor_idf_.get(tok, self.default_idf_)
        return out

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Fold pages into the latent space [Germann 2016]: returns S·d' = U_k^T d, one row a page.

        The paper folds in d' = S^-1 U^T d and compares cos(S d'_x, S d'_y); S d' is
        U^T d, so the rows returned here compare directly by cosine. In degenerate
        mode, the hashed idf-weighted anchor-token vectors.
        """
        self._check()
        texts = [t or "" for t in texts]
        if self.mode_ != "lsi":
            return self._hashed(texts)
        if not texts:
            return np.zeros((0, self.rank_))
        # 4,096 texts at a time: the tf-idf rows of a 100,000-page site's side are
        # hundreds of MiB while being made (each row is folded in alone: the same values).
        return np.vstack([np.asarray(self.tfidf(texts[start:start + TRANSFORM_BATCH])
                                     @ self.components_.T)
                          for start in range(0, len(texts), TRANSFORM_BATCH)])

    # ---------------------------------------------------------------- similarity

    def similarity(self, text1: str, text2: str, centred: bool = True) -> float:
        """``lcos`` (``centred=True``: site mean subtracted) or ``cos`` of two pages [Germann 2016], in [-1, 1]."""
        v = self.transform([text1, text2])
        return float(self.vector_similarities(v[:1], v[1:], centred=centred)[0])

    def vector_similarities(self, v1: np.ndarray, v2: np.ndarray, centred: bool = True) -> np.ndarray:
        """Row-wise ``lcos``/``cos`` of folded vectors ([Germann 2016] features cos and lcos).

        A page with no known term (a zero vector) has similarity 0.0 with anything,
        centred or not: after centring it would sit at ``-mean`` and look similar to
        every other empty page.
        """
        v1 = np.atleast_2d(v1)
        v2 = np.atleast_2d(v2)
        empty = ~(np.any(v1 != 0, axis=1) & np.any(v2 != 0, axis=1))
        if centred:
            # Departure from [Germann 2016]'s lcos: each page's direction, less the site's mean
            # direction. Centring raw vectors sends every short page to about -mean, where
            # all look alike (nginx.org's 404 page and a Russian stub: 0.99).
            v1 = _unit(v1) - self.site_mean_
            v2 = _unit(v2) - self.site_mean_
        out = row_cosines(v1, v2)
        out[empty] = 0.0
        return out

    def pair_similarities(self, texts1: Sequence[str], texts2: Sequence[str],
                          pairs_idx, centred: bool = True) -> np.ndarray:
        """Similarity of many pairs at once: ``pairs_idx`` rows ``(i, j)`` compare ``texts1[i]`` with ``texts2[j]``.

        Each text is folded in once; returns one float per row of ``pairs_idx``
        (``lcos`` if ``centred`` else ``cos``), 0.0 for pages with no known term.
        """
        idx = np.asarray(pairs_idx, dtype=np.int64).reshape(-1, 2)
        if len(idx) == 0:
            return np.zeros(0)
        v1 = self.transform(texts1)
        v2 = self.transform(texts2)
        out = np.empty(len(idx))
        step = PAIR_BLOCK                 # bounded memory for hundreds of thousands of pairs
        for start in range(0, len(idx), step):
            block = idx[start:start + step]
            out[start:start + step] = self.vector_similarities(v1[block[:, 0]], v2[block[:, 1]],
                                                               centred=centred)
        return out

    def nearest_pairs(self, texts1: Sequence[str], texts2: Sequence[str], k: int = 5, *,
                      rows1: Sequence[int] | None = None, rows2: Sequence[int] | None = None,
                      centred: bool = True, min_similarity: float = 0.0,
                      block: int = 1024,
                      block_cells: int = NEAREST_BLOCK_CELLS) -> list[tuple[int, int, float]]:
        """[Germann 2016] compares every page with every page of the site; here each page keeps its ``k`` nearest.

        Returns ``(i, j, similarity)`` for every ``j`` among the ``k`` most similar
        ``texts2`` of ``texts1[i]``, and every ``i`` among the ``k`` most similar
        ``texts1`` of ``texts2[j]`` (the union, each pair once), with similarity above
        ``min_similarity``. ``rows1``/``rows2`` restrict the pages that are compared
        (default: all). The N1×N2 similarities are computed in row blocks and never
        held whole: ``block`` rows at most, and fewer where the other side has so many
        pages that a block would pass ``block_cells`` similarities (a block's
        similarities and their ``argpartition`` take 12 bytes each: 1,024 rows against
        50,000 pages, 600 MB); the cost is N1·N2·rank flops, which
        BLAS does in seconds for 10k × 10k pages at rank 100. Pages with no known term
        pair with nothing.
        """
        self._check()
        rows1 = np.arange(len(texts1)) if rows1 is None else np.asarray(rows1, dtype=np.int64)
        rows2 = np.arange(len(texts2)) if rows2 is None else np.asarray(rows2, dtype=np.int64)
        if k <= 0 or not len(rows1) or not len(rows2):
            return []

        def unit(texts, rows):
            v = self.transform([texts[i] for i in rows])
            empty = ~np.any(v != 0, axis=1)
            if centred:
                v = _unit(v) - self.site_mean_
            norm = np.linalg.norm(v, axis=1, keepdims=True)
            v = np.divide(v, norm, out=np.zeros_like(v), where=norm > 1e-12)
            v[empty] = 0.0
            return v.astype(np.float32)

        v1, v2 = unit(texts1, rows1), unit(texts2, rows2)
        found: dict[tuple[int, int], float] = {}
        for a, b, flip in ((v1, v2, False), (v2, v1, True)):
            kk = min(k, len(b))
            for start in _row_blocks(len(a), block, block_cells // max(len(b), 1)):
                # negated in place: the block is the biggest array here, never copied
                sims = a[start.start:start.stop] @ b.T
                start = start.start
                np.negative(sims, out=sims)
                top = np.argpartition(sims, kk - 1, axis=1)[:, :kk]
                vals = -np.take_along_axis(sims, top, axis=1)
                for r, (cols, ss) in enumerate(zip(top, vals)):
                    for c, s in zip(cols.tolist(), ss.tolist()):
                        if s > min_similarity:
                            i, j = (int(rows1[c]), int(rows2[start + r])) if flip else \
                                   (int(rows1[start + r]), int(rows2[c]))
                            found[(i, j)] = s
        return [(i, j, s) for (i, j), s in found.items()]

    # ---------------------------------------------------------------- reporting

    def report(self) -> dict:
        """What the model learnt, for stats.json and the HTML report."""
        self._check()
        return {
            "mode": self.mode_,
            "degenerate_reason": self.degenerate_reason_,
            "n_pairs": self.n_pairs_,
            "n_site_docs": self.n_site_docs_,
            "n_terms": len(self.vocabulary_),
            "rank": self.rank_,
            "explained_variance_ratio": round(self.explained_variance_ratio_, 4),
            "top_singular_values": [round(float(x), 4) for x in self.singular_values_[:5]],
        }

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_tokenize"] = _TokenCache(self.token_cache)   # the texts stay here
        return state

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in ("rank", "max_rank", "min_df", "max_df", "min_pairs",
                                              "normalize_docs", "degenerate_dim", "random_state")}

    def to_dict(self) -> dict:
        """JSON-serialisable state (parameters and fitted attributes)."""
        self._check()
        d = {"params": self.get_params(), "mode": self.mode_,
             "degenerate_reason": self.degenerate_reason_, "n_pairs": self.n_pairs_,
             "n_site_docs": self.n_site_docs_, "n_idf_docs": self.n_idf_docs_,
             "site_mean": self.site_mean_.tolist(),
             "explained_variance_ratio": self.explained_variance_ratio_}
        if self.mode_ == "lsi":
            terms = sorted(self.vocabulary_, key=self.vocabulary_.get)
            d.update(terms=terms, idf=self.idf_.tolist(),
                     components=self.components_.tolist(),
                     singular_values=self.singular_values_.tolist())
        else:
            d.update(anchor_idf=self.anchor_idf_, default_idf=self.default_idf_)
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> "LSIModel":
        model = cls(**d["params"])
        model.mode_ = d["mode"]
        model.degenerate_reason_ = d.get("degenerate_reason")
        model.n_pairs_ = d["n_pairs"]
        model.n_site_docs_ = d["n_site_docs"]
        model.n_idf_docs_ = d.get("n_idf_docs", 0)
        model.site_mean_ = np.asarray(d["site_mean"], dtype=float)
        model.explained_variance_ratio_ = d.get("explained_variance_ratio", 0.0)
        if model.mode_ == "lsi":
            model.vocabulary_ = {t: i for i, t in enumerate(d["terms"])}
            model.idf_ = np.asarray(d["idf"], dtype=float)
            model.components_ = np.asarray(d["components"], dtype=float).reshape(-1, len(d["terms"]))
            model.singular_values_ = np.asarray(d["singular_values"], dtype=float)
            model.rank_ = len(model.singular_values_)
        else:
            model.vocabulary_ = {}
            model.anchor_idf_ = dict(d["anchor_idf"])
            model.default_idf_ = d["default_idf"]
            model.idf_ = np.zeros(0)
            model.components_ = np.zeros((0, 0))
            model.singular_values_ = np.zeros(0)
            model.rank_ = 0
        return model

