"""Incremental bilingual website exploration: the round logic [Zhang 2013 §2.3].

[Zhang 2013 §2.3]'s procedure: (1) crawl the current set of sites and learn their URL pairing
patterns; (2) rank the sites they link to by ΣLinkout, ΣPageRank or ΣWeightedPageRank and
take the top K; (3) add those to the set and repeat. Here step (3) adds only the sites that
pass the bilingual-site check (:func:`bitextcrawl.sites.detect.detect_bilingual`), and a site
checked once is never ranked again.

:class:`Expansion` holds what is known between rounds — each checked site's outcome and
credibility C(w), the links out of each crawled site — and knows nothing of Scrapy: the
``expand`` spider drives it during a crawl, ``scrapy expand`` builds one from finished runs
(:func:`load_runs`).

Rounds are numbered from 0: round 0 crawls the seeds; round r ≥ 1 crawls the top K of the
ranking made over the set after round r − 1. ``expansion.jsonl`` (:meth:`Expansion.rows`)
has one object per ranked site per round — ``round``, ``site``, ``sum_linkout``,
``sum_pagerank``, ``sum_weighted_pagerank``, ``linked_from``, ``rank``, ``crawled``,
``bilingual`` (None when not checked), ``added`` — plus ``criterion``, ``links_in``,
``credibility`` and ``reason``, the link evidence (``sum_link_evidence``, ``link_pages``,
``link_langs``, ``parallel_links``; :mod:`bitextcrawl.sites.evidence`) and ``failed`` (why a
site could not be checked: unreachable, robots.txt; None otherwise) with ``replaces`` (on a
site checked in place of a failed one: that site). The seeds have rows of round 0 (``rank`` and the sums None,
``seed`` true). The last ranking, made after the last round and not crawled, has rows too.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit

from bitextcrawl.formats.jsonl import iter_jsonl
from bitextcrawl.pages.urls import site_of
from bitextcrawl.sites.evidence import LinkEvidence, link_evidence, merge_evidence, switch_pairs
from bitextcrawl.sites.graph import CRITERIA, DEFAULT_R, SiteGraph


@dataclass
class SiteResult:
    """What one crawled site turned out to be."""

    site: str
    round: int
    bilingual: bool
    seed: bool = False
    credibility: float = 0.0   # C(w) = max_p C(p, w), [Zhang 2013 §2.1]
    pages: int = 0
    reason: str = ""
    output_dir: str = ""
    detection: dict = field(default_factory=dict)
    failed: str = ""      # why the site could not be checked ("" if it was)
    replaces: str = ""    # the failed site this one took the place of in its round

    def to_dict(self) -> dict:
        return asdict(self)


def read_seeds(path: str | os.PathLike) -> list[str]:
    """Seed URLs of a seed-list file: one URL (or bare host) a line; ``#`` starts a comment."""
    urls = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            url = line.split("#", 1)[0].strip()
            if not url:
                continue
            urls.append(url if "://" in url else "http://" + url)
    return list(dict.fromkeys(urls))


def site_root(url: str) -> str:
    """The root page of a URL's host, or of a site (``scheme://host[:port]/``)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def outlink_counts(pages: Iterable) -> dict[str, Counter]:
    """Per site, the links of its pages to each other site (one per page and target URL)."""
    out: dict[str, Counter] = {}
    for page in pages:
        url = page["url"] if isinstance(page, Mapping) else page.url
        links = page.get("links") if isinstance(page, Mapping) else page.links
        source = site_of(url)
        counts = out.setdefault(source, Counter())
        for link in links or ():
            target_url = link["url"] if isinstance(link, Mapping) else link.url
            if not target_url.startswith(("http://", "https://")):
                continue
            try:
                target = site_of(target_url)
            except ValueError:
                continue
            if target != source:
                counts[target] += 1
    return out


def count_landing(landing: dict[str, Counter], source: str, pages: Iterable) -> None:
    """Add the links of a crawled site's pages to ``landing``: outside site -> each of its
    URLs linked, with how many links lead there."""
    for page in pages:
        links = page.get("links") if isinstance(page, Mapping) else page.links
        for link in links or ():
            url = link["url"]
            target = site_of(url)
            if target != source:
                landing.setdefault(target, Counter())[url] += 1


def site_start_urls(site: str, landing: Mapping[str, Counter]) -> list[str]:
    """An outside site's root, and the page of it the set links to most with the root of
    that page's host (the bare domain may serve nothing: ``en.example.org``)."""
    urls = [site_root(site)]
    counts = landing.get(site)
    if counts:
        url = counts.most_common(1)[0][0]
        urls += [site_root(url), url]
    return urls


