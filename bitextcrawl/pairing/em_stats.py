"""The distributions and estimators of the structural model ([Assylbekov 2015 §3], see
:mod:`.structural_em`): log densities of the binomial, the 2-GMM and the length model over
unit intervals (eq. 7-9), Huber M-estimation by IRLS (:func:`huber_irls`, as R's
``MASS::rlm``) and of a location, the 2-component GMM's own EM (:func:`fit_gmm2`), and the
smoothed empirical distributions p̂ (:class:`EmpiricalPMF`). Pure numpy/scipy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.special import gammaln, log_ndtr

Q_EPS = 1e-6
# DEPARTURE: floor of a GMM component's sd. M and N are integers, so residuals
# n − km − b repeat exactly (e.g. many parallel pairs with n == m); without a floor
# a component collapses onto one value and its likelihood diverges. 1/√12 is the sd
# of the unit rounding that the ±.5 continuity correction of eq. (8) already assumes.
GMM_SD_FLOOR = 1.0 / math.sqrt(12.0)
# DEPARTURE: floor of σ (eq. 4) for the same reason (identical lengths give δ = 0).
SIGMA_FLOOR = 0.05
HUBER_T = 1.345
_LOG_2PI = math.log(2.0 * math.pi)


# --------------------------------------------------------------------------- helpers

def _log1mexp(d: np.ndarray) -> np.ndarray:
    """log(1 − e^d) for d ≤ 0, accurate on both sides of −log 2 (Mächler 2012)."""
    d = np.minimum(d, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(d > -math.log(2.0), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))


def log_normal_interval(lo, hi) -> np.ndarray:
    """log(Φ(hi) − Φ(lo)) for lo < hi, stable in both tails (the ±.5 integrals of eq. 8, 9)."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    flip = lo > 0  # upper tail: Φ(hi) − Φ(lo) = Φ(−lo) − Φ(−hi)
    a = np.where(flip, -hi, lo)
    b = np.where(flip, -lo, hi)
    la, lb = log_ndtr(a), log_ndtr(b)
    return lb + _log1mexp(la - lb)


