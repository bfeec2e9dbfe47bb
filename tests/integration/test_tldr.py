"""Crawl the real tldr-pages site (../shared/data/tldr) and the opaque variants of tldr and
WET over loopback, as a user would, and score ``pairs.jsonl`` against the golds.

- plain tldr from ``/en/``, langs en,fr (fr pages carry a switch and ``hreflang``) and
  en,ja (ja pages carry neither: URL pattern and content alone);
- opaque tldr en-fr and en-ja (the data's ``make_opaque.py``: the other language's pages
  under ``/p/<hash>.html``, switches and alternates to them removed) from ``/en/``;
- opaque WET (``bench/make_wet_opaque.py``: French pages under ``/p/<hash>.html``, no
  toggles, no ``hreflang``) from ``/index-en.html``, langs en,fr.

The tldr golds list command pages only: each language's home page and platform indexes are
real translations the gold omits, so tldr is scored on the judged pairs (``evaluate_silver``:
a pair is judged where it touches a gold URL), as WET is (its gold holds only the pairs whose
toggles agree). One crawl per fixture, shared by its tests; each crawl is bounded by
``CLOSESPIDER_TIMEOUT`` and the subprocess by a timeout.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from lxml import html as lxml_html

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold, read_pairs_jsonl
from tests.conftest import PROJECT_ROOT, SHARED_DATA, run_crawl

pytestmark = pytest.mark.integration

TLDR = SHARED_DATA / "tldr"
WET = SHARED_DATA / "wet"
MAKE_WET_OPAQUE = PROJECT_ROOT / "bench" / "make_wet_opaque.py"
# Each crawl stops fetching after CLOSESPIDER_TIMEOUT seconds and aligns what it has (about
# three times the fetching time measured on a 2-core machine: tldr 25-45 s of fetching, WET
# opaque 6 s; the whole crawls 32-57 s and 16 s, the file 3-4 minutes; on a machine whose
# cores other jobs share, an opaque tldr crawl stopped at 80 s had fetched 833 pages, 14
# pairs short); the subprocess is killed after CRAWL_TIMEOUT, so a hung crawl fails instead
# of hanging the run.
TLDR_BOUND = {"CLOSESPIDER_TIMEOUT": "150"}
WET_BOUND = {"CLOSESPIDER_TIMEOUT": "40"}
CRAWL_TIMEOUT = 330


def needs(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"real data not found at {path} (../shared/data beside the project)")


def crawl(server, start: str, out: Path, langs: str, gold: list, silver_found: bool,
          bound: dict) -> dict:
    """Crawl from ``start``; the scores against ``gold`` (judged pairs), the plain scores,
    the responses, the wall time, the stats and the log. ``silver_found``: a gold pair
    counts only where both its pages were crawled (WET: some pages no link reaches)."""
    t = time.monotonic()
    proc = run_crawl(f"{server.url}{start}", out, langs=langs, timeout=CRAWL_TIMEOUT,
                     settings=bound)
    wall = time.monotonic() - t
    lang_1, lang_2 = langs.split(",")
    predicted = read_pairs_jsonl(out / "pairs.jsonl", langs=(lang_1, lang_2))
    crawled = None
    if silver_found:
        crawled = {json.loads(line)["url"] for line in (out / "pages.jsonl").open(encoding="utf-8")}
    stats = json.loads((out / "stats.json").read_text())["crawl"]
    result = {"silver": evaluate_silver(gold, predicted, found_pages=crawled),
              "strict": evaluate(gold, predicted, directory_index="index.html"),
              "responses": stats.get("downloader/response_count", 0),
              "wall_s": round(wall, 1), "out": out, "stats": stats, "log": proc.stderr}
    s = result["silver"]
    print(f"{start} {langs}: F1 {s['f1']:.4f} (P {s['precision']:.4f} of {s['judged']} judged, "
          f"R {s['recall']:.4f} of {s['findable']}), {result['responses']} responses, "
          f"{result['wall_s']} s")
    return result


# -- plain tldr --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tldr_server():
    needs(TLDR / "site")
    with serve_directory(str(TLDR / "site")) as server:
        yield server


@pytest.fixture(scope="module", params=["fr", "ja"])
def tldr_plain(request, tldr_server, tmp_path_factory):
    lang = request.param
    gold = read_gold(TLDR / "gold" / f"en-{lang}.tsv", base=tldr_server.url + "/")
    return crawl(tldr_server, "/en/", tmp_path_factory.mktemp(f"tldr-{lang}"), f"en,{lang}",
                 gold, silver_found=False, bound=TLDR_BOUND) | {"lang": lang}


# en-fr: F1 1.000 (R 1.000: 228 of 228), about 490 responses; en-ja: F1 1.000 (64 of 64),
# 155-180 responses. /en/common/ar.html and bg.html are commands, not language switches.
def test_plain_tldr_pairs(tldr_plain):
    assert tldr_plain["silver"]["f1"] >= 0.99, (tldr_plain["lang"], tldr_plain["silver"])


def test_plain_tldr_walks_the_small_side(tldr_plain):
    """The translation is the small side (228 and 64 of 1,010 pages): English pages whose
    counterpart is no fetched page wait and, after probes that reveal nothing, stay
    unfetched. (Every English page fetched: 5.5 and 17 responses a pair.)"""
    responses, found = tldr_plain["responses"], tldr_plain["strict"]["tp"]
    limit = 2.5 if tldr_plain["lang"] == "fr" else 3.0   # en-ja: 2.4-2.8 measured
    assert found and responses / found <= limit, (tldr_plain["lang"], responses, found)
    assert tldr_plain["stats"].get("bitext/focus/small_side/left", 0) > 500


def test_plain_tldr_stays_in_the_wanted_languages(tldr_plain):
    """Every home page links the eight other languages' homes: none is paired, few stored."""
    lang = tldr_plain["lang"]
    for line in (tldr_plain["out"] / "pairs.jsonl").open(encoding="utf-8"):
        pair = json.loads(line)
        assert {pair["lang_1"], pair["lang_2"]} == {"en", lang}, pair
    stored = {k.rsplit("/", 1)[1]: v for k, v in tldr_plain["stats"].items()
              if k.startswith("bitext/pages/stored/")}
    assert sum(n for code, n in stored.items() if code not in ("en", lang)) <= 10, stored