class Expansion:
    """The state of incremental bilingual website exploration between rounds [Zhang 2013 §2.3]."""

    def __init__(self, criterion: str = "link_evidence", top_k: int = 10,
                 r: float = DEFAULT_R):
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r}; one of {sorted(CRITERIA)}")
        if top_k < 0:
            raise ValueError(f"top_k must be 0 or more, got {top_k}")
        self.criterion = criterion
        self.top_k = top_k
        self.r = r
        self.results: dict[str, SiteResult] = {}
        self.outlinks: dict[str, Counter] = {}
        self.evidence: dict[str, dict[str, LinkEvidence]] = {}  # site -> target -> evidence
        self.rankings: dict[int, list[dict]] = {}  # round -> the ranking its sites came from
        # One site per host whatever the scheme links use: host -> the site (scheme://host)
        # it is known as (a checked site's own scheme; else https if a link used it).
        self.site_of_host: dict[str, str] = {}
        self.claimed: set[str] = set()   # hosts named by a checked site

    # ------------------------------------------------------------------ one site per host
    def canonical(self, site: str) -> str:
        """The site ``site`` (``scheme://host``) is known as: the same host under another
        scheme is the same site."""
        host = site.split("://", 1)[-1]
        known = self.site_of_host.get(host)
        if known is None or (known != site and host not in self.claimed
                             and site.startswith("https://")):
            self._rename(known, site)
            self.site_of_host[host] = site
            return site
        return known

    def _claim(self, site: str) -> None:
        """A checked site names its host with its own scheme from now on."""
        host = site.split("://", 1)[-1]
        if host in self.claimed:
            return
        self._rename(self.site_of_host.get(host), site)
        self.site_of_host[host] = site
        self.claimed.add(host)

    def _rename(self, old: str | None, new: str) -> None:
        """Links and evidence into ``old`` counted as into ``new``."""
        if old is None or old == new:
            return
        for counts in self.outlinks.values():
            if old in counts:
                counts[new] += counts.pop(old)
        for by_target in self.evidence.values():
            if old in by_target:
                ev = by_target.pop(old)
                by_target[new] = merge_evidence(by_target[new], ev) if new in by_target else ev

    # ------------------------------------------------------------------ what is known
    def record(self, result: SiteResult, outlinks: Mapping[str, int] | None = None,
               evidence: Mapping[str, LinkEvidence] | None = None) -> None:
        """A site's outcome, and (for a crawled site) its links to other sites and what
        they show (:func:`~bitextcrawl.sites.evidence.link_evidence`)."""
        self.results[result.site] = result
        self._claim(result.site)
        site = self.canonical(result.site)
        for target in [*(outlinks or ()), *(evidence or ())]:
            self.canonical(target)   # first: which scheme names each host
        if outlinks is not None:
            counts: Counter = Counter()
            for t, n in outlinks.items():
                target = self.canonical(t)
                if target != site and int(n) > 0:
                    counts[target] += int(n)
            self.outlinks[result.site] = counts
        if evidence is not None:
            merged: dict = {}
            for t, ev in evidence.items():
                target = self.canonical(t)
                if target != site:
                    merged[target] = merge_evidence(merged[target], ev) \
                        if target in merged else ev
            self.evidence[result.site] = merged

    @property
    def members(self) -> list[str]:
        """The current set: every site checked and found bilingual."""
        return sorted(s for s, res in self.results.items() if res.bilingual)

    @property
    def last_round(self) -> int:
        return max((res.round for res in self.results.values()), default=-1)

    def credibility(self) -> dict[str, float]:
        return {s: res.credibility for s, res in self.results.items()}

    def graph(self) -> SiteGraph:
        """Links out of the current set (links out of sites not in it do not count)."""
        g = SiteGraph()
        for site in self.members:
            g.add_site(site)
            for target, n in self.outlinks.get(site, {}).items():
                g.add_links(site, target, n)
        return g

    # ------------------------------------------------------------------ one round
    def rank(self, round_no: int) -> list[dict]:
        """Sites outside the set, never checked, ranked by the criterion (§2.3 step 2);
        kept as the ranking of ``round_no``."""
        ranking = self.graph().rank_outside_sites(
            self.members, self.credibility(), criterion=self.criterion, r=self.r,
            exclude=self.results, evidence=self.evidence)
        self.rankings[round_no] = ranking
        return ranking

    def select(self, ranking: list[dict]) -> list[str]:
        """The top K sites of a ranking (all of them when K is 0)."""
        rows = ranking if not self.top_k else ranking[: self.top_k]
        return [row["site"] for row in rows]

    def next_candidate(self, round_no: int, tried: Iterable[str]) -> str | None:
        """The best site of ``round_no``'s ranking not tried yet: the one that takes the place
        of a site whose check failed (unreachable, robots.txt), so that a round still checks
        K sites ([Zhang 2013 §2.3] assumes every top-K site can be checked)."""
        tried = set(tried) | set(self.results)
        for row in self.rankings.get(round_no, ()):
            if row["site"] not in tried:
                return row["site"]
        return None

    # ------------------------------------------------------------------ expansion.jsonl
    def seed_rows(self) -> list[dict]:
        rows = []
        for site, res in sorted(self.results.items()):
            if not res.seed:
                continue
            rows.append({"round": 0, "site": site, "sum_linkout": None, "sum_pagerank": None,
                         "sum_weighted_pagerank": None, "linked_from": [], "rank": None,
                         "crawled": not res.failed,
                         "bilingual": None if res.failed else res.bilingual,
                         "added": res.bilingual, "seed": True,
                         "credibility": res.credibility, "reason": res.reason,
                         "failed": res.failed or None})
        return rows

    def rows(self, round_no: int) -> list[dict]:
        """The ranking of ``round_no`` with what became of each site."""
        out = []
        for row in self.rankings.get(round_no, ()):
            res = self.results.get(row["site"])
            tried = res is not None and res.round == round_no
            failed = res.failed if tried else ""
            crawled = tried and not failed
            if failed:
                reason = "check failed: " + failed
            elif crawled:
                reason = ("bilingual: " if res.bilingual else "not bilingual: ") + res.reason
            elif self.top_k and row["rank"] > self.top_k:
                reason = f"below the top {self.top_k}"
            else:
                reason = "not crawled"
            out.append({
                "round": round_no, "site": row["site"],
                "sum_linkout": row["sum_linkout"],
                "sum_pagerank": round(row["sum_pagerank"], 12),
                "sum_weighted_pagerank": round(row["sum_weighted_pagerank"], 12),
                "linked_from": list(row["linked_from"]), "rank": row["rank"],
                "crawled": crawled,
                "bilingual": res.bilingual if crawled else None,
                "added": bool(crawled and res.bilingual),
                "criterion": row["criterion"], "links_in": row["links_in"],
                "credibility": res.credibility if crawled else None,
                "reason": reason,
                "sum_link_evidence": round(row["sum_link_evidence"], 12),
                "link_pages": row["link_pages"], "link_langs": list(row["link_langs"]),
                "parallel_links": row["parallel_links"],
                "evidence_level": row["evidence_level"],
                "failed": failed or None,
                "replaces": (res.replaces or None) if tried else None,
            })
        return out

    def all_rows(self) -> list[dict]:
        rows = self.seed_rows()
        for round_no in sorted(self.rankings):
            rows.extend(self.rows(round_no))
        return rows


