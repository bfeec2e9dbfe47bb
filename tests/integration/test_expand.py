"""Site expansion over a small web of generated sites on loopback ([Zhang 2013 §2.3]).

Seven sites, each a generated site on its own port and ``*.localhost`` name:

    alpha, bravo (seeds, bilingual)  ──►  charlie, delta (bilingual)  ──►  echo (bilingual)
    alpha ──► mike (monolingual)          bravo ──► november (monolingual)

The seeds link each other and both link charlie and delta; each links one monolingual site.
Charlie and delta link echo, which nobody else links. Expected: round 1 ranks charlie and
delta above mike and november and adds them; round 2 ranks echo first and adds it, and drops
the monolingual site it checks after a handful of pages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from testkit.web import make_monolingual
from tests.conftest import FAST_CRAWL, PROJECT_ROOT, read_jsonl

pytestmark = pytest.mark.integration

BILINGUAL = {"alpha": "prefix", "bravo": "suffix", "charlie": "query", "delta": "prefix",
             "echo": "suffix"}
MONOLINGUAL = ("mike", "november")
LINKS = {"alpha": ["bravo", "charlie", "delta", "mike"],
         "bravo": ["alpha", "charlie", "delta", "november"],
         "charlie": ["echo"], "delta": ["echo"]}
DETECT_PAGES = 8


def add_links(site, targets, kinds=("home", "about")) -> None:
    """Links to other sites' roots on the home and about pages (both languages)."""
    items = "".join(f'<li><a href="{t}">Partner {i}</a></li>' for i, t in enumerate(targets))
    aside = f'<aside class="partners"><ul>{items}</ul></aside>\n</main>'.encode()
    for url, kind in site.page_kinds.items():
        if kind in kinds and url in site.resources:
            res = site.resources[url]
            res.body = res.body.replace(b"</main>", aside)


