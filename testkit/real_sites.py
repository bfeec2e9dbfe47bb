"""The real sites of ``../shared/data`` as page records with their golds, and the stage
ablation over them (``bench/bench_align.py --ablation`` and its test).

Records are built by the crawl's own code (fastText included) from the files, without a
network; a directory URL (``/en/docs/``) redirects to its ``index.html`` as the server
answers it. Nothing here is tuned to a site: each loader only says where the files are.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bitextcrawl.formats.lett import iter_lett_pages
from bitextcrawl.pages.language import DeclarationAgreement, LanguageIdentifier
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate, evaluate_silver, read_gold
from testkit.records import directory_records
from testkit.reorder import reordered_copy

# The WET opaque variant's maker (benchmark scaffolding, beside bench_align.py).
MAKE_WET_OPAQUE = Path(__file__).resolve().parents[1] / "bench" / "make_wet_opaque.py"

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
    silver: bool = False          # the gold holds only the pairs it is sure of (WET, tldr)
    unpaired: frozenset = frozenset()   # pages with no counterpart: any pair of one is wrong


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


def _nginx_opaque_files(data: Path, out: Path) -> Path:
    """``out/site`` and ``out/gold.tsv`` written by the data's own ``make_opaque.py``."""
    subprocess.run([sys.executable, str(data / "nginx" / "make_opaque.py"),
                    str(data / "nginx" / "site"), str(data / "nginx" / "gold" / "en-ru.tsv"),
                    str(out)], check=True, capture_output=True, timeout=300)
    return out


def nginx_opaque(data: Path, workdir: str | None = None) -> RealSite:
    """The opaque variant written by the data's own ``make_opaque.py`` into a temp folder."""
    out = _nginx_opaque_files(data, Path(workdir or tempfile.mkdtemp(prefix="nginx-opaque-")))
    pages = directory_records(out / "site", "http://nginx.test", identifier())
    gold = read_gold(out / "gold.tsv", base="http://nginx.test/")
    return RealSite("nginx opaque en-ru", pages, gold, ("en", "ru"),
                    redirects=directory_index_redirects(pages))


def _wet_opaque_files(data: Path, out: Path) -> Path:
    """``out/site`` and ``out/gold.tsv`` written by ``bench/make_wet_opaque.py``."""
    if not MAKE_WET_OPAQUE.is_file():
        raise FileNotFoundError(f"{MAKE_WET_OPAQUE} not found (a checkout of the project has it)")
    subprocess.run([sys.executable, str(MAKE_WET_OPAQUE), str(data / "wet"),
                    str(data / "wet-gold.tsv"), str(out)],
                   check=True, capture_output=True, timeout=300)
    return out


def wet_opaque(data: Path, workdir: str | None = None) -> RealSite:
    """WET with its French pages under ``/p/<hash>.html`` and no toggles or hreflang
    (``bench/make_wet_opaque.py``, written into a temp folder). Silver like WET's gold."""
    out = _wet_opaque_files(data, Path(workdir or tempfile.mkdtemp(prefix="wet-opaque-")))
    pages = directory_records(out / "site", "http://wet.test", identifier())
    gold = read_gold(out / "gold.tsv", base="http://wet.test/")
    return RealSite("WET opaque en-fr", pages, gold, ("en", "fr"), silver=True)


# tldr: the golds list command pages only (/XX/<platform>/<cmd>.html). Each language's home
# page and two platform indexes are real translations of the English ones that the gold
# omits, so a pair of them would count as a false positive against the plain gold: tldr is
# scored on the judged pairs only (``evaluate_silver``), hence ``silver=True``.
def _tldr_records(root: Path, folders: tuple) -> list:
    """Records of the HTML files under ``root/<folder>/`` for each folder, and at the root."""
    pages = directory_records(root, "http://tldr.test", identifier(), pattern="*.html")
    for folder in folders:
        pages += directory_records(root / folder, f"http://tldr.test/{folder}", identifier())
    return pages


def tldr(data: Path, lang: str = "fr", code: str | None = None) -> RealSite:
    """English and one other language of the tldr site (``code``: its folder and gold,
    e.g. ``pt-br``; ``lang``: fastText's code, e.g. ``pt``), plus the root's pages."""
    code = code or lang
    pages = _tldr_records(data / "tldr" / "site", ("en", code))
    gold = read_gold(data / "tldr" / "gold" / f"en-{code}.tsv", base="http://tldr.test/")
    return RealSite(f"tldr en-{code}", pages, gold, ("en", lang),
                    redirects=directory_index_redirects(pages), silver=True)


