"""A generated glossary site: short entries inside a heavy template, nothing in the URLs.

Each English entry and its translation is one to three translated sentences (no numbers,
names or codes: only words that translate) and a "see also" line linking other entries in
the text. Every page carries a header, a menu, a sidebar listing every entry of its
language (in a ``<div>``, not an ``<aside>``: the template is the site's, whatever its
markup), and a footer; the template is most of each page. Tag pages list the entries of a
tag; the home page lists every tag, and the English home page links each other language's
home with one plain link (the only way into that side). No page has a language switch or
``hreflang``.

Options (the defaults give the en/fr site with opaque French URLs):

``langs``
    English first, then the languages it is translated into, each by the code the site
    gives it (its URL folder, its ``<html lang>``, the key of its gold): a bare code
    (``pt``, ``zh``), or a language tag with a region as a static site generator's
    configuration names a language (``pt-br``, ``zh-cn``), its text the base language's.
    An en/fr glossary is written
    by the demo generator's sentence model (``demo/phrases.py``, en/fr/de only); any other
    language set is written, English included, from the manual's parallel text
    (``testkit/multilingual_text.py``, Hindi and Bengali included): a one-line description
    and up to two sentences without slots per entry, titles made of two of its interface
    labels.
``opaque``
    True: a translation sits at ``/p/<hash>.html``; False: at ``/<lang>/<slug>.html``,
    its English original at ``/en/<slug>.html`` (the site's URL rule ``/xx/X`` - ``/en/X``).
``translated``
    The share of the entries each other language translates (its own random choice); an
    untranslated entry has no page in that language, its sidebar and tag pages leave it
    out and a "see also" mention of it is plain text.
``renamed``
    This many entries translated into the first other language were renamed in English
    after translation: the English page moved to a new slug, the translations kept the
    old one (``/fr/old.html`` pairs with ``/en/new.html``, against the URL rule).
``stale``
    This many other entries translated into the first other language were renamed in
    English and translated again under the new slug, the older translation still served
    under the old one (its text without the "see also" and tag lines, listed in the
    sidebar): ``/fr/new.html`` pairs with ``/en/new.html`` and ``/fr/old.html`` with
    nothing, for its English original is gone.
``fallback``
    True: an entry a language leaves untranslated is served under that language's URL all
    the same, as a static site generator's fallback does: the English entry (title, text,
    links) under a notice in that language, inside that language's template and sidebar.
    Such copies are in no gold: a copy is not a translation.
``html_lang``
    True: every page declares its language's code in ``<html lang>`` (``lang="pt-br"``);
    False: no page declares a language.
``sidebar_order``
    ``"own"``: each language's sidebar sorted by its own titles (a static site generator's
    default), so the n-th items of two sidebars are mostly not translations;
    ``"same"``: every sidebar in the English order.

The gold holds every translated pair: entries, tag pages, home pages; ``golds[lang]`` per
other language, ``gold`` the first other language's.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from bitextcrawl.demo.lexicon import _ADJS, _THINGS, _np
from bitextcrawl.demo.phrases import _CUM_WEIGHTS, _Pool, _sentence
from bitextcrawl.demo.site_model import _slugify
from testkit import multilingual_text as mt

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

# The manual's interface labels used by a glossary in other languages: the template's
# words, and the parts of the entries' titles.
_TABLE_UI = {"site": "doc", "home": "docs", "tags": "modules", "terms": "index_title",
             "see": "see_also", "tag": "context", "foot": "license", "intro": "index_intro"}
_TITLE_HEADS = ("directive", "module", "syntax", "default", "context", "status", "identifier",
                "source", "description", "summary", "comments", "docs")
_TITLE_QUALIFIERS = ("ctx_server", "ctx_vhost", "ctx_dir")
# Sentences of the manual with nothing to fill in: only words that translate.
_PLAIN_SENTENCES = [s for s in mt.SENTENCES if "{" not in s["en"]]


@dataclass
class Glossary:
    host: str
    pages: dict = field(default_factory=dict)    # path -> HTML
    langs: dict = field(default_factory=dict)    # path -> language
    gold: list = field(default_factory=list)     # (English path, path) of the first other language
    golds: dict = field(default_factory=dict)    # language -> its gold

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def write(self, root) -> None:
        """The site's files under ``root``, for a static server: a path ending in ``/`` is
        the folder's ``index.html``."""
        for path, html in self.pages.items():
            file = Path(root) / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(html, encoding="utf-8")


