"""The demo generator's sentences: templates, language-independent plans, rendering.

A page is first *planned* without a language (which template, which nouns, verbs and
numbers fill it) and then *rendered* in each language from the templates of
``data/templates.json``, so its versions are sentence-by-sentence translations of each
other. Used by :mod:`.generator`.
"""

from __future__ import annotations

import html
import random
import string

from bitextcrawl.demo.lexicon import (
    _ADJ_ID,
    _ADJ_IDS,
    _ADJS,
    _ADVERB_IDS,
    _ADVERBS,
    _AGENTS,
    _CONNECTIVE_P,
    _CONNECTIVES,
    _COUNTED_BY_CAT,
    _PERSON_IDS,
    _PERSONS,
    _PLACE_IDS,
    _PLACES,
    _SEASONS,
    _THINGS,
    _VERB_IDS,
    _VERBS,
    _cap,
    _fr_elide,
    _load,
    _np,
    _place,
    _price,
    _render_slot,
)

# ---------------------------------------------------------------------------------------
# Templates. Fields: S/O/O2 noun phrases (forms nom, acc, dat, inom, iacc, title, pron or a
# preposition), V verb (pres, past, perf, pp, ppO, inf, fut, aux), Q/Q2 predicative
# adjective agreeing with the named slot (or m), P place, W person, Y year, D date,
# M price, N counted noun, K number, C product code, T phone, A adverb, E season,
# H opening hours. Options: agent (S acts), O_agent, N category, Q allowed adjectives,
# K range, Y range, product (only in product-like sections), rare (lower weight),
# connective (False for questions and imperatives, which take no "Moreover, ").
# ---------------------------------------------------------------------------------------

def _template(entry: list) -> tuple:
    """``[en, fr, de, options]`` as the code reads it: option values that are lists (ranges,
    allowed adjectives) as tuples."""
    en, fr, de, opts = entry
    return en, fr, de, {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()}


_TEMPLATE_DATA = _load("templates.json")
_SENTENCE_TEMPLATES = [_template(t) for t in _TEMPLATE_DATA["sentences"]]
_TITLE_TEMPLATES = [_template(t) for t in _TEMPLATE_DATA["titles"]]


class _Template:
    """A template compiled per language into (literal, field, spec) parts."""

    __slots__ = ("parts", "fields", "opts")

    def __init__(self, en: str, fr: str, de: str, opts: dict):
        fmt = string.Formatter()
        self.parts = {}
        fields = set()
        for lang, text in (("en", en), ("fr", fr), ("de", de)):
            parts = [(lit, name, spec) for lit, name, spec, _conv in fmt.parse(text)]
            self.parts[lang] = parts
            fields.update(name for _lit, name, _spec, in parts if name)
            # Q:S agreement needs the slot it agrees with to be filled.
            fields.update(spec for _lit, name, spec in parts
                          if name and name[0] == "Q" and spec not in ("m", ""))
        self.fields = tuple(sorted(fields, key=lambda f: (f not in ("S", "O", "O2"), f)))
        self.opts = opts

    def render(self, lang: str, slots: dict) -> str:
        out = []
        for lit, name, spec in self.parts[lang]:
            out.append(lit)
            if name:
                out.append(_render_slot(lang, name, spec, slots))
        s = "".join(out)
        return _fr_elide(s) if lang == "fr" else s


_SENTENCES = [_Template(*t) for t in _SENTENCE_TEMPLATES]
_TITLES = [_Template(*t) for t in _TITLE_TEMPLATES]


# Fields whose values read the same in every language (numbers, codes, proper names):
# language-independent evidence a content similarity can match without translating.
_ANCHOR_FIELDS = frozenset("YDMNKCTHWP")


def _has_anchor(t: _Template) -> bool:
    return any(f[0] in _ANCHOR_FIELDS for f in t.fields)


