"""Synthetic bilingual websites with known gold, for the demo, integration tests and benchmarks.

``generate_site(SiteSpec(...), port)`` builds a whole website in memory: every resource
(HTML pages, ``robots.txt``, redirects, bad input) keyed by its absolute URL, plus the
gold the crawler is scored against: which page is the translation of which
(``gold_pairs``), the language of every page (``page_langs``) and, per gold pair, the
aligned sentence pairs of its main text (``sentence_gold``). A loopback server answers
requests with ``GeneratedSite.lookup(host_header, path_and_query)``.

How the text is made
    A small bilingual lexicon written for it (nouns with French and German gender,
    adjectives, verbs, adverbs, places, people, counted nouns: ``data/lexicon.json``, its
    morphology in :mod:`.lexicon`) and ~36 sentence templates written once per language
    (``data/templates.json``, planned and rendered by :mod:`.phrases`). A page is first *planned* language-independently
    (which template, which nouns/verbs/numbers fill it) and then *rendered* in each
    language, so the French page is a real sentence-by-sentence translation of the English
    one: same sentences in the same order, with the natural length differences of the
    languages (French ~15% longer in characters) and the odd connective a translator
    adds. Each page draws its words mostly from its own small topic pool, so different
    pages share little vocabulary and do not look parallel. Numbers, years, dates, prices,
    product codes and phone numbers are shared by both versions (language-independent
    evidence). Only en, fr and de are supported (``SUPPORTED_LANGS``).

The site
    One home page per language, section index pages with pagination, articles linking to
    related articles in the same language, an about page, boilerplate (header, menu,
    breadcrumb, footer) in the page's language, a language toggle to the counterpart
    (``language_switch``), optional ``<link rel="alternate" hreflang>`` (``hreflang_alternates``),
    untranslated pages, third-language pages reachable from the home pages, pages linked
    from nowhere (``hidden_fraction``), a ``/private/`` area forbidden by ``robots.txt`` and
    linked from the home page, and optionally a set of bad resources (``BAD_RESOURCES``).
    Every page that is not hidden is reachable by links from ``start_url``.
    Its data types and parts are in :mod:`.site_model`, its URLs in :mod:`.site_urls`, its
    home, about and private pages and bad resources in :mod:`.fixed_pages`; this module
    plans the site and renders its articles and indexes.

What the gold contains
    ``gold_pairs`` holds every translated pair of HTML pages: the ``n_pairs`` article pairs
    plus the navigation pairs (home pages, about pages, section index pages with the same
    page number in both languages). ``page_kinds`` tells them apart. ``page_langs`` covers
    every generated HTML page, including hidden, third-language and robots-forbidden
    ``/private/`` pages (see ``robots_disallowed``), but not the bad resources
    (``bad_urls``).

URL schemes (``SiteSpec.scheme``)
    prefix     /en/news/harbour-opens.html       <-> /fr/news/harbour-opens.html
    subdomain  en.HOST/news/harbour-opens.html   <-> fr.HOST/news/harbour-opens.html
    suffix     /news/harbour-opens_en.html       <-> /news/harbour-opens_fr.html
    query      /page.php?id=42&lang=en           <-> /page.php?id=42&lang=fr
    opaque     /node/5318807.html                <-> /node/2290415.html (no relation)
    mixed      sections cycle through prefix, translated slugs sharing a numeric id
               (/en/news/42-harbour-opens <-> /fr/actualites/42-ouverture-du-port),
               suffix, query and opaque; home and about pages use prefix.

Speed: pure Python, deterministic per seed. About 0.7 s per 1,000 pairs; 20,000 pairs
(44,000 pages, 160 MB of HTML held in memory) take ~15 s.
"""

from __future__ import annotations

import gc
import random

