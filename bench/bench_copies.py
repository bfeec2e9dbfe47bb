"""Untranslated copies: F1 per language of one alignment of every language, and of each
language alone, on the generated multilingual manual (``testkit/multilingual.py``) whose
languages serve a copy of the English page where they have no translation.

    python bench/bench_copies.py [--langs en fr de ja ru] [--pages 40] [--seed 3]
    python bench/bench_copies.py --glossary 0.9 --langs en fr ja ru zh ko de es it pt hi bn

Four variants: the copy byte for byte (content negotiation) or in the language's own
template under a notice (a static site generator's fallback); the site's own URLs
(``/manual/<lang>/<page>``) or opaque ones (``/p/<hash>.html``, no language bars, no
``lang`` attributes). Offline: records built by the crawl's own code, fastText lid.176.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bitextcrawl.pages.record import build_record  # noqa: E402
from bitextcrawl.pairing.align import AlignConfig, align_site  # noqa: E402
from bitextcrawl.pairing.evaluate import evaluate  # noqa: E402
from testkit import real_sites  # noqa: E402
from testkit.glossary import glossary_site  # noqa: E402
from testkit.multilingual import ManualSpec, generate_manual, manual_records  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", nargs="+", default=["en", "fr", "de", "ja", "ru"])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--glossary", type=float, metavar="SHARE",
                        help="the generated glossary instead (testkit/glossary.py, opaque, "
                             "SHARE of its entries translated, copies of the rest under a "
                             "notice): F1 per language of one alignment of --langs")
    args = parser.parse_args()
    langs = tuple(args.langs)
    identify = real_sites.identifier()
    if args.glossary is not None:
        glossary(langs, args.glossary, identify)
        return
    print(f"{'copies':8s} {'URLs':7s} {'lang':5s} {'together F1':>12s} {'alone F1':>9s} "
          f"{'copies paired':>14s} {'seconds':>8s}")
    for fallback in ("bytes", "notice"):
        site = generate_manual(ManualSpec(n_pages=args.pages, seed=args.seed,
                                          fallback=fallback, langs=langs), 8080)
        for opaque in (False, True):
            records, redirects, url = manual_records(site, identify, opaque=opaque)
            copies = {url[u] for u in site.fallback_urls}
            t = time.process_time()
            together = align_site(records, AlignConfig(langs=langs), redirects=redirects)
            seconds = time.process_time() - t
            for lang in langs[1:]:
                gold = [(url[a], url[b]) for a, b in site.gold_pairs[lang]]
                pairs = [(p.url_1, p.url_2) for p in together.pairs if p.lang_2 == lang]
                alone = align_site(records, AlignConfig(langs=(langs[0], lang)),
                                   redirects=redirects)
                own = evaluate(gold, [(p.url_1, p.url_2) for p in alone.pairs])
                paired = len(copies & {u for pair in pairs for u in pair})
                print(f"{fallback:8s} {'opaque' if opaque else 'site':7s} {lang:5s} "
                      f"{evaluate(gold, pairs)['f1']:12.3f} {own['f1']:9.3f} {paired:14d} "
                      f"{seconds:8.1f}", flush=True)


def glossary(langs: tuple, share: float, identify) -> None:
    """F1 per language of one alignment of the generated glossary with copies."""
    site = glossary_site(langs=langs, translated=share, fallback=True)
    records = [build_record(site.url(p), html, identify) for p, html in sorted(site.pages.items())]
    result = align_site(records, AlignConfig(langs=langs))
    print(f"glossary, {share:.0%} translated, copies of the rest: "
          f"{len(records)} pages, one alignment of {len(langs)} languages")
    for lang in langs[1:]:
        gold = [(site.url(a), site.url(b)) for a, b in site.golds[lang]]
        pairs = [(p.url_1, p.url_2) for p in result.pairs if p.lang_2 == lang]
        print(f"en-{lang:5s} F1 {evaluate(gold, pairs)['f1']:.3f}  copies "
              f"{result.counts[f'bitext/align/{langs[0]}-{lang}/copies']}", flush=True)


if __name__ == "__main__":
    main()