# ---------------------------------------------------------------------- finished runs

def credibility_from_patterns(patterns: Mapping) -> dict[str, float]:
    """C(w) = max_p C(p, w) per site from a ``patterns.json`` (``{site: {"en-fr": report}}``),
    over the patterns a :class:`~bitextcrawl.pairing.url_patterns.PatternDB` records (credible
    ones, and weak ones with two pairs or more), so that it agrees with
    ``PatternDB.site_credibility``; the largest over the language pairs."""
    out: dict[str, float] = {}
    for site, by_pair in patterns.items():
        best = 0.0
        for rep in (by_pair or {}).values():
            if not isinstance(rep, Mapping):
                continue
            for p in rep.get("patterns") or ():
                support = int(p.get("support") or 0)
                if support > 0 and (p.get("credible") or support >= 4):
                    best = max(best, float(p.get("local_credibility") or 0.0))
        out[site] = best
    return out


_RESULT_FIELDS = frozenset(SiteResult.__dataclass_fields__)


def _read_json(path: str):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _pages_files(run_dir: str) -> list[str]:
    files = []
    top = os.path.join(run_dir, "pages.jsonl")
    if os.path.exists(top):
        files.append(top)
    # an expand crawl's sites/<site>/; an expansion on Scrapyd's jobs/<site>/sites/<site>/
    site_dirs = [os.path.join(run_dir, "sites")]
    jobs_dir = os.path.join(run_dir, "jobs")
    if os.path.isdir(jobs_dir):
        site_dirs += [os.path.join(jobs_dir, job, "sites") for job in sorted(os.listdir(jobs_dir))]
    for sites_dir in site_dirs:
        if os.path.isdir(sites_dir):
            for name in sorted(os.listdir(sites_dir)):
                path = os.path.join(sites_dir, name, "pages.jsonl")
                if os.path.exists(path):
                    files.append(path)
    return files


