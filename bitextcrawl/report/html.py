"""``report.html``: what the closing pipeline did, readable at a glance.

Counts per stage, the fitted structural model with the paper's two figures (the
(m, n) scatter and the residual histogram with its GMM, seed 000 Fig. 1–2), ETS
convergence, and a sample of pairs side by side. Plots are inline SVG, so the
report is one self-contained file with no plotting dependency.
"""

from __future__ import annotations

import html
import json
import math

import numpy as np

from bitextcrawl.formats.atomic import atomic_open

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
    return f'<svg width="{W}" height="{H}" font-family="sans-serif" font-size="12">{"".join(parts)}</svg>'


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
    return f'<svg width="{W}" height="{H}" font-family="sans-serif" font-size="12">{"".join(parts)}</svg>'


def _table(rows: dict) -> str:
    body = "".join(f"<tr><td>{_esc(k)}</td><td>{_esc(v)}</td></tr>" for k, v in sorted(rows.items()))
    return f"<table>{body}</table>"


def _first_lines(text: str, n: int = 3) -> str:
    return "<br>".join(_esc(line[:160]) for line in (text or "").split("\n")[:n])


def write_report(path: str, pairs, pages_by_site: dict, stats: dict, em_points: dict,
                 sample: int = 25) -> None:
    pages = {p.url: p for ps in pages_by_site.values() for p in ps}
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>bitextcrawl report</title>",
           "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
           "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ddd;padding:4px 8px;"
           "vertical-align:top;font-size:13px}h2{margin-top:2em}.pair td{width:50%}</style>",
           "</head><body><h1>bitextcrawl report</h1>",
           f"<p>{stats.get('pages', 0)} pages, {stats.get('pairs', 0)} pairs, "
           f"closing pipeline {stats.get('seconds', 0)} s.</p>",
           "<h2>Counts per stage</h2>", _table(stats.get("align", {})),
           "<h2>Time per stage (s)</h2>", _table(stats.get("timings_s", {}))]
    crawl = {k: v for k, v in (stats.get("crawl") or {}).items() if str(k).startswith("bitext/")}
    if crawl:
        out += ["<h2>Crawl</h2>", _table(crawl)]
    for site, by_pair in (stats.get("models") or {}).items():
        for lang_pair, models in by_pair.items():
            out.append(f"<h2>{_esc(site)} · {_esc(lang_pair)}</h2>")
            em = models.get("structural_em")
            points = (em_points.get(site) or {}).get(lang_pair)
            if em:
                out.append("<h3>Structural model (EM)</h3>")
                out.append(f"<pre>{_esc(json.dumps(em, indent=1, default=str)[:4000])}</pre>")
                if points:
                    params = em.get("params", em)
                    k = params.get("k", params.get("k_"))
                    b = params.get("b", params.get("b_"))
                    gmm = params.get("gmm")
                    out.append(svg_scatter(*points, k=k, b=b))
                    if k is not None and b is not None:
                        out.append(svg_residuals(*points, k=k, b=b, gmm=gmm))
            ets = models.get("ets")
            if ets:
                out.append("<h3>ETS convergence</h3>")
                out.append(f"<pre>{_esc(json.dumps(ets, indent=1, default=str)[:3000])}</pre>")
            lsi = models.get("lsi")
            if lsi:
                out.append("<h3>LSI</h3>")
                out.append(f"<pre>{_esc(json.dumps(lsi, indent=1, default=str)[:2000])}</pre>")
    out.append(f"<h2>Sample of pairs ({min(sample, len(pairs))} of {len(pairs)})</h2>")
    out.append("<table class='pair'>")
    step = max(1, len(pairs) // sample) if pairs else 1
    for pair in pairs[::step][:sample]:
        p1, p2 = pages.get(pair.url_1), pages.get(pair.url_2)
        out.append(
            f"<tr><th colspan=2>score {pair.score:.3f} · {_esc(', '.join(pair.sources))}</th></tr>"
            f"<tr><td><a href='{_esc(pair.url_1)}'>{_esc(pair.url_1)}</a><br><b>"
            f"{_esc(p1.title if p1 else '')}</b><br>{_first_lines(p1.text if p1 else '')}</td>"
            f"<td><a href='{_esc(pair.url_2)}'>{_esc(pair.url_2)}</a><br><b>"
            f"{_esc(p2.title if p2 else '')}</b><br>{_first_lines(p2.text if p2 else '')}</td></tr>")
    out.append("</table></body></html>")
    with atomic_open(path) as fh:
        fh.write("\n".join(out))
