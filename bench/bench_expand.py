"""Precision of the top N outside sites ranked by ΣLinkout, ΣPageRank, ΣWeightedPageRank
([Zhang 2013 §3.3] / Figure 2) and ΣLinkEvidence; prints figures, asserts nothing.

    python bench/bench_expand.py                 # generated webs with monolingual hubs
    python bench/bench_expand.py --model         # 20 random link-model webs, C(w) from the learner
    python bench/bench_expand.py --webs 50 --seeds 16 --outside 40
    python bench/bench_expand.py --crawl         # one web, C(w) from real crawls (scrapy crawl expand)

The web. ``--seeds`` seed sites (default 12), each a site made by the demo generator with a
random URL scheme (prefix, subdomain, suffix, query, mixed, opaque), 6–16 translated
articles, a random share of untranslated articles (``untranslated_fraction`` 0.1–4) and
sometimes a third language; and ``--outside`` outside sites (default 36), half bilingual, half
monolingual. Between 48 and 52 sites in all by default.

The links (a model: nobody's real link graph). A seed's true bilingual degree ``d(w)`` is
the share of its en/fr pages that have a translation. Each seed links 2–16 outside sites
(out-degree drawn independently of anything else), each link a bilingual site with
probability ``0.15 + 0.7·d(w)`` — [Zhang 2013]'s assumption that bilingual sites link to
bilingual sites, stronger the more bilingual the site — chosen by a popularity that does
not depend on being bilingual; each link is carried by 1–4 pages. Every seed also links 1–4
other seeds at random. So the figures below measure how well each criterion recovers a
signal the model puts in; what they show is *how much* C(w) helps when it is measured
with the real pattern learner on sites whose credibility is imperfect (an ``opaque`` site is
bilingual with C(w) ≈ 0; a site with many untranslated pages has a low C(w)).

Hub webs (the default): :func:`testkit.web.generate_web` in several
shapes (seeds, bilingual sites, hubs and their links per page, the share of bilingual sites
linked with no evidence), each shape over several generator seeds. The seeds' page records
are built from their generated HTML (:func:`~testkit.records.site_records`), their
pairs are the gold pairs, C(w) comes from the URL-pattern learner, and one ranking (round 1)
is made per criterion. Sites that cannot be checked (unreachable, robots.txt) are taken
out of the ranking before precision@K, as the crawl replaces them by the next site.

Link-model webs (``--model``):
C(w). Default: the URL-pattern learner (``UrlPatternLearner``, [Zhang 2013 §2.1]) run on each
seed's generated URL list (every page a crawler can reach, with its language), C(w) =
max_p C(p, w) as ``PatternDB.site_credibility`` computes it. With ``--crawl``: one web whose
seed sites are served on loopback with the outside links written into their pages, crawled
by ``scrapy crawl expand -a rounds=0`` (language ID, focus, store, closing alignment, pattern
database), then ranked from that run dir with each criterion, as ``scrapy expand`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from bitextcrawl.demo.generator import SCHEMES, SiteSpec, generate_site  # noqa: E402
from bitextcrawl.pairing.url_patterns import UrlPatternLearner  # noqa: E402
from bitextcrawl.sites.expansion import Expansion, SiteResult, credibility_from_patterns, load_runs  # noqa: E402

CRITERIA = (("linkout", "ΣLinkout"), ("pagerank", "ΣPageRank"),
            ("weighted_pagerank", "ΣWeightedPR"), ("link_evidence", "ΣLinkEvidence"))
UNTRANSLATED = (0.1, 0.5, 1.5, 4.0)


def make_seed(rng: random.Random, i: int, web: int, port: int = 8000, tld: str = "org"):
    spec = SiteSpec(scheme=rng.choice(SCHEMES), n_pairs=rng.randint(6, 16),
                    untranslated_fraction=rng.choice(UNTRANSLATED),
                    third_lang="de" if rng.random() < 0.3 else None, n_third=4,
                    host=f"seed{i}-web{web}.{tld}", seed=web * 1000 + i)
    return generate_site(spec, port)


def reachable(site) -> dict[str, str]:
    hidden, forbidden = site.hidden_urls, set(site.robots_disallowed)
    return {u: lang for u, lang in site.page_langs.items()
            if u not in hidden and u not in forbidden}


def bilingual_degree(site) -> float:
    pages = [u for u, lang in reachable(site).items() if lang in site.spec.langs]
    return 2 * len(site.gold_pairs) / max(1, len(pages))


def learner_credibility(site) -> float:
    """C(w) of [Zhang 2013 §2.1] from the site's URL list (the learner alone, no crawl)."""
    urls: dict[str, list[str]] = {}
    for url, lang in reachable(site).items():
        urls.setdefault(lang, []).append(url)
    learner = UrlPatternLearner(langs=site.spec.langs).fit(urls)
    return credibility_from_patterns({learner.site_: {"en-fr": learner.report()}})[learner.site_]


