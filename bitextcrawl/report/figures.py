"""The report's figures, each computed from the crawl's stats or the closing step's
outputs alone, so that a figure of ``report.html`` can be checked against ``stats.json``.

- :func:`failures`: requests that really failed, by kind (HTTP status, too large, DNS,
  refused, timeout, redirect loop). Links the crawl chose not to fetch are not failures:
  Scrapy counts them in ``downloader/exception_count`` (an ``IgnoreRequest`` each), this
  module does not.
- :func:`links_not_followed`: links not requested, by reason.
- :func:`other_language_links`: links dropped because they led to a language not asked
  for, per language (what a crawl with a mistyped language code saw instead).
- :func:`unpaired_pages`: pages of the wanted languages in no pair, per language, with
  examples and why.
- :func:`sentence_score_bands`: sentence pairs per language pair by ``aligner_score``.

Pure Python: no Scrapy.
"""

from __future__ import annotations

from collections import Counter, defaultdict

# bitext/bad/<key> counters that are not failed requests: flaws of pages kept, pages
# rejected for their body, links not followed, and the sums by class.
_NOT_FAILURES = {"charset_repaired", "unclosed_html", "no_text", "empty", "binary", "charset",
                 "trap", "ignored", "http_4xx", "http_5xx"}

_FAILURE_NAMES = {
    "too_large": "too large (over DOWNLOAD_MAXSIZE)",
    "dns": "DNS lookup failed",
    "timeout": "timed out",
    "redirect_loop": "redirect loop",
    "ConnectionRefusedError": "connection refused",
    "ConnectionLost": "connection lost",
    "ResponseNeverReceived": "no response received",
    "SSLError": "TLS error",
}

HTTP_REASONS = {400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found",
                410: "gone", 429: "too many requests", 500: "server error",
                502: "bad gateway", 503: "unavailable", 504: "gateway timeout"}


def failures(crawl: dict) -> list[tuple[str, int]]:
    """(kind, count) of the requests that failed, HTTP statuses first (4xx, 5xx: the
    server answered with an error), then the downloads that did not complete."""
    rows = []
    statuses = sorted(int(k.rsplit("/", 1)[1]) for k in crawl
                      if k.startswith("bitext/http/") and k.rsplit("/", 1)[1].isdigit())
    for status in statuses:
        if status >= 400:
            reason = HTTP_REASONS.get(status, "client error" if status < 500 else "server error")
            rows.append((f"HTTP {status} ({reason})", crawl[f"bitext/http/{status}"]))
    for key, value in sorted(crawl.items()):
        if not key.startswith("bitext/bad/") or not value:
            continue
        name = key[len("bitext/bad/"):]
        if name in _NOT_FAILURES or "/" in name:
            continue
        rows.append((_FAILURE_NAMES.get(name, f"download error: {name}"), value))
    return rows


def failure_total(crawl: dict) -> int:
    return sum(n for _, n in failures(crawl))


def not_kept(crawl: dict) -> list[tuple[str, int]]:
    """(why, count) of the responses that did not become a page record."""
    names = [("bitext/skipped/non_html", "not HTML (a file)"),
             ("bitext/skipped/image", "an image"),
             ("bitext/bad/empty", "empty body"),
             ("bitext/bad/binary", "binary body served as HTML"),
             ("bitext/bad/charset", "undecodable text"),
             ("bitext/pages/over_max_pages", "over the max_pages budget")]
    return [(label, crawl[key]) for key, label in names if crawl.get(key)]


def other_language_links(crawl: dict) -> dict[str, int]:
    """Language -> links dropped because they led to it (a language not asked for)."""
    prefix = "bitext/links/other_lang/"
    found = [(k[len(prefix):], v) for k, v in crawl.items() if k.startswith(prefix) and v]
    return dict(sorted(found, key=lambda x: (-x[1], x[0])))


def links_not_followed(crawl: dict) -> list[tuple[str, int]]:
    """(reason, count) of the links found and not requested."""
    g = crawl.get
    held = g("bitext/focus/held", 0) - g("bitext/focus/released", 0) \
        - g("bitext/focus/released_by_url_token", 0)
    other_lang = sum(v for k, v in crawl.items()
                     if k.startswith("bitext/focus/dropped_other_lang/"))
    rows = [
        ("already requested or answered (duplicates)",
         g("bitext/links/already_answered", 0) + g("dupefilter/filtered", 0)
         + g("bitext/focus/promoted_copy_dropped", 0)
         + g("bitext/focus/requested_twice_dropped", 0)),
        ("outside the site", g("bitext/links/offsite", 0) + g("offsite/filtered", 0)),
        ("a file type that is never a page", g("bitext/links/skipped_extension", 0)),
        ("a crawler trap (repeated or too deep path)", g("bitext/bad/trap", 0)),
        ("led to a language not asked for", other_lang),
        ("on a page in a language not asked for", g("bitext/focus/dropped_from_other_lang", 0)),
        ("no translation: the counterpart has no switch to it",
         g("bitext/focus/dropped_no_translation", 0)),
        ("held back: that language's links yielded too few pairs", max(held, 0)),
        ("forbidden by robots.txt", g("robotstxt/forbidden", 0)),
        ("a page already seen under another URL: its links not followed again",
         g("bitext/links/skipped_duplicate_page", 0)),
        ("the max_pages budget was spent", g("bitext/budget/not_scheduled", 0)),
    ]
    return [(why, n) for why, n in rows if n]


