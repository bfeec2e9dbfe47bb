"""URL-only pairing of many sites (``scrapy urlpairs``) [Zhang 2013 §2.1-2.2]: one learner
per site, the language of unlabelled URLs from the patterns every site's learner found,
then each site paired again against the C(p) of them all."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Iterable

from bitextcrawl.pages.language import LANG_ALIASES
from bitextcrawl.pages.site import site_url_tokens, token_languages
from bitextcrawl.pages.urls import site_of
from bitextcrawl.pairing.pattern_db import PatternDB
from bitextcrawl.pairing.url_patterns import UrlPatternLearner
from bitextcrawl.pairing.url_tokens import (
    _SPLIT,
    DEFAULT_LOCAL_THRESHOLD,
    DEFAULT_MAX_BUCKET,
    DEFAULT_RESCUE_THRESHOLD,
    _LanguageVoter,
)

logger = logging.getLogger(__name__)


def parse_url_lines(lines: Iterable[str]) -> list[tuple[str | None, str]]:
    """``url`` or ``lang<TAB>url`` lines -> (lang or None, url); blank and ``#`` lines skipped."""
    out = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            lang, url = line.split("\t", 1)
            out.append((lang.strip().lower() or None, url.strip()))
        else:
            out.append((None, line))
    return out


def pair_urls(lines: list[str], langs=("en", "fr"),
              local_threshold: float = DEFAULT_LOCAL_THRESHOLD,
              rescue_threshold: float = DEFAULT_RESCUE_THRESHOLD,
              pattern_db: PatternDB | None = None, max_bucket: int = DEFAULT_MAX_BUCKET,
              slug_ids: bool = True) -> list[tuple[str, str]]:
    """URL-only pairing of many sites: per-site patterns, cross-site C(p) rescue [Zhang 2013 §2.1].

    1. Learn each site from its labelled URLs and record it in the pattern DB.
    2. Give unlabelled URLs a language: the site's own patterns, else patterns with C(p) above the
       rescue threshold from any site, else (URL-only input has no language ID, unlike the
       paper) a token equal to a language code of ``langs`` or one of its aliases
       (``/en/``, ``-fr``, ``lang=en``; ``/cn/`` for zh: ``pages.language.LANG_ALIASES``).
    3. Re-learn every site with all URLs, record it, and learn once more so that every site's
       weak keys are judged against the C(p) of all sites (small sites get rescued).
    Every fit is given the site's URL language tokens, learned from its URLs' languages (the
    labels of the lines, then also those of step 2; see :func:`_site_token_langs`): a weak key
    whose two tokens are the site's markers of its two languages is rescued, as in a crawl.
    Returns ``(url_1, url_2)`` with url_1 in the earlier language of ``langs``; one URL in at
    most one pair. ``pattern_db`` (updated, not saved) brings the history of earlier runs.
    """
    langs = tuple(langs)
    db = pattern_db if pattern_db is not None else PatternDB(None)
    entries = parse_url_lines(lines)
    by_site: dict[str, list[tuple[str | None, str]]] = defaultdict(list)
    for lang, url in entries:
        by_site[site_of(url)].append((lang, url))
    logger.info("urlpairs: %d URLs from %d sites", len(entries), len(by_site))

    def learner() -> UrlPatternLearner:
        return UrlPatternLearner(langs, local_threshold, rescue_threshold, db,
                                 max_bucket=max_bucket, slug_ids=slug_ids)

    def group(items) -> dict[str, list[str]]:
        d: dict[str, list[str]] = defaultdict(list)
        for lang, url in items:
            d[lang if lang else ""].append(url)
        return d

    # 1. labelled URLs
    learners: dict[str, UrlPatternLearner] = {}
    for site, items in by_site.items():
        if sum(1 for lang, _ in items if lang in langs) >= 2:
            lr = learner().fit(group(items), token_langs=_site_token_langs(items))
            db.update(site, lr.patterns_, lr.site_size_)
            learners[site] = lr
    # 2. languages for unlabelled URLs
    global_voter = _LanguageVoter()
    for d in db.strong_patterns(rescue_threshold):
        if d["lang1"] in langs and d["lang2"] in langs:
            global_voter.add(d["lang1"], d["token1"], d["lang2"], d["token2"], d["contexts"],
                             d["global_credibility"])
    codes = {lang.lower(): lang for lang in langs}
    for alias, code in LANG_ALIASES.items():   # the codes sites use for them (/cn/: zh)
        if code in langs:
            codes.setdefault(alias, code)
    inferred = 0
    for site, items in by_site.items():
        lr = learners.get(site)
        for k, (lang, url) in enumerate(items):
            if lang:
                continue
            guess = lr.language_of(url) if lr is not None else None
            if guess is None and global_voter:
                guess = global_voter.vote(url)
            if guess is None:
                guess = _code_vote(url, codes)
            if guess is not None:
                items[k] = (guess, url)
                inferred += 1
    logger.info("urlpairs: inferred the language of %d unlabelled URLs", inferred)
    # 3. all URLs; then once more against the C(p) of every site
    site_tokens = {site: _site_token_langs(items) for site, items in by_site.items()}
    for site, items in by_site.items():
        lr = learner().fit(group(items), token_langs=site_tokens[site])
        db.update(site, lr.patterns_, lr.site_size_)
    out: list[tuple[str, str]] = []
    rescued = 0
    for n, (site, items) in enumerate(by_site.items(), 1):
        if n % 1000 == 0:
            logger.info("urlpairs: paired %d of %d sites", n, len(by_site))
        lr = learner().fit(group(items), token_langs=site_tokens[site])
        db.update(site, lr.patterns_, lr.site_size_)
        rescued += sum(1 for p in lr.patterns_ if p.rescued)
        for pair in lr.pairs():
            if (pair.lang_1, pair.lang_2) == langs[:2]:
                out.append((pair.url_1, pair.url_2))
    logger.info("urlpairs: %d pairs (%d rescued weak keys)", len(out), rescued)
    return out


