"""The real sites of ``../shared/data`` as page records with their golds, and the stage
ablation over them (``bench/bench_align.py --ablation`` and its test).

Records are built by the crawl's own code (fastText included) from the files, without a
network; a directory URL (``/en/docs/``) redirects to its ``index.html`` as the server
answers it. Nothing here is tuned to a site: each loader only says where the files are.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bitextcrawl.demo.records import directory_records
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold

# Stages in the order the pipeline uses them; the ablation adds them one at a time.
CUMULATIVE = ("url_pattern", "hreflang", "entrance", "parallel_link", "structure", "content",
              "anchors", "ets")


@dataclass
class RealSite:
    name: str
    pages: list
    gold: list
    langs: tuple
    redirects: dict = field(default_factory=dict)
    silver: bool = False          # the gold holds only the pairs it is sure of (WET)


def identifier():
    """fastText as the crawl's middleware calls it (declarations trusted once proven)."""
    lid, agreement = LanguageIdentifier(), DeclarationAgreement()
    return lambda text, html_lang, cl: lid.identify(text, html_lang, cl, agreement)


def directory_index_redirects(pages) -> dict:
    """``…/docs/`` -> ``…/docs/index.html``: what a web server answers for a folder."""
    return {p.url[: -len("index.html")]: p.url for p in pages if p.url.endswith("/index.html")}


def wet(data: Path) -> RealSite:
    pages = directory_records(data / "wet", "http://wet.test", identifier())
    gold = read_gold(data / "wet-gold.tsv", base="http://wet.test/")
    return RealSite("WET en-fr", pages, gold, ("en", "fr"), silver=True)


def nginx(data: Path, code: str = "ru", lang: str = "ru") -> RealSite:
    pages = directory_records(data / "nginx" / "site", "http://nginx.test", identifier())
    gold = read_gold(data / "nginx" / "gold" / f"en-{code}.tsv", base="http://nginx.test/")
    return RealSite(f"nginx en-{code}", pages, gold, ("en", lang),
                    redirects=directory_index_redirects(pages))


def nginx_opaque(data: Path, workdir: str | None = None) -> RealSite:
    """The opaque variant written by the data's own ``make_opaque.py`` into a temp folder."""
    out = Path(workdir or tempfile.mkdtemp(prefix="nginx-opaque-"))
    subprocess.run([sys.executable, str(data / "nginx" / "make_opaque.py"),
                    str(data / "nginx" / "site"), str(data / "nginx" / "gold" / "en-ru.tsv"),
                    str(out)], check=True, capture_output=True, timeout=300)
    pages = directory_records(out / "site", "http://nginx.test", identifier())
    gold = read_gold(out / "gold.tsv", base="http://nginx.test/")
    return RealSite("nginx opaque en-ru", pages, gold, ("en", "ru"),
                    redirects=directory_index_redirects(pages))


def lett(data: Path) -> RealSite:
    """The WMT16 lett file; its ``expected`` pairs are what Bitextor outputs, not a human gold."""
    from bitextcrawl.formats.lett import iter_lett_pages

    pages = list(iter_lett_pages(data / "lett" / "v2.lett.gz", identify=identifier()))
    gold = read_gold(data / "lett" / "expected")
    return RealSite("lett en-de (Bitextor's output)", pages, gold, ("en", "de"))


def score(site: RealSite, stages: tuple) -> float:
    result = align_site(site.pages, AlignConfig(langs=site.langs, stages=stages),
                        redirects=site.redirects)
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    if site.silver:
        return evaluate_silver(site.gold, pairs)["f1"]
    return evaluate(site.gold, pairs, directory_index="index.html")["f1"]


def cumulative_ablation(site: RealSite) -> list[tuple[str, float]]:
    """F1 as the stages are added one at a time, in pipeline order."""
    return [(stage, score(site, CUMULATIVE[: i + 1])) for i, stage in enumerate(CUMULATIVE)]
