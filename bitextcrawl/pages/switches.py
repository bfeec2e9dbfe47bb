"""The language-switch vocabulary: which language an anchor text names ("Français",
"EN", "English version", "中文版"), what a link names for its target, and the language
names a page shows as no link (a site's "not translated" mark). Beside the page model:
pairing, bitext, the focus and the bilingual-site check (:mod:`bitextcrawl.sites.detect`)
read it.

Switch anchors [Shi 2006 §3 step 1, after Nie et al. 1999]: anchor texts that name a
language, over the table :data:`LANGUAGE_SWITCH_NAMES` (:func:`switch_language`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

from bitextcrawl.pages.compact import html_feature
from bitextcrawl.pages.urls import path_segments

# Language-switch names, casefolded: the language's own name(s), its English name, a few
# names in other major languages (a German page links "Englisch", a French one "Anglais"),
# and ISO 639-1/-2 codes. Keys are the lid.176 labels the language-ID middleware produces.
LANGUAGE_SWITCH_NAMES: dict[str, set[str]] = {
    "en": {"english", "anglais", "englisch", "inglés", "inglese", "inglês", "engels",
           "angielski", "английский", "英文", "英語", "英语", "영어", "anglisht", "en", "eng",
           "english version", "in english"},
    "fr": {"français", "française", "french", "französisch", "francés", "francese",
           "francês", "frans", "francuski", "французский", "法文", "法语", "法語",
           "フランス語", "프랑스어", "frëngjisht", "fr", "fra", "fre", "en français"},
    "de": {"deutsch", "deutsche", "german", "allemand", "alemán", "tedesco", "alemão",
           "duits", "niemiecki", "немецкий", "德文", "德语", "德語", "ドイツ語", "독일어",
           "gjermanisht", "de", "deu", "ger", "auf deutsch"},
    "es": {"español", "castellano", "spanish", "espagnol", "spanisch", "spagnolo",
           "espanhol", "spaans", "hiszpański", "испанский", "西班牙文", "西班牙语", "西班牙語",
           "スペイン語", "스페인어", "es", "esp", "en español"},
    "it": {"italiano", "italian", "italien", "italienisch", "italiaans", "włoski",
           "итальянский", "意大利文", "意大利语", "意大利語", "イタリア語", "이탈리아어",
           "it", "ita"},
    "pt": {"português", "portuguese", "portugais", "portugiesisch", "portugués",
           "portoghese", "portugees", "португальский", "葡萄牙文", "葡萄牙语", "葡萄牙語",
           "ポルトガル語", "포르투갈어", "pt", "pt-br", "pt-pt"},
    "nl": {"nederlands", "vlaams", "dutch", "néerlandais", "niederländisch", "neerlandés",
           "olandese", "holenderski", "nl", "nld"},
    "ru": {"русский", "по-русски", "russian", "russe", "russisch", "ruso", "russo",
           "rosyjski", "俄文", "俄语", "俄語", "ロシア語", "러시아어", "ru", "rus"},
    "zh": {"中文", "简体中文", "繁體中文", "繁体中文", "中文(简体)", "中文(繁體)", "简体", "簡體",
           "繁體", "繁体", "简", "簡", "繁", "汉语", "漢語", "华语", "華語", "國語", "中文版",
           "简体版", "繁體版", "chinese", "simplified chinese", "traditional chinese",
           "chinois", "chinesisch", "chino", "cinese", "chinês", "中国語", "중국어",
           "китайский", "zh", "zho", "chi", "cn", "zh-cn", "zh-tw", "zh-hk", "zh-hans",
           "zh-hant", "zh-sg"},
    "ja": {"日本語", "japanese", "japonais", "japanisch", "japonés", "giapponese",
           "japonês", "日文", "日语", "일본어", "японский", "ja", "jp", "jpn"},
    "ko": {"한국어", "한국말", "korean", "coréen", "koreanisch", "coreano", "韓国語",
           "韩语", "韓語", "韩文", "韓文", "корейский", "ko", "kr", "kor"},
    "ar": {"العربية", "عربي", "arabic", "arabe", "arabisch", "árabe", "arabo",
           "арабский", "阿拉伯文", "阿拉伯语", "ar", "ara"},
    "pl": {"polski", "polish", "polonais", "polnisch", "polaco", "polacco", "pl", "pol"},
    "sv": {"svenska", "swedish", "suédois", "schwedisch", "sueco", "svedese", "sv", "swe"},
    "da": {"dansk", "danish", "danois", "dänisch", "danés", "danese", "da"},
    "no": {"norsk", "bokmål", "norwegian", "norvégien", "norwegisch", "noruego",
           "norvegese", "no", "nb", "nor"},
    "nn": {"nynorsk", "nn"},
    "fi": {"suomi", "finnish", "finnois", "finnisch", "finlandés", "finlandese", "fi"},
    "cs": {"čeština", "česky", "czech", "tchèque", "tschechisch", "checo", "ceco",
           "cs", "cz", "ces", "cze"},
    "sk": {"slovenčina", "slovensky", "slovak", "slovaque", "slowakisch", "eslovaco",
           "sk", "slk"},
    "hu": {"magyar", "hungarian", "hongrois", "ungarisch", "húngaro", "ungherese",
           "hu", "hun"},
    "ro": {"română", "romanian", "roumain", "rumänisch", "rumano", "rumeno", "ro", "ron",
           "rum"},
    "bg": {"български", "bulgarian", "bulgare", "bulgarisch", "búlgaro", "bg", "bul"},
    "el": {"ελληνικά", "greek", "grec", "griechisch", "griego", "greco", "el", "gr",
           "ell", "gre"},
    "tr": {"türkçe", "turkish", "turc", "türkisch", "turco", "tr", "tur"},
    "uk": {"українська", "ukrainian", "ukrainien", "ukrainisch", "ucraniano", "ucraino",
           "uk", "ua", "ukr"},
    "he": {"עברית", "hebrew", "hébreu", "hebräisch", "hebreo", "ebraico", "he", "iw",
           "heb"},
    "hi": {"हिन्दी", "हिंदी", "hindi", "hi", "hin"},
    "sq": {"shqip", "shqipe", "albanian", "albanais", "albanisch", "albanés", "albanese",
           "sq", "sqi", "alb", "al"},
    "hr": {"hrvatski", "croatian", "croate", "kroatisch", "croata", "hr", "hrv"},
    "sr": {"српски", "srpski", "serbian", "serbe", "serbisch", "serbio", "sr", "srp"},
    "sl": {"slovenščina", "slovenski", "slovenian", "slovène", "slowenisch", "esloveno",
           "sl", "slv"},
    "et": {"eesti", "estonian", "estonien", "estnisch", "estonio", "et"},
    "lv": {"latviešu", "latvian", "letton", "lettisch", "letón", "lv", "lav"},
    "lt": {"lietuvių", "lithuanian", "lituanien", "litauisch", "lituano", "lt", "lit"},
    "ca": {"català", "catalan", "katalanisch", "catalán", "ca"},
    "eu": {"euskara", "basque", "baskisch", "vasco", "eu", "eus"},
    "gl": {"galego", "galician", "galicien", "galicisch", "gallego", "gl", "glg"},
    "ga": {"gaeilge", "irish", "irlandais", "irisch", "irlandés", "ga", "gle"},
    "cy": {"cymraeg", "welsh", "gallois", "walisisch", "galés", "cy", "cym"},
    "mt": {"malti", "maltese", "maltais", "maltesisch", "maltés", "mt", "mlt"},
    "is": {"íslenska", "icelandic", "islandais", "isländisch", "islandés", "is", "isl"},
    "vi": {"tiếng việt", "việt", "vietnamese", "vietnamien", "vietnamesisch",
           "vietnamita", "vi", "vn", "vie"},
    "th": {"ไทย", "ภาษาไทย", "thai", "thaï", "thailändisch", "tailandés", "th", "tha"},
    "id": {"bahasa indonesia", "indonesia", "indonesian", "indonésien", "indonesisch",
           "indonesio", "id", "ind"},
    "ms": {"bahasa melayu", "bahasa malaysia", "melayu", "malay", "malais", "malaiisch",
           "malayo", "ms", "msa"},
    "fa": {"فارسی", "persian", "farsi", "persan", "persisch", "persa", "fa", "fas"},
    "ur": {"اردو", "urdu", "ourdou", "ur", "urd"},
    "bn": {"বাংলা", "bengali", "bangla", "bn", "ben"},
    "ta": {"தமிழ்", "tamil", "tamoul", "ta", "tam"},
    "sw": {"kiswahili", "swahili", "sw", "swa"},
}

# Codes that are also ordinary words ("it", "no", "is", "et", "vie", "nor", …): they name
# a language only when written in capitals ("IT", "NO"), as language toggles write them.
AMBIGUOUS_CODES = frozenset({
    "it", "no", "is", "he", "hi", "id", "ta", "et", "ms", "ind", "tam", "ben", "rum",
    "lit", "vie", "pol", "nor", "ces", "ron", "fas", "chi", "hun", "al", "da", "ca",
    "fre", "ger", "gr", "ur",
})
# Words around a language name in a switch ("English version", "Version française",
# "auf Deutsch", "read in English", "French flag" as an image's alt text).
WRAPPER_WORDS = frozenset({
    "version", "versión", "versione", "versão", "versie", "wersja", "verze", "verzió",
    "page", "pages", "site", "website", "web", "sitio", "página", "pagina", "seite",
    "webseite", "language", "langue", "sprache", "idioma", "lingua", "taal", "język",
    "in", "en", "em", "auf", "na", "im", "på", "op", "to", "the", "la", "le", "el", "il",
    "switch", "view", "read", "lire", "voir", "go", "flag", "drapeau", "flagge",
    "bandera", "bandiera", "icon", "current", "selected", "active", "lang",
})
_CJK_SUFFIXES = ("版", "网站", "網站", "页面", "頁面", "网页", "網頁", "サイト", "ページ", "사이트")
_SEPARATORS = re.compile(r"\s*(?:[|/·•,;]|\s[-–—]\s)\s*")
_LOCALE = re.compile(r"^([a-z]{2,3})[-_]([a-z]{2,4})$")
_PAREN = re.compile(r"[(（][^)）]*[)）]")


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s)
                   if not unicodedata.combining(c))


def _build_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for lang, names in LANGUAGE_SWITCH_NAMES.items():
        for name in names:
            for key in {name, _strip_accents(name)}:
                if key and index.setdefault(key, lang) != lang:
                    raise ValueError(f"language-switch name {key!r} names two languages")
    return index


_INDEX = _build_index()


_NOT_ASCII_WORD = re.compile(r"[^A-Za-z0-9_-]+")


def _clean(text: str) -> str:
    """Letters, marks, digits, spaces and inner hyphens only; whitespace collapsed."""
    if text.isascii():   # most anchors: one regex, where the loop below took 20 us each
        return " ".join(_NOT_ASCII_WORD.sub(" ", text).split()).strip("-_ ")
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat[0] in "LMN" or ch in "-_":
            out.append(ch)
        else:
            out.append(" ")
    return " ".join("".join(out).split()).strip("-_ ")


def _lookup(cleaned: str, original: str) -> str | None:
    if not cleaned:
        return None
    key = cleaned.casefold()
    lang = _INDEX.get(key) or _INDEX.get(_strip_accents(key))
    if lang is None:
        m = _LOCALE.match(key)
        if m:  # en-US, fr_CA, pt-BR: a locale is never an ordinary word
            lang = _INDEX.get(m.group(1))
            return lang if lang and len(m.group(1)) == 2 else None
        return None
    if key in AMBIGUOUS_CODES and not original.isupper():
        return None
    return lang


def _part_language(part: str) -> str | None:
    original = _clean(part)
    lang = _lookup(original, original)
    if lang:
        return lang
    tokens = original.split()
    kept = [t for t in tokens if t.casefold() not in WRAPPER_WORDS]
    if kept and len(kept) < len(tokens):
        joined = " ".join(kept)
        if len(joined) > 1:
            lang = _lookup(joined, joined)
            if lang:
                return lang
    for suffix in _CJK_SUFFIXES:
        if original.endswith(suffix) and len(original) > len(suffix):
            lang = _lookup(original[: -len(suffix)], original)
            if lang:
                return lang
    return None


@lru_cache(maxsize=65536)  # sites repeat the same anchors ("Home", "Français") on every page
def switch_language(anchor_text: str) -> str | None:
    """The language a language-switch anchor names ("Français" -> "fr"), else None
    ([Shi 2006 §3 step 1]: anchor texts compared with predefined trigger strings).

    The whole anchor must be a language name, optionally wrapped ("English version",
    "[EN]", "» Deutsch", "Español (España)", "fr-CA"); two-letter codes that are also
    words ("IT", "NO") count only in capitals. "English / Anglais" names one language;
    "EN | FR" names two and gives None.
    """
    if not anchor_text:
        return None
    text = unicodedata.normalize("NFKC", anchor_text).strip()
    if not text or len(text) > 60:
        return None
    without_parens = _PAREN.sub(" ", text).strip()
    if without_parens:
        text = without_parens
    parts = [p for p in _SEPARATORS.split(text) if _clean(p)]
    if not parts:
        return None
    langs = {_part_language(p) for p in parts}
    if len(langs) == 1:
        return langs.pop()
    return None


def link_named_language(link: Mapping) -> str | None:
    """The language a link itself names for its target: its ``hreflang``, else the
    language its anchor text names as a switch ("Français"), else None. A link
    :func:`named_like_a_code` marks (``code_alone``) names none by its text."""
    if link.get("code_alone"):
        return link.get("hreflang") or None
    return link.get("hreflang") or switch_language(link.get("text") or "")


_BARE_CODE = re.compile(r"^[a-z]{2,3}$")


def named_like_a_code(links: list) -> set[int]:
    """Indexes of the links that are things named like a language code, not switches: the
    whole text a lower-case code (``ar``, ``bg``: commands in a list of commands), no link
    beside it naming a language, and the page it leads to named by that code
    (``…/common/ar.html``). A switch bar lists its languages side by side, a lone toggle
    writes a name or a code in capitals, and a language's home (``/fr``) is a folder."""
    out = set()
    for i, link in enumerate(links):
        text = (link.get("text") or "").strip()
        if link.get("hreflang") or not _BARE_CODE.match(text) or not switch_language(text):
            continue
        path = path_segments(link.get("url") or "")
        stem, dot, _ = path[-1].partition(".") if path else ("", "", "")
        if stem.lower() != text or not (dot or len(path) > 1):
            continue
        beside = [links[j] for j in (i - 1, i + 1) if 0 <= j < len(links)]
        if not any(link_named_language(b) for b in beside):
            out.add(i)
    return out