def _patterns_files(run_dir: str) -> list[str]:
    return [os.path.join(os.path.dirname(p), "patterns.json") for p in _pages_files(run_dir)
            if os.path.exists(os.path.join(os.path.dirname(p), "patterns.json"))]


def _pairs_of(pages_file: str) -> list[tuple[str, str]] | None:
    """``(url_1, url_2)`` of the ``pairs.jsonl`` beside a ``pages.jsonl``, None if none."""
    path = os.path.join(os.path.dirname(pages_file), "pairs.jsonl")
    if not os.path.exists(path):
        return None
    return [(d["url_1"], d["url_2"]) for d in iter_jsonl(path)]


def _langs_of(pages_files: list[str]) -> list[str]:
    """The languages the runs paired (``lang_1``, ``lang_2`` of their ``pairs.jsonl``)."""
    langs: dict[str, None] = {}
    for path in pages_files:
        path = os.path.join(os.path.dirname(path), "pairs.jsonl")
        if os.path.exists(path):
            for d in iter_jsonl(path):
                langs.setdefault(d["lang_1"])
                langs.setdefault(d["lang_2"])
    return list(langs)


def site_link_evidence(pages: list, langs: Iterable[str],
                       pairs: list[tuple[str, str]] | None) -> dict[str, dict[str, LinkEvidence]]:
    """:func:`link_evidence` of one run's pages with its pairs, or, where no pairs were
    written, the pairs its pages' own language switches make."""
    langs = list(langs)
    if pairs is None:
        pairs = switch_pairs(pages, langs)
    return link_evidence(pages, langs, pairs)


def load_runs(run_dirs: Iterable[str], criterion: str = "link_evidence", top_k: int = 10,
              pattern_db=None, langs: Iterable[str] | None = None) -> Expansion:
    """An :class:`Expansion` from finished runs ([Zhang 2013 §2.3], ranking only).

    A run dir is a ``bitext`` crawl's output dir (every site of its ``pages.jsonl`` joins the
    set) or an ``expand`` run's (its ``sites.jsonl`` says which sites were checked and which
    joined; their pages are under ``sites/*/``). Outlinks come from the ``pages.jsonl`` files,
    C(w) from ``patterns.json``, else from ``pattern_db`` (a :class:`PatternDB`), else 0.
    The link evidence names ``langs`` (default: the languages of the runs' ``pairs.jsonl``).
    """
    run_dirs = list(run_dirs)
    exp = Expansion(criterion=criterion, top_k=top_k)
    checked: dict[str, SiteResult] = {}
    crawled_sites: set[str] = set()
    outlinks: dict[str, Counter] = {}
    credibility: dict[str, float] = {}
    evidence: dict[str, dict[str, LinkEvidence]] = {}
    all_files = {d: _pages_files(d) for d in run_dirs}
    if langs is None:
        langs = _langs_of([p for files in all_files.values() for p in files])
    for run_dir in run_dirs:
        files = all_files[run_dir]
        if not files:
            raise FileNotFoundError(f"no pages.jsonl in {run_dir} (nor in {run_dir}/sites/*/)")
        for path in files:
            pages = list(iter_jsonl(path))
            for site, counts in outlink_counts(pages).items():
                outlinks.setdefault(site, Counter()).update(counts)
                crawled_sites.add(site)
            for site, by_target in site_link_evidence(pages, langs, _pairs_of(path)).items():
                evidence.setdefault(site, {}).update(by_target)
        for path in _patterns_files(run_dir):
            for site, c in credibility_from_patterns(_read_json(path)).items():
                credibility[site] = max(c, credibility.get(site, 0.0))
        sites_file = os.path.join(run_dir, "sites.jsonl")
        if os.path.exists(sites_file):  # an expand run: its own verdicts
            for d in iter_jsonl(sites_file):
                res = SiteResult(**{k: v for k, v in d.items() if k in _RESULT_FIELDS})
                old = checked.get(res.site)
                if old is None or res.round >= old.round:
                    checked[res.site] = res
    for site in sorted(crawled_sites):
        if site not in checked:  # a bitext crawl: the site is taken as bilingual
            checked[site] = SiteResult(site, 0, True, seed=True, reason="crawled run")
    for site, res in checked.items():
        c = credibility.get(site)
        if c is None and pattern_db is not None:
            c = pattern_db.site_credibility(site)
        res.credibility = float(c if c is not None else res.credibility or 0.0)
        exp.record(res, outlinks.get(site, Counter()) if site in crawled_sites else None,
                   evidence.get(site, {}) if site in crawled_sites else None)
    return exp