def scrapy(*args, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    if proc.returncode != 0:
        raise AssertionError(f"scrapy {args[0]} failed ({proc.returncode}):\n"
                             f"{proc.stderr[-5000:]}")
    return proc


@pytest.fixture(scope="module")
def web():
    sites = {}
    for i, name in enumerate(list(BILINGUAL) + list(MONOLINGUAL)):
        port = free_port()
        spec = SiteSpec(scheme=BILINGUAL.get(name, "prefix"), n_pairs=6, third_lang=None,
                        host=f"{name}.localhost", seed=i)
        sites[name] = generate_site(spec, port)
    roots = {name: f"http://{name}.localhost:{s.port}" for name, s in sites.items()}
    for source, targets in LINKS.items():
        add_links(sites[source], [roots[t] + "/" for t in targets])
    for name in MONOLINGUAL:
        make_monolingual(sites[name])
    servers = [serve_site(s, s.port).start() for s in sites.values()]
    try:
        yield {"sites": sites, "roots": roots, "servers": dict(zip(sites, servers))}
    finally:
        for server in servers:
            server.shutdown()


@pytest.fixture(scope="module")
def expanded(web, tmp_path_factory):
    out = tmp_path_factory.mktemp("expand")
    seeds = out / "seeds.txt"
    seeds.write_text(f"# two seeds\n{web['roots']['alpha']}/\n{web['roots']['bravo']}/\n")
    args = ["crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,fr", "-a", "rounds=2",
            "-a", "top_k=2", "-a", "max_pages=60", "-s", f"BITEXT_OUTPUT_DIR={out}",
            "-s", f"BITEXT_PATTERN_DB={out}/patterns-db.json",
            "-s", f"BITEXT_EXPAND_DETECT_PAGES={DETECT_PAGES}"]
    for key, value in FAST_CRAWL.items():
        args += ["-s", f"{key}={value}"]
    proc = scrapy(*args)
    rows = read_jsonl(out / "expansion.jsonl")
    by_round = {}
    for row in rows:
        by_round.setdefault(row["round"], {})[row["site"]] = row
    return {"out": out, "rows": rows, "by_round": by_round, "log": proc.stderr,
            "sites": {r["site"]: r for r in read_jsonl(out / "sites.jsonl")}}


def test_rows_have_the_contract_fields(expanded):
    fields = {"round", "site", "sum_linkout", "sum_pagerank", "sum_weighted_pagerank",
              "linked_from", "rank", "crawled", "bilingual", "added"}
    for row in expanded["rows"]:
        assert fields <= set(row), row
    assert sorted(expanded["by_round"]) == [0, 1, 2, 3]


def test_seeds_checked_and_crawled(web, expanded):
    seeds = expanded["by_round"][0]
    assert set(seeds) == {web["roots"]["alpha"], web["roots"]["bravo"]}
    assert all(r["bilingual"] and r["added"] for r in seeds.values())


def test_first_round_ranks_bilingual_sites_above_monolingual_and_adds_them(web, expanded):
    roots = web["roots"]
    ranking = expanded["by_round"][1]
    assert set(ranking) == {roots[n] for n in ("charlie", "delta", "mike", "november")}
    rank = {site: row["rank"] for site, row in ranking.items()}
    assert max(rank[roots["charlie"]], rank[roots["delta"]]) < \
        min(rank[roots["mike"]], rank[roots["november"]])
    for name in ("charlie", "delta"):
        row = ranking[roots[name]]
        assert row["crawled"] and row["bilingual"] is True and row["added"] is True
        assert row["linked_from"] == sorted([roots["alpha"], roots["bravo"]])
        assert row["sum_weighted_pagerank"] > 0
    for name in MONOLINGUAL:
        row = ranking[roots[name]]
        assert not row["crawled"] and row["bilingual"] is None and not row["added"]


def test_second_round_adds_the_site_only_new_members_link(web, expanded):
    roots = web["roots"]
    ranking = expanded["by_round"][2]
    echo = ranking[roots["echo"]]
    assert echo["rank"] == 1 and echo["added"] and echo["bilingual"] is True
    assert echo["linked_from"] == sorted([roots["charlie"], roots["delta"]])
    checked_mono = [r for r in ranking.values() if r["crawled"] and r["site"] != roots["echo"]]
    assert len(checked_mono) == 1
    assert checked_mono[0]["bilingual"] is False and not checked_mono[0]["added"]
    assert checked_mono[0]["reason"].startswith("not bilingual")
    # The last ranking (not crawled) holds the monolingual site never checked.
    last = expanded["by_round"][3]
    assert len(last) == 1
    (row,) = last.values()
    assert row["site"] in {roots[n] for n in MONOLINGUAL} and not row["crawled"]


def test_monolingual_site_dropped_early(web, expanded):
    roots = web["roots"]
    dropped = [s for s, r in expanded["sites"].items() if not r["bilingual"]]
    assert len(dropped) == 1 and dropped[0] in {roots[n] for n in MONOLINGUAL}
    name = next(n for n in MONOLINGUAL if roots[n] == dropped[0])
    pages = [(h, p) for (h, p) in web["servers"][name].hits if p != "/robots.txt"]
    assert len(pages) <= 2 + DETECT_PAGES  # root (and its redirect) + the pages it links
    out_dir = expanded["sites"][dropped[0]]["output_dir"]
    assert os.path.exists(os.path.join(out_dir, "pages.jsonl"))
    assert not os.path.exists(os.path.join(out_dir, "pairs.jsonl"))  # no alignment
    assert "'bitext/expand/dropped': 1" in expanded["log"]
    assert "'bitext/expand/added': 5" in expanded["log"]


def test_each_bilingual_site_aligned_in_its_own_dir(web, expanded):
    db = json.loads((expanded["out"] / "patterns-db.json").read_text())
    for name in BILINGUAL:
        site = web["sites"][name]
        result = expanded["sites"][web["roots"][name]]
        assert result["bilingual"] and result["credibility"] > 0.5
        assert web["roots"][name] in db["sites"]
        pairs = read_jsonl(os.path.join(result["output_dir"], "pairs.jsonl"))
        gold = set(site.gold_pairs)
        found = {(p["url_1"], p["url_2"]) for p in pairs}
        assert found, name
        assert len(found & gold) / len(found) >= 0.9, (name, sorted(found - gold))
        assert all(site_url.startswith(web["roots"][name]) for pair in found for site_url in pair)
        for f in ("pages.sqlite", "pages.warc.gz", "patterns.json", "stats.json", "report.html"):
            assert os.path.exists(os.path.join(result["output_dir"], f)), (name, f)


def test_expand_command_reproduces_the_rankings(web, expanded, tmp_path):
    out = expanded["out"]
    ranking = tmp_path / "ranking.jsonl"
    scrapy("expand", str(out), "--top-k", "5", "-o", str(ranking),
           "--pattern-db", str(out / "patterns-db.json"))
    rows = read_jsonl(ranking)
    last = expanded["by_round"][3]
    assert [(r["site"], r["rank"]) for r in rows] == [(s, r["rank"]) for s, r in last.items()]
    for row in rows:
        assert row["sum_weighted_pagerank"] == pytest.approx(
            last[row["site"]]["sum_weighted_pagerank"])
    # From the two seeds' own dirs (bitext-style run dirs): round 1's ranking again.
    seed_dirs = [expanded["sites"][web["roots"][n]]["output_dir"] for n in ("alpha", "bravo")]
    for criterion in ("linkout", "pagerank", "weighted_pagerank"):
        proc = scrapy("expand", *seed_dirs, "--top-k", "0", "--criterion", criterion)
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        assert {r["site"] for r in rows[:2]} == {web["roots"]["charlie"], web["roots"]["delta"]}
    first = expanded["by_round"][1]
    assert [r["site"] for r in rows] == sorted(first, key=lambda s: first[s]["rank"])


def test_later_rounds_rescue_weak_keys(tmp_path):
    """A site crawled in round 1 rescues its weak URL pattern with the global credibility
    the seeds gave it in round 0 ([Zhang 2013 §2.1]: C(p) over every site crawled so far)."""
    specs = {"strong1": dict(n_pairs=6), "strong2": dict(n_pairs=6),
             # Mostly untranslated: its <en, fr> pattern pairs ~23% of its pages.
             "weak": dict(n_pairs=2, untranslated_fraction=20)}
    sites = {name: generate_site(SiteSpec(scheme="prefix", third_lang=None,
                                          host=f"{name}.localhost", seed=i, **kw), free_port())
             for i, (name, kw) in enumerate(specs.items())}
    roots = {name: f"http://{name}.localhost:{s.port}" for name, s in sites.items()}
    add_links(sites["strong1"], [roots["strong2"] + "/", roots["weak"] + "/"])
    add_links(sites["strong2"], [roots["strong1"] + "/", roots["weak"] + "/"])
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{roots['strong1']}/\n{roots['strong2']}/\n")
    args = ["crawl", "expand", "-a", f"seeds={seeds}", "-a", "langs=en,fr", "-a", "rounds=1",
            "-a", "top_k=1", "-s", f"BITEXT_OUTPUT_DIR={tmp_path}",
            "-s", f"BITEXT_PATTERN_DB={tmp_path}/patterns-db.json",
            # C(p, w) > 0.3 locally, or C(p) > 30 over the sites crawled before.
            "-s", "BITEXT_PATTERN_LOCAL_THRESHOLD=0.3", "-s", "BITEXT_PATTERN_RESCUE_THRESHOLD=30"]
    for key, value in FAST_CRAWL.items():
        args += ["-s", f"{key}={value}"]
    servers = [serve_site(s, s.port).start() for s in sites.values()]
    try:
        scrapy(*args)
    finally:
        for server in servers:
            server.shutdown()
    results = {r["site"]: r for r in read_jsonl(tmp_path / "sites.jsonl")}
    weak = results[roots["weak"]]
    assert weak["round"] == 1 and weak["bilingual"]
    assert 0 < weak["credibility"] < 0.3
    report = json.loads(open(os.path.join(weak["output_dir"], "patterns.json")).read())
    (by_pair,) = report.values()
    pattern = next(p for p in by_pair["en-fr"]["patterns"] if p["id"] == "en:en|fr:fr")
    assert pattern["rescued"] and pattern["credible"] and pattern["global_credibility"] > 30
    stats = json.loads(open(os.path.join(weak["output_dir"], "stats.json")).read())
    found = stats["align"]["bitext/align/en-fr/url_pattern_pairs"]
    assert found == len(sites["weak"].gold_pairs)
    for name in ("strong1", "strong2"):
        assert results[roots[name]]["credibility"] > 0.3
