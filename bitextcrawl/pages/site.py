"""One site's page records made consistent before pairing.

A crawl stores what the server answered, URL by URL. Multilingual sites answer many
URLs with one page: redirects (``./fr/x.html`` -> ``/fr/x.html``) and fallback copies
(the English page served under ``/ja/x.html`` where no Japanese one exists). Pairing
needs one record per content, and every URL that points at a page (hreflang, switches,
links of the site graph) resolved to that record. :func:`canonical_pages` does both,
settles the language of pages fastText is unsure of by the site's own URL tokens, and,
given the languages asked for, labels the pages of a variant asked for (``pt-br``) with
it where the site's declarations name it (:mod:`bitextcrawl.pages.variants`).

No Scrapy import here: it runs at the crawl's close, in ``scrapy align`` and in the
export of ``pages.jsonl``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bitextcrawl.pages.language import LANG_ALIASES, base_lang, lang_code, tag_parts
from bitextcrawl.pages.prose import is_copy, prose, prose_lines
from bitextcrawl.pages.template import TEMPLATE_MIN_PAGES
from bitextcrawl.pages.urls import UrlLanguageTokens, follow_redirects, page_name, path_segments
from bitextcrawl.pages.variants import (
    declaring_languages,
    hreflang_claims,
    page_lang,
    page_variant,
)

# fastText labels at or above this are trusted as they are (as in pages/language.py).
CONFIDENT = 0.9
# Methods whose label is fastText's own guess (a page's declaration is not second-guessed).
GUESSED = ("fasttext", "none")


@dataclass
class SitePages:
    pages: list                                   # one record per content, sorted by URL
    resolve: dict = field(default_factory=dict)   # every URL seen -> its page's canonical URL
    duplicates: int = 0                           # records folded into another one
    relabelled: int = 0                           # unsure languages settled by URL tokens
    variants: int = 0                             # pages labelled with a variant asked for
    token_langs: dict = field(default_factory=dict)  # URL token -> language it names here

    @property
    def size(self) -> int:
        """|w| of [Zhang 2013]: the site's distinct pages, all languages."""
        return len(self.pages)


# Token learning: every label fastText gives with p >= 0.5 counts, so that a token such as
# ``ngx`` (carried by English module pages fastText is unsure of, and by Chinese ones it
# is sure of) is seen as mixed; 85% of a token's pages in one language make it name that
# language (one of nginx.org's 9 Japanese pages is labelled English); 3 pages (as the 3
# pairs of an id-marker key) are enough, so a 5-page translation (Hebrew) has its marker.
TOKEN_MIN_PROB = 0.5
TOKEN_PURITY = 0.85
TOKEN_MIN_PAGES = 3


def site_url_tokens() -> UrlLanguageTokens:
    """An empty token learner with the site-level thresholds (the crawl fills it online)."""
    return UrlLanguageTokens(min_pages=TOKEN_MIN_PAGES, purity=TOKEN_PURITY)


def token_languages(tokens: UrlLanguageTokens) -> dict[str, str]:
    """URL token -> the language it names (what ``UrlPatternLearner.fit`` takes)."""
    return {t: lang for t in sorted(tokens.counts) if (lang := tokens.token_lang(t))}


def learn_url_tokens(pages, min_prob: float = TOKEN_MIN_PROB) -> UrlLanguageTokens:
    """URL tokens naming a language, from the pages of unique content fastText labelled.

    Duplicates are left out: the English fallback copies under ``/ja/`` would make ``ja``
    look like a token of English. So are pages labelled by ``url_token`` themselves.
    """
    seen: dict[str, int] = {}
    for p in pages:
        if p.content_hash:
            seen[p.content_hash] = seen.get(p.content_hash, 0) + 1
    tokens = site_url_tokens()
    for p in pages:
        if (p.lang_prob >= min_prob and p.lang_method != "url_token"
                and seen.get(p.content_hash, 0) <= 1):
            tokens.learn(p.url, p.lang)
    return tokens


