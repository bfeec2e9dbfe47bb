"""Unsupervised statistical model of structural similarity [Assylbekov 2015 §3].

Each candidate pair is x = (w, m, n, l1, l2) (see :mod:`bitextcrawl.pairing.structure`).

Parallel pairs (eq. 6, 10):  A∥ = B∥ · C∥ · D∥ with
  B∥ = Binom(w; m+n, q∥)                                              (eq. 7)
  C∥ = p̂_M(m) · ∫_{n-km-b-.5}^{n-km-b+.5} f_ε(x) dx,  f_ε a 2-GMM       (eq. 2, 3, 8)
  D∥ = p̂_L1(l1) · Pr(z ∈ (l2 - a·l1 - c ± .5) / (σ·√l1))              (eq. 4, 9)
Non-parallel pairs (eq. 15):  A∦ = Binom(w; m+n, q∦) · p̂_M(m) p̂_N(n) · p̂_L1(l1) p̂_L2(l2)
                                                                      (eq. 12, 13, 14)
Decision rule (eq. 17): parallel iff A∥·p∥ > A∦·(1 − p∥).
Parameters are estimated by the hard (classification) EM of Algorithm 1, started
from the paper's initial values; (k, b), (a, c) and σ by Huber M-estimation done
with our own numpy IRLS (:func:`huber_irls`, as R's ``MASS::rlm``: Huber ψ with
t = 1.345, scale = MAD of the residuals re-estimated at each step), and the
GMM of ε by its own EM (:func:`fit_gmm2`).

Everything is computed in log space. Departures from the paper, each for a stated
reason, are marked "DEPARTURE" in comments. The fallbacks for degenerate input:

* no pairs at all: nothing is estimated; every parameter keeps the paper's initial
  value and ``fallback_ == "no_pairs"``; predictions on new data use those values
  and a broad default p̂ (finite everywhere);
* fewer than ``min_pairs`` pairs (default 5): the EM is not run (its M-step cannot
  estimate a regression and a 2-component mixture from a handful of points); the
  paper's initial values are kept, p̂ is estimated from the pairs at hand, and
  ``fallback_ == "too_few_pairs"``;
* during the EM, a class that receives no pair (all parallel / none parallel)
  keeps its previous parameters (they cannot be re-estimated from nothing), and
  p∥ = |I|/s is clipped to [1/(2s), 1 − 1/(2s)] so that log p∥ and log(1 − p∥)
  stay finite; a regression whose regressor has no spread (all m equal, or all l1
  equal) keeps its slope and re-estimates only the intercept; each such event is
  recorded once in ``warnings_``;
* probabilities q∥, q∦ are clipped to [1e-6, 1 − 1e-6] and standard deviations
  have floors, so that all log-likelihoods are finite.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from bitextcrawl.pairing.em_params import (
    _HYPER,
    _PARAM_ATTRS,
    _RUN_ATTRS,
    INITS,
    PAPER_INITIAL,
    FittedModel,
)
from bitextcrawl.pairing.em_stats import (
    HUBER_T,
    Q_EPS,
    SIGMA_FLOOR,
    EmpiricalPMF,
    fit_gmm2,
    huber_irls,
    huber_location,
    log_binomial,
    log_gmm_interval,
    log_length_interval,
    log_normal_interval,
    sigma_consistency_factor,
)

__all__ = [
    "PAPER_INITIAL", "StructuralEM", "EmpiricalPMF", "huber_irls", "huber_location", "fit_gmm2",
    "sigma_consistency_factor",
    "log_binomial", "log_gmm_interval", "log_length_interval", "log_normal_interval",
]

def _check_X(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1 and X.size == 5:
        X = X[None, :]
    if X.size == 0:
        return np.zeros((0, 5), dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 5:
        raise ValueError(f"X must be n×5 (w, m, n, l1, l2), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    X = np.maximum(np.rint(X), 0.0)  # counts and lengths are non-negative integers
    X[:, 0] = np.minimum(X[:, 0], X[:, 1] + X[:, 2])  # w ≤ m + n
    return X


class StructuralEM(FittedModel):
    """Model A∥ / A∦ of [Assylbekov 2015] (eq. 10, 15) fitted by Algorithm 1, sklearn-style.

    ``fit(X)`` with X the s×5 matrix (w, m, n, l1, l2); fitted attributes end in
    ``_``. Constructor defaults are the paper's initial values (Algorithm 1, line 1).
    """

    def __init__(self, max_iter: int = 100, tol: float = 1e-6, *, min_pairs: int = 5,
                 huber_t: float = HUBER_T, gmm_max_iter: int = 200, gmm_tol: float = 1e-8,
                 sigma_consistency: bool = True, init: str = "paper",
                 strand_threshold: float = 0.2, init_fractions: tuple = (0.1, 0.3),
                 q_par: float = PAPER_INITIAL["q_par"], q_npar: float = PAPER_INITIAL["q_npar"],
                 k: float = PAPER_INITIAL["k"], b: float = PAPER_INITIAL["b"],
                 gmm_weight: float = PAPER_INITIAL["gmm_weight"],
                 gmm_mean1: float = PAPER_INITIAL["gmm_mean1"],
                 gmm_mean2: float = PAPER_INITIAL["gmm_mean2"],
                 gmm_sd1: float = PAPER_INITIAL["gmm_sd1"], gmm_sd2: float = PAPER_INITIAL["gmm_sd2"],
                 a: float = PAPER_INITIAL["a"], c: float = PAPER_INITIAL["c"],
                 sigma: float = PAPER_INITIAL["sigma"], p_par: float = PAPER_INITIAL["p_par"]):
        self.max_iter = max_iter
        self.tol = tol
        self.min_pairs = min_pairs
        self.huber_t = huber_t
        self.gmm_max_iter = gmm_max_iter
        self.gmm_tol = gmm_tol
        self.sigma_consistency = sigma_consistency
        self.init = init
        self.strand_threshold = strand_threshold
        self.init_fractions = init_fractions
        self.q_par, self.q_npar, self.k, self.b = q_par, q_npar, k, b
        self.gmm_weight, self.gmm_mean1, self.gmm_mean2 = gmm_weight, gmm_mean1, gmm_mean2
        self.gmm_sd1, self.gmm_sd2 = gmm_sd1, gmm_sd2
        self.a, self.c, self.sigma, self.p_par = a, c, sigma, p_par

    # ------------------------------------------------------------------ parameters

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in _HYPER}

    def _init_params(self) -> None:
        """Algorithm 1, line 1 (values from the constructor, the paper's by default)."""
        self.q_par_ = float(self.q_par)
        self.q_npar_ = float(self.q_npar)
        self.k_, self.b_ = float(self.k), float(self.b)
        self.gmm_weights_ = np.array([self.gmm_weight, 1.0 - self.gmm_weight], dtype=np.float64)
        self.gmm_means_ = np.array([self.gmm_mean1, self.gmm_mean2], dtype=np.float64)
        self.gmm_sds_ = np.array([self.gmm_sd1, self.gmm_sd2], dtype=np.float64)
        self.a_, self.c_ = float(self.a), float(self.c)
        self.sigma_ = float(self.sigma)
        self.p_par_ = float(self.p_par)

    def _check_fitted(self) -> None:
        if not hasattr(self, "q_par_"):
            raise RuntimeError("StructuralEM is not fitted: call fit(X) or load() first")

    # ------------------------------------------------------------------ likelihoods

    def log_likelihoods(self, X) -> tuple[np.ndarray, np.ndarray]:
        """(log A∥, log A∦) of each pair: eq. (10) and (15)."""
        self._check_fitted()
        X = _check_X(X)
        return self._log_A(X, self._pmf_terms(X))

    def _pmf_terms(self, X) -> dict:
        w, m, n, l1, l2 = X.T
        return {"m": self.pmf_m_.logpmf(m), "n": self.pmf_n_.logpmf(n),
                "l1": self.pmf_l1_.logpmf(l1), "l2": self.pmf_l2_.logpmf(l2)}

    def _log_A(self, X, pmf) -> tuple[np.ndarray, np.ndarray]:
        """log A∥ (eq. 10) and log A∦ (eq. 15)."""
        w, m, n, l1, l2 = X.T
        t = m + n
        log_b_par = log_binomial(w, t, self.q_par_)                                   # (7)
        log_b_npar = log_binomial(w, t, self.q_npar_)                                 # (12)
        log_c_par = pmf["m"] + log_gmm_interval(n - self.k_ * m - self.b_, self.gmm_weights_,
                                                self.gmm_means_, self.gmm_sds_)       # (8)
        log_c_npar = pmf["m"] + pmf["n"]                                              # (13)
        log_d_par = pmf["l1"] + log_length_interval(l1, l2, self.a_, self.c_, self.sigma_)  # (9)
        log_d_npar = pmf["l1"] + pmf["l2"]                                            # (14)
        return log_b_par + log_c_par + log_d_par, log_b_npar + log_c_npar + log_d_npar

    def _log_prior(self) -> tuple[float, float]:
        p = self.p_par_
        return (math.log(p) if p > 0 else -math.inf, math.log1p(-p) if p < 1 else -math.inf)

    def log_likelihood_ratio(self, X) -> np.ndarray:
        """log A∥(x) − log A∦(x), the evidence of eq. (17) without the prior."""
        la, lna = self.log_likelihoods(X)
        return la - lna

    def decision_function(self, X) -> np.ndarray:
        """log(A∥·p∥) − log(A∦·(1 − p∥)); positive means parallel by eq. (17)."""
        llr = self.log_likelihood_ratio(X)
        lp, lnp = self._log_prior()
        return llr + (lp - lnp)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior P(∥ | x) = A∥p∥ / (A∥p∥ + A∦(1 − p∥)) by Bayes' rule (eq. 5)."""
        return expit(self.decision_function(X))

    def predict(self, X) -> np.ndarray:
        """Decision rule (17): 1 iff A∥(x)·p∥ > A∦(x)·(1 − p∥), else 0."""
        return (self.decision_function(X) > 0).astype(np.int64)

    # ------------------------------------------------------------------------- fit

    def _warn(self, msg: str) -> None:
        if msg not in self.warnings_:
            self.warnings_.append(msg)

    def fit(self, X) -> "StructuralEM":
        """Algorithm 1 (EM for A∥ and A∦) on the s×5 matrix X = (w, m, n, l1, l2).

        X is rounded to non-negative integers and w clipped to m + n; NaN is an error.
        """
        X = _check_X(X)
        s = X.shape[0]
        self._init_params()
        self.warnings_: list[str] = []
        self.log_likelihood_history_: list[float] = []
        self.n_iter_ = 0
        self.converged_ = False
        self.n_samples_ = s
        self.fallback_ = None
        self.init_ = "paper"
        self.degenerate_: list[str] = []
        self.starts_: list[dict] = []
        w, m, n, l1, l2 = X.T
        # Empirical pdfs over all s candidate pairs: the marginals "do not depend on ∦" (eq. 13).
        self.pmf_m_ = EmpiricalPMF.fit(m)
        self.pmf_n_ = EmpiricalPMF.fit(n)
        self.pmf_l1_ = EmpiricalPMF.fit(l1)
        self.pmf_l2_ = EmpiricalPMF.fit(l2)
        if s == 0:
            self.fallback_ = "no_pairs"
            self.labels_ = np.zeros(0, dtype=np.int64)
            self.n_parallel_ = 0
            return self
        pmf = self._pmf_terms(X)
        if s < self.min_pairs:
            self.fallback_ = "too_few_pairs"
            self._warn(f"only {s} pairs (< min_pairs={self.min_pairs}): EM not run, "
                       "the paper's initial values are used")
            self.labels_, ll = self._e_step(X, pmf)
            self.n_parallel_ = int(self.labels_.sum())
            self.log_likelihood_history_.append(ll)
            return self

        # DEPARTURE (starts): Algorithm 1 starts once, from fixed values. A hard EM only
        # climbs to the nearest fixed point of (16); on a one-template site every
        # candidate pair looks parallel to the paper's start and the fit stays near it.
        # ``init="data"`` starts from splits of the data by the STRAND ratio w/(m+n)
        # (rule 18, and its lowest quantiles: a page has one counterpart among its
        # candidates), ``init="best"`` from those and the paper's values; the fit kept
        # is the one of highest log (16) among the non-degenerate ones.
        starts = self._starts(X)
        runs = []
        for name, labels0 in starts:
            self._init_params()
            self.warnings_ = []
            self.log_likelihood_history_ = []
            self.n_iter_ = 0
            self.converged_ = False
            if labels0 is not None:
                self._m_step(X, labels0)          # the start: θ estimated from the split
            self._run_em(X, pmf)
            reasons = self._degenerate_reasons(s)
            snap = {a: getattr(self, a) for a in _PARAM_ATTRS + _RUN_ATTRS}
            runs.append((name, float(self.log_likelihood_history_[-1]), reasons, snap))
        ok = [r for r in runs if not r[2]] or runs
        top = max(r[1] for r in ok)
        # ties (starts that reach the same fixed point) go to the earliest start
        name, ll, reasons, snap = next(r for r in ok if r[1] >= top - self.tol * max(1.0, abs(top)))
        for a, v in snap.items():
            setattr(self, a, v)
        self.init_ = name
        self.degenerate_ = list(reasons)
        self.starts_ = [{"init": r[0], "log_likelihood": r[1], "n_parallel": int(r[3]["labels_"].sum()),
                         "degenerate": list(r[2])} for r in runs]
        self.n_parallel_ = int(self.labels_.sum())
        return self

    def _starts(self, X) -> list:
        """(name, initial labels or None) of each EM start; see ``init``."""
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {self.init!r}")
        starts = [("paper", None)] if self.init in ("paper", "best") else []
        if self.init in ("data", "best"):
            w, m, n = X[:, 0], X[:, 1], X[:, 2]
            ratio = np.where(m + n > 0, w / np.maximum(m + n, 1.0), 1.0)
            s = ratio.size
            order = np.argsort(ratio, kind="stable")
            cands = [("strand", ratio <= self.strand_threshold)]
            for f in self.init_fractions:
                lab = np.zeros(s, dtype=bool)
                lab[order[:max(1, int(math.ceil(f * s)))]] = True
                cands.append((f"rank{f:g}", lab))
            seen = set()
            for name, lab in cands:
                key = lab.tobytes()
                if lab.all() or not lab.any() or key in seen:
                    continue  # a one-class split cannot estimate both classes
                seen.add(key)
                starts.append((name, lab.astype(np.int64)))
            if not starts:
                starts = [("paper", None)]
        return starts

    def _degenerate_reasons(self, s: int) -> list[str]:
        """Why a fit is degenerate (empty: it is not), for ``report()`` and the choice of start."""
        out = []
        n_par = int(self.labels_.sum())
        if n_par == 0 or n_par == s:
            out.append("one_class")
        if self.q_par_ >= self.q_npar_:
            out.append("q_order")        # the "parallel" class misaligns more: classes swapped
        if self.sigma_ <= SIGMA_FLOOR * (1 + 1e-9):
            out.append("sigma_collapse")
        return out

    def _run_em(self, X, pmf) -> None:
        """The loop of Algorithm 1 (lines 2–24) from the current parameters."""
        labels = None
        seen: dict[bytes, int] = {}
        for it in range(1, self.max_iter + 1):
            new, ll = self._e_step(X, pmf)                              # lines 3–10
            self.log_likelihood_history_.append(ll)
            key = np.packbits(new.astype(np.uint8)).tobytes()
            if labels is not None:
                prev_ll = self.log_likelihood_history_[-2]
                if np.array_equal(new, labels) or abs(ll - prev_ll) <= self.tol * max(1.0, abs(ll)):
                    # The classes did not change: the M-step would reproduce the
                    # current parameters (up to the GMM's own EM tolerance).
                    self.converged_ = True
                    labels = new
                    break
                if key in seen:
                    # DEPARTURE (stopping rule): a hard EM can enter a cycle in which a
                    # few pairs flip class forever; "while not converged" would then never
                    # end. A repeated assignment is a limit the iteration cannot leave,
                    # so we stop there and count it as converged, with a warning.
                    flips = int(np.sum(new != labels))
                    self._warn(f"EM reached a cycle of period {it - seen[key]} "
                               f"({flips} pairs flip class); stopped at iteration {it}")
                    self.converged_ = True
                    labels = new
                    break
            seen[key] = it
            labels = new
            self._m_step(X, labels)                                     # lines 11–23
            self.n_iter_ = it
        if not self.converged_:  # the last step was an M-step: classify with its parameters
            labels, _ = self._e_step(X, pmf)
        self.labels_ = labels
        self.n_parallel_ = int(self.labels_.sum())
        if not self.converged_:
            self._warn(f"EM stopped at max_iter={self.max_iter} without convergence")


    def _e_step(self, X, pmf) -> tuple[np.ndarray, float]:
        """Lines 3–10 of Algorithm 1 = decision rule (17); also log (16) at the new α.

        (Line 3 is printed as A∥/(1 − p∥) > A∦/p∥, which is algebraically the same
        comparison as (17) since both sides are positive.) The returned
        log-likelihood is log (16) without the constant C, i.e. Σ max(log A∥p∥,
        log A∦(1 − p∥)): the α of (17) maximise (16) for the current θ (Lemma B.1).
        """
        la, lna = self._log_A(X, pmf)
        lp, lnp = self._log_prior()
        par, npar = la + lp, lna + lnp
        labels = (par > npar).astype(np.int64)
        return labels, float(np.where(labels == 1, par, npar).sum())

    def _m_step(self, X, labels) -> None:
        """Lines 11–23 of Algorithm 1."""
        s = X.shape[0]
        w, m, n, l1, l2 = X.T
        I = labels == 1
        J = ~I
        nI = int(I.sum())
        if nI == 0:
            self._warn("an E-step found no parallel pair: θ∥ kept from the previous step")
        else:
            tot = float((m[I] + n[I]).sum())
            if tot > 0:
                self.q_par_ = min(max(float(w[I].sum()) / tot, Q_EPS), 1 - Q_EPS)   # line 11 (Lemma B.2)
            self._fit_mn(m[I], n[I])                                            # lines 13–17
            self._fit_lengths(l1[I], l2[I])                                     # lines 18–22
        if not J.any():
            self._warn("an E-step found no non-parallel pair: q∦ kept from the previous step")
        else:
            tot = float((m[J] + n[J]).sum())
            if tot > 0:
                self.q_npar_ = min(max(float(w[J].sum()) / tot, Q_EPS), 1 - Q_EPS)  # line 12
        # line 23; DEPARTURE: clipped away from 0 and 1 so that log p∥, log(1 − p∥) stay finite.
        self.p_par_ = min(max(nI / s, 0.5 / s), 1.0 - 0.5 / s)

    def _fit_mn(self, m, n) -> None:
        """Lines 13–17: (k, b) by Huber IRLS, residuals ε, GMM of ε by EM (eq. 2, 3)."""
        if m.size >= 3 and np.ptp(m) > 0:
            self.k_, self.b_ = huber_irls(m, n, t=self.huber_t)                 # line 13
        else:
            # DEPARTURE: a regression on < 3 points or on constant m is not identified;
            # keep k and estimate b alone.
            self._warn("(k, b): too few distinct m among parallel pairs; k kept, b re-estimated")
            self.b_ = huber_location(n - self.k_ * m, t=self.huber_t)
        eps = n - self.k_ * m - self.b_                                         # lines 14–16
        if eps.size >= 2:
            self.gmm_weights_, self.gmm_means_, self.gmm_sds_, _ = fit_gmm2(   # line 17
                eps, self.gmm_weights_, self.gmm_means_, self.gmm_sds_,
                max_iter=self.gmm_max_iter, tol=self.gmm_tol)

    def _fit_lengths(self, l1, l2) -> None:
        """Lines 18–22: (a, c) by Huber IRLS, δ, σ by robust regression of δ² on l1 (eq. 4)."""
        if l1.size >= 3 and np.ptp(l1) > 0:
            self.a_, self.c_ = huber_irls(l1, l2, t=self.huber_t)              # line 18
        else:
            self._warn("(a, c): too few distinct l1 among parallel pairs; a kept, c re-estimated")
            self.c_ = huber_location(l2 - self.a_ * l1, t=self.huber_t)
        delta = l2 - self.a_ * l1 - self.c_                                     # lines 19–21
        # Line 22: σ ← argmin Σ ρ(δ² − σ·l1). The slope of this regression through the
        # origin is the variance per unit of length (Gale & Church's s², 6.8 in their
        # paper, whence the initial σ = √6.8), so σ here is the square root of the slope.
        if l1.size >= 1 and np.any(l1 > 0):
            slope, _ = huber_irls(l1, delta ** 2, intercept=False, t=self.huber_t)
            if self.sigma_consistency:
                slope /= sigma_consistency_factor(l1, t=self.huber_t)
            self.sigma_ = max(math.sqrt(max(slope, 0.0)), SIGMA_FLOOR)