def _site_token_langs(items: Iterable[tuple[str | None, str]]) -> dict[str, str]:
    """URL token -> the language it names on this site, from ``(lang, url)`` of its URLs.

    The crawl learns these tokens from the pages fastText labelled (``pages.site``) and gives
    them to every fit; ``urlpairs`` has no page text, so the languages of its URLs stand in
    for those labels: the ``lang`` column of its lines, and for URLs given alone the language
    step 2 of :func:`pair_urls` gave them. Without them ``UrlPatternLearner._judge`` could
    never rescue a key as the site's own language markers, and on a multilingual site every
    partial translation stayed below C(p,w) > 0.1 however plain its URLs: |w| counts the
    pages of all languages (Zhang, Yao & Kit's "size of w in number of webpages", [Zhang 2013]
    §2.1), so tldr's 175 German pages of 3,553 give ⟨en,de⟩ C(p,w) = 350/3553 = 0.099, and
    nginx.org's 5 Hebrew pages of 389 give 0.026; one site's C(p) is C(p,w)·N(p,w) < 35,
    far from the paper's rescue at C(p) > 500. The same learner and thresholds as the crawl's
    (``site_url_tokens``: 3 pages, 85% of them in one language, other languages seen without
    the token), over the URLs of every language of the site, not only the two asked: a token
    the other languages carry too (``org``, ``ar`` of ``/XX/common/ar.html``) is no
    language's marker. Unlabelled URLs teach nothing. A URL that step 2 labelled by its code
    token (``/de/``) teaches that token its own language; a key rescued on such labels alone
    is ⟨code of lang1, code of lang2⟩ itself (a URL carrying both codes gets no label), the
    evidence step 2 already takes for a language.
    """
    tokens = site_url_tokens()
    for lang, url in items:
        if lang:
            tokens.learn(url, lang)
    return token_languages(tokens)


def _code_vote(url: str, codes: dict[str, str]) -> str | None:
    found = {codes[t.lower()] for t in _SPLIT.split(url)[2::2] if t.lower() in codes}
    return found.pop() if len(found) == 1 else None