def unpaired_pages(pages, pairs, rejected: dict, langs, examples: int = 3) -> list[dict]:
    """Per wanted language: the pages in no pair (nor a copy of a paired page's content), ``{lang, pages, unpaired, examples,
    why: {reason: count}}``.

    ``pages``: page records (``url``, ``lang``); ``pairs``: the pairs kept (``url_1``,
    ``url_2``); ``rejected``: site -> language pair -> candidates not kept
    (``url_1``, ``url_2``, ``score``, ``why``: "rival" when a page of it is in a better
    pair, "copy" when one page is the other's untranslated copy, otherwise it scored
    below the threshold).
    """
    pages = list(pages)
    paired = {u for p in pairs for u in (p.url_1, p.url_2)}
    # a page whose content is a paired page's (dir/ and dir/index.html): merged into it
    paired_content = {p.content_hash for p in pages
                      if p.url in paired and getattr(p, "content_hash", None)}
    best: dict[str, dict] = {}
    for by_pair in (rejected or {}).values():
        for rows in (by_pair or {}).values():
            for r in rows:
                for url in (r["url_1"], r["url_2"]):
                    old = best.get(url)    # a copy is the reason, whatever else scored
                    if old is None or (old.get("why") != "copy" and (
                            r.get("why") == "copy" or r["score"] > old["score"])):
                        best[url] = r
    by_lang: dict[str, list[str]] = defaultdict(list)
    total = Counter()
    for page in pages:
        if page.lang in langs:
            total[page.lang] += 1
            if page.url not in paired and not (
                    getattr(page, "content_hash", None)
                    and page.content_hash in paired_content):
                by_lang[page.lang].append(page.url)
    out = []
    for lang in langs:
        urls = sorted(by_lang.get(lang, ()))
        why = Counter()
        for url in urls:
            r = best.get(url)
            if r is None:
                why["no candidate counterpart among the pages crawled"] += 1
            elif r.get("why") == "copy":
                why["an untranslated copy of a page in the other language"] += 1
            elif r.get("why") == "rival":
                why["its best candidate is paired with another page"] += 1
            else:
                why["best candidate scored below the pair threshold"] += 1
        out.append({"lang": lang, "pages": total[lang], "unpaired": len(urls),
                    "examples": urls[:examples], "why": dict(why.most_common())})
    return out


SCORE_BANDS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9)


def suggested_filters(counts) -> tuple[dict[str, float], dict[str, float]]:
    """Language pair -> the aligner_score the report suggests keeping rows at, and
    language pair -> the estimated precision of the rows it keeps, from the bitext
    stage's counts (``bitext/bitext/<l1>-<l2>/suggested_threshold``,
    ``.../estimated_precision``: ``bitext.extract.calibrated``)."""
    thresholds, precisions = {}, {}
    for key, value in counts.items():
        parts = key.split("/")
        if len(parts) == 4 and parts[:2] == ["bitext", "bitext"]:
            if parts[3] == "suggested_threshold":
                thresholds[parts[2]] = float(value)
            elif parts[3] == "estimated_precision":
                precisions[parts[2]] = float(value)
    return dict(sorted(thresholds.items())), dict(sorted(precisions.items()))


def sentence_score_bands(rows, thresholds: dict, precisions: dict | None = None
                         ) -> dict[str, dict]:
    """Language pair -> ``{bands: [(label, count)], at_or_above: n, total: n,
    threshold: t, precision: p}`` of the sentence pairs ``rows`` (``(lang_1, lang_2,
    score)``): ``at_or_above`` counts the rows at or above the pair's suggested
    threshold (``thresholds``: language pair -> aligner_score), whose estimated
    precision is ``precisions``' (None where not known)."""
    out: dict[str, dict] = {}
    for l1, l2, score in rows:
        pair = f"{l1}-{l2}"
        entry = out.get(pair)
        if entry is None:
            entry = out[pair] = {"bands": Counter(), "at_or_above": 0, "total": 0,
                                 "threshold": thresholds.get(pair),
                                 "precision": (precisions or {}).get(pair)}
        band = max(b for b in SCORE_BANDS if score >= b) if score >= 0 else 0.0
        entry["bands"][band] += 1
        entry["total"] += 1
        entry["at_or_above"] += entry["threshold"] is not None and score >= entry["threshold"]
    for entry in out.values():
        edges = list(SCORE_BANDS) + [1.0]
        entry["bands"] = [(f"{lo:.1f}–{hi:.1f}", entry["bands"].get(lo, 0))
                          for lo, hi in zip(edges, edges[1:])]
    return out


def read_bitext_scores(path: str):
    """``(lang_1, lang_2, score)`` of each row of a ``bitext.tsv`` (or ``.tsv.gz``)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        i_score, i_l1, i_l2 = (header.index(c) for c in ("aligner_score", "src_lang",
                                                         "trg_lang"))
        for line in fh:
            cells = line.rstrip("\n").split("\t")
            try:
                yield cells[i_l1], cells[i_l2], float(cells[i_score])
            except (IndexError, ValueError):
                continue
