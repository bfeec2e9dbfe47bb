"""A generated glossary site: short entries inside a heavy template, nothing in the URLs.

Each English entry and its French translation is one to three translated sentences
(no numbers, names or codes: only words that translate) and a "see also" line linking
other entries in the text. Every page carries a header, a menu, a sidebar listing
every entry of its language (in a ``<div>``, not an ``<aside>``: the template is the
site's, whatever its markup), and a footer; the template is most of each page. Tag
pages list the entries of a tag; the home page lists every entry and every tag. French
pages sit at opaque URLs (``/p/<hash>.html``), no page has a language switch or
``hreflang``, and one plain link on the English home page leads into the French side.

The gold holds every translated pair: entries, tag pages, home pages.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from bitextcrawl.demo.lexicon import _ADJS, _THINGS, _np
from bitextcrawl.demo.phrases import _CUM_WEIGHTS, _Pool, _sentence
from bitextcrawl.demo.site_model import _slugify

UI = {
    "en": {"site": "Cloud Glossary", "home": "Home", "tags": "Tags", "terms": "All terms",
           "see": "See also", "tag": "Tag", "foot": "Glossary maintained by its community.",
           "intro": "Definitions of the terms of the field."},
    "fr": {"site": "Glossaire du nuage", "home": "Accueil", "tags": "Étiquettes",
           "terms": "Tous les termes", "see": "Voir aussi", "tag": "Étiquette",
           "foot": "Glossaire tenu par sa communauté.",
           "intro": "Définitions des termes du domaine."},
}
TAGS = 6


@dataclass
class Glossary:
    host: str
    pages: dict = field(default_factory=dict)    # path -> HTML
    langs: dict = field(default_factory=dict)    # path -> language
    gold: list = field(default_factory=list)     # (English path, French path)

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"


def _opaque(path: str) -> str:
    return "/p/%s.html" % hashlib.sha1(path.encode()).hexdigest()[:12]


def glossary_site(n_entries: int = 85, seed: int = 0, host: str = "glossary.test") -> Glossary:
    rng = random.Random(seed)
    site = Glossary(host)
    nouns = rng.sample(_THINGS, n_entries)
    terms = [(n, rng.randrange(len(_ADJS))) for n in nouns]
    plans = []
    for i in range(n_entries):
        pool = _Pool(rng)
        pool.things[0] = nouns[i]
        sentences = [_sentence(rng, pool, _CUM_WEIGHTS[False, True])
                     for _ in range(rng.randint(1, 3))]
        see = rng.sample([j for j in range(n_entries) if j != i], rng.randint(1, 3))
        plans.append((sentences, see, rng.randrange(TAGS)))

    def path(lang: str, kind: str, key=None) -> str:
        if kind == "home":
            en = "/en/"
        elif kind == "tag":
            en = f"/en/tags/{key}.html"
        else:
            en = "/en/" + _slugify(_np("en", *terms[key], "bare")) + ".html"
        return en if lang == "en" else _opaque(en.replace("/en/", "/fr/", 1))

    def term(lang, i):
        return _np(lang, *terms[i], "title")

    def page(lang: str, title: str, main: str, extra: str = "") -> str:
        ui = UI[lang]
        sidebar = "".join(f'<li><a href="{path(lang, "entry", i)}">{term(lang, i)}</a></li>'
                          for i in sorted(range(n_entries), key=lambda i: term(lang, i)))
        menu = "".join(f'<li><a href="{path(lang, "tag", t)}">{ui["tag"]} {t + 1}</a></li>'
                       for t in range(TAGS))
        return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title} — '
                f'{ui["site"]}</title></head><body>\n<div class="top"><a href="{path(lang, "home")}">'
                f'{ui["site"]}</a><ul class="menu"><li><a href="{path(lang, "home")}">'
                f'{ui["home"]}</a></li>{menu}</ul></div>\n<div class="wrap"><div class="sidebar">'
                f'<h2>{ui["terms"]}</h2><ul>{sidebar}</ul></div>\n<div class="content">{main}'
                f'{extra}</div></div>\n<div class="bottom"><p>{ui["foot"]}</p></div>\n</body></html>\n')

    for lang in ("en", "fr"):
        ui = UI[lang]
        for i, (sentences, see, tag) in enumerate(plans):
            links = ", ".join(f'<a href="{path(lang, "entry", j)}">{term(lang, j)}</a>' for j in see)
            main = (f"<h1>{term(lang, i)}</h1>\n<p>{' '.join(s.render(lang) for s in sentences)}</p>\n"
                    f'<p>{ui["see"]}: {links}.</p>\n<p><a href="{path(lang, "tag", tag)}">'
                    f'{ui["tag"]} {tag + 1}</a></p>\n')
            site.pages[path(lang, "entry", i)] = page(lang, term(lang, i), main)
        for t in range(TAGS):
            items = "".join(f'<li><a href="{path(lang, "entry", i)}">{term(lang, i)}</a></li>'
                            for i, plan in enumerate(plans) if plan[2] == t)
            site.pages[path(lang, "tag", t)] = page(
                lang, f'{ui["tag"]} {t + 1}', f'<h1>{ui["tag"]} {t + 1}</h1>\n<ul>{items}</ul>\n')
        other = ('<p><a href="%s">Français</a></p>\n' % path("fr", "home")
                 if lang == "en" else "")
        site.pages[path(lang, "home")] = page(
            lang, ui["site"], f'<h1>{ui["site"]}</h1>\n<p>{ui["intro"]}</p>\n', other)
        for p in site.pages:
            site.langs.setdefault(p, lang)
    keys = [("home", None)] + [("tag", t) for t in range(TAGS)] + [("entry", i) for i in range(n_entries)]
    site.gold = [(path("en", k, v), path("fr", k, v)) for k, v in keys]
    return site