class CrawlUrlTokens:
    """The crawl's URL-token learner: each page the crawl makes is learned once, here, and
    every component reads it at the standard of evidence its use needs.

    * :attr:`links`: what a link's URL says of its language before download (the focus,
      the parallel-link index). Every page counts, and a token names a language only on
      strong evidence (``min_pages`` pages, a share ``purity`` of them in it; the
      ``BITEXT_FOCUS_URL_TOKEN_*`` settings): a wrong reading steers the crawl.
    * :attr:`site`: the closing alignment's standard (:func:`learn_url_tokens`, online):
      the first page of each content, labelled with p >= ``TOKEN_MIN_PROB``, 3 pages at
      85%. The URL patterns' token languages and the re-judging of held links read it.
    * :attr:`slots`: the path positions where the site writes languages' codes
      (:class:`LanguageSlots`), at the links' standard: a code there names its language
      before a page of it is seen (a link to ``/ja/`` on a site of ``/en/`` and ``/ru/``).
    * :attr:`site_size`: |w| of [Zhang 2013], the distinct contents seen, all languages.
    """

    def __init__(self, min_pages: int = 5, purity: float = 0.95):
        self.links = UrlLanguageTokens(min_pages, purity)
        self.site = site_url_tokens()
        self.slots = LanguageSlots(min_pages, purity)
        self._contents: set[str] = set()

    def learn(self, page) -> None:
        """A page record of the crawl (fetched now, or stored by an earlier run)."""
        self.links.learn(page.url, page.lang)
        self.slots.learn(page)
        key = page.content_hash if page.content_hash and page.text_length else page.url
        if key not in self._contents:
            self._contents.add(key)
            if page.lang_prob >= TOKEN_MIN_PROB:
                self.site.learn(page.url, page.lang)

    @property
    def site_size(self) -> int:
        return len(self._contents)


def _segment_code(segment: str) -> str | None:
    """The language a path segment is a code of (``fr``, ``pt-br``, ``zh_CN``, ``cn``):
    a two-letter primary subtag or a code people write for one, else None (``faq``, ``new``
    and ``min`` are three-letter codes of lid.176 and words in URLs)."""
    parts = tag_parts(segment)
    if parts is None or not (len(parts[0]) == 2 or parts[0] in LANG_ALIASES):
        return None
    return lang_code(segment)


class LanguageSlots:
    """Path positions where the site writes the language code of a page (``/en/…``,
    ``/docs/fr/…``), learned one page at a time: at least ``min_pages`` of its pages
    fastText labelled carry there a segment that is a code of their own language, and a
    share ``purity`` of the labelled pages with a code there agree with it. [Zhang 2013
    §2.1]: a site's language identifiers in its URLs; a position, unlike a learned token,
    names the languages the crawl saw few pages of (one page under ``/tr/`` on a site
    crawled for en–ru)."""

    def __init__(self, min_pages: int = TOKEN_MIN_PAGES, purity: float = TOKEN_PURITY,
                 min_prob: float = TOKEN_MIN_PROB):
        self.min_pages, self.purity, self.min_prob = min_pages, purity, min_prob
        self.agree: dict[int, int] = {}   # position -> pages whose code there is their language's
        self.coded: dict[int, int] = {}   # position -> pages with a code there

    def learn(self, page) -> None:
        if page.lang_prob < self.min_prob or page.lang_method not in GUESSED:
            return
        for i, segment in enumerate(_folders(page.url)):
            code = _segment_code(segment)
            if code:
                self.coded[i] = self.coded.get(i, 0) + 1
                self.agree[i] = self.agree.get(i, 0) + (code == base_lang(page.lang))

    def slots(self) -> frozenset:
        return frozenset(i for i, n in self.agree.items()
                         if n >= self.min_pages and n >= self.purity * self.coded[i])


def language_slots(pages, min_pages: int = TOKEN_MIN_PAGES, purity: float = TOKEN_PURITY,
                   min_prob: float = TOKEN_MIN_PROB) -> frozenset:
    """The :class:`LanguageSlots` of ``pages``."""
    slots = LanguageSlots(min_pages, purity, min_prob)
    for p in pages:
        slots.learn(p)
    return slots.slots()


def _folders(url: str) -> list[str]:
    """The folders of ``url``'s path, not its file: ``/en/docs/x.html`` -> ``en``,
    ``docs``; ``/ja/`` -> ``ja``."""
    segments = path_segments(url)
    return segments if urlsplit(url).path.endswith("/") else segments[:-1]


def slot_language(url: str, slots) -> str | None:
    """The language the code in one of the site's language positions of ``url`` names."""
    segments = _folders(url)
    for i in sorted(slots):
        if i < len(segments) and (code := _segment_code(segments[i])):
            return code
    return None


# A page with this many words of prose (``prose.prose``: identifiers and lists left out),
# read by fastText at this probability, keeps fastText's language against its URL's: the
# URL tokens settle pages of identifiers and lists, which fastText cannot read.
PROSE_WORDS = 150
PROSE_CONFIDENT = 0.8