def _tldr_opaque_files(data: Path, code: str, out: Path, site: Path | None = None) -> Path:
    """``out/site`` and ``out/gold.tsv`` written by the data's own ``make_opaque.py`` (from
    ``site``, the data's tldr site by default)."""
    subprocess.run([sys.executable, str(data / "tldr" / "make_opaque.py"),
                    str(site or data / "tldr" / "site"),
                    str(data / "tldr" / "gold" / f"en-{code}.tsv"), str(out)],
                   check=True, capture_output=True, timeout=300)
    return out


def tldr_opaque(data: Path, lang: str = "fr", code: str | None = None,
                workdir: str | None = None) -> RealSite:
    """The tldr site with the other language's pages (home and indexes too) under
    ``/p/<hash>.html``, switches and alternates to them removed: the data's own
    ``make_opaque.py`` into a temp folder. Records of the English pages, the moved ones
    and the root's; judged pairs only, as ``tldr``."""
    code = code or lang
    out = _tldr_opaque_files(data, code,
                             Path(workdir or tempfile.mkdtemp(prefix=f"tldr-opaque-{code}-")))
    pages = _tldr_records(out / "site", ("en", "p"))
    gold = read_gold(out / "gold.tsv", base="http://tldr.test/")
    return RealSite(f"tldr opaque en-{code}", pages, gold, ("en", lang),
                    redirects=directory_index_redirects(pages), silver=True)


# Reordered variants: the second language's pages with their link lists (sidebars, menus,
# index lists) in that language's own order (``testkit/reorder.py``), the English pages and
# the golds as they are. Each is a copy of the plain or opaque site's folder, in a temp folder.
def _in_folder(folder: str, key: str):
    """``which`` of ``reordered_copy``: ``key`` for the pages under ``folder/``."""
    return lambda rel: key if rel.startswith(folder + "/") else None


def _reordered(src: Path, out: Path, which, host: str, gold: Path, name: str, langs: tuple,
               folders: tuple | None = None, silver: bool = False,
               index_redirects: bool = True) -> RealSite:
    """The site folder ``src`` copied to ``out/site`` with ``which``'s pages' lists
    reordered, as records (``folders``: tldr's layout, records per language folder);
    ``index_redirects`` as the plain site's loader has them."""
    reordered_copy(src, out / "site", which)
    pages = (_tldr_records(out / "site", folders) if folders
             else directory_records(out / "site", host, identifier()))
    redirects = directory_index_redirects(pages) if index_redirects else {}
    return RealSite(name, pages, read_gold(gold, base=host + "/"), langs,
                    redirects=redirects, silver=silver)


def wet_reordered(data: Path, workdir: str | None = None) -> RealSite:
    out = Path(workdir or tempfile.mkdtemp(prefix="wet-reordered-"))
    return _reordered(data / "wet", out, lambda rel: "fr" if rel.endswith("-fr.html") else None,
                      "http://wet.test", data / "wet-gold.tsv", "WET en-fr reordered",
                      ("en", "fr"), silver=True, index_redirects=False)


def wet_opaque_reordered(data: Path, workdir: str | None = None) -> RealSite:
    out = Path(workdir or tempfile.mkdtemp(prefix="wet-opaque-reordered-"))
    made = _wet_opaque_files(data, out / "opaque")
    return _reordered(made / "site", out, _in_folder("p", "fr"), "http://wet.test",
                      made / "gold.tsv", "WET opaque en-fr reordered", ("en", "fr"), silver=True,
                      index_redirects=False)


def nginx_reordered(data: Path, workdir: str | None = None) -> RealSite:
    out = Path(workdir or tempfile.mkdtemp(prefix="nginx-reordered-"))
    return _reordered(data / "nginx" / "site", out, _in_folder("ru", "ru"), "http://nginx.test",
                      data / "nginx" / "gold" / "en-ru.tsv", "nginx en-ru reordered",
                      ("en", "ru"))


