"""The expand crawl's rounds [Zhang 2013 §2.3], pure (no Scrapy): what a closed site adds
to the expansion (its result, C(w), the sites it links to and the URLs it lands on), the
sites of the next round, the site that takes a failed one's place, and the round files
(``expansion.jsonl``, ``sites.jsonl``). The ``expand`` spider (``spiders/expand.py``)
crawls the sites and hands each one here as it closes; a site is anything with the
attributes of the spider's ``SiteCrawl`` read here (``site``, ``round``, ``seed``,
``replaces``, ``output_dir``, ``detection``, ``failure``)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable

from bitextcrawl.formats.jsonl import iter_jsonl, write_jsonl
from bitextcrawl.pages.site import canonical_pages
from bitextcrawl.pairing.url_patterns import PatternDB, UrlPatternLearner
from bitextcrawl.sites.detect import detect_bilingual
from bitextcrawl.sites.expansion import (
    Expansion,
    SiteResult,
    count_landing,
    outlink_counts,
    site_link_evidence,
    site_start_urls,
)


class RoundPlanner:
    def __init__(self, expansion: Expansion, langs: tuple):
        self.expansion, self.langs = expansion, langs
        self.landing: dict[str, Counter] = {}  # outside site -> its URLs the set links to

    def start_urls(self, site: str) -> list[str]:
        return site_start_urls(site, self.landing)

    def replacement(self, round_no: int, tried) -> str | None:
        """The next site of the round's ranking, in place of one that failed its check."""
        return self.expansion.next_candidate(round_no, tried)

    def close_failed(self, site) -> None:
        """A site no check request reached: reported."""
        self.expansion.record(SiteResult(
            site.site, site.round, False, seed=site.seed, reason=site.failure,
            output_dir=site.output_dir, failed=site.failure, replaces=site.replaces))

    def close_site(self, site, pages: list, bilingual: bool,
                   align: Callable[[SiteResult], None],
                   pairs: Callable[[], list | None]) -> SiteResult:
        """A site of the round closed: its verdict, and for a bilingual one its alignment
        (``align(result)``), the URLs it lands on and the evidence of its links
        (``pairs()``: its pairs, None without the closing alignment)."""
        detection = site.detection or detect_bilingual(pages, self.langs, site=site.site)
        result = SiteResult(site.site, site.round, bilingual, seed=site.seed,
                            pages=len(pages), reason=detection.evidence["reason"],
                            output_dir=site.output_dir, detection=detection.evidence,
                            replaces=site.replaces)
        evidence = None
        if bilingual:
            align(result)
            count_landing(self.landing, site.site, pages)
            evidence = site_link_evidence(pages, self.langs, pairs()).get(site.site, {})
        self.expansion.record(result, outlink_counts(pages).get(site.site, {}), evidence)
        return result

    def next_sites(self, round_no: int) -> tuple[list[dict], list[str]]:
        """Round ``round_no``'s ranking of the sites linked from the set, and its top K."""
        ranking = self.expansion.rank(round_no)
        return ranking, self.expansion.select(ranking)

    def write(self, output_dir: str) -> None:
        """``expansion.jsonl`` (every round's ranking) and ``sites.jsonl`` (every site checked)."""
        write_jsonl(os.path.join(output_dir, "expansion.jsonl"), self.expansion.all_rows())
        write_jsonl(os.path.join(output_dir, "sites.jsonl"),
                    (res.to_dict() for _, res in sorted(self.expansion.results.items())))


def learn_site_patterns(site: str, pages: list, langs: tuple, align_config,
                        pattern_db: PatternDB) -> None:
    """URL patterns only (no closing alignment), so that C(w) is still known."""
    learner = UrlPatternLearner(langs=langs,
                                local_threshold=align_config.pattern_local_threshold,
                                rescue_threshold=align_config.pattern_rescue_threshold,
                                pattern_db=pattern_db)
    site_pages = canonical_pages(pages, langs=langs)
    urls: dict[str, list[str]] = {}
    for page in site_pages.pages:
        if page.lang in langs:
            urls.setdefault(page.lang, []).append(page.url)
    # |w| as the closing alignment counts it: distinct pages, all languages
    learner.fit(urls, site_size=site_pages.size)
    pattern_db.update(site, learner.patterns_, site_size=learner.site_size_)
    pattern_db.save()


def align_site(site, pages: list, align_config, align_enabled: bool, pattern_db: PatternDB,
               result: SiteResult) -> None:
    """The closing alignment into the site's own output dir; C(w) from the pattern DB."""
    facts = {"bitext/expand/site": site.site, "bitext/expand/round": site.round,
             "bitext/expand/pages": len(pages)}
    if align_enabled:
        from bitextcrawl.outputs import run_closing

        run_closing(pages, align_config, site.output_dir, pattern_db=pattern_db,
                    crawl_stats=facts)
    else:  # URL patterns only, so that C(w) is still known
        learn_site_patterns(site.site, pages, align_config.langs, align_config, pattern_db)
    result.credibility = pattern_db.site_credibility(site.site)


def site_pairs(output_dir: str, align_enabled: bool) -> list[tuple[str, str]] | None:
    """A site's pairs from its ``pairs.jsonl`` (None without the closing alignment)."""
    path = os.path.join(output_dir, "pairs.jsonl")
    if not align_enabled or not os.path.exists(path):
        return None
    return [(d["url_1"], d["url_2"]) for d in iter_jsonl(path)]
