"""Page records without a crawl: for offline tests and benchmarks of the closing pipeline.

A crawl makes the same records (``pages.record.build_record``); these helpers skip
the network so the alignment stages can be measured alone.
"""

from __future__ import annotations

from pathlib import Path

from bitextcrawl.pages.record import build_record


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