# An element whose whole text is short: where a language name sits in a switch (a line
# break after it is no text: a bar's current language written ``<li>english<br></li>``).
# Possessive tag name and attributes: no backtracking into shorter tag names ("<spa" "n>"),
# which only a closing tag of that shorter name would have matched (half the time of the
# plain pattern; the same matches on nginx.org's and WET's pages).
_NAMED_ELEMENT = re.compile(r"<(\w++)([^<>]*+)>\s*([^<>]{2,30}?)\s*(?:<br\s*/?>\s*)?</\1\s*>")
# Elements that quote code or data: "RU" there is a country, not a switch.
_CODE_TAGS = frozenset({"code", "pre", "kbd", "samp", "var", "tt", "td", "th"})
# A switch bar names its languages side by side: at most this many characters apart.
SWITCH_BAR_GAP = 120


def page_named_unlinked(page, langs: Iterable[str]) -> frozenset:
    """:func:`languages_named_unlinked` of a page record, read once per record (the focus
    middleware and the URL-pairing pipeline both ask)."""
    key = ("named_unlinked", tuple(langs))
    got = page.derived.get(key)
    if got is None:
        got = page.derived[key] = named_unlinked(page_switch_names(page), page.lang, key[1])
    return got


def page_switch_names(page) -> list:
    """:func:`switch_names` of a page record, made once (``pages.compact.html_feature``)."""
    return html_feature(page, "switch_names", switch_names)