def _opaque(path: str) -> str:
    return "/p/%s.html" % hashlib.sha1(path.encode()).hexdigest()[:12]


def _label(key: str, lang: str) -> str:
    """A manual label without its trailing colon."""
    return mt.UI[key][lang].rstrip(":：").rstrip()


def _lexicon_entries(rng: random.Random, n_entries: int):
    """Titles, English slugs and plans (text in a language, see-also, tag) written by the
    demo generator's sentence model (en and fr)."""
    nouns = rng.sample(_THINGS, n_entries)
    terms = [(n, rng.randrange(len(_ADJS))) for n in nouns]
    plans = []
    for i in range(n_entries):
        pool = _Pool(rng)
        pool.things[0] = nouns[i]
        sentences = [_sentence(rng, pool, _CUM_WEIGHTS[False, True])
                     for _ in range(rng.randint(1, 3))]
        see = rng.sample([j for j in range(n_entries) if j != i], rng.randint(1, 3))
        plans.append((lambda lang, s=sentences: " ".join(x.render(lang) for x in s), see,
                      rng.randrange(TAGS)))
    titles = [lambda lang, t=t: _np(lang, *t, "title") for t in terms]
    slugs = [_slugify(_np("en", *t, "bare")) for t in terms]
    return titles, slugs, plans


def _table_entries(rng: random.Random, n_entries: int):
    """The same, from the manual's parallel text (every language of ``mt.ALL_LANGS``)."""
    names = [(h, q) for h in _TITLE_HEADS for q in _TITLE_QUALIFIERS]
    names += [(h, q) for h in _TITLE_HEADS for q in _TITLE_HEADS if q != h]
    if n_entries > len(names):
        raise ValueError(f"at most {len(names)} entries in languages other than en/fr")
    names = rng.sample(names, n_entries)
    plans = []
    for i in range(n_entries):
        texts = [mt.DESCRIPTIONS[rng.randrange(len(mt.DESCRIPTIONS))]]
        texts += rng.sample(_PLAIN_SENTENCES, rng.randint(0, 2))
        see = rng.sample([j for j in range(n_entries) if j != i], rng.randint(1, 3))
        plans.append((lambda lang, t=texts: ("" if lang in mt.NO_SPACE else " ").join(
            x[lang] for x in t), see, rng.randrange(TAGS)))
    titles = [lambda lang, h=h, q=q: f"{_label(h, lang)} ({_label(q, lang)})" for h, q in names]
    slugs = [_slugify(titles[i]("en")) for i in range(n_entries)]
    return titles, slugs, plans


def _renamed_slug(slug: str, used: set) -> str:
    """A renamed entry's English slug: its words in another order, unlike every slug in use."""
    words = slug.split("-")
    new = "-".join(words[::-1]) if len(words) > 1 else slug
    while new in used:
        new += "-term"
    return new


_PUNCT = str.maketrans({"：": ":", "（": "(", "）": ")", "，": ",", "。": ".", "、": ","})


def _flat(text: str) -> str:
    """A text with its spaces left out and its full-width punctuation as ASCII: how two
    renderings of one line (a title, a "see also" line) compare across spacing rules."""
    return "".join(text.translate(_PUNCT).split()).rstrip(".")


def _labels(lang: str) -> list:
    """(English label, its ``lang`` translation) of the manual's interface labels, the
    longest English first (a title's parts, the template's words)."""
    got = {_label(k, "en"): _label(k, lang) for k in mt.UI if k != "outdated"}
    return sorted(got.items(), key=lambda kv: -len(kv[0]))


