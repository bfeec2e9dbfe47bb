"""The structural model and its EM [Assylbekov 2015 §3, Algorithm 1]."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from bitextcrawl.pairing.structural_em import (
    PAPER_INITIAL,
    EmpiricalPMF,
    StructuralEM,
    fit_gmm2,
    huber_irls,
    log_gmm_interval,
    log_length_interval,
    log_normal_interval,
    sigma_consistency_factor,
)

TRUE = dict(q_par=0.15, q_npar=0.3, k=1.1, b=-3.0, lam=0.7, mu=(0.0, 0.0), sds=(2.0, 9.0),
            a=1.15, c=20.0, sigma=2.6, p=0.6)


def simulate(s=4000, seed=0, q_par=0.15, q_npar=0.3, k=1.1, b=-3.0, lam=0.7, mu=(0.0, 0.0),
             sds=(2.0, 9.0), a=1.15, c=20.0, sigma=2.6, p=0.6):
    """Draw (w, m, n, l1, l2) from the model itself: eq. (1), (2)–(3), (4), and A∦."""
    rng = np.random.default_rng(seed)
    par = rng.random(s) < p
    m = rng.integers(30, 400, s)
    l1 = np.rint(np.exp(rng.normal(7.0, 0.8, s)))
    comp = rng.random(s) < lam
    eps = np.where(comp, rng.normal(mu[0], sds[0], s), rng.normal(mu[1], sds[1], s))
    n = np.where(par, np.maximum(np.rint(k * m + b + eps), 1), rng.integers(30, 400, s))
    l2_par = np.maximum(np.rint(a * l1 + c + sigma * np.sqrt(l1) * rng.standard_normal(s)), 0)
    l2 = np.where(par, l2_par, np.rint(np.exp(rng.normal(7.1, 0.8, s))))
    w = rng.binomial((m + n).astype(np.int64), np.where(par, q_par, q_npar))
    return np.column_stack([w, m, n, l1, l2]).astype(np.float64), par


@pytest.fixture(scope="module")
def fitted():
    X, par = simulate()
    return StructuralEM().fit(X), X, par


def test_defaults_are_the_papers_initial_values():
    em = StructuralEM()
    assert em.q_par == 0.2 and em.q_npar == 0.5 and em.k == 1 and em.b == 0
    assert em.gmm_weight == 0.5 and em.gmm_mean1 == em.gmm_mean2 == 0
    assert em.gmm_sd1 == 1 and em.gmm_sd2 == 10
    assert em.a == 1 and em.c == 0 and em.sigma == pytest.approx(math.sqrt(6.8))
    assert em.p_par == pytest.approx(2 / 3)
    assert PAPER_INITIAL["sigma"] == pytest.approx(math.sqrt(6.8))


def test_recovers_parameters_from_simulated_data(fitted):
    em, X, par = fitted
    assert em.converged_
    assert em.q_par_ == pytest.approx(TRUE["q_par"], abs=0.01)
    assert em.q_npar_ == pytest.approx(TRUE["q_npar"], abs=0.01)
    assert em.k_ == pytest.approx(TRUE["k"], abs=0.02)
    assert em.b_ == pytest.approx(TRUE["b"], abs=1.0)
    assert em.a_ == pytest.approx(TRUE["a"], abs=0.02)
    assert em.c_ == pytest.approx(TRUE["c"], abs=12.0)
    assert em.sigma_ == pytest.approx(TRUE["sigma"], rel=0.12)
    assert em.p_par_ == pytest.approx(par.mean(), abs=0.02)
    assert em.gmm_weights_[0] == pytest.approx(TRUE["lam"], abs=0.08)
    assert em.gmm_sds_[0] == pytest.approx(TRUE["sds"][0], abs=0.4)
    assert em.gmm_sds_[1] == pytest.approx(TRUE["sds"][1], abs=2.0)
    assert np.all(np.abs(em.gmm_means_) < 1.0)
    assert (em.predict(X) == par).mean() > 0.99


def test_length_and_mn_terms_classify_when_w_does_not():
    # q∥ = q∦: W carries no information, so C (eq. 8, 13) and D (eq. 9, 14) must do it.
    X, par = simulate(seed=2, q_par=0.3, q_npar=0.3)
    em = StructuralEM().fit(X)
    assert (em.predict(X) == par).mean() > 0.97
    assert em.k_ == pytest.approx(1.1, abs=0.03) and em.a_ == pytest.approx(1.15, abs=0.03)


def test_literal_line_22_underestimates_sigma():
    X, _ = simulate(seed=3)
    literal = StructuralEM(sigma_consistency=False).fit(X)
    corrected = StructuralEM().fit(X)
    assert literal.sigma_ < 0.85 * TRUE["sigma"]
    assert corrected.sigma_ == pytest.approx(TRUE["sigma"], rel=0.12)
    l1 = np.exp(np.random.default_rng(0).normal(7, 0.8, 3000))
    assert 0.4 < sigma_consistency_factor(l1) < 0.7


def test_sigma_consistency_factor_is_simulated_once_per_lengths():
    """EM asks again for the same lengths: the simulation runs once, with the same κ as
    the regression run afresh (the zero lengths left out either way)."""
    from bitextcrawl.pairing import em_stats

    l1 = np.exp(np.random.default_rng(5).normal(6, 0.7, 700))
    design = np.tile(l1, 29)
    z = np.random.default_rng(0).standard_normal(design.size)
    fresh, _ = em_stats.huber_irls(design, design * z * z, intercept=False)
    em_stats._consistency_factor.cache_clear()
    assert sigma_consistency_factor(np.concatenate([l1, [0.0]])) == fresh
    assert sigma_consistency_factor(l1.copy()) == fresh
    info = em_stats._consistency_factor.cache_info()
    assert (info.misses, info.hits) == (1, 1)


# ------------------------------------------------------------- decision rule (17)

def _manual_log_ratio(em, x):
    """log A∥ − log A∦ of eq. (10)/(15) written out with scipy.stats (p̂_M, p̂_L1 cancel)."""
    w, m, n, l1, l2 = x
    b = stats.binom.logpmf(w, m + n, em.q_par_) - stats.binom.logpmf(w, m + n, em.q_npar_)
    def mass(x, mu, sd):  # Pr(x − .5 < X < x + .5), X ~ N(mu, sd²), by the upper tail
        return stats.norm.sf(x - .5, mu, sd) - stats.norm.sf(x + .5, mu, sd)

    r = n - em.k_ * m - em.b_
    gmm = sum(lam * mass(r, mu, sd)
              for lam, mu, sd in zip(em.gmm_weights_, em.gmm_means_, em.gmm_sds_))
    d = l2 - em.a_ * l1 - em.c_
    gc = mass(d, 0.0, em.sigma_ * math.sqrt(l1))
    return (b + math.log(gmm) + math.log(gc)
            - em.pmf_n_.logpmf([n])[0] - em.pmf_l2_.logpmf([l2])[0])


def test_decision_rule_17_on_hand_made_cases(fitted):
    em = StructuralEM.from_dict(fitted[0].to_dict())
    # Set round parameters by hand; the p̂ stay those of the fit.
    em.q_par_, em.q_npar_, em.k_, em.b_ = 0.1, 0.4, 1.0, 0.0
    em.gmm_weights_, em.gmm_means_, em.gmm_sds_ = np.array([.7, .3]), np.zeros(2), np.array([2., 9.])
    em.a_, em.c_, em.sigma_, em.p_par_ = 1.1, 0.0, 2.5, 0.5
    cases = {
        (10, 100, 101, 1000, 1100): 1,   # few misalignments, n ≈ km+b, l2 ≈ a·l1
        (80, 100, 101, 1000, 1100): 0,   # W/(M+N) = 0.4 = q∦
        (10, 100, 250, 1000, 1100): 0,   # n far from km + b
        (10, 100, 101, 1000, 3000): 0,   # l2 far from a·l1 + c
    }
    X = np.array(list(cases), dtype=float)
    llr = em.log_likelihood_ratio(X)
    for x, got in zip(cases, llr):
        assert got == pytest.approx(_manual_log_ratio(em, x), rel=1e-6, abs=1e-6)
    assert list(em.predict(X)) == list(cases.values())
    # (17) with the prior: parallel iff A∥·p∥ > A∦·(1 − p∥).
    for p in (0.01, 0.5, 0.99):
        em.p_par_ = p
        expect = (llr + math.log(p) > math.log(1 - p)).astype(int)
        assert np.array_equal(em.predict(X), expect)
        assert np.allclose(em.predict_proba(X), 1 / (1 + np.exp(-(llr + math.log(p / (1 - p))))))


def test_prior_flips_a_borderline_case(fitted):
    em = StructuralEM.from_dict(fitted[0].to_dict())
    X, _ = simulate(s=500, seed=9)
    llr = em.log_likelihood_ratio(X)
    x = X[[np.argmin(np.abs(llr))]]
    l = em.log_likelihood_ratio(x)[0]
    # (17) flips where A∥·p = A∦·(1 − p), i.e. at p* = A∦ / (A∥ + A∦).
    p_star = 1 / (1 + math.exp(l))
    em.p_par_ = min(p_star * 1.01, 0.9999)
    assert em.predict(x)[0] == 1
    em.p_par_ = p_star * 0.99
    assert em.predict(x)[0] == 0


# --------------------------------------------------------------- degenerate input

@pytest.mark.parametrize("s", [0, 1, 3])
def test_tiny_inputs_are_finite(s):
    X, _ = simulate(s=s, seed=4)
    em = StructuralEM().fit(X)
    assert em.fallback_ == ("no_pairs" if s == 0 else "too_few_pairs")
    assert em.n_iter_ == 0
    assert em.q_par_ == 0.2 and em.p_par_ == pytest.approx(2 / 3)
    for out in (em.predict_proba(X), em.log_likelihood_ratio(X), em.decision_function(X)):
        assert out.shape == (s,) and np.all(np.isfinite(out))
    json.dumps(em.report(), allow_nan=False)
    # A model fitted on nothing still scores new pairs with finite numbers.
    Y, _ = simulate(s=20, seed=5)
    assert np.all(np.isfinite(em.log_likelihood_ratio(Y)))


@pytest.mark.parametrize("row", [(0, 100, 100, 1000, 1000), (10, 100, 100, 1000, 1000),
                                 (0, 0, 0, 0, 0)])
def test_all_identical_pairs(row):
    X = np.tile(np.array(row, dtype=float), (50, 1))
    em = StructuralEM().fit(X)
    out = em.predict_proba(X)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(em.log_likelihood_ratio(X)))
    assert np.all(np.isfinite(em.log_likelihood_history_))
    rep = em.report()
    json.dumps(rep, allow_nan=False)
    assert all(v is not None for k, v in rep.items() if k in ("q_par", "k", "a", "sigma", "p_par"))
    assert em.converged_


def test_all_parallel_and_none_parallel():
    X, par = simulate(s=800, seed=6, p=1.0)
    em = StructuralEM().fit(X)
    assert em.predict(X).mean() > 0.99 and 0 < em.p_par_ < 1
    assert any("no non-parallel" in w for w in em.warnings_)
    X, par = simulate(s=800, seed=7, p=0.0)
    em = StructuralEM().fit(X)
    assert em.predict(X).mean() < 0.02
    assert np.all(np.isfinite(em.decision_function(X)))


def test_iteration_cap_and_history():
    X, _ = simulate(s=1000, seed=8, q_par=0.3, q_npar=0.3)
    em = StructuralEM(max_iter=1).fit(X)
    assert em.n_iter_ == 1 and len(em.log_likelihood_history_) == 1
    assert not em.converged_ and any("max_iter" in w for w in em.warnings_)
    assert np.all(np.isfinite(em.predict_proba(X)))


def test_bad_input_rejected():
    with pytest.raises(ValueError):
        StructuralEM().fit(np.ones((4, 3)))
    with pytest.raises(ValueError):
        StructuralEM().fit(np.full((10, 5), np.nan))
    with pytest.raises(RuntimeError):
        StructuralEM().predict(np.ones((2, 5)))


# ------------------------------------------------------------------ persistence

def test_save_load_roundtrip(tmp_path, fitted):
    em, X, _ = fitted
    path = tmp_path / "model.json"
    em.save(path)
    back = StructuralEM.load(path)
    assert np.allclose(back.log_likelihood_ratio(X), em.log_likelihood_ratio(X), rtol=1e-9, atol=1e-6)
    assert np.array_equal(back.predict(X), em.predict(X))
    assert back.report() == em.report()
    assert back.get_params() == em.get_params()
    rep = em.report()
    for key in ("q_par", "q_npar", "k", "b", "gmm_weights", "gmm_means", "gmm_sds", "a", "c",
                "sigma", "p_par", "n_iter", "converged"):
        assert key in rep
    json.dumps(rep, allow_nan=False)


# ---------------------------------------------------------------------- helpers

def test_empirical_pmf_is_a_pmf_and_never_zero():
    values = np.random.default_rng(0).integers(50, 300, 2000)
    pmf = EmpiricalPMF.fit(values)
    grid = np.arange(0, 5000)
    total = np.exp(pmf.logpmf(grid)).sum()
    assert total == pytest.approx(1.0, abs=0.02)
    assert np.all(np.isfinite(pmf.logpmf([0, 10**7, 10**12])))
    assert pmf.logpmf([150])[0] > pmf.logpmf([2000])[0]
    assert np.all(np.isfinite(EmpiricalPMF.fit([]).logpmf([0, 5, 10**6])))
    same = EmpiricalPMF.fit([7] * 40)
    assert 0.5 < math.exp(same.logpmf([7])[0]) <= 1.0


def test_log_normal_interval_is_stable():
    lo = np.array([-0.5, 40.0, -1e4, 5.0])
    got = log_normal_interval(lo, lo + 1.0)
    ref = np.log(stats.norm.cdf(lo[:1] + 1) - stats.norm.cdf(lo[:1]))
    assert got[0] == pytest.approx(ref[0])
    assert np.all(np.isfinite(got)) and got[1] < -800
    assert got[3] == pytest.approx(math.log(stats.norm.sf(5.0) - stats.norm.sf(6.0)))
    assert np.isfinite(log_gmm_interval([1e6], [0.5, 0.5], [0, 0], [1, 10])[0])
    assert np.isfinite(log_length_interval([0], [1e6], 1.0, 0.0, 2.6)[0])


def test_huber_irls_resists_outliers():
    rng = np.random.default_rng(0)
    x = rng.uniform(10, 300, 500)
    y = 1.2 * x + 5 + rng.normal(0, 2, 500)
    y[:50] += 400  # 10 % gross outliers
    k, b = huber_irls(x, y)
    assert k == pytest.approx(1.2, abs=0.05) and b == pytest.approx(5, abs=8)
    slope, icpt = huber_irls(x, 3 * x + rng.normal(0, 1, 500), intercept=False)
    assert slope == pytest.approx(3, abs=0.01) and icpt == 0.0


def test_fit_gmm2_recovers_a_mixture():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0, 1.5, 3000), rng.normal(1, 10, 1500)])
    w, mu, sd, _ = fit_gmm2(x, [0.5, 0.5], [0, 0], [1, 10])
    assert w[0] == pytest.approx(2 / 3, abs=0.05)
    assert sd[0] == pytest.approx(1.5, abs=0.2) and sd[1] == pytest.approx(10, abs=1.0)
    w, mu, sd, _ = fit_gmm2(np.zeros(30), [0.5, 0.5], [0, 0], [1, 10])
    assert np.all(np.isfinite(sd)) and np.all(sd > 0)


# ------------------------------------------------------------- starts (init="best")

def template_site(s=2000, seed=0, p=0.15, q_par=0.03, q_npar=0.15):
    """Candidates of a one-template site: look-alikes have n ≈ m and a small w too."""
    rng = np.random.default_rng(seed)
    par = rng.random(s) < p
    m = rng.integers(60, 300, s)
    n = np.maximum(np.rint(m + rng.normal(0, np.where(par, 2.0, 12.0))), 1)
    l1 = np.rint(np.exp(rng.normal(7.0, 0.6, s)))
    l2 = np.where(par, np.rint(1.1 * l1 + 2.6 * np.sqrt(l1) * rng.standard_normal(s)),
                  np.rint(l1 * np.exp(rng.normal(0.1, 0.5, s))))
    w = rng.binomial((m + n).astype(np.int64), np.where(par, q_par, q_npar))
    return np.column_stack([w, m, n, l1, np.maximum(l2, 0)]).astype(np.float64), par


def test_data_starts_leave_the_papers_basin_on_a_one_template_site():
    X, par = template_site()
    stuck = StructuralEM().fit(X)
    best = StructuralEM(init="best").fit(X)
    # From the paper's start nearly everything stays "parallel" (w/(m+n) ≪ q∦ = 0.5).
    assert stuck.n_parallel_ > 3 * par.sum()
    assert np.mean(best.labels_ == par) > 0.95 > np.mean(stuck.labels_ == par)
    rep = best.report()
    assert rep["init"] != "paper" and rep["n_starts"] == 4
    lls = [r["log_likelihood"] for r in rep["starts"]]
    assert rep["log_likelihood"] == pytest.approx(max(lls))
    assert best.log_likelihood_history_[-1] > stuck.log_likelihood_history_[-1]


def test_data_init_skips_one_class_splits_and_checks_its_name():
    X, _ = template_site(s=300)
    X[:, 0] = 0  # every ratio is 0 ≤ 0.2: the STRAND split is one class
    em = StructuralEM(init="data").fit(X)
    assert "strand" not in [r["init"] for r in em.starts_]
    with pytest.raises(ValueError):
        StructuralEM(init="nope").fit(X)


def test_degenerate_fit_is_counted_in_report():
    X, _ = template_site(s=300)
    em = StructuralEM().fit(X)
    rep = em.report()
    assert rep["degenerate"] in (0, 1) and rep["degenerate"] == int(bool(rep["degenerate_reasons"]))
    # All pairs identical: whatever the start, one class gets everything.
    same = np.tile([[4.0, 50.0, 50.0, 500.0, 520.0]], (40, 1))
    rep = StructuralEM(init="best").fit(same).report()
    assert rep["degenerate"] == 1 and "one_class" in rep["degenerate_reasons"]
    assert rep["n_degenerate_starts"] == rep["n_starts"]


def test_best_init_roundtrips(tmp_path):
    X, _ = template_site(s=400)
    em = StructuralEM(init="best").fit(X)
    em.save(tmp_path / "m.json")
    back = StructuralEM.load(tmp_path / "m.json")
    assert back.report() == em.report() and back.get_params() == em.get_params()
