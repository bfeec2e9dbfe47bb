"""Page records without a crawl: for offline tests and benchmarks of the closing pipeline.

A crawl makes the same records (``pages.record.build_record``); these helpers skip
the network so the alignment stages can be measured alone.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from bitextcrawl.pages.record import PageRecord, build_record


def site_records(site, identify=None, include_hidden: bool = True,
                 langs: tuple | None = None) -> list:
    """Records of a generated site's HTML pages (robots-forbidden pages left out).

    Without ``identify`` the pages' own declarations decide the language; ``langs``
    keeps only the pages the generator wrote in those languages."""
    forbidden = set(site.robots_disallowed)
    out = []
    for url, lang in site.page_langs.items():
        if url in forbidden or (not include_hidden and url in site.hidden_urls):
            continue
        if langs is not None and lang not in langs:
            continue
        body = site.resources[url].body
        out.append(build_record(url, body.decode("utf-8", "replace"), identify))
    return out


def directory_records(root: str | Path, base_url: str, identify, pattern: str = "**/*.html") -> list:
    """Records of the HTML files of a folder served at ``base_url`` (e.g. a copy of a site)."""
    root = Path(root)
    out = []
    for path in sorted(root.glob(pattern)):
        html = path.read_bytes().decode("utf-8", "replace")
        url = base_url.rstrip("/") + "/" + path.relative_to(root).as_posix()
        out.append(build_record(url, html, identify))
    return out


# Made up sites of the unit tests and bench_time_limits.py

def strand_page(url, lang, length, n_chunks, text="", html="", links=()):
    per = max(1, length // max(n_chunks, 1))
    tokens = []
    for _ in range(n_chunks):
        tokens += ["[START:P]", f"[Chunk:{per}]", "[END:P]"]
    return PageRecord(url=url, lang=lang, text=text, text_length=length, strand=tokens,
                      html=html, links=[{"url": u, "text": "", "hreflang": None} for u in links])


def make_site(n, seed=0, evidence=0.9, ratio=1.15):
    """n English pages and their n French translations, shuffled; gold = true pairs.

    A translation has length ≈ ratio·L1 (Gale–Church noise) and ±2 chunks; 90 % of the
    pairs share 1–4 rare numbers, 30 % a content image; all pages share a logo, a
    footer year and navigation links (evidence that must not count).
    """
    rng = random.Random(seed)
    pages1, pages2, gold = [], [], []
    for i in range(n):
        l1 = int(math.exp(rng.gauss(7, 0.8)))
        l2 = max(1, int(ratio * l1 + rng.gauss(0, 2.6 * math.sqrt(l1))))
        c1 = rng.randint(5, 60)
        c2 = max(1, c1 + rng.randint(-2, 2))
        nums = [str(rng.randint(100, 999_999)) for _ in range(rng.randint(1, 4))] \
            if rng.random() < evidence else []
        year = rng.randint(2000, 2024)
        img = f'<img src="/media/photo{i}.jpg">' if rng.random() < 0.3 else ""
        u1, u2 = f"https://ex.org/en/p{i}", f"https://ex.org/fr/q{i}"
        pages1.append(strand_page(u1, "en", l1, c1, f"Hello {' '.join(nums)} © {year}",
                            '<img src="/img/logo.png">' + img,
                            [f"https://ex.org/en/nav{k}" for k in range(5)]))
        pages2.append(strand_page(u2, "fr", l2, c2, f"Bonjour {' '.join(nums)} © {year}",
                            '<img src="/img/logo.png">' + img,
                            [f"https://ex.org/fr/nav{k}" for k in range(5)]))
        gold.append((u1, u2))
    rng.shuffle(pages2)
    return pages1, pages2, gold


EN_URL = "http://example.gc.ca/en/report.html"
FR_URL = "http://example.gc.ca/fr/report.html"


def big_page(n_items: int, lang: str) -> str:
    word = {"en": "Item", "fr": "Article"}[lang]
    items = "".join(f'<li><a href="/{lang}/p{k}.html">{word} number {k}</a> text {k}</li>'
                    for k in range(n_items))
    return f"<html><body><ul>{items}</ul></body></html>"