def judge_rows(lang: str, rows: list) -> dict:
    """Rows of a glossary written from the manual's parallel text (languages other than
    en/fr) judged right or wrong: ``right`` where both sides lie in one of the manual's
    units (a sentence, a description, an interface label) in English and in ``lang``,
    or where side 2 is side 1 with every interface label in it translated (titles,
    "see also" lines, tag headings, page titles: the generator builds them so); else
    ``wrong``. Rows are dicts with ``sentence_1`` and ``sentence_2``."""
    units = [(_flat(u["en"]), _flat(u[lang])) for u in mt.SENTENCES + mt.DESCRIPTIONS]
    units += [(_flat(u["en"]), _flat(u[lang])) for u in mt.UI.values()]
    labels = _labels(lang)
    out = {"right": 0, "wrong": 0}
    for r in rows:
        s1, s2 = _flat(r["sentence_1"]), _flat(r["sentence_2"])
        right = any(s1 in a and s2 in b for a, b in units)
        if not right:
            text = r["sentence_1"]
            for en, other in labels:
                text = text.replace(en, "\0%s\0" % other)
            right = _flat(text.replace("\0", "")) == s2
        out["right" if right else "wrong"] += 1
    return out


# ``edit_links``: each page links its source file in the site's repository, as Hugo and
# Docsy themes do ("Edit this page"): content/<lang>/<file>.md, the English file's name in
# every language (a renamed entry's translation keeps the old one).
EDIT_URL = "https://github.com/example/glossary/edit/main/"