def settle_language(page, tokens: UrlLanguageTokens, confident: float = CONFIDENT,
                    slots=frozenset()):
    """The page's language where fastText is unsure and the URL names one language.

    Index and reference pages of a documentation site are mostly identifiers: fastText
    calls a Russian directive index English at p = 0.2. The site's URL tokens, learned
    from its confidently identified pages, settle it (``lang_method="url_token"``).
    """
    if page.lang_method not in GUESSED or page.lang_prob >= confident:
        return None
    if page.lang_prob >= PROSE_CONFIDENT and len(prose(page.text).split()) >= PROSE_WORDS:
        # pages of prose that fastText reads as one language are in it, whatever their
        # URL says: a server's original, served where a translation is missing
        return None
    alternates = {base_lang(x) for x in (page.hreflang or {})}
    if len(alternates) > 1 and base_lang(page.lang) in alternates:
        # the page's own bar of alternates names its guessed language and others: the
        # URL's language, where the bar leaves it out, is not the page's (a fallback
        # copy of an untranslated page, served under that language's URL)
        alternates_name = alternates.__contains__
    else:
        alternates_name = None
    # A code where the site writes its language codes is the site's declaration.
    declared = slot_language(page.url, slots)
    if declared is not None:
        if declared == base_lang(page.lang) or (
                alternates_name is not None and not alternates_name(base_lang(declared))):
            return None
        return declared
    # The most specific token decides (``/ja/docs/faq.html``: ``ja``, not ``faq``, which
    # only English pages carry because most pages are English).
    lang, _ = tokens.most_specific(page.url)
    if lang is None or lang == page.lang or base_lang(lang) == base_lang(page.lang):
        # (a variant is the page's own declarations' to name, never a learned token's:
        # a ``pt`` page is not made ``pt-br`` by the URL tokens of other pages)
        return None
    if lang != base_lang(lang) and page_variant(page, base=base_lang(lang)) != lang:
        return None
    if alternates_name is not None and not alternates_name(base_lang(lang)):
        return None
    return lang


def _copied_pages(unsure: list, records: list, lines_of=None) -> set:
    """URLs of the ``unsure`` pages whose prose is, line for line, the prose of a page whose
    label stands (not itself among ``unsure``) in the language fastText guessed for them
    (:func:`~bitextcrawl.pages.prose.is_copy`).

    A URL's language code is evidence, not the answer: a site that serves its original
    where a translation is missing, under the other language's URL, keeps the original's
    words, and fastText's guess of their language stands. The original may be unsure too
    (a page of code and identifiers): its URL does not contradict its label.
    ``lines_of``: a page's :func:`~bitextcrawl.pages.prose.prose_lines`, where the caller
    keeps them.
    """
    lines_of = lines_of or (lambda page: prose_lines(page.text))
    if not unsure:
        return set()
    relabelling = {p.url for p in unsure}
    wanted = {base_lang(p.lang) for p in unsure}
    by_line: dict[str, list] = {}
    for q in records:
        if (q.url not in relabelling and q.lang_method != "url_token"
                and base_lang(q.lang) in wanted):
            lines = lines_of(q)
            for line in lines:
                by_line.setdefault(line, []).append((q, lines))
    out = set()
    for p in unsure:
        lines = lines_of(p)
        # the sure pages sharing a line with it, each once
        sharing = {q.url: (q, other) for line in lines for q, other in by_line.get(line, ())
                   if q.url != p.url and base_lang(q.lang) == base_lang(p.lang)}
        if any(is_copy(other, lines, q.title, p.title) for q, other in sharing.values()):
            out.add(p.url)
    return out


def _canonical_rank(page, tokens: UrlLanguageTokens, linked_from: dict | None = None) -> tuple:
    """Sort key of a duplicate group: URL naming the page's language first; then a URL
    that pages of its language link the most (``linked_from``: URL -> Counter of the
    languages of the pages linking it); then shallower, then shorter.

    Where URLs name no language, the original and its copies served for missing
    translations differ in who links them: a site's English pages link the English
    original, its German pages the copy under the German section."""
    named = tokens.predict(page.url)
    agree = 1 if page.lang in named else (-1 if named else 0)
    depth = len(path_segments(page.url))
    langs = (linked_from or {}).get(page.url)
    own = langs[page.lang] / sum(langs.values()) if langs else 0.0
    return (-agree, -own, depth, len(page.url), page.url)