def test_plain_tldr_crawl_logs_no_error(tldr_plain):
    errors = [line[:300] for line in tldr_plain["log"].splitlines() if " ERROR: " in line]
    assert not errors, errors


# -- opaque tldr -------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["fr", "ja"])
def tldr_opaque(request, tmp_path_factory):
    needs(TLDR / "make_opaque.py")
    lang = request.param
    work = tmp_path_factory.mktemp(f"tldr-opaque-{lang}")
    subprocess.run([sys.executable, str(TLDR / "make_opaque.py"), str(TLDR / "site"),
                    str(TLDR / "gold" / f"en-{lang}.tsv"), str(work / "opaque")],
                   check=True, capture_output=True, timeout=300)
    with serve_directory(str(work / "opaque" / "site")) as server:
        gold = read_gold(work / "opaque" / "gold.tsv", base=server.url + "/")
        return crawl(server, "/en/", work / "out", f"en,{lang}", gold,
                     silver_found=False, bound=TLDR_BOUND) | {"lang": lang}


# en-fr: F1 0.989 (224 of 228), about 1,240 responses; en-ja: F1 0.992 (63 of 64).
def test_opaque_tldr_pairs(tldr_opaque):
    """No URL evidence and no switch into the moved side: structure, content, anchors."""
    assert tldr_opaque["silver"]["f1"] >= 0.97, (tldr_opaque["lang"], tldr_opaque["silver"])


# -- opaque WET --------------------------------------------------------------------------

def reachable(root: Path, start: str, skip_toggles: bool = False) -> set[str]:
    """Paths of the HTML files reachable from ``start`` by ``<a>``/``<area>`` links;
    ``skip_toggles``: not through WET's language toggle (``<section id="wb-lng">``)."""
    links = ("//a[not(ancestor::section[@id='wb-lng'])]/@href | //area/@href" if skip_toggles
             else "//a/@href | //area/@href")
    seen, queue = {start}, deque([start])
    while queue:
        path = queue.popleft()
        try:
            doc = lxml_html.fromstring((root / path.lstrip("/")).read_bytes())
        except (OSError, ValueError):
            continue
        for href in doc.xpath(links):
            parts = urlsplit(urljoin(f"http://h{path}", href.strip()))
            target = parts.path
            if parts.netloc == "h" and target.endswith(".html") and target not in seen \
                    and (root / target.lstrip("/")).is_file():
                seen.add(target)
                queue.append(target)
    return seen


@pytest.fixture(scope="module")
def wet_opaque_site(tmp_path_factory):
    needs(WET)
    work = tmp_path_factory.mktemp("wet-opaque")
    subprocess.run([sys.executable, str(MAKE_WET_OPAQUE), str(WET), str(WET.parent / "wet-gold.tsv"),
                    str(work)], check=True, capture_output=True, timeout=300)
    return work


def test_wet_opaque_variant_keeps_the_french_side_reachable(wet_opaque_site):
    """Every French page moved, nothing left of the toggles and alternates, and every French
    page that a plain link (not a toggle) reaches from /index-en.html on the real site still
    reached on the opaque one. (23 French pages, AJAX fragments and orphans, are reached by
    no link on the real site either; load-failure-fr.html only by its English page's toggle.)"""
    site = wet_opaque_site / "site"
    french = {"/" + p.relative_to(WET).as_posix() for p in WET.glob("**/*-fr.html")}

    def opaque(path):
        return "/p/%s.html" % hashlib.sha1(path.encode()).hexdigest()[:12]

    moved = {"/" + p.relative_to(site).as_posix() for p in site.glob("p/*.html")}
    assert moved == {opaque(p) for p in french}
    assert not list(site.glob("**/*-fr.html"))
    for path in site.glob("**/*.html"):
        page = path.read_text(encoding="utf-8")
        assert 'id="wb-lng"' not in page, path
        assert '<link rel="alternate"' not in page, path
    expected = {opaque(p) if p in french else p
                for p in reachable(WET, "/index-en.html", skip_toggles=True)}
    found = reachable(site, "/index-en.html")
    assert expected <= found, sorted(expected - found)[:10]
    reached = moved & found
    print(f"moved French pages reachable from /index-en.html: {len(reached)} of {len(moved)}")
    assert len(reached) >= 255
    gold = [line.split("\t") for line in (wet_opaque_site / "gold.tsv").read_text().splitlines()]
    assert len(gold) == 250 and all(("/" + fr) in moved for _, fr in gold)


@pytest.fixture(scope="module")
def wet_opaque(wet_opaque_site):
    with serve_directory(str(wet_opaque_site / "site")) as server:
        gold = read_gold(wet_opaque_site / "gold.tsv", base=server.url + "/")
        return crawl(server, "/index-en.html", wet_opaque_site / "out", "en,fr", gold,
                     silver_found=True, bound=WET_BOUND)


def test_wet_opaque_pairs(wet_opaque):
    """French URLs say nothing and no toggle or hreflang pairs anything. F1 varies with
    the order answers come back in (which pages the focus fetches before it holds): 0.958
    to 0.975 over seventeen crawls, 0.958 in ten of them."""
    assert wet_opaque["silver"]["f1"] >= 0.95, wet_opaque["silver"]
