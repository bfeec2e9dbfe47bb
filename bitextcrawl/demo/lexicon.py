"""The demo generator's words in English, French and German, and their morphology.

The tables (nouns with French and German gender, adjectives, verbs, counted nouns,
adverbs, places, people, month names) are data files, ``data/lexicon.json``, written for
the generator; this module reads them once and makes noun phrases, verb forms,
predicative adjectives, dates, prices, counted nouns, places and opening hours in each
language (:func:`_render_slot` renders one template field). Used by :mod:`.phrases`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

# ---------------------------------------------------------------------------------------
# Lexicon. Written for this module. Nouns: "en | fr gender | de gender", "*" marks nouns
# that can act (subjects of transitive verbs), so that sentences stay roughly sensible.
# ---------------------------------------------------------------------------------------

# The tables, as package data: read through importlib.resources, which also reads them
# from a zipped egg (a Scrapyd node imports the package from one).
_DATA = resources.files("bitextcrawl.demo") / "data"


def _load(name: str) -> dict:
    return json.loads((_DATA / name).read_text(encoding="utf-8"))


# The format of each table's lines is said in lexicon.json's "_comment" and beside its parser.
_LEXICON = _load("lexicon.json")
_FIRST_NAMES = tuple(_LEXICON["first_names"])
_LAST_NAMES = tuple(_LEXICON["last_names"])
_MONTHS = {lang: tuple(names) for lang, names in _LEXICON["months"].items()}


_SEASONS = (("in summer", "en été", "im Sommer"), ("in winter", "en hiver", "im Winter"),
            ("in autumn", "en automne", "im Herbst"), ("in spring", "au printemps", "im Frühling"))


# Connectives a translator sometimes adds at the start of a sentence (German would need
# verb-second inversion, so it gets none). Probabilities tuned so that French text is
# ~15% longer than English on average, as in real translations.
_CONNECTIVES = {
    "en": ("Moreover, ", "In addition, ", "Indeed, ", "As a result, "),
    "fr": ("Par ailleurs, ", "En outre, ", "De plus, ", "En effet, ", "Ainsi, ", "Toutefois, "),
    "de": (),
}
_CONNECTIVE_P = {"en": 0.04, "fr": 0.15, "de": 0.0}


class _Noun:
    __slots__ = ("en", "fr", "fr_g", "de", "de_g", "agent")


class _Adj:
    __slots__ = ("en", "fr_m", "fr_f", "fr_mv", "fr_pre", "de", "de_stem")


class _Verb:
    __slots__ = ("en", "fr", "de")  # each a tuple of forms


def _split(line: str) -> list[str]:
    return [p.strip() for p in line.split("|")]


def _parse_nouns() -> list[_Noun]:
    """"en | fr gender | de gender", "*" marking nouns that can act."""
    out = []
    for ln in _LEXICON["nouns"]:
        en, fr, de = _split(ln)
        n = _Noun()
        n.agent = en.endswith("*")
        n.en = en.rstrip("*")
        n.fr, n.fr_g = fr.rsplit(" ", 1)
        n.de, n.de_g = de.rsplit(" ", 1)
        out.append(n)
    return out


def _parse_adjs() -> list[_Adj]:
    """"en | fr_m/fr_f[/fr_m_before_vowel] [pre] | de_predicative[/de_attributive_stem]";
    "pre" marks French adjectives placed before the noun."""
    out = []
    for ln in _LEXICON["adjectives"]:
        en, fr, de = _split(ln)
        a = _Adj()
        a.en = en
        a.fr_pre = fr.endswith(" pre")
        forms = fr.split(" ")[0].split("/")
        a.fr_m, a.fr_f = forms[0], forms[1]
        a.fr_mv = forms[2] if len(forms) > 2 else forms[0]
        de_forms = de.split("/")
        a.de, a.de_stem = de_forms[0], de_forms[-1]
        out.append(a)
    return out


def _parse_verbs() -> list[_Verb]:
    """"en base/3sg/past/participle | fr infinitive/3sg/participle/future | de
    infinitive/3sg/participle": only verbs whose German form is not separable and takes
    "haben" and an accusative object."""
    out = []
    for ln in _LEXICON["verbs"]:
        en, fr, de = _split(ln)
        v = _Verb()
        v.en, v.fr, v.de = (tuple(x.split("/")) for x in (en, fr, de))
        out.append(v)
    return out


def _parse_counted():
    """Counted nouns: "en sg/pl | fr sg/pl gender | de sg/pl | category"."""
    out = []  # (en_sg, en_pl, fr_sg, fr_pl, fr_g, de_sg, de_pl, category)
    for ln in _LEXICON["counted"]:
        en, fr, de, cat = _split(ln)
        fr, g = fr.rsplit(" ", 1)
        out.append((*en.split("/"), *fr.split("/"), g, *de.split("/"), cat))
    return out


_NOUNS = _parse_nouns()
_ADJS = _parse_adjs()
_VERBS = _parse_verbs()
_COUNTED = _parse_counted()
_ADVERBS = [tuple(_split(ln)) for ln in _LEXICON["adverbs"]]
_PLACES = [tuple(_split(ln)) for ln in _LEXICON["places"]]
_PERSONS = [(f"{f.split()[0]} {last}", f.split()[1]) for f in _FIRST_NAMES for last in _LAST_NAMES]
_AGENTS = [i for i, n in enumerate(_NOUNS) if n.agent]
_THINGS = [i for i, n in enumerate(_NOUNS) if not n.agent]
_ADJ_ID = {a.en: i for i, a in enumerate(_ADJS)}
_ADJ_IDS = range(len(_ADJS))
_VERB_IDS = range(len(_VERBS))
_PLACE_IDS = range(len(_PLACES))
_PERSON_IDS = range(len(_PERSONS))
_ADVERB_IDS = range(len(_ADVERBS))
_COUNTED_BY_CAT: dict[str, list[int]] = {}
for _i, _c in enumerate(_COUNTED):
    _COUNTED_BY_CAT.setdefault(_c[-1], []).append(_i)
_LANG_COL = {"en": 0, "fr": 1, "de": 2}
_LANG_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch"}


# ---------------------------------------------------------------------------------------
# Morphology: noun phrases, verbs, adjectives, numbers, dates in each language
# ---------------------------------------------------------------------------------------

def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


_FR_VOWELS = frozenset("aeiouyhàâäéèêëîïôöûüœAEIOUYÀÂÉÈÊÎÔÛ")
_EN_PREP = {"in": "in", "of": "of", "for": "for", "with": "with", "near": "near", "to": "to",
            "on": "on", "about": "about", "behind": "behind", "into": "into"}
_FR_PREP = {"in": "dans", "of": "de", "for": "pour", "with": "avec", "near": "près de",
            "to": "à", "on": "sur", "about": "sur", "behind": "derrière", "into": "dans"}
_DE_PREP = {"in": ("in", "dat"), "of": ("von", "dat"), "for": ("für", "acc"),
            "with": ("mit", "dat"), "near": ("neben", "dat"), "to": ("zu", "dat"),
            "on": ("an", "dat"), "about": ("über", "acc"), "behind": ("hinter", "dat"),
            "into": ("in", "acc")}
_DE_DEF = {"nom": {"m": "der", "f": "die", "n": "das"}, "acc": {"m": "den", "f": "die", "n": "das"},
           "dat": {"m": "dem", "f": "der", "n": "dem"}}
_DE_WEAK = {"nom": {"m": "e", "f": "e", "n": "e"}, "acc": {"m": "en", "f": "e", "n": "e"},
            "dat": {"m": "en", "f": "en", "n": "en"}}
_DE_INDEF = {"nom": {"m": "ein", "f": "eine", "n": "ein"},
             "acc": {"m": "einen", "f": "eine", "n": "ein"},
             "dat": {"m": "einem", "f": "einer", "n": "einem"}}
_DE_MIXED = {"nom": {"m": "er", "f": "e", "n": "es"}, "acc": {"m": "en", "f": "e", "n": "es"},
             "dat": {"m": "en", "f": "en", "n": "en"}}
_DE_STRONG_NOM = {"m": "er", "f": "e", "n": "es"}
_DE_CONTRACT = {("in", "dem"): "im", ("von", "dem"): "vom", ("zu", "dem"): "zum",
                ("zu", "der"): "zur", ("an", "dem"): "am", ("in", "das"): "ins"}
_CASES = ("nom", "acc", "dat")
_INDEF = ("inom", "iacc", "idat")


def _en_np(n: _Noun, a: _Adj | None, form: str) -> str:
    core = f"{a.en} {n.en}" if a else n.en
    if form in ("title", "bare"):
        return _cap(core) if form == "title" else core
    if form == "pron":
        return "it"
    if form in _INDEF:
        low = core.lower()
        vowel = low[0] in "aeiou" and not low.startswith(("eu", "uni", "use"))
        return ("an " if vowel else "a ") + core
    if form in _CASES:
        return "the " + core
    return f"{_EN_PREP[form]} the {core}"


def _fr_np(n: _Noun, a: _Adj | None, form: str) -> str:
    g = n.fr_g
    if a is None:
        core = n.fr
    elif a.fr_pre:
        adj = a.fr_f if g == "f" else (a.fr_mv if n.fr[0] in _FR_VOWELS else a.fr_m)
        core = f"{adj} {n.fr}"
    else:
        core = f"{n.fr} {a.fr_f if g == 'f' else a.fr_m}"
    if form in ("title", "bare"):
        return _cap(core) if form == "title" else core
    if form == "pron":
        return "elle" if g == "f" else "il"
    if form in _INDEF:
        return ("une " if g == "f" else "un ") + core
    if core[0] in _FR_VOWELS:
        art, det = "l'", "l'" + core
    elif g == "f":
        art, det = "la", "la " + core
    else:
        art, det = "le", "le " + core
    if form in _CASES:
        return det
    prep = _FR_PREP[form]
    if art == "le":  # à le -> au, de le -> du
        if prep == "à" or prep.endswith(" à"):
            return prep[:-1] + "au " + core
        if prep == "de" or prep.endswith(" de"):
            return prep[:-2] + "du " + core
    return f"{prep} {det}"


def _de_np(n: _Noun, a: _Adj | None, form: str) -> str:
    g = n.de_g
    if form in ("title", "bare"):
        return _cap(f"{a.de_stem}{_DE_STRONG_NOM[g]} {n.de}") if a else n.de
    if form == "pron":
        return {"m": "er", "f": "sie", "n": "es"}[g]
    if form in _INDEF:
        case = form[1:]
        art, end, prep = _DE_INDEF[case][g], _DE_MIXED[case][g], ""
    else:
        prep, case = ("", form) if form in _CASES else _DE_PREP[form]
        art, end = _DE_DEF[case][g], _DE_WEAK[case][g]
    core = f"{a.de_stem}{end} {n.de}" if a else n.de
    if prep:
        merged = _DE_CONTRACT.get((prep, art))
        return f"{merged} {core}" if merged else f"{prep} {art} {core}"
    return f"{art} {core}"


_NP_FUNCS = {"en": _en_np, "fr": _fr_np, "de": _de_np}


@lru_cache(maxsize=None)
def _np(lang: str, noun: int, adj: int, form: str) -> str:
    return _NP_FUNCS[lang](_NOUNS[noun], _ADJS[adj] if adj >= 0 else None, form)


def _noun_gender(lang: str, noun: int) -> str:
    n = _NOUNS[noun]
    return n.fr_g if lang == "fr" else (n.de_g if lang == "de" else "n")


def _adj_pred(lang: str, adj: int, gender: str) -> str:
    a = _ADJS[adj]
    if lang == "fr":
        return a.fr_f if gender == "f" else a.fr_m
    return a.de if lang == "de" else a.en


def _verb(lang: str, verb: int, form: str, slots: dict) -> str:
    v = _VERBS[verb]
    if lang == "en":
        base, s3, past, pp = v.en
        return {"pres": s3, "past": past, "pp": pp, "ppO": pp, "inf": base, "fut": "will " + base,
                "perf": "has " + pp, "aux": "has"}[form]
    if lang == "fr":
        inf, s3, pp, fut = v.fr
        if form == "ppO":  # participle agreeing with the object (passive)
            return pp + "e" if _noun_gender("fr", slots["O"][0]) == "f" else pp
        return {"pres": s3, "past": "a " + pp, "perf": "a " + pp, "pp": pp, "inf": inf,
                "fut": fut, "aux": "a"}[form]
    inf, s3, pp = v.de
    return {"pres": s3, "past": pp, "perf": "hat " + pp, "pp": pp, "ppO": pp, "inf": inf,
            "fut": "wird " + inf, "aux": "hat"}[form]


def _date(lang: str, ymd: tuple[int, int, int], form: str) -> str:
    y, m, d = ymd
    month = _MONTHS[lang][m - 1]
    if lang == "en":
        plain = f"{d} {month} {y}"
        return {"": plain, "on": "on " + plain, "until": "until " + plain,
                "from": "from " + plain, "before": "before " + plain}[form]
    if lang == "fr":
        plain = f"{'1er' if d == 1 else d} {month} {y}"
        return {"": plain, "on": "le " + plain, "until": "jusqu'au " + plain,
                "from": "à partir du " + plain, "before": "avant le " + plain}[form]
    plain = f"{d}. {month} {y}"
    return {"": plain, "on": "am " + plain, "until": "bis zum " + plain,
            "from": "ab dem " + plain, "before": "vor dem " + plain}[form]


def _price(lang: str, cents: int) -> str:
    euros, c = divmod(cents, 100)
    if lang == "en":
        return f"€{euros}.{c:02d}" if c else f"€{euros}"
    return f"{euros},{c:02d} €" if c else f"{euros} €"


def _counted(lang: str, value: tuple[int, int], form: str) -> str:
    count, idx = value
    en_sg, en_pl, fr_sg, fr_pl, fr_g, de_sg, de_pl, _cat = _COUNTED[idx]
    if lang == "en":
        word = en_pl if count != 1 else en_sg
        return f"many {en_pl}" if form == "many" else f"{count} {word}"
    if lang == "fr":
        if form == "many":
            return ("de nombreuses " if fr_g == "f" else "de nombreux ") + fr_pl
        return f"{count} {fr_pl if count > 1 else fr_sg}"
    return f"viele {de_pl}" if form == "many" else f"{count} {de_pl if count != 1 else de_sg}"


def _place(lang: str, idx: int, form: str) -> str:
    name = _PLACES[idx][_LANG_COL[lang]]
    if not form:
        return name
    if lang == "en":
        return f"{form} {name}"
    if lang == "fr":
        return ("à " if form in ("in", "to") else "de ") + name
    return {"in": "in ", "to": "nach ", "of": "von ", "from": "von "}[form] + name


def _hours(lang: str, h: tuple[int, int]) -> str:
    a, b = h
    if lang == "en":
        return f"from {a}:00 to {b}:00"
    return f"de {a} h à {b} h" if lang == "fr" else f"von {a} bis {b} Uhr"


def _render_slot(lang: str, name: str, spec: str, slots: dict) -> str:
    """One template field, e.g. ``{O:acc}`` -> name "O", spec "acc"."""
    kind = name[0]
    val = slots[name]
    if kind in "SO":
        return _np(lang, val[0], val[1], spec)
    if kind == "V":
        return _verb(lang, val, spec, slots)
    if kind == "Q":
        gender = "m" if spec == "m" else _noun_gender(lang, slots[spec][0])
        return _adj_pred(lang, val, gender)
    if kind == "P":
        return _place(lang, val, spec)
    if kind == "W":
        name_, gender = _PERSONS[val]
        if spec == "born":
            return {"en": "born", "fr": "née" if gender == "f" else "né", "de": "geboren"}[lang]
        return name_
    if kind == "Y":
        if spec == "in":
            return {"en": f"in {val}", "fr": f"en {val}", "de": f"im Jahr {val}"}[lang]
        return str(val)
    if kind == "D":
        return _date(lang, val, spec)
    if kind == "M":
        return _price(lang, val)
    if kind == "N":
        return _counted(lang, val, spec)
    if kind == "A":
        return _ADVERBS[val][_LANG_COL[lang]]
    if kind == "E":
        return _SEASONS[val][_LANG_COL[lang]]
    if kind == "H":
        return _hours(lang, val)
    return str(val)  # K (number), C (product code), T (phone)


# French elision the templates cannot know in advance: "de ouvrir" -> "d'ouvrir",
# "de Anvers" -> "d'Anvers" (noun phrases handle their own articles).
_FR_ELISION = re.compile(r"(?<![\w'])([dD]e|[qQ]ue|[nN]e|[jJ]usque) (?=[aeiouyhàâéèêëîïôûœAEIOUYÀÂÉÈÊÎÔÛ])")


def _fr_elide(s: str) -> str:
    return _FR_ELISION.sub(lambda m: m.group(1)[:-1] + "'", s)
