"""A partly translated documentation site, written as static files (``serve_directory``).

``/en/`` (the home) and ``/en/docs/pN.html`` are the big side: ``n_pages`` English pages,
each linking its neighbours, the home and two language-neutral pages at the root
(``/`` and ``/news.html``). ``/de/`` and ``/de/docs/pN.html`` for the first ``n_translated``
pages are the small side: each German page links the German home and switches to its
English original ("English"). Nothing on the English side links the German one; only
the neutral news page does, once (as a site's news archive announces a translation).
The gold: the two homes and each translated page with its original.

The text is the manual's parallel sentences (``multilingual_text.SENTENCES``), so that
fastText labels each page and a page and its translation say the same thing.
"""

from __future__ import annotations

from pathlib import Path

from testkit.multilingual_text import SENTENCES

SLOTS = {"D": "listen", "D2": "server_name", "M": "core", "N": "8080", "F": "conf/site.conf",
         "S": "core_module.c", "V": "warn", "C": "404"}
SENTENCES_PER_PAGE = 6


def _text(lang: str, i: int) -> str:
    """Page ``i``'s text in ``lang``: its own numbers and names, the same in every language."""
    slots = {**SLOTS, "N": str(8000 + i), "D": f"listen_{i}", "F": f"conf/site{i}.conf"}
    picked = [SENTENCES[(i * SENTENCES_PER_PAGE + k) % len(SENTENCES)][lang]
              for k in range(SENTENCES_PER_PAGE)]
    return " ".join(s.format_map(slots) for s in picked)


def _html(lang: str, title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>'
            f'</head><body>{body}</body></html>')


def write_partial_site(root: Path, n_pages: int = 30, n_translated: int = 5,
                       small: str = "de") -> list[tuple[str, str]]:
    """Write the site under ``root``; the gold pairs as site paths (``/en/``, ``/de/``...)."""
    def put(path: str, html: str) -> None:
        target = root / path.lstrip("/")
        if path.endswith("/"):
            target = target / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")

    docs = [f"/en/docs/p{i}.html" for i in range(n_pages)]
    home = "".join(f'<li><a href="docs/p{i}.html">Page {i}</a></li>' for i in range(n_pages))
    put("/en/", _html("en", "Manual", f'<a href="/">Home</a> <a href="/news.html">News</a>'
                                      f"<p>{_text('en', n_pages)}</p><ul>{home}</ul>"))
    for i in range(n_pages):
        near = "".join(f'<a href="p{j % n_pages}.html">Page {j % n_pages}</a> '
                       for j in range(i + 1, i + 4))
        put(docs[i], _html("en", f"Page {i}", f'<a href="../">Manual</a> <a href="/">Home</a>'
                                              f" <p>{_text('en', i)}</p><nav>{near}</nav>"))
    translated = "".join(f'<li><a href="docs/p{i}.html">Seite {i}</a></li>'
                         for i in range(n_translated))
    put(f"/{small}/", _html(small, "Handbuch",
                            f'<a href="../en/">English</a> <a href="/">Home</a>'
                            f"<p>{_text(small, n_pages)}</p><ul>{translated}</ul>"))
    for i in range(n_translated):
        put(f"/{small}/docs/p{i}.html", _html(
            small, f"Seite {i}", f'<a href="../../en/docs/p{i}.html">English</a> '
                                 f'<a href="../">Handbuch</a> <p>{_text(small, i)}</p>'))
    put("/", _html("en", "Home", f'<a href="/en/">Manual</a> <a href="/news.html">News</a>'
                                 f"<p>{_text('en', n_pages + 1)}</p>"))
    put("/news.html", _html("en", "News", f'<a href="/en/">Manual</a> '
                                          f'<a href="/{small}/">Handbuch</a>'
                                          f"<p>{_text('en', n_pages + 2)}</p>"))
    return [("/en/", f"/{small}/")] + [(docs[i], f"/{small}/docs/p{i}.html")
                                       for i in range(n_translated)]