def languages_named_unlinked(html: str, page_lang: str, langs: Iterable[str]) -> frozenset:
    """Languages of ``langs`` whose name the page shows as a switch that is no link (an
    element's whole text, not inside ``<a href>``, beside another language's name, linked
    or not): a site's "not translated" mark (nginx.org's ``<a class="notrans">русский</a>``)."""
    return named_unlinked(switch_names(html), page_lang, langs)


def switch_names(html: str) -> list[tuple[int, int, str, bool]]:
    """The language names a page shows as an element's whole text: (start, end,
    language, unlinked), in order."""
    names = []
    if not html:
        return names
    for m in _NAMED_ELEMENT.finditer(html):
        tag, attrs, text = m.groups()
        if tag.lower() in _CODE_TAGS:
            continue
        named = switch_language(text)
        if named:
            # a link, or a switch that navigates by script (a <select>'s options, data-href)
            linked = "href" in attrs.lower() or "onclick" in attrs.lower() or tag.lower() == "option"
            names.append((m.start(), m.end(), named, not linked))
    return names


# A run of this many language names none of which is a link is a list in the text ("supports
# 34 languages: English, French, ..."), not a switch bar: a bar links the other languages.
LIST_OF_NAMES = 3


def _runs(names: list) -> list[int]:
    """Per name, the number of its run: names within SWITCH_BAR_GAP of each other."""
    run, out = 0, []
    for i, (start, _, _, _) in enumerate(names):
        if i and start - names[i - 1][1] > SWITCH_BAR_GAP:
            run += 1
        out.append(run)
    return out


def named_unlinked(names: list, page_lang: str, langs: Iterable[str]) -> frozenset:
    """:func:`languages_named_unlinked` from a page's :func:`switch_names`."""
    wanted = set(langs)
    runs = _runs(names)
    lists = {r for r in set(runs) if runs.count(r) >= LIST_OF_NAMES
             and all(n[3] for n, k in zip(names, runs) if k == r)}
    out = set()
    for i, (start, end, named, unlinked) in enumerate(names):
        if not unlinked or named == page_lang or named not in wanted or named in out:
            continue
        if runs[i] in lists:
            continue
        beside = [n for n in names[max(0, i - 1):i + 2] if n[2] != named
                  and (n[0] - end <= SWITCH_BAR_GAP and start - n[1] <= SWITCH_BAR_GAP)]
        if any(n[2] == page_lang and not n[3] for n in beside):
            # the page's own language linked beside it: a bar of another language's page
            # (its current language unlinked) copied onto this one, no "not translated" mark
            continue
        if beside:
            out.add(named)
    return frozenset(out)