def nginx_opaque_reordered(data: Path, workdir: str | None = None) -> RealSite:
    out = Path(workdir or tempfile.mkdtemp(prefix="nginx-opaque-reordered-"))
    made = _nginx_opaque_files(data, out / "opaque")
    return _reordered(made / "site", out, _in_folder("p", "ru"), "http://nginx.test",
                      made / "gold.tsv", "nginx opaque en-ru reordered", ("en", "ru"))


def tldr_reordered(data: Path, lang: str = "fr", code: str | None = None,
                   workdir: str | None = None) -> RealSite:
    code = code or lang
    out = Path(workdir or tempfile.mkdtemp(prefix=f"tldr-reordered-{code}-"))
    return _reordered(data / "tldr" / "site", out, _in_folder(code, code), "http://tldr.test",
                      data / "tldr" / "gold" / f"en-{code}.tsv", f"tldr en-{code} reordered",
                      ("en", lang), folders=("en", code), silver=True)


def tldr_opaque_reordered(data: Path, lang: str = "fr", code: str | None = None,
                          workdir: str | None = None) -> RealSite:
    code = code or lang
    out = Path(workdir or tempfile.mkdtemp(prefix=f"tldr-opaque-reordered-{code}-"))
    made = _tldr_opaque_files(data, code, out / "opaque")
    return _reordered(made / "site", out, _in_folder("p", code), "http://tldr.test",
                      made / "gold.tsv", f"tldr opaque en-{code} reordered", ("en", lang),
                      folders=("en", "p"), silver=True)


# Copies variants: one in COPY_SHARE of the English command pages that the second language
# does not translate is served under that language's URL all the same, as a static site
# generator's fallback serves it: the English article inside the template of a translated
# page of the same platform, under a notice in that language, without alternates or a
# language switch. The copies and their originals pair nothing.
COPY_SHARE = 4
COPY_NOTICES = {"fr": "Cette page n'a pas encore été traduite.",
                "ja": "このページはまだ翻訳されていません。",
                "ru": "Эта страница ещё не переведена."}
_ARTICLE = re.compile(r'<article class="command">.*?</article>', re.S)
_TITLE = re.compile(r"<title>([^<—]*?) — ([^<]*)</title>")
_ALTERNATES = re.compile(r'<link rel="alternate"[^>]*>\n?')
_SWITCH = re.compile(r'<nav class="lang-switch".*?</nav>\n?', re.S)


def _tldr_with_copies(src: Path, code: str, gold: Path, out: Path) -> list[str]:
    """``src`` copied to ``out`` with copies of untranslated English pages under
    ``/<code>/`` (one in ``COPY_SHARE`` by a hash of the path); the originals' paths."""
    shutil.copytree(src, out)
    originals = []
    translated = {line.split("\t")[0] for line in gold.read_text(encoding="utf-8").splitlines()
                  if line.strip()}
    for english in sorted((src / "en").glob("*/*.html")):
        rel = english.relative_to(src / "en")
        path = f"/en/{rel.as_posix()}"
        if (path in translated or english.name == "index.html"
                or int(hashlib.sha1(path.encode()).hexdigest(), 16) % COPY_SHARE):
            continue
        # the template: the next translated page of the platform in name order
        own = sorted(p for p in (src / code / rel.parent).glob("*.html") if p.name != "index.html")
        if not own:
            continue
        template = next((p for p in own if p.name > rel.name), own[-1]).read_text(encoding="utf-8")
        page = english.read_text(encoding="utf-8")
        article = _ARTICLE.search(page).group(0)
        name, _ = _TITLE.search(page).groups()
        notice = f'<p class="notice">{COPY_NOTICES[code]}</p>\n'
        copy = _ARTICLE.sub(lambda _: notice + article, template, count=1)
        copy = _TITLE.sub(lambda m: f"<title>{name} — {m.group(2)}</title>", copy, count=1)
        copy = _SWITCH.sub("", _ALTERNATES.sub("", copy))
        (out / code / rel).write_text(copy, encoding="utf-8")
        originals.append(path)
    return originals


def _copies_of(pages, originals: list[str]) -> frozenset:
    """The copies (the pages with the notice) and their originals, by URL."""
    notices = tuple(COPY_NOTICES.values())
    copies = {p.url for p in pages if p.html and any(n in p.html for n in notices)}
    return frozenset(copies | {"http://tldr.test" + path for path in originals})