def _merge_copies(groups: dict, lines_of) -> None:
    """Merge, in place, the groups of one language whose pages are copies of one another
    (:func:`~bitextcrawl.pages.prose.is_copy` on the lines few pages share; under one
    subject in two title templates, :func:`_copied_title`, or under one title where one
    of them carries another language's template lines): the original
    and the copies a site serves, each in another language's template and under a notice,
    where that language has no translation. Pairing sees one page, and its canonical URL
    is the original's (:func:`_canonical_rank`).

    A line on more pages than the site has languages, plus one, is template (a footer's
    notice), not what makes two pages copies."""
    heads = {key: group[0] for key, group in groups.items() if group[0].text_length}
    langs = Counter(p.lang for p in heads.values())
    most = sum(1 for n in langs.values() if n >= SITE_LANGUAGE_PAGES) + 1
    lines = {key: lines_of(p) for key, p in heads.items()}
    having: dict = {}
    for key, got in lines.items():
        for line in got:
            having.setdefault((heads[key].lang, line), []).append(key)
    common = {k for k, keys in having.items() if len(keys) > most}
    own = {key: frozenset(line for line in got if (heads[key].lang, line) not in common)
           for key, got in lines.items()}
    parent: dict = {}

    @functools.cache
    def foreign(key) -> bool:
        # the page carries another language's template: lines most of its pages repeat
        lang = heads[key].lang
        return any(len(having.get((other, line), ())) >= max(TEMPLATE_MIN_PAGES,
                                                              TEMPLATE_LINE_SHARE * n)
                   for line in lines[key] for other, n in langs.items() if other != lang)

    def root(key):
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    for (lang, line), keys in having.items():
        if (lang, line) in common or len(keys) < 2:
            continue
        for i, one in enumerate(keys):      # a few pages: the copies of one page
            for other in keys[i + 1:]:
                a, b = root(one), root(other)
                if a != b and is_copy(own[one], own[other]) and (
                        _copied_title(heads[one].title, heads[other].title)
                        or (heads[one].title == heads[other].title
                            and foreign(one) != foreign(other))):
                    parent[b] = a
    for key in sorted(parent):      # a root is never moved: each group moves once
        top = root(key)
        if top != key:
            groups[top].extend(groups.pop(key))


_TITLE_SEPARATOR = re.compile(r"\s+[-–—|·:]\s+")


def _copied_title(title_1: str, title_2: str) -> bool:
    """The same subject (a title's text before its last separator, ``Rate limits`` of
    ``Rate limits - Example``) in two titles whose site part differs: a copy keeps its
    original's title inside another language's title template. Two pages of one
    language with one title (a command for two platforms) are two pages."""
    if not title_1 or not title_2 or title_1.strip().lower() == title_2.strip().lower():
        return False
    subject_1 = _TITLE_SEPARATOR.split(title_1.strip())[0].lower()
    subject_2 = _TITLE_SEPARATOR.split(title_2.strip())[0].lower()
    return subject_1 == subject_2 and subject_1 != title_1.strip().lower()


# A line on this share of a language's pages (``template.TEMPLATE_MIN_PAGES`` at least) is
# that language's template (a footer's notice).
TEMPLATE_LINE_SHARE = 0.5
# A language the site is written in: this many of its pages are in it.
SITE_LANGUAGE_PAGES = 3


def _linked_from(records: list, urls: set) -> dict:
    """For each of ``urls``: a Counter of the languages of the pages that link it."""
    out: dict = {}
    for p in records:
        for link in p.links:
            url = link["url"]
            if url in urls and url != p.url:
                out.setdefault(url, Counter())[p.lang] += 1
    return out


def label_variants(records: list, langs) -> tuple[list, int]:
    """``records`` with each one's language as pairing ``langs`` counts it
    (:func:`~bitextcrawl.pages.variants.page_lang`: a variant asked for where the page's
    declarations and the site's hreflang name it, else the base language), and how many
    are labelled with a variant. Records whose language does not change are not copied."""
    claims = hreflang_claims(records)
    out, variants = [], 0
    # (a page declaring no variant counts as the one asked for on a site declaring none)
    declaring = declaring_languages(records, claims) if any(
        base_lang(x) != x for x in langs) else frozenset()
    for p in records:
        got = claims.get(p.url, set())
        if p.requested_url and p.requested_url != p.url:
            got = got | claims.get(p.requested_url, set())
        lang = page_lang(p, langs, got, declaring)
        variants += lang != base_lang(lang)
        out.append(p if lang == p.lang else dataclasses.replace(p, lang=lang))
    return out, variants