def log_binomial(w, t, q: float) -> np.ndarray:
    """log Binom(w; t, q), the misalignment model B of eq. (1), (7), (12)."""
    w = np.asarray(w, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    q = min(max(float(q), Q_EPS), 1.0 - Q_EPS)
    return (gammaln(t + 1.0) - gammaln(w + 1.0) - gammaln(t - w + 1.0)
            + w * math.log(q) + (t - w) * math.log1p(-q))


def log_gmm_interval(r, weights, means, sds) -> np.ndarray:
    """log ∫_{r-.5}^{r+.5} f_ε(x) dx with f_ε the two-component GMM of eq. (3), as in eq. (8)."""
    r = np.asarray(r, dtype=np.float64)
    parts = []
    for lam, mu, sd in zip(weights, means, sds):
        sd = max(float(sd), GMM_SD_FLOOR)
        with np.errstate(divide="ignore"):
            lw = math.log(lam) if lam > 0 else -np.inf
        parts.append(lw + log_normal_interval((r - 0.5 - mu) / sd, (r + 0.5 - mu) / sd))
    return np.logaddexp.reduce(parts)


def log_length_interval(l1, l2, a: float, c: float, sigma: float) -> np.ndarray:
    """log Pr(z ∈ (l2 − a·l1 − c ± .5)/(σ√l1)), the Gale–Church length term of eq. (4), (9)."""
    l1 = np.asarray(l1, dtype=np.float64)
    l2 = np.asarray(l2, dtype=np.float64)
    # DEPARTURE: √l1 is taken as √max(l1, 1) so that an empty page 1 (l1 = 0) does
    # not give a zero variance.
    sd = max(float(sigma), SIGMA_FLOOR) * np.sqrt(np.maximum(l1, 1.0))
    delta = l2 - a * l1 - c
    return log_normal_interval((delta - 0.5) / sd, (delta + 0.5) / sd)


def _wls(x, y, wts, intercept: bool) -> tuple[float, float]:
    """Weighted least squares y ≈ k·x (+ b), closed form (centred, for accuracy).

    Sums of products, not BLAS ``@``: a multi-threaded BLAS dot on a loaded machine
    was measured 8× slower than numpy's own loop for these 1-D vectors.
    """
    sw = float(wts.sum())
    if not sw > 0:
        return 0.0, 0.0
    if not intercept:
        sxx = float((wts * x * x).sum())
        return (float((wts * x * y).sum()) / sxx if sxx > 0 else 0.0), 0.0
    mx, my = float((wts * x).sum()) / sw, float((wts * y).sum()) / sw
    dx = x - mx
    sxx = float((wts * dx * dx).sum())
    k = float((wts * dx * (y - my)).sum()) / sxx if sxx > 0 else 0.0
    return k, my - k * mx


def _predict(beta, x):
    return beta[0] * x + beta[1]


def huber_irls(x, y, *, intercept: bool = True, t: float = HUBER_T,
               max_iter: int = 50, tol: float = 1e-6) -> tuple[float, float]:
    """Huber M-estimate of y ≈ k·x (+ b) by IRLS (Algorithm 1, lines 13, 18, 22).

    As R's ``MASS::rlm`` (which the paper's R script would use): start from least
    squares, weights min(1, t/|r/s|) with s = median|r| / 0.6745 re-estimated at each
    step, stop when the relative change of the residuals is below ``tol``.
    Returns (slope, intercept) (intercept 0.0 when ``intercept=False``).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    beta = _wls(x, y, np.ones_like(x), intercept)
    r = y - _predict(beta, x)
    for _ in range(max_iter):
        absr = np.abs(r)
        scale = np.median(absr) / 0.6745
        if not scale > 0:
            # More than half the residuals are exactly 0: MAD is 0. Fall back to the
            # mean absolute deviation (×√(π/2), consistent for the normal).
            scale = absr.mean() * math.sqrt(math.pi / 2.0)
            if not scale > 0:
                break  # exact fit
        u = absr / scale
        wts = np.where(u <= t, 1.0, t / np.maximum(u, 1e-300))
        beta_new = _wls(x, y, wts, intercept)
        r_new = y - _predict(beta_new, x)
        change = math.sqrt(float(np.sum((r - r_new) ** 2)) / max(1e-20, float(np.sum(r ** 2))))
        beta, r = beta_new, r_new
        if change < tol:
            break
    return float(beta[0]), float(beta[1])


def huber_location(y, *, t: float = HUBER_T, max_iter: int = 50, tol: float = 1e-6) -> float:
    """Huber M-estimate of location (the intercept-only case of :func:`huber_irls`)."""
    y = np.asarray(y, dtype=np.float64)
    if y.size == 0:
        return 0.0
    mu = float(np.median(y))
    for _ in range(max_iter):
        r = y - mu
        scale = np.median(np.abs(r)) / 0.6745
        if not scale > 0:
            scale = np.abs(r).mean() * math.sqrt(math.pi / 2.0)
            if not scale > 0:
                break
        u = np.abs(r) / scale
        wts = np.where(u <= t, 1.0, t / np.maximum(u, 1e-300))
        new = float(np.sum(wts * y) / np.sum(wts))
        if abs(new - mu) <= tol * max(1.0, abs(mu)):
            mu = new
            break
        mu = new
    return mu


def fit_gmm2(x, weights, means, sds, *, max_iter: int = 200, tol: float = 1e-8,
             sd_floor: float = GMM_SD_FLOOR):
    """MLE of the two-component GMM of eq. (3) by EM (Algorithm 1, line 17).

    Warm-started from the given (weights, means, sds). Returns (weights, means,
    sds, n_iter), component 1 being the narrower one (the paper's σ1 < σ2).
    """
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64).copy()
    mu = np.asarray(means, dtype=np.float64).copy()
    sd = np.maximum(np.asarray(sds, dtype=np.float64).copy(), sd_floor)
    if x.size < 2:
        return w, mu, sd, 0
    prev = -np.inf
    it = 0
    n = x.size
    for it in range(1, max_iter + 1):
        w = np.clip(w, 1e-6, None)
        w /= w.sum()
        # log of each weighted component density (eq. 3), two components written out
        z0 = (x - mu[0]) / sd[0]
        z1 = (x - mu[1]) / sd[1]
        c0 = math.log(w[0]) - math.log(sd[0]) - 0.5 * _LOG_2PI - 0.5 * z0 * z0
        c1 = math.log(w[1]) - math.log(sd[1]) - 0.5 * _LOG_2PI - 0.5 * z1 * z1
        hi = np.maximum(c0, c1)
        lse = hi + np.log1p(np.exp(-np.abs(c0 - c1)))
        ll = float(lse.sum())
        r1 = np.exp(c1 - lse)  # responsibility of component 2
        r0 = 1.0 - r1
        nk = np.array([r0.sum(), r1.sum()])
        for j, r in ((0, r0), (1, r1)):
            if nk[j] > 1e-9:
                mu[j] = float((r * x).sum()) / nk[j]
                d = x - mu[j]
                var = float((r * d * d).sum()) / nk[j]
                sd[j] = max(math.sqrt(max(var, 0.0)), sd_floor)
            # an empty component keeps its mean and sd
        w = nk / n
        if abs(ll - prev) <= tol * max(1.0, abs(ll)):
            break
        prev = ll
    w = np.clip(w, 1e-6, None)
    w /= w.sum()
    if sd[0] > sd[1]:
        w, mu, sd = w[::-1].copy(), mu[::-1].copy(), sd[::-1].copy()
    return w, mu, sd, it


def sigma_consistency_factor(l1, *, t: float = HUBER_T, n_sim: int = 20000, seed: int = 0) -> float:
    """κ such that line 22 of Algorithm 1 estimates κ·σ² under eq. (4), at the observed l1.

    DEPARTURE: δ²/(σ²·l1) is χ²₁ under eq. (4), a skewed law, so the Huber regression
    of line 22 (symmetric ρ) does not estimate σ² but κ·σ² with κ ≈ 0.45–0.75 depending
    on the spread of l1 (measured: 0.55 for log-normal page lengths). Like the 0.6745
    of the MAD, κ is a consistency factor: computed here by running the same regression
    on δ = √l1·z (σ = 1) simulated at the observed l1 (fixed seed: deterministic), and
    divided out. ``StructuralEM(sigma_consistency=False)`` gives line 22 literally.
    """
    l1 = np.asarray(l1, dtype=np.float64)
    l1 = l1[l1 > 0]
    if l1.size == 0:
        return 1.0
    # EM's iterations and starts ask again for the same parallel pairs' lengths (WET: 42
    # calls, 31 distinct): each answer is the same simulation, run once.
    return _consistency_factor(l1.tobytes(), t, n_sim, seed)


@lru_cache(maxsize=16)
def _consistency_factor(l1_bytes: bytes, t: float, n_sim: int, seed: int) -> float:
    """:func:`sigma_consistency_factor` of the positive lengths ``l1`` (float64 bytes)."""
    l1 = np.frombuffer(l1_bytes, dtype=np.float64)
    reps = min(max(1, math.ceil(n_sim / l1.size)), 1000)
    design = np.tile(l1, reps)
    z = np.random.default_rng(seed).standard_normal(design.size)
    kappa, _ = huber_irls(design, design * z * z, intercept=False, t=t)
    return kappa if kappa > 0 else 1.0


@dataclass
class EmpiricalPMF:
    """Smoothed empirical pmf p̂_X of a non-negative integer r.v. ([Assylbekov 2015 §3.1] notation).

    DEPARTURE: the paper leaves p̂ unspecified. A raw frequency table gives
    probability 0 to any value not seen (and lengths in characters are almost never
    seen twice), so p̂ here is a Gaussian kernel density on y = log(x + 1) (binned on
    a grid, Silverman bandwidth, floor 0.05 ≈ 5 % relative), mixed with weight η with
    a broad normal on y (mean ȳ, sd max(2·sd_y, 1)); the mass of an integer x is the
    probability of y ∈ [log(x + .5), log(x + 1.5)], so Σ_x p̂(x) = 1 and p̂ > 0 everywhere.
    """

    lo: float
    step: float
    cdf: np.ndarray          # KDE cdf at grid points lo + i·step
    bg_mean: float
    bg_sd: float
    eta: float

    GRID = 512
    ETA = 0.01

    @classmethod
    def fit(cls, values, *, grid: int = GRID, eta: float = ETA) -> "EmpiricalPMF":
        v = np.maximum(np.asarray(values, dtype=np.float64), 0.0)
        if v.size == 0:
            # Nothing seen: the broad component alone (centred on ~100).
            return cls(0.0, 1.0, np.array([0.0, 1.0]), math.log(101.0), 3.0, 1.0)
        y = np.log1p(v)
        sd = float(y.std())
        iqr = float(np.subtract(*np.percentile(y, [75, 25]))) / 1.34
        spread = min(sd, iqr) if iqr > 0 else sd
        h = max(0.9 * spread * y.size ** -0.2, 0.05)
        lo = math.log(float(v.min()) + 0.5) - 5 * h
        hi = math.log(float(v.max()) + 1.5) + 5 * h
        step = (hi - lo) / grid
        counts, _ = np.histogram(y, bins=grid, range=(lo, hi))
        dens = gaussian_filter1d(counts.astype(np.float64), h / step, mode="constant", truncate=5.0)
        dens = np.maximum(dens, 0.0)
        cdf = np.concatenate([[0.0], np.cumsum(dens)])
        cdf /= cdf[-1]
        return cls(lo, step, cdf, float(y.mean()), max(2.0 * sd, 1.0), float(eta))

    def logpmf(self, values) -> np.ndarray:
        v = np.maximum(np.asarray(values, dtype=np.float64), 0.0)
        ylo, yhi = np.log(v + 0.5), np.log(v + 1.5)
        grid = self.lo + self.step * np.arange(self.cdf.size)
        with np.errstate(divide="ignore"):
            kde = np.log(np.maximum(np.interp(yhi, grid, self.cdf, left=0.0, right=1.0)
                                    - np.interp(ylo, grid, self.cdf, left=0.0, right=1.0), 0.0))
            bg = log_normal_interval((ylo - self.bg_mean) / self.bg_sd,
                                     (yhi - self.bg_mean) / self.bg_sd)
            log_eta = math.log(self.eta) if self.eta > 0 else -np.inf
            log_1eta = math.log1p(-self.eta) if self.eta < 1 else -np.inf
        return np.logaddexp(log_1eta + kde, log_eta + bg)

    def to_dict(self) -> dict:
        return {"lo": self.lo, "step": self.step, "cdf": [round(float(c), 12) for c in self.cdf],
                "bg_mean": self.bg_mean, "bg_sd": self.bg_sd, "eta": self.eta}

    @classmethod
    def from_dict(cls, d: dict) -> "EmpiricalPMF":
        return cls(float(d["lo"]), float(d["step"]), np.asarray(d["cdf"], dtype=np.float64),
                   float(d["bg_mean"]), float(d["bg_sd"]), float(d["eta"]))