from bitextcrawl.demo.fixed_pages import _FixedPages
from bitextcrawl.demo.lexicon import _LANG_COL, _LANG_NAMES, _PLACES, _date, _fr_elide
from bitextcrawl.demo.phrases import (
    _CUM_WEIGHTS,
    _add_one_sided_differences,
    _esc,
    _href,
    _phone,
    _plan_article,
    _Pool,
    _render_main,
    _sentence,
    _t,
)
from bitextcrawl.demo.site_model import (
    _HTML_UTF8,
    _MIXED_CYCLE,
    _PER_PAGE,
    _SECTIONS,
    _UI,
    BAD_RESOURCES,
    GeneratedSite,
    Resource,
    SiteSpec,
    _Article,
    _Out,
    _Section,
    _slugify,
)
from bitextcrawl.demo.site_urls import _Urls

__all__ = [
    "BAD_RESOURCES",
    "SCHEMES",
    "SUPPORTED_LANGS",
    "GeneratedSite",
    "Resource",
    "SiteSpec",
    "generate_site",
]

SCHEMES = ("prefix", "subdomain", "suffix", "query", "opaque", "mixed")
SUPPORTED_LANGS = ("en", "fr", "de")


class _Builder(_Urls, _FixedPages):
    """Plans and renders one site. Methods are called in order by :meth:`build`."""

    def __init__(self, spec: SiteSpec, port: int):
        _validate(spec)
        self.spec = spec
        self.port = port
        self.rng = random.Random(spec.seed)
        self.l1, self.l2 = spec.langs[0], spec.langs[1]
        self.l3 = spec.third_lang if spec.n_third > 0 else None
        self.langs = [self.l1, self.l2] + ([self.l3] if self.l3 else [])
        self.side = {self.l1: 0, self.l2: 1}
        self.host = spec.host.lower()
        self.place = self.rng.randrange(len(_PLACES))
        self.phone = _phone(self.rng)
        self.email = f"contact@{self.host}"
        self.out = _Out()
        self._oids: set[int] = set()
        self._slugs_seen: dict[str, int] = {}
        # Real sites' language versions drift apart a little: one gets an extra menu item.
        self.extra_nav_lang = self.rng.choice((self.l1, self.l2, None))

    # -- small helpers -----------------------------------------------------------------


    def ui(self, lang: str, key: str, **kw) -> str:
        s = _UI[lang][key]
        if "{" not in s:
            return s
        s = s.format(P=_PLACES[self.place][_LANG_COL[lang]], **kw)
        return _fr_elide(s) if lang == "fr" else s  # "Ville de Avignon" -> "Ville d'Avignon"


    # -- URLs --------------------------------------------------------------------------


    # -- planning ----------------------------------------------------------------------

    def plan(self) -> None:
        spec, rng = self.spec, self.rng
        k = min(len(_SECTIONS), max(2, round(spec.n_pairs ** 0.5 / 2)))
        if spec.scheme == "mixed":
            k = max(k, len(_MIXED_CYCLE))
        chosen = rng.sample(_SECTIONS, k)
        self.sections = [
            _Section(slug, label, product,
                     _MIXED_CYCLE[i % len(_MIXED_CYCLE)] if spec.scheme == "mixed"
                     else spec.scheme)
            for i, (slug, label, product) in enumerate(chosen)]

        n_untr = round(spec.untranslated_fraction * spec.n_pairs)
        total = spec.n_pairs + n_untr + (spec.n_third if self.l3 else 0)
        nids = rng.sample(range(100, 100 + 10 * total + 100), total)

        # Sections are dealt out round-robin so every section has articles.
        def section_for(i):
            return self.sections[i % k] if i < k else rng.choice(self.sections)

        self.pairs = []
        for i in range(spec.n_pairs):
            sec = section_for(i)
            art = _Article(_plan_article(rng, sec.product, self.place, spec.anchors), sec, nids[i], "article")
            _add_one_sided_differences(rng, art.plan)
            if rng.random() < 0.1:
                art.short_side = rng.randrange(2)
            self.pairs.append(art)
        n_hidden = min(spec.n_pairs, round(spec.hidden_fraction * spec.n_pairs))
        for i in rng.sample(range(spec.n_pairs), n_hidden):
            self.pairs[i].hidden = True

        self.untranslated = []
        for j in range(n_untr):
            sec = rng.choice(self.sections)
            art = _Article(_plan_article(rng, sec.product, self.place, spec.anchors), sec,
                           nids[spec.n_pairs + j], "untranslated")
            art.urls = {rng.choice((self.l1, self.l2)): ""}
            self.untranslated.append(art)

        # Third-language pages translate the first articles (a trilingual core), or are
        # new when there are more of them than pairs.
        self.third = []
        if self.l3:
            for j in range(spec.n_third):
                src = self.pairs[j] if j < len(self.pairs) else None
                sec = src.section if src else rng.choice(self.sections)
                plan = src.plan if src else _plan_article(rng, sec.product, self.place, spec.anchors)
                art = _Article(plan, sec, src.nid if src else nids[spec.n_pairs + n_untr + j],
                               "article")
                art.urls = {self.l3: ""}
                art.source = src
                self.third.append(art)

        self._name_articles()
        self._link_articles()

    def _name_articles(self) -> None:
        """Titles, slugs and URLs of every article."""
        for art in self.pairs:
            langs = (self.l1, self.l2)
            self._title_and_slugs(art, langs)
            for lang in langs:
                art.urls[lang] = self.article_url(lang, art)
        for art in self.untranslated + self.third:
            (lang,) = art.urls
            self._title_and_slugs(art, (lang,))
            if art.source is not None:  # /de/news/<the en slug>.html, like its source
                art.slugs[self.l1] = art.source.slugs[self.l1]
            art.urls[lang] = self.article_url(lang, art)

    def _title_and_slugs(self, art: _Article, langs) -> None:
        for lang in langs:
            art.titles[lang] = art.plan.title.render(lang)
            art.slugs[lang] = _slugify(art.titles[lang])
        # Shared-slug schemes need one slug unique across the site.
        first = langs[0]
        art.slugs[first] = self.unique_slug(art.slugs[first])

    def _link_articles(self) -> None:
        """Section listings (newest first) and related articles."""
        rng = self.rng
        by_sec: dict[int, list] = {}
        for art in self.pairs:
            by_sec.setdefault(id(art.section), []).append(art)
        # Related articles come from the neighbourhood in the section (a window keeps this
        # linear in the size of the site).
        for arts in by_sec.values():
            for i, art in enumerate(arts):
                peers = arts[max(0, i - 12):i] + arts[i + 1:i + 13]
                art.related = rng.sample(peers, min(len(peers), rng.randint(2, 4)))
        for art in self.untranslated:
            peers = by_sec.get(id(art.section), [])
            peers = peers[:30] if len(peers) <= 30 else rng.sample(peers, 30)
            art.related = rng.sample(peers, min(len(peers), 3))
        for art in self.third:
            peers = [p for p in self.third if p is not art]
            art.related = rng.sample(peers, min(len(peers), 3))

        def newest_first(arts):
            return sorted(arts, key=lambda a: (a.plan.date, a.nid), reverse=True)

        for sec in self.sections:
            for lang in (self.l1, self.l2):
                listed = [a for a in by_sec.get(id(sec), []) if not (a.hidden and lang == self.l2)]
                listed += [a for a in self.untranslated if a.section is sec and lang in a.urls]
                sec.items[lang] = newest_first(listed)
                n_pages = max(1, -(-len(sec.items[lang]) // _PER_PAGE))
                sec.pages[lang] = [self.index_url(lang, sec, p) for p in range(1, n_pages + 1)]

        self.homes = {lang: self.home_url(lang) for lang in self.langs}
        self.abouts = {lang: self.about_url(lang) for lang in (self.l1, self.l2)}
        self.latest = {lang: [a for a in newest_first(self.pairs + self.untranslated)
                              if lang in a.urls and not (a.hidden and lang == self.l2)][:8]
                       for lang in (self.l1, self.l2)}
        self.private = [self.base(self.l1) + "/private/", self.base(self.l1) + "/private/staff.html"]

    # -- page chrome -------------------------------------------------------------------

    def page(self, lang: str, title: str, main: str, *, switch: list | None = None,
             alternates: dict | None = None, crumbs: list | None = None,
             sections_nav: bool = True) -> str:
        """A whole HTML page around ``main`` in ``lang``."""
        site = self.ui(lang, "site")
        home = self.homes[lang]
        head = [f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{_t(title)} | {_t(site)}</title>\n"]
        if alternates:
            for alt_lang, url in alternates.items():
                head.append(f'<link rel="alternate" hreflang="{alt_lang}" href="{_href(url)}">\n')
        head.append('<link rel="stylesheet" href="/static/site.css">\n</head>\n<body>\n')
        body = [f'<header class="site-header">\n<a class="logo" href="{_href(home)}">'
                f'<img src="/static/logo.png" alt="{_esc(site)}"> {_t(site)}</a>\n']
        if switch:
            links = "".join(
                f'<li><a href="{_href(url)}" hreflang="{sl}" lang="{sl}">{_LANG_NAMES[sl]}</a></li>'
                for sl, url in switch)
            body.append(f'<ul class="language-switch"><li class="current" lang="{lang}">'
                        f"{_LANG_NAMES[lang]}</li>{links}</ul>\n")
        body.append("</header>\n")
        nav = [(home, self.ui(lang, "home"))]
        if sections_nav and lang in (self.l1, self.l2):
            col = _LANG_COL[lang]
            nav += [(sec.pages[lang][0], sec.label[col]) for sec in self.sections]
            nav.append((self.abouts[lang], self.ui(lang, "about")))
            if lang == self.extra_nav_lang:
                nav.append((self.abouts[lang] + "#press", self.ui(lang, "press")))
        items = "".join(f'<li><a href="{_href(u)}">{_t(label)}</a></li>' for u, label in nav)
        body.append(f'<nav class="main-menu" aria-label="{_esc(self.ui(lang, "menu"))}">'
                    f"<ul>{items}</ul></nav>\n")
        if crumbs:
            trail = [f'<a href="{_href(home)}">{_t(self.ui(lang, "home"))}</a>']
            trail += [f'<a href="{_href(u)}">{_t(label)}</a>' for u, label in crumbs]
            trail.append(f"<span>{_t(title)}</span>")
            body.append(f'<div class="breadcrumb">{" › ".join(trail)}</div>\n')
        body.append(f'<main id="content">\n{main}</main>\n')
        footer_links = [(self.abouts.get(lang, home), self.ui(lang, "contact")),
                        (self.abouts.get(lang, home) + "#legal", self.ui(lang, "legal"))]
        links = "".join(f'<li><a href="{_href(u)}">{_t(label)}</a></li>' for u, label in footer_links)
        body.append(f'<footer class="site-footer">\n<p class="copyright">© 2025 {_t(site)}. '
                    f'{_t(self.ui(lang, "rights"))}</p>\n<ul class="footer-links">{links}</ul>\n'
                    f'<p class="phone">{self.phone}</p>\n</footer>\n</body>\n</html>\n')
        return "".join(head) + "".join(body)

    def emit(self, url: str, lang: str, kind: str, text: str) -> None:
        self.out.resources[url] = Resource(200, dict(_HTML_UTF8), text.encode("utf-8"))
        self.out.page_langs[url] = lang
        self.out.page_kinds[url] = kind

    def pair_gold(self, u1: str, u2: str, s1: list, s2: list) -> None:
        """Record a gold pair and the sentence pairs of its shared paragraphs."""
        self.out.gold.append((u1, u2))
        pairs = []
        for a, b in zip([x for x in s1 if x is not None], [x for x in s2 if x is not None]):
            pairs.extend(zip(a, b))
        self.out.sentence_gold[(u1, u2)] = pairs

    def switch_for(self, lang: str, target: str | None) -> list | None:
        if not self.spec.language_switch or target is None:
            return None
        other = self.l2 if lang == self.l1 else self.l1
        return [(other, target)]

    # -- pages -------------------------------------------------------------------------

    def render_articles(self) -> None:
        for art in self.pairs:
            sents = {}
            for lang in (self.l1, self.l2):
                other = self.l2 if lang == self.l1 else self.l1
                # Hidden pages get no toggle or alternate pointing at them (nor from them,
                # so that both sides look like the pages of an untranslated article).
                target = None if art.hidden else art.urls[other]
                alternates = None
                if self.spec.hreflang_alternates and not art.hidden:
                    alternates = {self.l1: art.urls[self.l1], self.l2: art.urls[self.l2]}
                html_, sents[lang] = self.article_html(art, lang, self.side[lang],
                                                       self.switch_for(lang, target), alternates)
                self.emit(art.urls[lang], lang, "article", html_)
            self.pair_gold(art.urls[self.l1], art.urls[self.l2], sents[self.l1], sents[self.l2])

        for art in self.untranslated:
            (lang,) = art.urls
            other = self.l2 if lang == self.l1 else self.l1
            # Real sites either drop the toggle or send it to the other home page.
            target = self.homes[other] if self.rng.random() < 0.5 else None
            html_, _ = self.article_html(art, lang, None, self.switch_for(lang, target), None)
            self.emit(art.urls[lang], lang, "untranslated", html_)

        for art in self.third:
            (lang,) = art.urls
            html_, _ = self.article_html(art, lang, None,
                                         [(self.l1, self.homes[self.l1])], None)
            self.emit(art.urls[lang], lang, "article", html_)

    def article_html(self, art: _Article, lang: str, side: int | None, switch, alternates):
        ui = _UI[lang]
        main, sents = _render_main(lang, art.plan, side, ui)
        title = art.titles[lang]
        parts = [f"<article>\n<h1>{_t(title)}</h1>\n", main, "</article>\n"]
        if self.spec.anchors:
            iso = "%04d-%02d-%02d" % art.plan.date
            parts.insert(1, f"<div class=\"meta\">{_t(ui['published'])} <time datetime=\"{iso}\">"
                            f'{_t(_date(lang, art.plan.date, ""))}</time></div>\n')
        related = [r for r in art.related
                   if lang in r.urls and not (r.hidden and lang == self.l2)]
        if art.short_side is not None and art.short_side == side and related:
            related = related[:-1]
        if related:
            items = "".join(f'<li><a href="{_href(r.urls[lang])}">{_t(r.titles[lang])}</a></li>'
                            for r in related)
            parts.append(f'<aside class="related"><h2>{_t(ui["related"])}</h2>'
                         f"<ul>{items}</ul></aside>\n")
        crumbs = None
        if lang in (self.l1, self.l2):
            crumbs = [(art.section.pages[lang][0], art.section.label[_LANG_COL[lang]])]
        html_ = self.page(lang, title, "".join(parts), switch=switch, alternates=alternates,
                          crumbs=crumbs)
        return html_, sents

    def render_indexes(self) -> None:
        for sec in self.sections:
            pool = _Pool(self.rng, self.place)
            extra = _sentence(self.rng, pool, _CUM_WEIGHTS[sec.product, self.spec.anchors])
            sents = {}
            for lang in (self.l1, self.l2):
                other = self.l2 if lang == self.l1 else self.l1
                label = sec.label[_LANG_COL[lang]]
                pages = sec.pages[lang]
                items = sec.items[lang]
                sents[lang] = []
                for p, url in enumerate(pages, 1):
                    intro = [self.ui(lang, "section_intro", s=label),
                             self.ui(lang, "section_more") if p == 1 else
                             self.ui(lang, "page", p=p, n=len(pages)) + ".",
                             extra.render(lang)]
                    chunk = items[(p - 1) * _PER_PAGE:p * _PER_PAGE]
                    lis = "".join(
                        f'<li><a href="{_href(a.urls[lang])}">{_t(a.titles[lang])}</a>'
                        + (f' <time datetime="{"%04d-%02d-%02d" % a.plan.date}">'
                           f'{_t(_date(lang, a.plan.date, ""))}</time>' if self.spec.anchors
                           else "") + "</li>" for a in chunk)
                    main = (f"<h1>{_t(label)}</h1>\n<p>{_t(' '.join(intro))}</p>\n"
                            f'<ul class="article-list">{lis}</ul>\n{self.pager(lang, pages, p)}')
                    other_pages = sec.pages[other]
                    target = other_pages[p - 1] if p <= len(other_pages) else other_pages[0]
                    alternates = None
                    if self.spec.hreflang_alternates and p <= len(other_pages):
                        alternates = {lang: url, other: target}
                    title = label if p == 1 else f"{label} – {self.ui(lang, 'page', p=p, n=len(pages))}"
                    self.emit(url, lang, "index", self.page(
                        lang, title, main, switch=self.switch_for(lang, target),
                        alternates=alternates))
                    sents[lang].append([intro])
            for p in range(min(len(sec.pages[self.l1]), len(sec.pages[self.l2]))):
                self.pair_gold(sec.pages[self.l1][p], sec.pages[self.l2][p],
                               sents[self.l1][p], sents[self.l2][p])

    def pager(self, lang: str, pages: list, p: int) -> str:
        if len(pages) == 1:
            return ""
        links = []
        if p > 1:
            links.append(f'<a rel="prev" href="{_href(pages[p - 2])}">{_t(self.ui(lang, "prev"))}</a>')
        window = sorted({1, len(pages), *range(max(1, p - 2), min(len(pages), p + 2) + 1)})
        for q in window:
            links.append(f"<span>{q}</span>" if q == p else
                         f'<a href="{_href(pages[q - 1])}">{q}</a>')
        if p < len(pages):
            links.append(f'<a rel="next" href="{_href(pages[p])}">{_t(self.ui(lang, "next"))}</a>')
        return f'<nav class="pager">{" ".join(links)}</nav>\n'


    def build(self) -> GeneratedSite:
        self.plan()
        self.render_articles()   # first, so gold_pairs[:n_pairs] are the article pairs
        self.render_homes()
        self.render_about()
        self.render_indexes()
        self.render_private()
        self.render_server_files()
        bad = self.render_bad() if self.spec.bad_pages else {}
        hidden = {a.urls[self.l2] for a in self.pairs if a.hidden}
        return GeneratedSite(
            spec=self.spec, port=self.port, resources=self.out.resources,
            start_url=self.homes[self.l1], gold_pairs=self.out.gold,
            page_langs=self.out.page_langs, sentence_gold=self.out.sentence_gold,
            hidden_urls=hidden, robots_disallowed=list(self.private), bad_urls=bad,
            page_kinds=self.out.page_kinds, hosts=self.hosts)


def _validate(spec: SiteSpec) -> None:
    if spec.scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {spec.scheme!r}; choose one of {SCHEMES}")
    langs = tuple(spec.langs)
    if len(langs) != 2 or langs[0] == langs[1]:
        raise ValueError(f"langs must be two different languages, got {spec.langs!r}")
    third = spec.third_lang if spec.n_third > 0 else None
    for lang in langs + ((third,) if third else ()):
        if lang not in SUPPORTED_LANGS:
            raise ValueError(f"unsupported language {lang!r}; the generator writes {SUPPORTED_LANGS}")
    if third in langs:
        raise ValueError("third_lang must differ from langs")
    if spec.n_pairs < 1:
        raise ValueError("n_pairs must be at least 1")


def generate_site(spec: SiteSpec, port: int) -> GeneratedSite:
    """Generate the whole site for ``spec``, with URLs on ``port`` (deterministic per seed)."""
    # The build allocates millions of small objects and no reference cycles worth
    # collecting; the cyclic collector's repeated passes over them cost ~30% at 20k pairs.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Builder(spec, port).build()
    finally:
        if was_enabled:
            gc.enable()