def glossary_site(n_entries: int = 85, seed: int = 0, host: str = "glossary.test",
                  langs: tuple = ("en", "fr"), opaque: bool = True, translated: float = 1.0,
                  renamed: int = 0, sidebar_order: str = "own",
                  fallback: bool = False, stale: int = 0, html_lang: bool = False,
                  edit_links: bool = False) -> Glossary:
    """The glossary of the module's doc; the same arguments give the same site."""
    if langs[0] != "en" or len(langs) < 2 or len(set(langs)) != len(langs):
        raise ValueError(f"langs must be English and other languages: {langs}")
    if sidebar_order not in ("own", "same"):
        raise ValueError(f"sidebar_order is 'own' or 'same', not {sidebar_order!r}")
    rng = random.Random(seed)
    site = Glossary(host)
    # the language each code's text is written in (``pt-br``: ``pt``)
    text_lang = {lang: lang.split("-", 1)[0] for lang in langs}
    if set(text_lang.values()) <= {"en", "fr"}:
        titles, slugs, plans = _lexicon_entries(rng, n_entries)
        ui = {lang: UI[text_lang[lang]] for lang in langs}
    else:
        titles, slugs, plans = _table_entries(rng, n_entries)
        ui = {lang: {k: _label(v, text_lang[lang]) for k, v in _TABLE_UI.items()}
              for lang in langs}
    others = langs[1:]
    # Which entries each language has (English: all), drawn apart from the site's own
    # random numbers so that the options leave the rest of the site as it is.
    has = {"en": set(range(n_entries))}
    for lang in others:
        count = round(translated * n_entries)
        has[lang] = set(random.Random(f"glossary-{seed}-{text_lang[lang]}").sample(
            range(n_entries), count))
    # the entries with a page in each language: the translated ones, or all of them
    served = {lang: set(range(n_entries)) if fallback else has[lang] for lang in langs}
    candidates = sorted(has[others[0]])
    if renamed > len(candidates):
        raise ValueError(f"renamed={renamed}: only {len(candidates)} entries are translated")
    moved = set(random.Random(f"glossary-{seed}-renamed").sample(candidates, renamed))
    rest = [i for i in candidates if i not in moved]
    if stale > len(rest):
        raise ValueError(f"stale={stale}: only {len(rest)} translated entries are not renamed")
    retranslated = set(random.Random(f"glossary-{seed}-stale").sample(rest, stale))
    english = list(slugs)
    for i in sorted(moved | retranslated):
        english[i] = _renamed_slug(slugs[i], set(slugs) | set(english))

    def path(lang: str, kind: str, key=None, source: bool = False) -> str:
        if kind == "home":
            en = "/en/"
        elif kind == "tag":
            en = f"/en/tags/{key}.html"
        else:
            old = lang != "en" and (key not in retranslated or kind == "stale")
            en = "/en/" + (slugs if old else english)[key] + ".html"
        own = en.replace("/en/", f"/{lang}/", 1)
        if source:      # the page's source file, the English file's name in every language
            return "content" + (own + "_index.html" if own.endswith("/") else own)[:-5] + ".md"
        if lang == "en":
            return en
        return _opaque(own) if opaque else own

    def term(lang, i):
        return titles[i](text_lang[lang] if i in has[lang] else "en")

    def page(lang: str, title: str, main: str, extra: str = "", source: str = "") -> str:
        u = ui[lang]
        if edit_links:
            extra += f'<p class="edit"><a href="{EDIT_URL}{source}">✎</a></p>\n'

        by = lang if sidebar_order == "own" else "en"
        order = sorted(sorted(served[lang]), key=lambda i: term(by, i))
        sidebar = "".join(f'<li><a href="{path(lang, kind, i)}">{term(lang, i)}</a></li>'
                          for i in order for kind in ("entry", "stale")
                          if kind == "entry" or (lang == others[0] and i in retranslated))
        menu = "".join(f'<li><a href="{path(lang, "tag", t)}">{u["tag"]} {t + 1}</a></li>'
                       for t in range(TAGS))
        declared = f' lang="{lang}"' if html_lang else ""
        return (f'<!DOCTYPE html>\n<html{declared}><head><meta charset="utf-8"><title>{title} — '
                f'{u["site"]}</title></head><body>\n<div class="top"><a href="{path(lang, "home")}">'
                f'{u["site"]}</a><ul class="menu"><li><a href="{path(lang, "home")}">'
                f'{u["home"]}</a></li>{menu}</ul></div>\n<div class="wrap"><div class="sidebar">'
                f'<h2>{u["terms"]}</h2><ul>{sidebar}</ul></div>\n<div class="content">{main}'
                f'{extra}</div></div>\n<div class="bottom"><p>{u["foot"]}</p></div>\n</body></html>\n')

    def mention(lang, j):
        if j not in served[lang]:
            return term(lang, j)
        return f'<a href="{path(lang, "entry", j)}">{term(lang, j)}</a>'

    for lang in langs:
        u = ui[lang]
        for i, (text, see, tag) in enumerate(plans):
            if i not in served[lang]:
                continue
            links = ", ".join(mention(lang, j) for j in see)
            words = lang if i in has[lang] else "en"
            notice = "" if words == lang else \
                f'<p class="notice">{mt.UI["outdated"][text_lang[lang]]}</p>\n'
            main = (f"{notice}<h1>{term(lang, i)}</h1>\n<p>{text(text_lang[words])}</p>\n"
                    f'<p>{ui[words]["see"]}: {links}.</p>\n<p><a href="{path(lang, "tag", tag)}">'
                    f'{u["tag"]} {tag + 1}</a></p>\n')
            site.pages[path(lang, "entry", i)] = page(lang, term(lang, i), main,
                                                      source=path(lang, "entry", i, True))
            if lang == others[0] and i in retranslated:
                site.pages[path(lang, "stale", i)] = page(
                    lang, term(lang, i),
                    f"<h1>{term(lang, i)}</h1>\n<p>{text(text_lang[words])}</p>\n",
                    source=path(lang, "stale", i, True))
        for t in range(TAGS):
            items = "".join(f'<li><a href="{path(lang, "entry", i)}">{term(lang, i)}</a></li>'
                            for i, plan in enumerate(plans) if plan[2] == t and i in served[lang])
            site.pages[path(lang, "tag", t)] = page(
                lang, f'{u["tag"]} {t + 1}', f'<h1>{u["tag"]} {t + 1}</h1>\n<ul>{items}</ul>\n',
                source=path(lang, "tag", t, True))
        homes = "".join('<p><a href="%s">%s</a></p>\n' % (path(o, "home"),
                                                           mt.LANG_NAMES[text_lang[o]])
                        for o in others) if lang == "en" else ""
        site.pages[path(lang, "home")] = page(
            lang, u["site"], f'<h1>{u["site"]}</h1>\n<p>{u["intro"]}</p>\n', homes,
            source=path(lang, "home", None, True))
        for p in site.pages:
            site.langs.setdefault(p, lang)
    for lang in others:
        keys = [("home", None)] + [("tag", t) for t in range(TAGS)] + [
            ("entry", i) for i in range(n_entries) if i in has[lang]]
        site.golds[lang] = [(path("en", k, v), path(lang, k, v)) for k, v in keys]
    site.gold = site.golds[others[0]]
    return site
