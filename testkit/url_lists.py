"""Seeded URL lists of small bilingual sites under the URL pairing schemes real sites use [Zhang 2013 §2.1].

A generator for tests and ``bench/bench_url_patterns.py``: each site has 5–60 translated page
pairs under one URL scheme (a language token, a marker on one side only, a marker glued to a
word, two differences at once, language names or numbers, translated slugs with a shared id),
plus untranslated pages of either language and noise URLs (assets, pagination, tags, words
that end like a glued marker). Sites of scheme ``none`` pair translated slugs without any
marker or id: the URL alone cannot pair them, so any pair found there is counted against
precision. Pure (no Scrapy), deterministic for a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

EN_WORDS = ("about news contact team press report annual policy history services help faq "
            "careers events media data guide terms privacy energy water health travel "
            "market school science budget council program staff").split()
FR_WORDS = ("apropos nouvelles contact equipe presse rapport annuel politique histoire "
            "services aide questions carrieres evenements medias donnees guide conditions "
            "confidentialite energie eau sante voyage marche ecole science budget conseil "
            "programme personnel").split()


def _slug(rnd: random.Random, words, k: int | None = None) -> str:
    return "-".join(rnd.choice(words) for _ in range(k or rnd.randint(1, 3)))


# scheme -> builder(rnd, host, i, slug, fr_slug, directory) -> (en URL, fr URL)
SCHEMES = {
    # the paper's single token (the old learner's ground): a baseline row
    "token": lambda r, h, i, s, f, d: (f"http://{h}/en/{d}{s}.html", f"http://{h}/fr/{d}{s}.html"),
    # a marker on one side only
    "suffix_one_sided": lambda r, h, i, s, f, d: (f"http://{h}/{d}{s}{i}.html",
                                                  f"http://{h}/{d}{s}{i}_fr.html"),
    "prefix_one_sided": lambda r, h, i, s, f, d: (f"http://{h}/{d}{s}/{i}",
                                                  f"http://{h}/fr/{d}{s}/{i}"),
    "query_one_sided": lambda r, h, i, s, f, d: (f"http://{h}/view.php?id={i}",
                                                 f"http://{h}/view.php?id={i}&lang=fr"),
    "default_french": lambda r, h, i, s, f, d: (f"http://{h}/en/{d}{s}-{i}/",
                                                f"http://{h}/{d}{s}-{i}/"),
    # a marker glued to a word; two differences at once
    "glued_one_sided": lambda r, h, i, s, f, d: (f"http://{h}/{d}{s}{i}.htm",
                                                 f"http://{h}/{d}{s}{i}f.htm"),
    "glued_id": lambda r, h, i, s, f, d: (f"http://{h}/docs/r2019{i:03d}e.pdf",
                                          f"http://{h}/docs/r2019{i:03d}f.pdf"),
    "two_place": lambda r, h, i, s, f, d: (f"http://{h}/en/{d}{s}{i}_e.html",
                                           f"http://{h}/fr/{d}{s}{i}_f.html"),
    # language names and codes of other shapes
    "names": lambda r, h, i, s, f, d: (f"http://{h}/english/{d}{s}{i}.htm",
                                       f"http://{h}/francais/{d}{s}{i}.htm"),
    "names_two_place": lambda r, h, i, s, f, d: (f"http://{h}/English/{d}{s}{i}_e.htm",
                                                 f"http://{h}/Francais/{d}{s}{i}_f.htm"),
    "numbers": lambda r, h, i, s, f, d: (f"http://{h}/page.asp?lng=1&id={i}",
                                         f"http://{h}/page.asp?lng=2&id={i}"),
    # translated slugs with a shared id, in the query or in another path segment
    "slug_id_query": lambda r, h, i, s, f, d: (f"http://{h}/en/article.php?id={100 + i}&t={s}",
                                               f"http://{h}/fr/article.php?id={100 + i}&t={f}"),
    "slug_id_segment": lambda r, h, i, s, f, d: (f"http://{h}/en/news/{100 + i}/{s}",
                                                 f"http://{h}/fr/nouvelles/{100 + i}/{f}"),
    # no scheme: translated slugs, no marker, no id (not pairable from URLs)
    "none": lambda r, h, i, s, f, d: (f"http://{h}/{d}{s}.html", f"http://{h}/{d}{f}.html"),
}
COVERED = tuple(s for s in SCHEMES if s != "none")


@dataclass
class UrlSite:
    scheme: str
    host: str
    labelled: list[tuple[str, str]] = field(default_factory=list)  # (lang, url)
    gold: dict[str, str] = field(default_factory=dict)             # en URL -> fr URL

    def lines(self) -> list[str]:
        return [f"{lang}\t{url}" for lang, url in self.labelled]

    def by_lang(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for lang, url in self.labelled:
            out.setdefault(lang, []).append(url)
        return out


def make_site(scheme: str, seed: int, pages: int | None = None, host: str | None = None,
              untranslated: float | None = None, noise: int | None = None) -> UrlSite:
    """One site: ``pages`` translated pairs (5–60 by default), untranslated pages (a share
    ``untranslated`` of the pairs, either language) and ``noise`` junk URLs."""
    rnd = random.Random(f"{scheme}:{seed}")
    host = host or f"www.{scheme.replace('_', '')}{seed}.example"
    n = pages if pages is not None else rnd.randint(5, 60)
    share = untranslated if untranslated is not None else rnd.choice((0.0, 0.1, 0.3))
    site = UrlSite(scheme, host)
    build = SCHEMES[scheme]
    seen: set[str] = set()

    def add(lang: str, url: str) -> bool:
        if url in seen:
            return False
        seen.add(url)
        site.labelled.append((lang, url))
        return True

    for i in range(n):
        d = rnd.choice(("", "", "docs/", "a/b/"))
        en, fr = build(rnd, host, i, _slug(rnd, EN_WORDS), _slug(rnd, FR_WORDS), d)
        if en in seen or fr in seen:
            continue
        add("en", en)
        add("fr", fr)
        site.gold[en] = fr
    # untranslated pages: the same scheme, the other side never published
    for i in range(n, n + round(share * n)):
        d = rnd.choice(("", "docs/"))
        en, fr = build(rnd, host, i, _slug(rnd, EN_WORDS), _slug(rnd, FR_WORDS), d)
        if rnd.random() < 0.6:
            add("en", en)
        else:
            add("fr", fr)
    # noise: assets, pagination, tags, words that end like a glued marker, with a language
    # label as noisy as language ID on such pages
    k = noise if noise is not None else rnd.randint(0, 8)
    for j in range(k):
        lang = rnd.choice(("en", "fr"))
        add(lang, rnd.choice((
            f"http://{host}/img/{_slug(rnd, EN_WORDS, 1)}{j}.jpg",
            f"http://{host}/list.php?page={j + 2}",
            f"http://{host}/tag/{_slug(rnd, EN_WORDS if lang == 'en' else FR_WORDS, 1)}",
            f"http://{host}/{rnd.choice(('staff', 'half', 'chef', 'brief'))}{j}.htm",
            f"http://{host}/{rnd.choice(('page', 'note', 'file'))}{j}.html",
            f"http://{host}/fr/{rnd.choice(FR_WORDS)}-{j}.html",
        )))
    rnd.shuffle(site.labelled)
    return site


def make_benchmark(seed: int = 0, sites_per_scheme: int = 4, none_sites: int = 12,
                   pages: int | None = None) -> list[UrlSite]:
    """Sites of every covered scheme (``sites_per_scheme`` each) and ``none_sites`` sites
    whose URLs share no scheme, shuffled."""
    rnd = random.Random(seed)
    out = []
    for scheme in COVERED:
        for k in range(sites_per_scheme):
            out.append(make_site(scheme, seed * 1000 + k, pages=pages))
    for k in range(none_sites):
        out.append(make_site("none", seed * 1000 + k, pages=pages))
    rnd.shuffle(out)
    return out


# URL lists of the unit tests and bench_time_limits: one scheme, many pages.
WORDS = ("about news contact team press report annual policy history services help faq "
         "careers events media data docs guide terms privacy").split()


def scheme_urls(scheme: str, n: int, host: str = "www.example.org", seed: int = 0):
    """n translated page pairs of one site under a URL scheme: (lang1 URLs, lang2 URLs)."""
    rnd = random.Random(seed)
    one, two = [], []
    for i in range(n):
        w = f"{rnd.choice(WORDS)}{i}"
        d = rnd.choice(["a", "b/c", "d/e/f"])
        a, b = {
            "prefix": (f"http://{host}/en/{d}/{w}.html", f"http://{host}/fr/{d}/{w}.html"),
            "subdomain": (f"http://en.{host}/{d}/{w}", f"http://fr.{host}/{d}/{w}"),
            "suffix": (f"http://{host}/{d}/{w}-en.html", f"http://{host}/{d}/{w}-fr.html"),
            "query": (f"http://{host}/page.php?id={i}&lang=en",
                      f"http://{host}/page.php?id={i}&lang=fr"),
            "file_suffix": (f"http://{host}/{d}/{w}_e.htm", f"http://{host}/{d}/{w}_c.htm"),
            "numbered_dir": (f"http://{host}/yr99-00/{i % 3}en/{d}/{w}.htm",
                             f"http://{host}/yr99-00/{i % 3}tc/{d}/{w}.htm"),
            "names_dir": (f"http://{host}/english/{d}/{w}.htm", f"http://{host}/french/{d}/{w}.htm"),
            "locale_dir": (f"http://{host}/english/LLB_web/{w}.htm",
                           f"http://{host}/tc_chi/LLB_web/{w}.htm"),
            "locale_query": (f"http://{host}/p?id={i}&lang=en",
                             f"http://{host}/p?id={i}&lang=zh_TW"),
        }[scheme]
        one.append(a)
        two.append(b)
    return one, two


def lines_of_200_sites() -> list[str]:
    """5,000 ``lang<TAB>url`` lines of 200 sites, five schemes (``file_suffix`` en-zh)."""
    schemes = ["prefix", "subdomain", "suffix", "query", "file_suffix"]
    lines = []
    for s in range(200):
        one, two = scheme_urls(schemes[s % 5], 12, host=f"www.site{s}.org", seed=s)
        one = one + [f"http://www.site{s}.org/only-en/{i}" for i in range(1)]
        langs = ("en", "zh") if schemes[s % 5] == "file_suffix" else ("en", "fr")
        lines += [f"en\t{u}" for u in one] + [f"{langs[1]}\t{u}" for u in two]
    return lines


def id_marker_urls(n: int = 5000):
    H = "http://www.example.de"
    en = [f"{H}/cat/{i % 50}/{i}-1-{WORDS[i % 20]}-{i}.html" for i in range(n)]
    de = [f"{H}/kat/{i % 50}/{i}-0-seite-{i}.html" for i in range(n)]
    return en, de
