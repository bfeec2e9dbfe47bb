"""The pattern database shared by all runs ([Zhang 2013 §2.1]: global credibility C(p)): per
pattern, the sites that used it with their N(p,w) and C(p,w), kept in a JSON file.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.pairing.url_tokens import _MAX_CONTEXTS, TOKEN, Pattern

# ----------------------------------------------------------------------------- pattern DB


class PatternDB:
    """Per-site N(p,w), C(p,w), |w| of every pattern across runs; C(p) of [Zhang 2013 §2.1].

    JSON file (``None`` = in memory), written atomically (temporary file + ``os.replace``).
    Re-crawling a site replaces its entry, so it is never counted twice. Not safe for two
    processes writing the same file at once (the last ``save`` wins).
    """

    VERSION = 1

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else None
        self._sites: dict[str, dict] = {}
        self._global: dict[str, float] = defaultdict(float)
        if self.path is not None and self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                sites = data["sites"]
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"pattern database {self.path} is not readable: {exc}") from exc
            for site, entry in sites.items():
                self._sites[site] = entry
                self._add(entry, +1)

    def _add(self, entry: dict, sign: int) -> None:
        for pid, rec in entry["patterns"].items():
            self._global[pid] += sign * rec["c"] * rec["n"]

    def update(self, site: str, patterns: Iterable, site_size: int | None = None,
               min_pairs: int = 2) -> None:
        """Record N(p,w), C(p,w) and |w| of ``site`` (replacing its previous entry).

        ``patterns``: :class:`Pattern` objects (e.g. ``learner.patterns_``) or the dicts of
        :meth:`UrlPatternLearner.report`. Credible patterns are always kept; weak ones only with
        at least ``min_pairs`` pairs (one-pair accidents would bloat the file for a C(p)
        contribution below 4/|w|). ``site_size`` defaults to N/C of a recorded pattern.
        """
        recs = {}
        size = site_size
        for p in patterns:
            d = p if isinstance(p, dict) else _pattern_dict(p)
            n = int(d["support"])
            if n <= 0 or (not d.get("credible") and n < 2 * min_pairs):
                continue
            c = float(d["local_credibility"])
            if size is None and c > 0:
                size = round(n / c)
            recs[d["id"]] = {"kind": d["kind"], "lang1": d["lang1"], "token1": d["lang1_token"],
                             "lang2": d["lang2"], "token2": d["lang2_token"], "n": n, "c": c,
                             "contexts": [list(x) for x in d.get("contexts", [])][:_MAX_CONTEXTS]}
        old = self._sites.pop(site, None)
        if old is not None:
            self._add(old, -1)
        entry = {"size": int(size or 0), "patterns": recs}
        self._sites[site] = entry
        self._add(entry, +1)

    def entry(self, site: str) -> dict | None:
        """The recorded entry of ``site`` (``{"size": |w|, "patterns": {...}}``), or None."""
        return self._sites.get(site)

    def set_entry(self, site: str, entry: dict) -> None:
        """Record ``site`` with an entry read from another database (:meth:`entry`),
        replacing its previous one."""
        old = self._sites.pop(site, None)
        if old is not None:
            self._add(old, -1)
        self._sites[site] = entry
        self._add(entry, +1)

    def global_credibility(self, pattern_id: str) -> float:
        """C(p) = Σ_w C(p,w)·N(p,w) over all recorded sites [Zhang 2013 §2.1]."""
        return max(0.0, self._global.get(pattern_id, 0.0))

    def site_credibility(self, site: str) -> float:
        """C(w) = max_p C(p,w) [Zhang 2013 §2.1], 0 for an unknown site."""
        entry = self._sites.get(site)
        if not entry or not entry["patterns"]:
            return 0.0
        return max(rec["c"] for rec in entry["patterns"].values())

    def sites(self) -> list[str]:
        return list(self._sites)

    def kinds(self) -> dict[str, str]:
        """Pattern id -> its kind (``token``, ``one_sided``, ``glued``, ...) over all sites."""
        return {pid: rec["kind"] for entry in self._sites.values()
                for pid, rec in entry["patterns"].items()}

    def site_size(self, site: str) -> int:
        entry = self._sites.get(site)
        return entry["size"] if entry else 0

    def strong_patterns(self, min_global: float) -> list[dict]:
        """Token patterns with C(p) > ``min_global``: id, langs, tokens, C(p), contexts seen."""
        found: dict[str, dict] = {}
        for entry in self._sites.values():
            for pid, rec in entry["patterns"].items():
                if rec["kind"] != TOKEN or self.global_credibility(pid) <= min_global:
                    continue
                d = found.setdefault(pid, {"id": pid, "kind": rec["kind"], "lang1": rec["lang1"],
                                           "token1": rec["token1"], "lang2": rec["lang2"],
                                           "token2": rec["token2"], "contexts": Counter(),
                                           "global_credibility": self.global_credibility(pid)})
                d["contexts"].update(tuple(c) for c in rec.get("contexts", []))
        out = []
        for d in found.values():
            d["contexts"] = [c for c, _ in d["contexts"].most_common(_MAX_CONTEXTS)]
            out.append(d)
        return sorted(out, key=lambda d: (-d["global_credibility"], d["id"]))

    def save(self) -> None:
        """Write the file atomically (same-directory temporary file, fsync, os.replace)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": self.VERSION, "sites": self._sites}
        with atomic_open(self.path) as fh:
            json.dump(data, fh, ensure_ascii=False, sort_keys=True)


def _pattern_dict(p: Pattern) -> dict:
    return {"id": p.id, "kind": p.kind, "lang1": p.lang1, "lang1_token": p.lang1_token,
            "lang2": p.lang2, "lang2_token": p.lang2_token, "support": p.support,
            "pairs": p.pairs, "candidates": p.candidates,
            "local_credibility": p.local_credibility, "global_credibility": p.global_credibility,
            "credible": p.credible, "rescued": p.rescued, "rescued_by": p.rescued_by,
            "examples": [list(e) for e in p.examples],
            "contexts": [list(c) for c, _ in p.contexts.most_common(_MAX_CONTEXTS)]}
