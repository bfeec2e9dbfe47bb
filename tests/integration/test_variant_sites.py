"""Language variants end to end: ``langs=en,pt-br`` on the real tldr site (its Brazilian
Portuguese side), and a crawl of a generated site serving zh-cn and zh-tw side by side
that asks for ``en,zh-tw`` and never pairs a zh-cn page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.pages.urls import page_name
from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate, read_gold
from testkit.real_sites import identifier
from testkit.records import directory_records
from tests.conftest import PROJECT_ROOT, SHARED_DATA, read_jsonl, read_pages, run_crawl

pytestmark = pytest.mark.integration

TLDR = SHARED_DATA / "tldr"


# ------------------------------------------------------------------ tldr en–pt-br

@pytest.fixture(scope="module")
def tldr_pages_jsonl(tmp_path_factory) -> Path:
    """Records of tldr's en and pt-br sides made by the crawl's own code (fastText labels
    the pt-br pages ``pt``), as a ``pages.jsonl``."""
    if not (TLDR / "site" / "pt-br").is_dir():
        pytest.skip(f"real data not found at {TLDR} (../shared/data beside the project)")
    ident = identifier()
    pages = []
    for lang in ("en", "pt-br"):
        pages += directory_records(TLDR / "site", "http://tldr.test", ident,
                                   pattern=f"{lang}/**/*.html")
    assert {p.lang for p in pages if "/pt-br/" in p.url} == {"pt"}
    path = tmp_path_factory.mktemp("tldr") / "pages.jsonl"
    write_jsonl(str(path), (p.to_dict() for p in pages))
    return path


def scrapy_align(pages: Path, langs: str, out: Path, *extra: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "scrapy", "align", str(pages), "--langs", langs,
                           "-o", str(out), *extra], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert proc.returncode == 0, proc.stderr[-5000:]


def tldr_scores(out: Path) -> tuple[dict, list]:
    pairs = read_jsonl(out / "pairs.jsonl")
    gold = read_gold(TLDR / "gold" / "en-pt-br.tsv", base="http://tldr.test/")
    return evaluate(gold, [(p["url_1"], p["url_2"]) for p in pairs]), pairs


def test_tldr_en_pt_br_by_its_variant(tldr_pages_jsonl, tmp_path):
    """``scrapy align --langs en,pt-br``: the pages declare ``<html lang="pt-BR">`` under
    ``/pt-br/``; pairs come out as pt-br (measured: F1 0.994, 238 of 238 gold pairs, the
    3 others the home and platform index pages)."""
    scrapy_align(tldr_pages_jsonl, "en,pt-br", tmp_path)
    scores, pairs = tldr_scores(tmp_path)
    assert scores["f1"] >= 0.97, scores
    assert {(p["lang_1"], p["lang_2"]) for p in pairs} == {("en", "pt-br")}
    assert all("/pt-br/" in p["url_2"] for p in pairs)
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["align"]["bitext/align/lang_variant"] == 241   # 238 commands, home, 2 indexes
    # the sentence check reads pt-br as fastText's pt: rows are not dropped as a third language
    assert stats["align"]["bitext/bitext/sentence_pairs"] > 100
    assert stats["align"].get("bitext/bitext/dropped/third_lang", 0) < 10


def test_tldr_base_language_still_pairs(tldr_pages_jsonl, tmp_path):
    """``--langs en,pt`` pairs the same pages, labelled ``pt`` as without variants."""
    scrapy_align(tldr_pages_jsonl, "en,pt", tmp_path, "--no-bitext")
    scores, pairs = tldr_scores(tmp_path)
    assert scores["f1"] >= 0.97, scores
    assert {(p["lang_1"], p["lang_2"]) for p in pairs} == {("en", "pt")}


# ------------------------------------------------------------ a zh-cn / zh-tw site

# topic -> (English, simplified Chinese, traditional Chinese or None: no zh-tw page)
TOPICS = {
    "library": (
        "The city library is open from nine in the morning to eight in the evening. Children "
        "can borrow up to ten books at a time. Please return books before the due date.",
        "市图书馆每天上午九点开放，晚上八点关闭。儿童每次最多可以借十本书。请在到期日之前归还图书。",
        "市圖書館每天上午九點開放，晚上八點關閉。兒童每次最多可以借十本書。請在到期日之前歸還圖書。"),
    "bus": (
        "Buses to the airport leave every twenty minutes from the central station. A single "
        "ticket costs three dollars. Tickets can be bought from the driver or at the machine.",
        "前往机场的公交车每二十分钟从中央车站发车一班。单程票价为三美元。车票可以向司机购买，也可以在售票机购买。",
        "前往機場的公車每二十分鐘從中央車站發車一班。單程票價為三美元。車票可以向司機購買，也可以在售票機購買。"),
    "recycling": (
        "Paper and glass are collected on Monday mornings. Plastic bottles should be rinsed "
        "before they are recycled. Large items are collected once a month.",
        "纸张和玻璃在每周一上午回收。塑料瓶在回收之前应该先冲洗干净。大件物品每个月回收一次。",
        "紙張和玻璃在每週一上午回收。塑膠瓶在回收之前應該先沖洗乾淨。大型物品每個月回收一次。"),
    "pool": (
        "The swimming pool is closed for cleaning on the first Tuesday of each month. "
        "Swimming lessons for adults start in September. Lockers are free for members.",
        "游泳池每月第一个星期二闭馆清洁。成人游泳课程将于九月开始。会员可以免费使用储物柜。",
        "游泳池每月第一個星期二閉館清潔。成人游泳課程將於九月開始。會員可以免費使用置物櫃。"),
    "museum": (
        "The history museum has a new exhibition about the old harbour. Guided tours take "
        "about one hour. Entry is free on Sunday afternoons.",
        "历史博物馆有一个关于旧港口的新展览。导览参观大约需要一个小时。星期日下午免费入场。",
        None),
    "park": (
        "The park near the river has a playground and a small cafe. Dogs must be kept on a "
        "lead. The gates are locked at sunset.",
        "河边的公园有一个游乐场和一家小咖啡馆。狗必须系上牵绳。日落时公园大门会上锁。",
        "河邊的公園有一個遊樂場和一家小咖啡館。狗必須繫上牽繩。日落時公園大門會上鎖。"),
}
HOME = ("City services: opening hours, transport and leisure for residents and visitors.",
        "城市服务：为居民和游客提供的开放时间、交通和休闲信息。",
        "城市服務：為居民和遊客提供的開放時間、交通和休閒資訊。")
TITLES = {"en": "City services", "zh-cn": "城市服务", "zh-tw": "城市服務"}
HTML_LANG = {"en": "en", "zh-cn": "zh-CN", "zh-tw": "zh-Hant-TW"}
HREFLANG = {"en": "en", "zh-cn": "zh-CN", "zh-tw": "zh-TW"}
SWITCH = {"en": "English", "zh-cn": "简体中文", "zh-tw": "繁體中文"}
VARIANTS = ("en", "zh-cn", "zh-tw")


def page_path(variant: str, topic: str | None) -> str | None:
    """Where a page is: ``/en/bus.html``, ``/zh-cn/bus.html``; the zh-tw park page has an
    URL naming no variant (its ``<html lang="zh-Hant">`` and the others' hreflang do)."""
    if topic is None:
        return f"/{variant}/index.html"
    if variant == "zh-tw" and TOPICS[topic][2] is None:
        return None
    if variant == "zh-tw" and topic == "park":
        return "/chinese/park.html"
    return f"/{variant}/{topic}.html"


def write_variant_site(root: Path) -> None:
    for v, variant in enumerate(VARIANTS):
        for topic in (None, *TOPICS):
            path = page_path(variant, topic)
            if path is None:
                continue
            text = HOME[v] if topic is None else TOPICS[topic][v]
            others = [(o, page_path(o, topic)) for o in VARIANTS]
            others = [(o, p) for o, p in others if p is not None]
            head = "".join(f'<link rel="alternate" hreflang="{HREFLANG[o]}" href="{p}">'
                           for o, p in others)
            switch = " | ".join(f'<a href="{p}" hreflang="{HREFLANG[o]}">{SWITCH[o]}</a>'
                                for o, p in others if o != variant)
            menu = "".join(f'<li><a href="{page_path(variant, t) or page_path("zh-cn", t)}">'
                           f'{t}</a></li>' for t in TOPICS)
            sentences = "".join(f"<p>{s.strip()}</p>" for s in
                                text.replace("。", "。\n").replace(". ", ".\n").splitlines())
            lang = "zh-Hant" if path == "/chinese/park.html" else HTML_LANG[variant]
            html = (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
                    f"<title>{TITLES[variant]} - {topic or 'home'}</title>{head}</head><body>"
                    f'<nav class="lang">{switch}</nav><ul class="menu">{menu}</ul>'
                    f"<main><h1>{TITLES[variant]}</h1>{sentences}</main>"
                    f'<footer><a href="{page_path(variant, None)}">{TITLES[variant]}</a>'
                    f"</footer></body></html>\n")
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(html, encoding="utf-8")


def expected_pairs(base: str, variant: str) -> set[tuple[str, str]]:
    return {(base + page_path("en", t), base + page_path(variant, t))
            for t in (None, *TOPICS) if page_path(variant, t) is not None}


def test_crawl_two_variants_never_mixed(tmp_path):
    """``-a langs=en,zh-tw`` on a site with zh-cn and zh-tw pages (the museum page has a
    zh-cn translation only): the en–zh-tw pairs, labelled zh-tw, and no zh-cn page paired."""
    write_variant_site(tmp_path / "site")
    out = tmp_path / "out"
    with serve_directory(str(tmp_path / "site")) as server:
        run_crawl(f"{server.url}/en/index.html", out, langs="en,zh-tw", timeout=300)
        base = server.url
    pairs = read_jsonl(out / "pairs.jsonl")
    assert not [p for p in pairs if "/zh-cn/" in p["url_1"] + p["url_2"]], pairs
    assert {(p["lang_1"], p["lang_2"]) for p in pairs} == {("en", "zh-tw")}
    # (the homes, downloaded as /en/index.html and /zh-tw/index.html, are named /en/ and
    # /zh-tw/: pages.urls.page_name)
    assert {(p["url_1"], p["url_2"]) for p in pairs} == {
        (page_name(a), page_name(b)) for a, b in expected_pairs(base, "zh-tw")}
    langs = {page["url"][len(base):]: page["lang"] for page in read_pages(out)}
    assert langs["/chinese/park.html"] == "zh-tw"
    assert {lang for path, lang in langs.items() if path.startswith("/zh-tw/")} == {"zh-tw"}
    # zh-cn pages, where the crawl stored any, keep the base language
    assert {lang for path, lang in langs.items() if path.startswith("/zh-cn/")} <= {"zh"}


@pytest.mark.parametrize("variant", ["zh-cn", "zh-tw"])
def test_align_two_variants_each_alone(tmp_path, variant):
    """The same site's records aligned offline for each variant: each gets its own pages,
    the museum page paired in zh-cn only; ``zh`` (the base) still pairs every English page."""
    write_variant_site(tmp_path / "site")
    base = "http://variants.test"
    pages = directory_records(tmp_path / "site", base, identifier())
    assert {p.lang for p in pages} == {"en", "zh"}   # fastText: no variants
    result = align_site(pages, AlignConfig(langs=("en", variant)))
    assert {(p.url_1, p.url_2) for p in result.pairs} == expected_pairs(base, variant)
    assert {p.lang_2 for p in result.pairs} == {variant}
    base_pairs = align_site(pages, AlignConfig(langs=("en", "zh"))).pairs
    assert len(base_pairs) == 1 + len(TOPICS) and {p.lang_2 for p in base_pairs} == {"zh"}