def _template_weights(product: bool, anchors: bool = True) -> list[float]:
    cum, total = [], 0.0
    for t in _SENTENCES:
        w = 0.3 if t.opts.get("rare") else 1.0
        if t.opts.get("product"):
            w = 3.0 if product else 0.0
        if not anchors and _has_anchor(t):
            w = 0.0
        total += w
        cum.append(total)
    return cum


_CUM_WEIGHTS = {(product, anchors): _template_weights(product, anchors)
                for product in (False, True) for anchors in (False, True)}
_TITLES_WITHOUT_ANCHORS = [t for t in _TITLES if not _has_anchor(t)]


# ---------------------------------------------------------------------------------------
# Planning: language-independent content, rendered later in every language
# ---------------------------------------------------------------------------------------

class _Pool:
    """The topic of one page: the few words most of its sentences draw from."""

    __slots__ = ("agents", "things", "adjs", "verbs", "places", "persons", "adverbs")

    def __init__(self, rng: random.Random, place: int | None = None):
        self.agents = rng.sample(_AGENTS, 3)
        self.things = rng.sample(_THINGS, 6)
        self.adjs = rng.sample(range(len(_ADJS)), 6)
        self.verbs = rng.sample(range(len(_VERBS)), 5)
        self.places = rng.sample(range(len(_PLACES)), 2)
        if place is not None:
            self.places[0] = place
        self.persons = rng.sample(range(len(_PERSONS)), 2)
        self.adverbs = rng.sample(range(len(_ADVERBS)), 3)


def _pick(rng: random.Random, local: list[int], universe, p_local: float = 0.85) -> int:
    """Mostly a word of the page's topic, sometimes any word (``universe``: ids)."""
    return rng.choice(local if rng.random() < p_local else universe)


def _noun_phrase(rng: random.Random, pool: _Pool, agent: bool, avoid=(),
                 things_only: bool = False) -> tuple[int, int]:
    for _ in range(5):
        if agent:
            noun = _pick(rng, pool.agents, _AGENTS)
        elif things_only or rng.random() < 0.8:
            noun = _pick(rng, pool.things, _THINGS)
        else:
            noun = _pick(rng, pool.agents, _AGENTS)
        if noun not in avoid:
            break
    adj = _pick(rng, pool.adjs, _ADJ_IDS) if rng.random() < 0.4 else -1
    return noun, adj


def _fill(rng: random.Random, t: _Template, pool: _Pool) -> dict:
    """Choose values for every field of template ``t`` (shared by all languages)."""
    o = t.opts
    slots: dict = {}
    for name in t.fields:
        kind = name[0]
        if name == "S":
            slots[name] = _noun_phrase(rng, pool, bool(o.get("agent")))
        elif kind == "O":
            avoid = {v[0] for k, v in slots.items() if k[0] in "SO"}
            agent = name == "O" and bool(o.get("O_agent"))
            slots[name] = _noun_phrase(rng, pool, agent, avoid)
        elif kind == "V":
            slots[name] = _pick(rng, pool.verbs, _VERB_IDS)
        elif kind == "Q":
            allowed = o.get("Q")
            if allowed:
                slots[name] = _ADJ_ID[rng.choice(allowed)]
            else:
                # Not the adjective already in the subject ("the simple family is simple").
                taken = {slots.get("Q"), slots["S"][1] if "S" in slots else None}
                q = _pick(rng, pool.adjs, _ADJ_IDS, 0.7)
                while q in taken:
                    q = rng.randrange(len(_ADJS))
                slots[name] = q
        elif kind == "P":
            slots[name] = _pick(rng, pool.places, _PLACE_IDS)
        elif kind == "W":
            slots[name] = _pick(rng, pool.persons, _PERSON_IDS)
        elif kind == "Y":
            slots[name] = rng.randint(*o.get("Y", (1990, 2025)))
        elif kind == "D":
            slots[name] = (rng.randint(2018, 2026), rng.randint(1, 12), rng.randint(1, 28))
        elif kind == "M":
            euros = rng.choice((rng.randint(2, 60), rng.randint(10, 900), rng.randint(100, 5000)))
            slots[name] = euros * 100 + (rng.choice((0, 0, 50, 90, 99)) if euros < 100 else 0)
        elif kind == "N":
            cat = o.get("N") or rng.choice(("people", "things"))
            hi = {"people": 5000, "things": 800, "jobs": 300}[cat]
            slots[name] = (rng.randint(5, hi), rng.choice(_COUNTED_BY_CAT[cat]))
        elif kind == "K":
            slots[name] = rng.randint(*o.get("K", (2, 50)))
        elif kind == "C":
            slots[name] = _product_code(rng)
        elif kind == "T":
            slots[name] = _phone(rng)
        elif kind == "A":
            slots[name] = _pick(rng, pool.adverbs, _ADVERB_IDS)
        elif kind == "E":
            slots[name] = rng.randrange(len(_SEASONS))
        elif kind == "H":
            slots[name] = (rng.randint(7, 10), rng.randint(17, 22))
    return slots