def make_links(rng: random.Random, seeds: list[str], degree: dict[str, float],
               outside: dict[str, bool]) -> dict[str, Counter]:
    """The link model of the module docstring: seed -> {target site: pages linking}."""
    names = sorted(outside)
    popularity = {s: 1.0 / (k + 1) ** 0.8 for k, s in enumerate(rng.sample(names, len(names)))}
    pools = {b: [s for s in names if outside[s] == b] for b in (True, False)}
    links: dict[str, Counter] = {}
    for w in seeds:
        counts = Counter()
        for _ in range(rng.choice((2, 3, 4, 6, 8, 12, 16))):
            pool = pools[rng.random() < 0.15 + 0.7 * degree[w]]
            target = rng.choices(pool, weights=[popularity[s] for s in pool])[0]
            counts[target] += rng.randint(1, 4)
        for v in rng.sample([s for s in seeds if s != w], rng.randint(1, 4)):
            counts[v] += rng.randint(1, 3)
        links[w] = counts
    return links


def precision_at(ranking: list[dict], outside: dict[str, bool], tops) -> dict[int, float]:
    sites = [row["site"] for row in ranking]
    return {n: sum(outside[s] for s in sites[:n]) / n for n in tops if n <= len(sites)}


def make_web(rng: random.Random, web: int, n_seeds: int, n_outside: int, port=8000):
    seeds = [make_seed(rng, i, web, port) for i in range(n_seeds)]
    outside = {f"http://out{j}-web{web}.org": j < n_outside // 2 for j in range(n_outside)}
    sites = {f"http://{s.spec.host}:{port}" if port != 80 else f"http://{s.spec.host}": s
             for s in seeds}
    degree = {w: bilingual_degree(s) for w, s in sites.items()}
    links = make_links(rng, sorted(sites), degree, outside)
    return sites, degree, outside, links


def learner_mode(args) -> None:
    tops = args.top
    totals = {c: {n: [] for n in tops} for c, _ in CRITERIA}
    found = {c: {n: [] for n in tops} for c, _ in CRITERIA}
    creds, degrees, by_scheme, base = [], [], {}, []
    start = time.perf_counter()
    for web in range(args.webs):
        rng = random.Random(args.seed + web)
        sites, degree, outside, links = make_web(rng, web, args.seeds, args.outside)
        cred = {w: learner_credibility(s) for w, s in sites.items()}
        for w, s in sites.items():
            creds.append(cred[w])
            degrees.append(degree[w])
            by_scheme.setdefault(s.spec.scheme, []).append(cred[w])
        for criterion, _ in CRITERIA:
            exp = Expansion(criterion=criterion, top_k=0)
            for w in sites:
                exp.record(SiteResult(w, 0, True, seed=True, credibility=cred[w]), links[w])
            ranking = exp.rank(1)
            for n, p in precision_at(ranking, outside, tops).items():
                totals[criterion][n].append(p)
                found[criterion][n].append(p * n)
        base.append(np.mean([outside[row["site"]] for row in ranking]))
    seconds = time.perf_counter() - start
    print(f"Site expansion [Zhang 2013 §2.3, §3.3 Figure 2]: {args.webs} random webs of "
          f"{args.seeds} seeds + {args.outside} outside sites ({args.outside // 2} bilingual)")
    print("C(w) from the URL-pattern learner on each seed's generated URL list (no crawl)")
    print(f"seed C(w): mean {np.mean(creds):.3f}; corr(C(w), bilingual degree d(w)) = "
          f"{np.corrcoef(creds, degrees)[0, 1]:.3f}; mean C(w) by scheme: " +
          ", ".join(f"{k} {np.mean(v):.2f}" for k, v in sorted(by_scheme.items())))
    print_table(tops, totals, found, base=float(np.mean(base)))
    print(f"(random: the bilingual share of the ranked sites; a top N counts only in webs "
          f"with N ranked sites or more; {seconds:.1f} s)")


def print_table(tops, totals, found, base) -> None:
    head = "".join(f"{label:>22}" for _, label in CRITERIA)
    print(f"\n{'top N':>6}{head}{'random':>10}")
    print(f"{'':>6}" + "".join(f"{'precision  bilingual':>22}" for _ in CRITERIA))
    for n in tops:
        if not totals[CRITERIA[0][0]][n]:
            continue
        cells = "".join(f"{np.mean(totals[c][n]):>11.3f}{np.mean(found[c][n]):>11.1f}"
                        for c, _ in CRITERIA)
        print(f"{n:>6}{cells}{base:>10.2f}")


# ------------------------------------------------------------------ --crawl: real crawls

def insert_links(site, targets: Counter, rng: random.Random) -> None:
    """Write each target's link into as many of the site's en/fr pages as it has pages."""
    pages = sorted(u for u, lang in reachable(site).items()
                   if lang in site.spec.langs and u in site.resources)
    extra: dict[str, list[str]] = {}
    for target, n in sorted(targets.items()):
        for url in rng.sample(pages, min(n, len(pages))):
            extra.setdefault(url, []).append(target)
    for url, ts in extra.items():
        items = "".join(f'<li><a href="{t}/">Partner {k}</a></li>' for k, t in enumerate(ts))
        res = site.resources[url]
        res.body = res.body.replace(
            b"</main>", f'<aside class="partners"><ul>{items}</ul></aside>\n</main>'.encode())


def crawl_mode(args) -> None:
    from bitextcrawl.demo.server import free_port, serve_site

    rng = random.Random(args.seed)
    # *.localhost names resolve to loopback; the same sites as learner mode's first web.
    seeds = [make_seed(rng, i, 0, free_port(), tld="localhost") for i in range(args.seeds)]
    sites = {f"http://{s.spec.host}:{s.port}": s for s in seeds}
    degree = {w: bilingual_degree(s) for w, s in sites.items()}
    outside = {f"http://out{j}-web0.localhost:{9 + j}": j < args.outside // 2
               for j in range(args.outside)}  # never crawled (rounds=0): ports unused
    links = make_links(rng, sorted(sites), degree, outside)
    for w, s in sites.items():
        insert_links(s, links[w], rng)
    servers = [serve_site(s, s.port).start() for s in seeds]
    out = tempfile.mkdtemp(prefix="bench-expand-")
    seeds_file = os.path.join(out, "seeds.txt")
    with open(seeds_file, "w") as fh:
        fh.write("".join(f"{s.start_url}\n" for s in seeds))
    cmd = [sys.executable, "-m", "scrapy", "crawl", "expand", "-a", f"seeds={seeds_file}",
           "-a", "langs=en,fr", "-a", "rounds=0", "-a", "top_k=0",
           "-s", f"BITEXT_OUTPUT_DIR={out}", "-s", f"BITEXT_PATTERN_DB={out}/patterns-db.json",
           "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
           "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "LOG_LEVEL=WARNING"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": ROOT})
    finally:
        for server in servers:
            server.shutdown()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
        return
    results = {}
    with open(os.path.join(out, "sites.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            results[d["site"]] = d
    print(f"Site expansion [Zhang 2013 §2.3, §3.3 Figure 2]: one web of {args.seeds} seeds + "
          f"{args.outside} outside sites ({args.outside // 2} bilingual)")
    print(f"C(w) from real crawls: scrapy crawl expand -a rounds=0 ({seconds:.1f} s, output "
          f"{out})")
    members = [w for w, r in results.items() if r["bilingual"]]
    print(f"seeds checked bilingual: {len(members)}/{len(sites)}; pages crawled: "
          f"{sum(r['pages'] for r in results.values())}")
    creds = [results[w]["credibility"] for w in sites if w in results]
    learned = [learner_credibility(sites[w]) for w in sites if w in results]
    print(f"seed C(w) from the crawl: mean {np.mean(creds):.3f}; corr with the learner on the "
          f"full URL list {np.corrcoef(creds, learned)[0, 1]:.3f}; corr with d(w) "
          f"{np.corrcoef(creds, [degree[w] for w in sites if w in results])[0, 1]:.3f}")
    tops = args.top
    totals = {c: {n: [] for n in tops} for c, _ in CRITERIA}
    found = {c: {n: [] for n in tops} for c, _ in CRITERIA}
    for criterion, _ in CRITERIA:
        ranking = load_runs([out], criterion=criterion, top_k=0).rank(1)
        for n, p in precision_at(ranking, outside, tops).items():
            totals[criterion][n].append(p)
            found[criterion][n].append(p * n)
    print_table(tops, totals, found,
                base=float(np.mean([outside[row["site"]] for row in ranking])))


# ------------------------------------------------------------------ hub webs

# name: WebSpec overrides. The first is the integration test's shape; the others change
# one thing each, so that no figure rests on one generator's shape.
SHAPES = {
    "test web": {},
    "more seeds, more bilingual": dict(seeds=4, bilingual=6, hubs=3, monolingual=6),
    "heavy boilerplate": dict(hubs=4, hub_links=30, monolingual=4),
    "1/3 linked plainly": dict(seeds=3, bilingual=6, monolingual=4, plain_share=1 / 3),
    "many failing": dict(seeds=3, bilingual=4, unreachable=3, forbidden=2, monolingual=4),
}


def hub_web_ranking(spec, criterion_list):
    from bitextcrawl.sites.expansion import outlink_counts, site_link_evidence
    from testkit.records import site_records
    from testkit.web import generate_web

    web = generate_web(spec, ports=False)
    truth = {}
    for name, kind in web.kinds.items():
        truth[web.roots[name]] = kind in ("bilingual", "second_hop")
    rankings = {}
    exps = {c: Expansion(criterion=c, top_k=0) for c in criterion_list}
    for name in web.names("seed"):
        site = web.sites[name]
        pages = site_records(site, include_hidden=False)
        w = web.roots[name]
        cred = learner_credibility(site)
        out = outlink_counts(pages).get(w, {})
        ev = site_link_evidence(pages, site.spec.langs, site.gold_pairs).get(w, {})
        for exp in exps.values():
            exp.record(SiteResult(w, 0, True, seed=True, credibility=cred), out, ev)
    for c, exp in exps.items():
        rankings[c] = exp.rank(1)
    return web, truth, rankings


def hub_mode(args) -> None:
    tops = args.top
    names = [c for c, _ in CRITERIA]
    print("Site expansion on generated webs whose seeds link big monolingual hubs from every "
          f"page; {args.webs} generator seeds per shape; round 1 ranking")
    start = time.perf_counter()
    for shape, over in SHAPES.items():
        totals = {c: {n: [] for n in tops} for c in names}
        found = {c: {n: [] for n in tops} for c in names}
        base = []
        for web_no in range(args.webs):
            from testkit.web import WebSpec

            spec = WebSpec(seed=args.seed + web_no, **over)
            web, truth, rankings = hub_web_ranking(spec, names)
            failing = {web.roots[n] for n in web.names("unreachable", "forbidden")}
            for c in names:
                # A failed check is replaced by the next site (as the crawl does): precision
                # over the sites that can be checked; the failing ones are counted apart.
                ranking = [r for r in rankings[c] if r["site"] not in failing]
                for n, p in precision_at(ranking, truth, tops).items():
                    totals[c][n].append(p)
                    found[c][n].append(p * n)
            ranked = rankings[names[0]]
            base.append(np.mean([truth[r["site"]] for r in ranked]))
        s = WebSpec(**over)
        print(f"\n{shape}: {s.seeds} seeds, {s.bilingual} bilingual linked from them "
              f"({s.second_hop} more only from those), {s.hubs} hubs x {s.hub_links} links a "
              f"page, {s.monolingual} monolingual, {s.unreachable} unreachable, "
              f"{s.forbidden} robots-forbidden; {round(s.plain_share * s.bilingual)} bilingual "
              "linked without evidence")
        print_table(tops, totals, found, base=float(np.mean(base)))
    print(f"\n({time.perf_counter() - start:.1f} s; random: the bilingual share of the ranked "
          "sites; a top N counts only where N sites or more were ranked)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--webs", type=int, default=None,
                        help="webs averaged (default 20 with --model, 5 per shape otherwise)")
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--outside", type=int, default=36)
    parser.add_argument("--top", type=lambda s: [int(x) for x in s.split(",")], default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--crawl", action="store_true",
                        help="one link-model web, C(w) from real crawls of the seeds")
    parser.add_argument("--model", action="store_true",
                        help="random link-model webs (no hubs), C(w) from the learner")
    args = parser.parse_args()
    if args.crawl or args.model:
        args.webs = args.webs or 20
        args.top = args.top or [3, 5, 10, 15, 20, 25, 30]
        (crawl_mode if args.crawl else learner_mode)(args)
    else:
        args.webs = args.webs or 5
        args.top = args.top or [1, 3, 5, 8]
        hub_mode(args)


if __name__ == "__main__":
    main()