def tldr_copies(data: Path, lang: str = "fr", code: str | None = None,
                workdir: str | None = None, opaque: bool = False) -> RealSite:
    """``tldr`` with copies of untranslated pages under the other language's URLs;
    ``opaque``: then made opaque by the data's own ``make_opaque.py``."""
    code = code or lang
    out = Path(workdir or tempfile.mkdtemp(prefix=f"tldr-copies-{code}-"))
    gold = data / "tldr" / "gold" / f"en-{code}.tsv"
    originals = _tldr_with_copies(data / "tldr" / "site", code, gold, out / "copies")
    site, folders = out / "copies", ("en", code)
    if opaque:
        _tldr_opaque_files(data, code, out / "opaque", site)
        site, folders, gold = out / "opaque" / "site", ("en", "p"), out / "opaque" / "gold.tsv"
    pages = _tldr_records(site, folders)
    return RealSite(f"tldr {'opaque ' if opaque else ''}en-{code} copies", pages,
                    read_gold(gold, base="http://tldr.test/"), ("en", lang),
                    redirects=directory_index_redirects(pages), silver=True,
                    unpaired=_copies_of(pages, originals))


def lett(data: Path) -> RealSite:
    """The WMT16 lett file; its ``expected`` pairs are what Bitextor outputs, not a human gold."""
    pages = list(iter_lett_pages(data / "lett" / "v2.lett.gz", identify=identifier()))
    gold = read_gold(data / "lett" / "expected")
    # (Bitextor's pairs are a silver standard: pairs outside it are not judged)
    return RealSite("lett en-de (Bitextor's output)", pages, gold, ("en", "de"), silver=True)


def score(site: RealSite, stages: tuple) -> float:
    result = align_site(site.pages, AlignConfig(langs=site.langs, stages=stages),
                        redirects=site.redirects)
    pairs = [(p.url_1, p.url_2) for p in result.pairs]
    if site.silver:
        return evaluate_silver(site.gold, pairs, unpaired=site.unpaired)["f1"]
    return evaluate(site.gold, pairs, directory_index="index.html")["f1"]


def cumulative_ablation(site: RealSite) -> list[tuple[str, float]]:
    """F1 as the stages are added one at a time, in pipeline order."""
    return [(stage, score(site, CUMULATIVE[: i + 1])) for i, stage in enumerate(CUMULATIVE)]


def leave_one_out(site: RealSite, full: float | None = None) -> list[tuple[str, float]]:
    """F1 with every stage (``("all", f1)`` first; ``full`` if known already), then with
    each single stage left out."""
    return [("all", score(site, CUMULATIVE) if full is None else full)] + [
        (stage, score(site, tuple(s for s in CUMULATIVE if s != stage))) for stage in CUMULATIVE]


TLDR_CODES = ("fr", "ja", "ru")

# Every real site, plain and opaque, each also with its second language's lists reordered
# (``<name>-reordered``), by the name ``bench_align.py --ablation --sites`` takes; each with
# the folder of ../shared/data it needs.
SITES = {
    "wet": (wet, "wet"),
    "wet-opaque": (wet_opaque, "wet"),
    "nginx": (nginx, "nginx"),
    "nginx-opaque": (nginx_opaque, "nginx"),
    "lett": (lett, "lett"),
    **{f"tldr-{code}": (functools.partial(tldr, lang=code), "tldr") for code in TLDR_CODES},
    **{f"tldr-opaque-{code}": (functools.partial(tldr_opaque, lang=code), "tldr")
       for code in TLDR_CODES},
    "wet-reordered": (wet_reordered, "wet"),
    "wet-opaque-reordered": (wet_opaque_reordered, "wet"),
    "nginx-reordered": (nginx_reordered, "nginx"),
    "nginx-opaque-reordered": (nginx_opaque_reordered, "nginx"),
    **{f"tldr-{code}-reordered": (functools.partial(tldr_reordered, lang=code), "tldr")
       for code in TLDR_CODES},
    **{f"tldr-opaque-{code}-reordered": (functools.partial(tldr_opaque_reordered, lang=code),
                                         "tldr") for code in TLDR_CODES},
    **{f"tldr-{code}-copies": (functools.partial(tldr_copies, lang=code), "tldr")
       for code in TLDR_CODES},
    **{f"tldr-opaque-{code}-copies": (functools.partial(tldr_copies, lang=code, opaque=True),
                                      "tldr") for code in TLDR_CODES},
}