def _product_code(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTVXZ") for _ in range(2))
    return f"{letters}-{rng.randint(1000, 9999)}"


def _phone(rng: random.Random) -> str:
    return "+33 4 " + " ".join(f"{rng.randint(10, 99)}" for _ in range(4))


class _Sentence:
    """One sentence, planned once and rendered per language."""

    __slots__ = ("t", "slots", "conn")

    def __init__(self, t: _Template, slots: dict, conn: dict | None):
        self.t, self.slots, self.conn = t, slots, conn

    def render(self, lang: str) -> str:
        s = self.t.render(lang, self.slots)
        if self.conn and lang in self.conn:
            # After a connective, a template's own first word is lowercased ("Par ailleurs,
            # les billets..."); slots already come lowercase or as proper names.
            if self.t.parts[lang][0][0]:
                s = s[0].lower() + s[1:]
            return self.conn[lang] + s
        return _cap(s)


def _sentence(rng: random.Random, pool: _Pool, cum_weights: list[float]) -> _Sentence:
    t = rng.choices(_SENTENCES, cum_weights=cum_weights)[0]
    slots = _fill(rng, t, pool)
    conn = None
    for lang, p in _CONNECTIVE_P.items():
        if p and t.opts.get("connective", True) and rng.random() < p:
            conn = conn or {}
            conn[lang] = rng.choice(_CONNECTIVES[lang])
    return _Sentence(t, slots, conn)


def _title(rng: random.Random, pool: _Pool, anchors: bool = True) -> _Sentence:
    t = rng.choice(_TITLES if anchors else _TITLES_WITHOUT_ANCHORS)
    return _Sentence(t, _fill(rng, t, pool), None)


class _Plan:
    """A page's content before rendering: title, date, blocks.

    Blocks: ("p", [sentences]), ("ul", [noun phrases]), ("table", [(np, code, price)]),
    ("img", (image id, noun phrase, place)). ``only`` maps a block index to the single
    side (0 or 1) that has it: the small differences real translations have.
    """

    __slots__ = ("title", "date", "blocks", "only", "pool", "anchors")

    def __init__(self, title, date, blocks, pool):
        self.title, self.date, self.blocks, self.pool = title, date, blocks, pool
        self.only: dict[int, int] = {}
        self.anchors = True     # False: the date is not shown (see SiteSpec.anchors)


def _plan_article(rng: random.Random, product: bool, place: int,
                  anchors: bool = True) -> _Plan:
    pool = _Pool(rng, place if rng.random() < 0.5 else None)
    cum = _CUM_WEIGHTS[product, anchors]
    blocks: list = [("p", [_sentence(rng, pool, cum) for _ in range(rng.randint(1, 4))])
                    for _ in range(rng.randint(2, 8))]
    # Lists, tables and pictures go between paragraphs, never first.
    if rng.random() < 0.3:
        blocks.insert(rng.randint(1, len(blocks)), ("ul", _distinct_things(rng, pool, 3, 6)))
    if anchors and rng.random() < (0.5 if product else 0.15):
        rows = [(np_, _product_code(rng), rng.randint(5, 900) * 100)
                for np_ in _distinct_things(rng, pool, 2, 6)]
        blocks.insert(rng.randint(1, len(blocks)), ("table", rows))
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        img = (f"{rng.getrandbits(40):010x}", _noun_phrase(rng, pool, False, things_only=True),
               rng.choice(pool.places) if anchors else None)
        blocks.insert(rng.randint(1, len(blocks)), ("img", img))
    date = (rng.randint(2015, 2025), rng.randint(1, 12), rng.randint(1, 28))
    plan = _Plan(_title(rng, pool, anchors), date, blocks, pool)
    plan.anchors = anchors
    return plan


def _distinct_things(rng: random.Random, pool: _Pool, lo: int, hi: int) -> list:
    """Noun phrases for a list or table: things, each noun once."""
    out, seen = [], set()
    for _ in range(rng.randint(lo, hi)):
        np_ = _noun_phrase(rng, pool, False, seen, things_only=True)
        if np_[0] not in seen:
            seen.add(np_[0])
            out.append(np_)
    return out


def _add_one_sided_differences(rng: random.Random, plan: _Plan) -> None:
    """Sometimes one version has an extra paragraph or lacks a picture."""
    if rng.random() < 0.08:
        side = rng.randrange(2)
        extra = ("p", [_sentence(rng, plan.pool, _CUM_WEIGHTS[False, plan.anchors])
                       for _ in range(rng.randint(1, 2))])
        pos = rng.randint(1, len(plan.blocks))
        plan.blocks.insert(pos, extra)
        plan.only = {(i + 1 if i >= pos else i): s for i, s in plan.only.items()}
        plan.only[pos] = side
    imgs = [i for i, b in enumerate(plan.blocks) if b[0] == "img" and i not in plan.only]
    if imgs and rng.random() < 0.1:
        plan.only[rng.choice(imgs)] = rng.randrange(2)


# ---------------------------------------------------------------------------------------
# Rendering of the main text
# ---------------------------------------------------------------------------------------

_esc = html.escape


def _href(url: str) -> str:
    """Attribute-escape a generated URL (they hold no quotes or angle brackets)."""
    return url.replace("&", "&amp;") if "&" in url else url


def _t(s: str) -> str:
    return html.escape(s, quote=False)


def _render_main(lang: str, plan: _Plan, side: int | None, ui: dict) -> tuple[str, list]:
    """HTML of the blocks for one language, and the sentences of each block (None for
    blocks that are not paragraphs or that only this side has)."""
    out = []
    sentences = []
    for i, block in enumerate(plan.blocks):
        only = plan.only.get(i)
        if only is not None and only != side:
            continue
        kind, data = block
        if kind == "p":
            sents = [s.render(lang) for s in data]
            out.append(f"<p>{_t(' '.join(sents))}</p>\n")
            sentences.append(sents if only is None else None)
            continue
        if kind == "ul":
            items = "".join(f"<li>{_t(_np(lang, n, a, 'title'))}</li>" for n, a in data)
            out.append(f'<ul class="facts">{items}</ul>\n')
        elif kind == "table":
            head = "".join(f"<th>{_t(h)}</th>" for h in ui["table_head"])
            rows = "".join(
                f"<tr><td>{_t(_np(lang, n, a, 'title'))}</td><td>{code}</td>"
                f"<td>{_t(_price(lang, cents))}</td></tr>"
                for (n, a), code, cents in data)
            out.append(f'<table class="data"><thead><tr>{head}</tr></thead>'
                       f"<tbody>{rows}</tbody></table>\n")
        elif kind == "img":
            img_id, (n, a), place = data
            alt = _np(lang, n, a, "title")
            if place is not None:
                alt += " " + _place(lang, place, "in")
            out.append(f'<figure><img src="/img/{img_id}.jpg" alt="{_esc(alt)}" width="640" '
                       f'height="420"><figcaption>{_t(alt)}</figcaption></figure>\n')
        sentences.append(None)
    return "".join(out), sentences
