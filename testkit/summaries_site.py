"""A generated multilingual glossary whose summary pages list the entries in each
language's own order, as a Hugo site's tag pages do.

Each entry page has a Latin term as its heading (the same in every language), its
summary (one sentence) and a body of three sentences; the page of all entries (the
site's tags page) lists, for each entry, its summary and a "read more" link to its page,
sorted by the summary's text in the page's own language: the lists of two languages
hold the same items in different orders. Summaries have no number or name (nothing
but the link tells an item's translation); bodies fill their slots with names and
numbers. An entry page does not repeat its summary, nor a summary page another's
(``bitext.tsv`` writes a sentence pair once: a right row repeated elsewhere would be
left out of the judged rows, a wrong one not). Every page carries a header menu and a footer (the site's template),
``<html lang>`` and ``hreflang`` alternates (the pairing is not under test).

The sentences are :mod:`testkit.multilingual_text`'s. The generator knows which
blocks correspond (``Summaries.blocks``): per page pair, ``(kind, text 1, text 2)``
with kind ``title``, ``content`` or ``template``; ``bench/bench_rows.py`` and
``tests/integration/test_bitext_lists.py`` judge bitext rows by them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from testkit.multilingual_text import DESCRIPTIONS, NO_SPACE, SENTENCES

LANGS = ("en", "fr", "ja", "ru")

UI = {
    "en": {"site": "Server Glossary", "home": "Home", "all": "All entries", "tag": "Tag",
           "more": "Read more",
           "foot": "This glossary is maintained by the documentation team.",
           "intro": "Short definitions of the terms used in the server manual."},
    "fr": {"site": "Glossaire du serveur", "home": "Accueil", "all": "Toutes les entrées",
           "tag": "Étiquette", "more": "Lire la suite",
           "foot": "Ce glossaire est tenu à jour par l'équipe de documentation.",
           "intro": "De courtes définitions des termes employés dans le manuel du serveur."},
    "ja": {"site": "サーバ用語集", "home": "ホーム", "all": "すべての項目", "tag": "タグ",
           "more": "続きを読む",
           "foot": "この用語集はドキュメントチームが管理しています。",
           "intro": "サーバマニュアルで使われる用語の短い定義です。"},
    "ru": {"site": "Глоссарий сервера", "home": "Главная", "all": "Все статьи", "tag": "Тег",
           "more": "Подробнее",
           "foot": "Этот глоссарий ведёт команда документации.",
           "intro": "Краткие определения терминов, используемых в руководстве по серверу."},
    "zh": {"site": "服务器术语表", "home": "首页", "all": "所有条目", "tag": "标签",
           "more": "阅读更多",
           "foot": "本术语表由文档团队维护。",
           "intro": "服务器手册中所用术语的简短定义。"},
    "ko": {"site": "서버 용어집", "home": "홈", "all": "모든 항목", "tag": "태그",
           "more": "더 읽기",
           "foot": "이 용어집은 문서 팀이 관리합니다.",
           "intro": "서버 매뉴얼에서 사용하는 용어의 짧은 정의입니다."},
    "hi": {"site": "सर्वर शब्दावली", "home": "होम", "all": "सभी प्रविष्टियाँ", "tag": "टैग",
           "more": "और पढ़ें",
           "foot": "इस शब्दावली का रखरखाव दस्तावेज़ीकरण टीम करती है।",
           "intro": "सर्वर मैनुअल में प्रयुक्त शब्दों की संक्षिप्त परिभाषाएँ।"},
    "bn": {"site": "সার্ভার শব্দকোষ", "home": "হোম", "all": "সব এন্ট্রি", "tag": "ট্যাগ",
           "more": "আরও পড়ুন",
           "foot": "এই শব্দকোষটি ডকুমেন্টেশন দল রক্ষণাবেক্ষণ করে।",
           "intro": "সার্ভার ম্যানুয়ালে ব্যবহৃত পরিভাষাগুলোর সংক্ষিপ্ত সংজ্ঞা।"},
}
_SLOT = re.compile(r"\{(\w+)\}")
_WORDS = ("alpha", "beacon", "cache", "delta", "echo", "fetch", "gate", "harbor", "index",
          "jolt", "keeper", "lumen", "mesh", "nexus", "orbit", "proxy", "quota", "relay",
          "shard", "token", "umbra", "vault", "warden", "yield")


@dataclass
class Summaries:
    host: str
    pages: dict = field(default_factory=dict)    # URL -> HTML
    langs: dict = field(default_factory=dict)    # URL -> language
    pairs: dict = field(default_factory=dict)    # (lang 1, lang 2) -> [(URL 1, URL 2)]
    kinds: dict = field(default_factory=dict)    # URL -> "entry" | "summary" | "home"
    blocks: dict = field(default_factory=dict)   # (URL 1, URL 2) -> [(kind, text 1, text 2)]


def _fill(template: dict, slots: dict) -> dict:
    return {lang: _SLOT.sub(lambda m: slots[m.group(1)], text)
            for lang, text in template.items()}


def _join(lang: str, sentences: list[str]) -> str:
    return ("" if lang in NO_SPACE else " ").join(sentences)


def summaries_site(n_entries: int = 24, seed: int = 0, host: str = "summaries.test",
                   langs: tuple = LANGS) -> Summaries:
    """The site (module docstring): ``n_entries`` entries (at most 24), the page of all
    their summaries and a home page, in each language."""
    rng = random.Random(seed)
    site = Summaries(host)
    plain = [s for s in SENTENCES + DESCRIPTIONS if "{" not in s["en"]]
    slotted = [s for s in SENTENCES if "{" in s["en"]]
    summaries = rng.sample(plain, n_entries)
    rest = [s for s in plain if s not in summaries]
    entries = []
    for i in range(n_entries):
        term = f"mod_{_WORDS[i]}"
        slots = {"D": f"{_WORDS[i].capitalize()}Limit", "D2": f"{_WORDS[i].capitalize()}Mode",
                 "M": term, "N": str(rng.randint(2, 9999)), "F": f"/etc/{_WORDS[i]}.conf",
                 "S": f"{term}.c", "V": rng.choice(("debug", "info", "warn")),
                 "C": rng.choice(("403", "404", "503"))}
        body = [_fill(s, slots) for s in rng.sample(slotted, 2)] + rng.sample(rest, 1)
        rng.shuffle(body)
        entries.append((term, summaries[i], body))

    def url(lang: str, kind: str, key=None) -> str:
        path = {"home": "", "all": "all.html",
                "entry": f"entries/{entries[key][0] if key is not None else ''}.html"}[kind]
        return f"http://{host}/{lang}/{path}"

    def page(lang: str, title: str, main: str, kind: str, key=None) -> str:
        ui = UI[lang]
        alternates = "".join(f'<link rel="alternate" hreflang="{o}" href="{url(o, kind, key)}">'
                             for o in langs)
        menu = (f'<li><a href="{url(lang, "home")}">{ui["home"]}</a></li>'
                f'<li><a href="{url(lang, "all")}">{ui["all"]}</a></li>')
        return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
                f'<title>{title}</title>{alternates}</head><body>\n'
                f'<header><a class="brand" href="{url(lang, "home")}">{ui["site"]}</a>'
                f'<nav><ul class="menu">{menu}</ul></nav></header>\n<main>{main}</main>\n'
                f'<footer><p>{ui["foot"]}</p></footer>\n</body></html>\n')

    def template_blocks(a: str, b: str) -> list:
        ua, ub = UI[a], UI[b]
        return [("template", ua[k], ub[k]) for k in ("site", "home", "all", "foot")]

    def listing(lang: str, members: list) -> str:
        ordered = sorted(members, key=lambda i: entries[i][1][lang])
        return "<ul class=\"summaries\">" + "".join(
            f'<li><p>{entries[i][1][lang]}</p><p><a href="{url(lang, "entry", i)}">'
            f'{UI[lang]["more"]}</a></p></li>' for i in ordered) + "</ul>"

    listings = [("all", None, list(range(n_entries)))]
    for lang in langs:
        ui = UI[lang]
        for i, (term, summary, body) in enumerate(entries):
            main = (f"<h1>{term}</h1>\n<p>{body[0][lang]}</p>\n"
                    f"<p>{_join(lang, [s[lang] for s in body[1:]])}</p>\n")
            site.pages[url(lang, "entry", i)] = page(lang, term, main, "entry", i)
            site.kinds[url(lang, "entry", i)] = "entry"
        for kind, key, members in listings:
            title = ui["all"]
            site.pages[url(lang, kind, key)] = page(
                lang, title, f"<h1>{title}</h1>\n{listing(lang, members)}\n", kind, key)
            site.kinds[url(lang, kind, key)] = "summary"
        site.pages[url(lang, "home")] = page(
            lang, ui["site"], f'<h1>{ui["site"]}</h1>\n<p>{ui["intro"]}</p>\n', "home")
        site.kinds[url(lang, "home")] = "home"
        for u in site.pages:
            site.langs.setdefault(u, lang)

    for other in langs[1:]:
        a, b = langs[0], other
        pairs = site.pairs[(a, b)] = []
        common = template_blocks(a, b)
        for i, (term, summary, body) in enumerate(entries):
            key = (url(a, "entry", i), url(b, "entry", i))
            pairs.append(key)
            site.blocks[key] = common + [("title", term, term)] \
                + [("content", s[a], s[b]) for s in body]
        for kind, key_, members in listings:
            key = (url(a, kind, key_), url(b, kind, key_))
            pairs.append(key)
            site.blocks[key] = common + [("content", entries[i][1][a], entries[i][1][b])
                                         for i in members] \
                + [("content", UI[a]["more"], UI[b]["more"])]
        key = (url(a, "home"), url(b, "home"))
        pairs.append(key)
        site.blocks[key] = common + [("content", UI[a]["intro"], UI[b]["intro"])]
    return site


def _norm(text: str) -> str:
    return " ".join(text.split())


def judge_rows(site: Summaries, rows: list, min_score: float = 0.3) -> dict:
    """Kept rows (``score`` ≥ ``min_score``) judged against the site's blocks, per page
    kind of ``url_1`` (``entry``, ``summary``, ``home``): ``right`` where both sides are
    inside one corresponding content or title block, ``template`` where inside one
    template block (a menu, the footer: no row is wanted from them), ``wrong``
    otherwise. Rows are dicts with ``url_1``, ``url_2``, ``sentence_1``, ``sentence_2``
    and ``score``."""
    out: dict = {}
    for r in rows:
        if float(r["score"]) < min_score:
            continue
        kind = site.kinds.get(r["url_1"], "other")
        got = out.setdefault(kind, {"right": 0, "wrong": 0, "template": 0})
        s1, s2 = _norm(r["sentence_1"]), _norm(r["sentence_2"])
        verdict = "wrong"
        for block, t1, t2 in site.blocks.get((r["url_1"], r["url_2"]), ()):
            if s1 in _norm(t1) and s2 in _norm(t2):
                verdict = "right" if block != "template" else "template"
                break
        got[verdict] += 1
    return out


__all__ = ["LANGS", "Summaries", "judge_rows", "summaries_site"]