def canonical_pages(pages, confident: float = CONFIDENT,
                    redirects: dict | None = None, langs=None) -> SitePages:
    """One record per content under its canonical URL, others as ``aliases`` (pure).

    Canonical URL of a group of records with the same ``content_hash``: the one whose
    URL tokens name the page's language (``/en/x.html`` for an English page also served
    as ``/ja/x.html``), then the shallowest, then the shortest, then the first in order.
    Pages without text are never grouped (an empty page's hash says nothing).
    ``redirects`` (requested URL -> target, as the crawl saw them) add the URLs whose
    chain ends at a page to its aliases. Links and hreflang alternates of the result
    point at canonical URLs; a link to a directory index document (``a/index.html``)
    points at the page its folder's URL names (``a/``: ``pages.urls.page_name``, the
    name a crawl gives a page downloaded under either). ``langs`` (the languages asked
    for): each page's language as pairing them counts it (:func:`label_variants`),
    before anything else; None: the languages as the records have them.
    """
    by_url: dict = {}
    for p in pages:
        by_url.setdefault(p.url, p)
    records = [by_url[u] for u in sorted(by_url)]
    variants = 0
    if langs:
        records, variants = label_variants(records, tuple(langs))
    tokens = learn_url_tokens(records)
    slots = language_slots(records)

    groups: dict[str, list] = {}
    for p in records:
        key = p.content_hash if p.content_hash and p.text_length else f"url:{p.url}"
        groups.setdefault(key, []).append(p)

    # Only a page served under one URL has its language settled by that URL: the same
    # bytes under /en/ and /ja/ are a fallback copy, in the language fastText says.
    relabelled = 0
    settled = [(group, lang) for group in groups.values() if len(group) == 1
               and (lang := settle_language(group[0], tokens, confident, slots)) is not None]
    # a page's sentences, read once for the copies of both kinds (a record's URL is its own)
    sentences: dict = {}

    def lines_of(page) -> frozenset:
        got = sentences.get(page.url)
        if got is None:
            got = sentences[page.url] = prose_lines(page.text)
        return got

    copies = _copied_pages([group[0] for group, _ in settled], records, lines_of)
    for group, lang in settled:
        if group[0].url not in copies:
            group[0] = dataclasses.replace(group[0], lang=lang, lang_method="url_token")
            relabelled += 1

    resolve: dict[str, str] = {}
    chosen: dict[str, tuple] = {}
    _merge_copies(groups, lines_of)
    shared = {p.url for group in groups.values() if len(group) > 1 for p in group}
    linked_from = _linked_from(records, shared) if shared else {}
    for group in groups.values():
        # who links a page tells the original where every page of the group is linked
        known = linked_from if all(p.url in linked_from for p in group) else None
        group.sort(key=lambda p: _canonical_rank(p, tokens, known))
        head = group[0]
        others = set()
        for p in group:
            others.update(u for u in (p.url, p.requested_url, *p.aliases) if u)
        others.discard(head.url)
        chosen[head.url] = (head, others)
        for u in others:
            resolve.setdefault(u, head.url)
    # A URL that is a canonical page itself never resolves elsewhere.
    for url in chosen:
        resolve[url] = url
    for source in sorted(redirects or ()):
        if source in resolve:
            continue
        target = follow_redirects(redirects[source], redirects, stop=resolve)
        if target in resolve:
            resolve[source] = resolve[target]
            chosen[resolve[target]][1].add(source)

    def resolved(url: str) -> str:
        got = resolve.get(url)
        if got is None:
            got = resolve.get(page_name(url))
            if got is None:
                return url
            resolve[url] = got   # a directory index document: the page its folder names
        return got

    out = []
    for head, aliases in chosen.values():
        aliases = sorted(aliases)
        links, seen = [], set()
        for link in head.links:
            url = resolved(link["url"])
            if url in seen:
                continue
            seen.add(url)
            links.append(link if url == link["url"] else {**link, "url": url})
        hreflang = {lang: resolved(u) for lang, u in head.hreflang.items()}
        if (aliases == head.aliases and hreflang == head.hreflang and len(links) == len(head.links)
                and all(a is b for a, b in zip(links, head.links))):
            out.append(head)   # the same record: not copied (100 MiB on 100,000 pages)
        else:
            out.append(dataclasses.replace(head, aliases=aliases, links=links, hreflang=hreflang))
    out.sort(key=lambda p: p.url)
    return SitePages(out, resolve, duplicates=len(records) - len(out), relabelled=relabelled,
                     variants=variants, token_langs=token_languages(tokens))


def canonical_records(records, redirects: dict | None = None, langs=None):
    """:func:`canonical_pages` site by site over any iterable of records, sites in order."""
    by_site: dict[str, list] = {}
    for p in records:
        by_site.setdefault(p.site, []).append(p)
    for site in sorted(by_site):
        yield from canonical_pages(by_site.pop(site), redirects=redirects, langs=langs).pages
