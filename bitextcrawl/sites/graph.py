"""Site graph and incremental bilingual website exploration [Zhang 2013 §2.3].

The graph has one node per site (``scheme://registered-domain``) and one edge per pair of
sites with links between them; an edge's ``weight`` is the number of links.

Definitions, as §2.3 gives them (N seed sites, believed bilingual):

* ``Linkout(w)``: the number of outgoing links of seed site ``w``. §2.3 computes Linkout and
  PageRank "only in terms of the relationship of bilingual websites in the seed set", so by
  default only links from ``w`` to other seed sites count (``linkout_scope="seeds"``);
  ``linkout_scope="all"`` counts every cross-site link ``w`` has.
* ``PageRank(w) = r/N + (1 - r) · Σ_{v ∈ M(w)} PageRank(v) / Linkout(v)``, over the seed
  set, with ``M(w)`` the seed sites linking to ``w``, ``r = 0.15``, initial value 1. Each of
  the n(v, w) links from v to w carries ``PageRank(v) / Linkout(v)``.

  **r is the teleport probability**, not what networkx calls damping: ``r/N`` is the
  random-jump term and ``1 - r`` multiplies the link term. networkx's ``alpha`` is the
  probability of following a link, so ``alpha = 1 - r = 0.85``. networkx returns the
  solution normalised to sum 1 and spreads the rank of seeds without links to other seeds
  evenly; that vector is a constant multiple of the paper's fixed point (both solve
  ``x = (1-r)·Wᵀx + c·1``, which is linear in c), so :meth:`SiteGraph.pagerank` rescales it
  to the paper's values exactly. With no such dangling seeds the two coincide (sum 1).
  The paper's starting value of 1 does not change the fixed point.
* ``WeightedPageRank(w) = PageRank(w) · C(w)``, with the site credibility
  ``C(w) = max_p C(p, w)`` (§2.1) given from outside.
* For an outside site s: ``R(s)`` = the seed sites with links to s, and
  ``ΣLinkout(s) = Σ_{w ∈ R(s)} Linkout(w)``, ``ΣPageRank(s) = Σ_{w ∈ R(s)} PageRank(w)``,
  ``ΣWeightedPageRank(s) = Σ_{w ∈ R(s)} WeightedPageRank(w)``.

  ``links_in`` (the number of links from seeds into s) is reported too; it is *not* the
  paper's ΣLinkout, but it can rank (``criterion="links_in"``).

Beyond the paper, ``criterion="link_evidence"`` ranks by
``ΣLinkEvidence(s) = E(s) + Σ_{w ∈ R(s)} WPR(w) · g(n(w, s)) / Σ_{w ∈ set} WPR(w)``, where
E(s) ∈ {0, 1, 2} is what the set's links into s show about s being bilingual and g the
diminishing returns of many source pages of one seed (:mod:`bitextcrawl.sites.evidence`).
Where the links show nothing (E = 0) the paper's ΣWeightedPageRank, damped per seed, is
what is left. With every C(w) = 0 (no credible pattern anywhere), PageRank stands in for
WPR in the fraction, so that the ranking still follows the links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from bitextcrawl.sites.evidence import evidence_level

if TYPE_CHECKING:
    import networkx as nx

DEFAULT_R = 0.15  # §2.3: "r ∈ [0, 1] a damping factor empirically set to 0.15"
CRITERIA = {
    "linkout": "sum_linkout",
    "sum_linkout": "sum_linkout",
    "pagerank": "sum_pagerank",
    "sum_pagerank": "sum_pagerank",
    "weighted_pagerank": "sum_weighted_pagerank",
    "sum_weighted_pagerank": "sum_weighted_pagerank",
    "links_in": "links_in",
    "link_evidence": "sum_link_evidence",
    "sum_link_evidence": "sum_link_evidence",
}
#: The criteria a user picks (``-a criterion=``, ``--criterion``).
CRITERION_NAMES = ("link_evidence", "weighted_pagerank", "pagerank", "linkout")
# Tie-break order after the chosen criterion; the site name settles the rest.
# (The paper's criteria keep their own ties: the link evidence comes last for them.)
_TIE_ORDER = ("sum_weighted_pagerank", "sum_pagerank", "links_in", "sum_linkout",
              "sum_link_evidence")
_PRECISION = 12  # digits compared when ordering float sums (no ties decided by noise)


def _key(value: float) -> float:
    return round(float(value), _PRECISION)


class SiteGraph:
    """Directed, weighted graph of links between sites (weight = number of links)."""

    def __init__(self, graph: nx.DiGraph | None = None):
        if graph is None:
            import networkx as nx  # (here: every ``scrapy`` command imports this module)

            graph = nx.DiGraph()
        self.graph = graph

    # ------------------------------------------------------------------ building
    def add_site(self, site: str) -> None:
        self.graph.add_node(site)

    def add_links(self, source_site: str, target_site: str, count: int = 1) -> None:
        """Count ``count`` links from one site to another; links inside a site are ignored."""
        self.graph.add_node(source_site)
        if source_site == target_site or count <= 0:
            return
        self.graph.add_node(target_site)
        if self.graph.has_edge(source_site, target_site):
            self.graph[source_site][target_site]["weight"] += int(count)
        else:
            self.graph.add_edge(source_site, target_site, weight=int(count))

    # ------------------------------------------------------------------ quantities
    @property
    def sites(self) -> list[str]:
        return sorted(self.graph.nodes)

    def links(self, source_site: str, target_site: str) -> int:
        data = self.graph.get_edge_data(source_site, target_site)
        return int(data["weight"]) if data else 0

    def linkout(self, site: str, within: Iterable[str] | None = None) -> int:
        """Linkout(w) [Zhang 2013 §2.3]: links out of ``site``, only to ``within`` if given."""
        if site not in self.graph:
            return 0
        keep = None if within is None else set(within)
        return sum(int(d["weight"]) for _, t, d in self.graph.out_edges(site, data=True)
                   if keep is None or t in keep)

    def pagerank(self, seeds: Iterable[str] | None = None, r: float = DEFAULT_R,
                 tol: float = 1e-12, max_iter: int = 1000) -> dict[str, float]:
        """PageRank(w) over the seed set, as [Zhang 2013 §2.3] defines it (r = teleport)."""
        if not 0.0 < r <= 1.0:
            raise ValueError(f"r must be in (0, 1], got {r}")
        nodes = sorted(set(self.graph.nodes if seeds is None else seeds))
        if not nodes:
            return {}
        n = len(nodes)
        import networkx as nx

        sub = nx.DiGraph()
        sub.add_nodes_from(nodes)
        sub.add_weighted_edges_from(
            (s, t, d["weight"]) for s, t, d in self.graph.subgraph(nodes).edges(data=True))
        x = nx.pagerank(sub, alpha=1.0 - r, weight="weight", tol=tol, max_iter=max_iter,
                        nstart={w: 1.0 for w in nodes})
        # Rescale networkx's normalised vector to the fixed point of the paper's equation:
        # p = k·x with k·(x_w − (1−r)·Σ_v x_v·n(v,w)/Linkout(v)) = r/N for every w.
        out_w = {v: sum(d["weight"] for _, _, d in sub.out_edges(v, data=True)) for v in nodes}
        inflow = dict.fromkeys(nodes, 0.0)
        for v, w, d in sub.edges(data=True):
            inflow[w] += x[v] * d["weight"] / out_w[v]
        residual = sum(x[w] - (1.0 - r) * inflow[w] for w in nodes) / n
        k = (r / n) / residual
        return {w: k * x[w] for w in nodes}

    def weighted_pagerank(self, seeds: Iterable[str], credibility: Mapping[str, float],
                          r: float = DEFAULT_R, default_credibility: float = 0.0
                          ) -> dict[str, float]:
        """WeightedPageRank(w) = PageRank(w) · C(w) [Zhang 2013 §2.3]."""
        pr = self.pagerank(seeds, r=r)
        return {w: p * float(credibility.get(w, default_credibility)) for w, p in pr.items()}

    def rank_outside_sites(self, seed_sites: Iterable[str], credibility: Mapping[str, float],
                           criterion: str = "weighted_pagerank", r: float = DEFAULT_R,
                           default_credibility: float = 0.0, linkout_scope: str = "seeds",
                           exclude: Iterable[str] = (),
                           evidence: Mapping[str, Mapping] | None = None) -> list[dict]:
        """Rank outside sites by ΣLinkout/ΣPageRank/ΣWeightedPageRank [Zhang 2013 §2.3, step 2]
        or ΣLinkEvidence (module docstring); ``evidence``: per seed, per outside site, its
        :class:`~bitextcrawl.sites.evidence.LinkEvidence`."""
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r}; one of {sorted(CRITERIA)}")
        if linkout_scope not in ("seeds", "all"):
            raise ValueError(f"linkout_scope must be 'seeds' or 'all', got {linkout_scope!r}")
        seeds = sorted(set(seed_sites))
        seed_set = set(seeds)
        skip = seed_set | set(exclude)
        for s in seeds:
            self.add_site(s)
        pr = self.pagerank(seeds, r=r)
        wpr = {w: pr[w] * float(credibility.get(w, default_credibility)) for w in seeds}
        linkout = {w: self.linkout(w, seed_set if linkout_scope == "seeds" else None)
                   for w in seeds}
        mass_of = wpr if sum(wpr.values()) > 0 else pr  # the fraction of ΣLinkEvidence
        total_mass = sum(mass_of.values()) or 1.0

        rows: dict[str, dict] = {}
        for w in seeds:
            for _, s, d in self.graph.out_edges(w, data=True):
                if s in skip:
                    continue
                row = rows.setdefault(s, {"site": s, "sum_linkout": 0, "sum_pagerank": 0.0,
                                          "sum_weighted_pagerank": 0.0,
                                          "sum_link_evidence": 0.0, "links_in": 0,
                                          "link_pages": 0, "link_langs": set(),
                                          "parallel_links": 0, "linked_from": []})
                row["sum_linkout"] += linkout[w]
                row["sum_pagerank"] += pr[w]
                row["sum_weighted_pagerank"] += wpr[w]
                row["links_in"] += int(d["weight"])
                row["linked_from"].append(w)
                ev = (evidence or {}).get(w, {}).get(s)
                if ev is not None:
                    row["sum_link_evidence"] += mass_of[w] * ev.volume / total_mass
                    row["link_pages"] += ev.pages
                    row["link_langs"] |= ev.langs
                    row["parallel_links"] += ev.parallel
        for row in rows.values():
            row["evidence_level"] = evidence_level(row["link_langs"], row["parallel_links"])
            row["sum_link_evidence"] += row["evidence_level"]
        field = CRITERIA[criterion]
        order = (field,) + tuple(f for f in _TIE_ORDER if f != field)
        if field == "sum_link_evidence":  # the level first: g → 1 must not round up into it
            order = ("evidence_level",) + order
        ranked = sorted(rows.values(),
                        key=lambda row: tuple(-_key(row[f]) for f in order) + (row["site"],))
        for i, row in enumerate(ranked, 1):
            row["linked_from"].sort()
            row["link_langs"] = sorted(row["link_langs"])
            row["rank"] = i
            row["criterion"] = field
        return ranked


def rank_outside_sites(graph: SiteGraph, seed_sites: Iterable[str],
                       credibility: Mapping[str, float], criterion: str = "weighted_pagerank",
                       **kwargs) -> list[dict]:
    """Function form of :meth:`SiteGraph.rank_outside_sites` [Zhang 2013 §2.3]."""
    return graph.rank_outside_sites(seed_sites, credibility, criterion=criterion, **kwargs)
