"""``report.html``: what a crawl and its alignment gave, readable at a glance.

In this order: a summary (one line at a glance: pairs, how good, what was skipped, what
to filter at; pages per language, what the responses were, pairs by evidence, sentence
pairs, time per stage; failed requests by kind, links not followed by reason, unpaired
pages per language, sentence pairs by ``aligner_score``: ``report.figures``); plots (pair scores against the threshold,
the structural model's fit with the paper's two figures — the (m, n) scatter and the
residual histogram with its GMM, [Assylbekov 2015 Fig. 1–2] —, ETS convergence, the crawl over
time); sample pairs side by side (the lowest-scored pairs kept, the best candidates
rejected, a spread of the rest); the learned URL patterns. Raw numbers stay in
``stats.json``. Plots are inline SVG and there is no script: one self-contained file,
no network, no plotting dependency.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from bitextcrawl.formats.atomic import atomic_open
from bitextcrawl.report import figures

W, H, PAD = 420, 300, 40


def _esc(x) -> str:
    return html.escape(str(x), quote=True)


def _axes(xmin, xmax, ymin, ymax, xlabel, ylabel):
    def sx(x):
        return PAD + (x - xmin) / ((xmax - xmin) or 1) * (W - 2 * PAD)

    def sy(y):
        return H - PAD - (y - ymin) / ((ymax - ymin) or 1) * (H - 2 * PAD)

    parts = [f'<rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" height="{H - 2 * PAD}" '
             'fill="none" stroke="#999"/>',
             f'<text x="{W / 2}" y="{H - 8}" text-anchor="middle">{_esc(xlabel)}</text>',
             f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" '
             f'text-anchor="middle">{_esc(ylabel)}</text>',
             f'<text x="{PAD}" y="{H - PAD + 14}" font-size="10">{xmin:.3g}</text>',
             f'<text x="{W - PAD}" y="{H - PAD + 14}" font-size="10" text-anchor="end">{xmax:.3g}</text>',
             f'<text x="{PAD - 4}" y="{H - PAD}" font-size="10" text-anchor="end">{ymin:.3g}</text>',
             f'<text x="{PAD - 4}" y="{PAD + 8}" font-size="10" text-anchor="end">{ymax:.3g}</text>']
    return sx, sy, parts


def svg_scatter(m, n, p, k=None, b=None) -> str:
    """(m, n) of candidate pairs, coloured by P(parallel), with the fitted line N = kM + b."""
    if not len(m):
        return "<p>no candidates</p>"
    m, n, p = np.asarray(m, float), np.asarray(n, float), np.asarray(p, float)
    top = float(max(m.max(), n.max(), 1))
    sx, sy, parts = _axes(0, top, 0, top, "M (tokens, page 1)", "N (tokens, page 2)")
    idx = np.arange(len(m))
    if len(idx) > 3000:  # a readable plot, not every point
        idx = np.random.default_rng(0).choice(idx, 3000, replace=False)
    for i in idx:
        colour = "#c0392b" if p[i] >= 0.5 else "#95a5a6"
        parts.append(f'<circle cx="{sx(m[i]):.1f}" cy="{sy(n[i]):.1f}" r="2" fill="{colour}" '
                     'fill-opacity="0.6"/>')
    if k is not None and b is not None:
        parts.append(f'<line x1="{sx(0):.1f}" y1="{sy(b):.1f}" x2="{sx(top):.1f}" '
                     f'y2="{sy(k * top + b):.1f}" stroke="#2c3e50"/>')
    return _svg(parts, "structural model: (M, N) of candidate pairs")


def svg_residuals(m, n, p, k, b, gmm: dict | None) -> str:
    """Histogram of ε = n − km − b over pairs judged parallel, with the fitted GMM density."""
    m, n, p = np.asarray(m, float), np.asarray(n, float), np.asarray(p, float)
    eps = (n - k * m - b)[p >= 0.5]
    if len(eps) < 2:
        return "<p>too few parallel pairs for a histogram</p>"
    lo, hi = np.percentile(eps, [1, 99])
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    counts, edges = np.histogram(eps, bins=30, range=(lo, hi), density=True)
    xs = np.linspace(lo, hi, 200)
    dens = np.zeros_like(xs)
    if gmm:
        for w, mu, sd in zip(gmm.get("weights", []), gmm.get("means", []), gmm.get("sds", [])):
            sd = max(float(sd), 1e-6)
            dens += w * np.exp(-0.5 * ((xs - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
    ymax = float(max(counts.max(), dens.max() if len(dens) else 0, 1e-9))
    sx, sy, parts = _axes(lo, hi, 0, ymax, "residual ε", "density")
    for c, e0, e1 in zip(counts, edges[:-1], edges[1:]):
        parts.append(f'<rect x="{sx(e0):.1f}" y="{sy(c):.1f}" width="{max(sx(e1) - sx(e0) - 1, 1):.1f}" '
                     f'height="{sy(0) - sy(c):.1f}" fill="#3498db" fill-opacity="0.5"/>')
    if gmm:
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, dens))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#c0392b" stroke-width="2"/>')
    return _svg(parts, "residuals of parallel pairs")


def _svg(parts, title: str) -> str:
    return (f'<svg role="img" width="{W}" height="{H}" font-family="sans-serif" font-size="12">'
            f'<title>{_esc(title)}</title>{"".join(parts)}</svg>')


def svg_score_histogram(scores, threshold: float) -> str:
    """Final scores of all candidate pairs, 0..1 in 20 bins, the threshold as a line."""
    scores = np.clip(np.asarray(scores, float), 0, 1)
    if not len(scores):
        return "<p>no candidates</p>"
    counts, edges = np.histogram(scores, bins=20, range=(0, 1))
    sx, sy, parts = _axes(0, 1, 0, float(max(counts.max(), 1)), "pair score", "candidates")
    for c, e0, e1 in zip(counts, edges[:-1], edges[1:]):
        colour = "#27ae60" if e0 >= threshold else "#95a5a6"
        parts.append(f'<rect x="{sx(e0):.1f}" y="{sy(c):.1f}" width="{max(sx(e1) - sx(e0) - 1, 1):.1f}" '
                     f'height="{sy(0) - sy(c):.1f}" fill="{colour}"/>')
    parts.append(f'<line x1="{sx(threshold):.1f}" y1="{PAD}" x2="{sx(threshold):.1f}" '
                 f'y2="{H - PAD}" stroke="#c0392b" stroke-dasharray="4 3"/>'
                 f'<text x="{sx(threshold) + 3:.1f}" y="{PAD + 12}" fill="#c0392b">'
                 f'threshold {threshold:g}</text>')
    return _svg(parts, "pair score distribution")


def svg_lines(series: dict, xlabel: str, ylabel: str, title: str, xs=None) -> str:
    """Line plot of named series (same length) against ``xs`` (default 1, 2, ...)."""
    series = {k: [float(v) for v in vs] for k, vs in series.items() if len(vs)}
    if not series:
        return "<p>nothing recorded</p>"
    n = max(len(v) for v in series.values())
    xs = [float(x) for x in (xs if xs is not None else range(1, n + 1))]
    ymax = max(max(v) for v in series.values()) or 1.0
    sx, sy, parts = _axes(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1, 0, ymax,
                          xlabel, ylabel)
    colours = ["#2980b9", "#c0392b", "#27ae60", "#8e44ad"]
    for i, (name, vs) in enumerate(series.items()):
        colour = colours[i % len(colours)]
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, vs))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>'
                  for x, y in zip(xs, vs)] if len(vs) <= 30 else []
        parts.append(f'<text x="{PAD + 8}" y="{PAD + 14 + 14 * i}" fill="{colour}">'
                     f'{_esc(name)}</text>')
    return _svg(parts, title)


def _table(rows, head=None) -> str:
    """A table of (label, value, ...) rows."""
    rows = list(rows.items()) if isinstance(rows, dict) else list(rows)
    if not rows:
        return "<p>none</p>"
    thead = "<tr>" + "".join(f"<th>{_esc(h)}</th>" for h in head) + "</tr>" if head else ""
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{thead}{body}</table>"


@dataclass
class ReportData:
    """What the closing pipeline knows; every field but ``pairs`` may be empty."""

    pairs: list
    pages_by_site: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    em_points: dict = field(default_factory=dict)   # site -> lang pair -> (m, n, p)
    scores: dict = field(default_factory=dict)      # site -> lang pair -> final scores
    rejected: dict = field(default_factory=dict)    # site -> lang pair -> [{url_1, url_2, score, why}]
    samples: dict = field(default_factory=dict)     # (url_1, url_2) -> [(s1, s2)]
    patterns: dict = field(default_factory=dict)    # site -> lang pair -> learner report
    unpaired: list = field(default_factory=list)    # figures.unpaired_pages
    sentence_scores: dict = field(default_factory=dict)  # figures.sentence_score_bands


def _status_sum(crawl: dict, lo: int, hi: int) -> int:
    prefix = "downloader/response_status_count/"
    return sum(v for k, v in crawl.items() if k.startswith(prefix)
               and k[len(prefix):].isdigit() and lo <= int(k[len(prefix):]) < hi)


def responses_table(crawl: dict, langs, pairs: int) -> list:
    """(what, count) of the crawl's responses, from Scrapy's and bitextcrawl's stats.
    Failed requests are the real failures (``figures.failures``), not the links the
    crawl chose not to fetch (Scrapy's ``downloader/exception_count`` counts those)."""
    stored = {k.rsplit("/", 1)[1]: v for k, v in crawl.items()
              if k.startswith("bitext/pages/stored/")}
    wanted = sum(v for lang, v in stored.items() if lang in langs)
    return [("responses", crawl.get("downloader/response_count", 0)),
            ("pages in the wanted languages", wanted),
            ("pages in other languages", sum(stored.values()) - wanted),
            ("same content as a page stored (duplicates)",
             crawl.get("bitext/pages/duplicate_content", 0)
             + crawl.get("bitext/pages/duplicate_url", 0)),
            ("redirects (3xx)", _status_sum(crawl, 300, 400)),
            ("failed requests (HTTP errors, downloads that did not complete)",
             figures.failure_total(crawl)),
            ("responses per pair", f"{crawl.get('downloader/response_count', 0) / pairs:.2f}"
             if pairs else "-")]


def _glance(data: ReportData, pages: dict) -> str:
    """One paragraph: how many pairs, how good, what was skipped, what to filter at."""
    stats = data.stats
    crawl = stats.get("crawl") or {}
    threshold = float(stats.get("threshold", 0.5))
    low = sum(1 for p in data.pairs if p.score < 0.9)
    parts = [f"<b>{len(data.pairs)} page pairs</b> (every one scored ≥ {threshold:g}; "
             f"{low} under 0.9)"]
    bands = data.sentence_scores or {}
    if bands:
        total = sum(b["total"] for b in bands.values())
        kept = sum(b["at_or_above"] for b in bands.values())
        parts.append(f"<b>{total} sentence pairs</b>, {kept} at or above their language "
                     "pair's suggested aligner_score filter (<a href='#sentence-scores'>"
                     "the filters, their estimated precision, what a score means</a>)")
    if crawl:
        failed = figures.failure_total(crawl)
        reasons = figures.links_not_followed(crawl)
        duplicates = sum(n for why, n in reasons if why.startswith("already requested"))
        skipped = sum(n for _, n in reasons) - duplicates
        parts.append(f"{failed} requests failed (<a href='#failures'>by kind</a>), "
                     f"{skipped} links not followed (<a href='#not-followed'>why</a>; "
                     f"besides {duplicates} links to pages already requested)")
    unpaired = sum(u["unpaired"] for u in data.unpaired)
    if data.unpaired:
        parts.append(f"{unpaired} pages of the wanted languages unpaired "
                     "(<a href='#unpaired'>which, why</a>)")
    return "<p class='glance' id='glance'>" + "; ".join(parts) + ".</p>"


def _truth(data: ReportData) -> list:
    """Failures by kind, links not followed by reason, unpaired pages, sentence scores."""
    crawl = (data.stats or {}).get("crawl") or {}
    out = ["<div class='cols'>"]
    if crawl:
        out.append("<div id='failures'><h3>Failed requests, by kind</h3>")
        out.append(_table(figures.failures(crawl), ("kind", "requests")))
        out.append("<p class='muted'>Links the crawl chose not to fetch are not failures: "
                   "they are counted under \"Links not followed\".</p>")
        out.append("<h3>Responses not kept as pages</h3>")
        out.append(_table(figures.not_kept(crawl), ("why", "responses")))
        out.append("</div><div id='not-followed'><h3>Links not followed, by reason</h3>")
        out.append(_table(figures.links_not_followed(crawl), ("reason", "links")))
        other = figures.other_language_links(crawl)
        if other:
            out.append("<h3>Links dropped as another language</h3>")
            out.append(_table(other.items(), ("language", "links")))
        out.append("</div>")
    out.append("<div id='unpaired'><h3>Unpaired pages per language</h3>")
    if data.unpaired:
        rows = [(u["lang"], u["pages"], u["unpaired"],
                 "; ".join(f"{why}: {n}" for why, n in u["why"].items()) or "-",
                 " ".join(u["examples"]) or "-") for u in data.unpaired]
        out.append(_table(rows, ("language", "pages", "unpaired", "why", "examples")))
    else:
        out.append("<p>none</p>")
    out.append("</div></div>")
    out.append("<div id='sentence-scores'><h3>Sentence pairs by aligner_score</h3>")
    out.append("<p>A sentence pair's <code>aligner_score</code> (bitext.tsv) is the "
               "estimated probability that its two sides translate each other, learnt for "
               "each language pair from what the site proves: the length ratio of its "
               "sure rows, the numbers and names both sides carry, and word translations "
               "learnt from its sure rows, set against the same rows shuffled. It means the "
               "same in every language pair.")
    target = (data.stats or {}).get("sentence_precision_target")
    if target is not None:
        out.append(f" Suggested filter, per language pair: the aligner_score from which "
                   f"the rows kept have an estimated precision of at least {target:g} "
                   "(BITEXT_SENTENCE_PRECISION), and never under 0.5 (a row under it is "
                   "likelier wrong than right); the precision is estimated with one right "
                   "and one wrong row counted in, so that a few rows never make 1. An "
                   "estimate, not a measure: check a sample of the band just under the "
                   "filter before lowering it.")
    out.append("</p>")
    if data.sentence_scores:
        bands = [lo for lo, _ in next(iter(data.sentence_scores.values()))["bands"]]

        def _num(x, fmt):
            return "-" if x is None else format(x, fmt)

        rows = [(lp, *(n for _, n in e["bands"]), _num(e.get("threshold"), "g"),
                 e["at_or_above"], _num(e.get("precision"), ".3f"), e["total"])
                for lp, e in sorted(data.sentence_scores.items())]
        out.append(_table(rows, ("languages", *bands, "suggested filter", "kept",
                                 "estimated precision", "all")))
    else:
        out.append("<p>none</p>")
    out.append("</div>")
    return out


def _summary(data: ReportData, pages: dict) -> list:
    stats, align = data.stats, data.stats.get("align", {})
    crawl = stats.get("crawl") or {}
    langs = stats.get("langs") or []
    by_lang = Counter(p.lang for p in pages.values())
    sentence_pairs = align.get("bitext/bitext/sentence_pairs", 0)
    out = ["<section id='summary'><h2>Summary</h2>",
           f"<p class='lead'>{len(pages)} pages, <b>{len(data.pairs)} page pairs</b>, "
           f"<b>{sentence_pairs} sentence pairs</b>"
           + (f", from {crawl['downloader/response_count']} responses"
              if "downloader/response_count" in crawl else "") + ".</p>",
           _glance(data, pages),
           "<div class='cols'><div><h3>Pages per language</h3>",
           _table(sorted(by_lang.items(), key=lambda x: (x[0] not in langs, -x[1], x[0])),
                  ("language", "pages")), "</div>"]
    out.append("<div id='responses'><h3>Responses</h3>")
    out.append(_table(responses_table(crawl, langs, len(data.pairs))) if crawl else
               "<p>no crawl statistics (aligned offline)</p>")
    out.append("</div><div><h3>Pairs by evidence</h3>")
    evidence = Counter(s for p in data.pairs for s in p.sources)
    out.append(_table(evidence.most_common(), ("evidence", "pairs")))
    out.append("</div><div><h3>Sentence pairs</h3>")
    dropped = [(k.rsplit("/", 1)[1].replace("_", " "), v) for k, v in sorted(align.items())
               if k.startswith("bitext/bitext/dropped/")]
    out.append(_table([("written", sentence_pairs),
                       ("dropped: identical sides",
                        align.get("bitext/bitext/identical_skipped", 0))]
                      + [(f"dropped: {k}", v) for k, v in dropped]))
    out.append("</div><div><h3>Time per stage</h3>")
    timings = [(k, f"{v:.2f} s") for k, v in (stats.get("timings_s") or {}).items()]
    if "elapsed_time_seconds" in crawl:
        timings.insert(0, ("crawl", f"{crawl['elapsed_time_seconds']:.1f} s"))
    timings.append(("closing pipeline, all", f"{stats.get('seconds', 0):.2f} s"))
    out.append(_table(timings))
    out.append("</div></div>")
    out += _truth(data)
    out.append("</section>")
    return out


def _plots(data: ReportData) -> list:
    stats = data.stats
    threshold = float(stats.get("threshold", 0.5))
    out = ["<section id='plots'><h2>Plots</h2>"]
    for site, by_pair in sorted((stats.get("models") or {}).items()):
        for lang_pair, models in sorted(by_pair.items()):
            out.append(f"<h3>{_esc(site)} · {_esc(lang_pair)}</h3><div class='cols'>")
            scores = (data.scores.get(site) or {}).get(lang_pair)
            out.append("<figure class='plot-scores'>" + svg_score_histogram(scores or [], threshold)
                       + "<figcaption>Final score of every candidate pair; kept above "
                       "the threshold, one pair per page.</figcaption></figure>")
            em = models.get("structural_em")
            points = (data.em_points.get(site) or {}).get(lang_pair)
            if em and points:
                params = em.get("params", em)
                k = params.get("k", params.get("k_"))
                b = params.get("b", params.get("b_"))
                out.append("<figure class='plot-structure'>" + svg_scatter(*points, k=k, b=b)
                           + "<figcaption>Structural model: token counts of candidate pairs "
                           "(red: P(parallel) ≥ 0.5) and the fitted N = kM + b.</figcaption>"
                           "</figure>")
                if k is not None and b is not None:
                    out.append("<figure class='plot-residuals'>"
                               + svg_residuals(*points, k=k, b=b, gmm=params.get("gmm"))
                               + "<figcaption>Residuals of parallel pairs and the fitted "
                               "mixture.</figcaption></figure>")
            history = (models.get("ets") or {}).get("history") or []
            if history:
                out.append("<figure class='plot-ets'>" + svg_lines(
                    {"mean change": [h.get("mean_change", 0) for h in history],
                     "max change": [h.get("max_change", 0) for h in history]},
                    "iteration", "score change", "ETS convergence")
                    + "<figcaption>ETS convergence: how much the scores moved per "
                    "iteration.</figcaption></figure>")
            out.append("</div>")
    timeline = stats.get("timeline") or []
    out.append("<h3>The crawl over time</h3>")
    if len(timeline) >= 2:
        xs = [p[0] for p in timeline]
        out.append("<figure class='plot-timeline'>" + svg_lines(
            {"responses": [p[1] for p in timeline], "pages stored": [p[2] for p in timeline],
             "URL pairs known": [p[3] for p in timeline]},
            "seconds", "count", "the crawl over time", xs=xs) + "</figure>")
    else:
        out.append("<p>not recorded (offline alignment, or a crawl too short)</p>")
    out.append("</section>")
    return out


def _first_lines(text: str, n: int = 3) -> str:
    return "<br>".join(_esc(line[:160]) for line in (text or "").split("\n")[:n])


def _pair_rows(url_1, url_2, label, pages, samples) -> str:
    p1, p2 = pages.get(url_1), pages.get(url_2)
    got = samples.get((url_1, url_2))
    if got:
        text_1 = "<ol>" + "".join(f"<li>{_esc(a[:200])}</li>" for a, _ in got) + "</ol>"
        text_2 = "<ol>" + "".join(f"<li>{_esc(b[:200])}</li>" for _, b in got) + "</ol>"
    else:   # no aligned sentence: the pages' first lines
        text_1 = f"<p class='muted'>{_first_lines(p1.text if p1 else '')}</p>"
        text_2 = f"<p class='muted'>{_first_lines(p2.text if p2 else '')}</p>"

    def side(url, page, text):
        return (f"<td><a href='{_esc(url)}'>{_esc(url)}</a><br><b>"
                f"{_esc(page.title if page else '')}</b>{text}</td>")

    return (f"<tr><th colspan=2>{label}</th></tr><tr>{side(url_1, p1, text_1)}"
            f"{side(url_2, p2, text_2)}</tr>")


def _samples(data: ReportData, pages: dict, n: int) -> list:
    pairs = sorted(data.pairs, key=lambda p: (p.score, p.url_1))
    out = ["<section id='samples'><h2>Sample pairs</h2>",
           "<p>Titles and first aligned sentences (or, without any, the pages' first "
           "lines) side by side.</p>",
           f"<h3 id='lowest-kept'>Lowest-scored pairs kept ({min(n, len(pairs))} of "
           f"{len(pairs)})</h3><table class='pair'>"]
    for p in pairs[:n]:
        out.append(_pair_rows(p.url_1, p.url_2, f"score {p.score:.3f} · "
                              f"{_esc(', '.join(p.sources))}", pages, data.samples))
    out.append("</table>")
    rejected = sorted(((r, lp) for by_pair in data.rejected.values()
                       for lp, rs in by_pair.items() for r in rs),
                      key=lambda x: (-x[0]["score"], x[0]["url_1"]))[:n]
    out.append("<h3 id='best-rejected'>Best candidates rejected</h3>")
    if rejected:
        out.append("<table class='pair'>")
        for r, lp in rejected:
            why = {"rival": "a page of it is in a better pair",
                   "copy": "an untranslated copy"}.get(r.get("why"), "below the threshold")
            out.append(_pair_rows(r["url_1"], r["url_2"],
                                  f"score {r['score']:.3f} · {_esc(lp)} · {why}", pages, {}))
        out.append("</table>")
    else:
        out.append("<p>none</p>")
    rest = pairs[n:]
    if rest:
        step = max(1, len(rest) // n)
        out.append(f"<h3 id='spread'>A spread of the others ({min(n, len(rest[::step]))})</h3>"
                   "<table class='pair'>")
        for p in rest[::step][:n]:
            out.append(_pair_rows(p.url_1, p.url_2, f"score {p.score:.3f} · "
                                  f"{_esc(', '.join(p.sources))}", pages, data.samples))
        out.append("</table>")
    out.append("</section>")
    return out


def _patterns(data: ReportData) -> list:
    out = ["<section id='patterns'><h2>Learned URL patterns</h2>"]
    rows = []
    for site, by_pair in sorted(data.patterns.items()):
        for lang_pair, report in sorted((by_pair or {}).items()):
            for p in (report or {}).get("patterns") or []:
                example = (p.get("examples") or [["", ""]])[0]
                rows.append((site, lang_pair,
                             f"{p.get('lang1_token', '')} ↔ {p.get('lang2_token', '')}",
                             p.get("kind", ""), p.get("pairs", ""),
                             f"{float(p.get('local_credibility') or 0):.3f}",
                             "yes" if p.get("credible") else "no",
                             " ↔ ".join(example[:2])))
    out.append(_table(rows, ("site", "languages", "pattern", "kind", "pairs",
                             "C(p,w)", "credible", "example")) if rows else
               "<p>no pattern learned</p>")
    out.append("</section>")
    return out


STYLE = ("body{font-family:sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;"
         "padding:4px 8px;vertical-align:top;font-size:13px;text-align:left}"
         "h2{margin-top:2em;border-bottom:2px solid #2980b9}.lead{font-size:1.2em}"
         ".cols{display:flex;flex-wrap:wrap;gap:1.5em}.pair td{width:50%}"
         ".pair th{background:#f4f6f7}figure{margin:0}figcaption{font-size:12px;max-width:420px;"
         "color:#555}.muted{color:#777}ol{margin:.3em 0;padding-left:1.5em}")


def write_report(path: str, data: ReportData, sample: int = 10) -> None:
    pages = {p.url: p for ps in data.pages_by_site.values() for p in ps}
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width'>",
           "<title>bitextcrawl report</title>", f"<style>{STYLE}</style>",
           "</head><body><h1>bitextcrawl report</h1>"]
    out += _summary(data, pages)
    out += _plots(data)
    out += _samples(data, pages, sample)
    out += _patterns(data)
    out.append("<p class='muted'>Raw numbers: stats.json beside this file.</p></body></html>")
    with atomic_open(path) as fh:
        fh.write("\n".join(out))
