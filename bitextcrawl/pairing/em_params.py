"""The structural model's parameters [Assylbekov 2015 §3, Algorithm 1]: their initial
values (line 1), their names, and the fitted model as data (:class:`FittedModel`, the base
of :class:`~bitextcrawl.pairing.structural_em.StructuralEM`: to and from JSON, its report
for stats.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bitextcrawl.pairing.em_stats import EmpiricalPMF

if TYPE_CHECKING:  # (the model whose base class this module holds)
    from bitextcrawl.pairing.structural_em import StructuralEM

#: Algorithm 1, line 1.
PAPER_INITIAL = {
    "q_par": 0.2, "q_npar": 0.5, "k": 1.0, "b": 0.0,
    "gmm_weight": 0.5, "gmm_mean1": 0.0, "gmm_mean2": 0.0, "gmm_sd1": 1.0, "gmm_sd2": 10.0,
    "a": 1.0, "c": 0.0, "sigma": math.sqrt(6.8), "p_par": 2.0 / 3.0,
}

# The hyper-parameters (the constructor's), the fitted parameters and what a run leaves.
_HYPER = ("max_iter", "tol", "min_pairs", "huber_t", "gmm_max_iter", "gmm_tol",
          "sigma_consistency", "init", "strand_threshold", "init_fractions") + tuple(PAPER_INITIAL)
INITS = ("paper", "data", "best")
_PARAM_ATTRS = ("q_par_", "q_npar_", "k_", "b_", "gmm_weights_", "gmm_means_", "gmm_sds_",
                "a_", "c_", "sigma_", "p_par_")
_RUN_ATTRS = ("labels_", "n_iter_", "converged_", "log_likelihood_history_", "warnings_")
_FITTED_SCALARS = ("q_par_", "q_npar_", "k_", "b_", "a_", "c_", "sigma_", "p_par_",
                   "n_iter_", "converged_", "n_samples_", "n_parallel_", "fallback_")


class FittedModel:
    """A structural model's fitted parameters as data."""

    # ----------------------------------------------------------------- persistence

    def to_dict(self) -> dict:
        d = {"model": "bitextcrawl.structural_em", "version": 1, "params": self.get_params()}
        if hasattr(self, "q_par_"):
            f = {name: getattr(self, name) for name in _FITTED_SCALARS}
            f.update({
                "gmm_weights_": self.gmm_weights_.tolist(), "gmm_means_": self.gmm_means_.tolist(),
                "gmm_sds_": self.gmm_sds_.tolist(),
                "log_likelihood_history_": list(self.log_likelihood_history_),
                "warnings_": list(self.warnings_),
                "init_": getattr(self, "init_", "paper"),
                "degenerate_": list(getattr(self, "degenerate_", [])),
                "starts_": list(getattr(self, "starts_", [])),
                "pmf_m_": self.pmf_m_.to_dict(), "pmf_n_": self.pmf_n_.to_dict(),
                "pmf_l1_": self.pmf_l1_.to_dict(), "pmf_l2_": self.pmf_l2_.to_dict(),
            })
            d["fitted"] = f
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "StructuralEM":
        params = {k: v for k, v in d.get("params", {}).items() if k in _HYPER}
        if isinstance(params.get("init_fractions"), list):  # JSON has no tuples
            params["init_fractions"] = tuple(params["init_fractions"])
        model = cls(**params)
        f = d.get("fitted")
        if f:
            for name in _FITTED_SCALARS:
                setattr(model, name, f[name])
            for name in ("gmm_weights_", "gmm_means_", "gmm_sds_"):
                setattr(model, name, np.asarray(f[name], dtype=np.float64))
            model.log_likelihood_history_ = list(f.get("log_likelihood_history_", []))
            model.warnings_ = list(f.get("warnings_", []))
            model.init_ = f.get("init_", "paper")
            model.degenerate_ = list(f.get("degenerate_", []))
            model.starts_ = list(f.get("starts_", []))
            for name in ("pmf_m_", "pmf_n_", "pmf_l1_", "pmf_l2_"):
                setattr(model, name, EmpiricalPMF.from_dict(f[name]))
        return model

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path) -> "StructuralEM":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def report(self) -> dict:
        """A JSON-safe summary of the fit, for stats.json."""
        self._check_fitted()

        def num(x):
            x = float(x)
            return round(x, 6) if math.isfinite(x) else None

        hist = self.log_likelihood_history_
        return {
            "n_pairs": int(self.n_samples_),
            "n_parallel": int(self.n_parallel_),
            "n_iter": int(self.n_iter_),
            "converged": bool(self.converged_),
            "fallback": self.fallback_,
            "warnings": list(self.warnings_),
            # which EM start was kept, and whether the kept fit is degenerate (one class,
            # swapped classes q∥ ≥ q∦, σ at its floor): 1/0 so stats can sum it
            "init": getattr(self, "init_", "paper"),
            "degenerate": int(bool(getattr(self, "degenerate_", []))),
            "degenerate_reasons": list(getattr(self, "degenerate_", [])),
            "n_starts": len(getattr(self, "starts_", [])) or 1,
            "n_degenerate_starts": sum(1 for r in getattr(self, "starts_", []) if r["degenerate"]),
            "starts": [{"init": r["init"], "log_likelihood": num(r["log_likelihood"]),
                        "n_parallel": int(r["n_parallel"]), "degenerate": list(r["degenerate"])}
                       for r in getattr(self, "starts_", [])],
            "log_likelihood": num(hist[-1]) if hist else None,
            "q_par": num(self.q_par_), "q_npar": num(self.q_npar_),
            "k": num(self.k_), "b": num(self.b_),
            "gmm_weights": [num(v) for v in self.gmm_weights_],
            "gmm_means": [num(v) for v in self.gmm_means_],
            "gmm_sds": [num(v) for v in self.gmm_sds_],
            # the same, in the shape report/html.py draws (ε's mixture, eq. 3)
            "gmm": {"weights": [num(v) for v in self.gmm_weights_],
                    "means": [num(v) for v in self.gmm_means_],
                    "sds": [num(v) for v in self.gmm_sds_]},
            "a": num(self.a_), "c": num(self.c_), "sigma": num(self.sigma_),
            "p_par": num(self.p_par_),
        }
