"""Language variants (``pt-br`` / ``pt-pt``, ``zh-cn`` / ``zh-tw``) named by a site itself.

fastText's lid.176 has no variants: it labels a Brazilian and a European Portuguese page
``pt`` alike. Where a site serves two variants of one language, its own declarations say
which page is which, and only they do:

* a language tag in the URL: ``/pt-br/``, ``/zh_TW/``, ``pt-br.example.org``,
  ``?lang=pt-BR``, ``index.zh-Hant.html``;
* ``hreflang``: the page's own entry among its declared alternates, and what other
  pages' alternates declare for its URL (:func:`hreflang_claims`);
* ``<html lang>`` and the ``Content-Language`` header.

A page's variant (:func:`page_variant`) is the one its declarations agree on, in the
language fastText (or the declaration it trusts) gave the page: declarations of another
base language are ignored, and two that disagree (``/zh-tw/`` with ``lang="zh-CN"``) name
no variant — the page stays ``zh`` and is never paired as either. A script and a region
agree where the script is the one written in the region (``zh-Hant`` with ``zh-TW``:
``zh-tw``, the region naming the variant).

:func:`page_lang` is the language a page counts as for the languages asked for
(``langs``): its variant where ``langs`` names it, else its base language, so asking for
``pt`` pairs Portuguese pages whatever their variant, as without variants, and asking for
``pt-br`` pairs only pages declared ``pt-br``. The crawl's language-ID middleware gives a
record that language as it is made; :func:`~bitextcrawl.pages.site.canonical_pages` gives
it again at the close, with the hreflang claims of the whole site.

Pure: no Scrapy import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from bitextcrawl.pages.language import LANG_ALIASES, base_lang, requested_lang, tag_parts

# Script subtags a URL may carry (``zh-hans``, ``sr-latn``); in a URL any other four
# letters after a language code are a word (``de-mail``), not a script.
URL_SCRIPTS = frozenset({"hans", "hant", "latn", "cyrl", "arab", "deva", "beng", "grek",
                         "hebr", "jpan", "kore", "thai", "geor", "armn", "ethi", "taml",
                         "mong", "guru"})
_URL_SCRIPTS = "|".join(sorted(URL_SCRIPTS))
# A language tag with a script or a region inside a URL, between separators.
_URL_TAG = re.compile(r"(?<![a-z0-9])([a-z]{2,3})(?:[-_](" + _URL_SCRIPTS + r"))?"
                      r"(?:[-_]([a-z]{2}|[0-9]{3}))?(?![a-z0-9])")
# Regions where each script is the one written: a script and a region agree there.
SCRIPT_REGIONS = {
    "zh-hans": frozenset({"cn", "sg", "my"}),
    "zh-hant": frozenset({"tw", "hk", "mo"}),
}


def tag_variant(tag: str | None) -> str | None:
    """A declared tag's variant without the LID model: ``pt-BR`` -> ``pt-br``,
    ``zh_Hant_TW`` -> ``zh-tw``, ``zh-Hant`` -> ``zh-hant``, ``iw-IL`` -> ``he-il``;
    None for a tag without a region or script subtag, or junk."""
    parts = tag_parts(tag)
    if parts is None or (parts[1] is None and parts[2] is None):
        return None
    primary = LANG_ALIASES.get(parts[0], parts[0])
    return f"{primary}-{parts[2] or parts[1]}"


def url_variants(url: str) -> list[str]:
    """The language variants a URL names (host, path and query), in order:
    ``http://x/pt-br/a.html`` -> ``["pt-br"]``; ``/zh_TW/`` -> ``["zh-tw"]``;
    ``?lang=pt-BR`` -> ``["pt-br"]``. Words that only look like tags (``/de-fr/``) are
    kept: :func:`page_variant` keeps only those of the page's own language."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    text = unquote(f"{parts.hostname or ''}/{parts.path}?{parts.query}").lower()
    out = []
    for m in _URL_TAG.finditer(text):
        primary, script, region = m.groups()
        if script is None and region is None:
            continue
        variant = f"{LANG_ALIASES.get(primary, primary)}-{region or script}"
        if variant not in out:
            out.append(variant)
    return out


def without_language(url: str, lang: str | None) -> str | None:
    """``url`` (lower-cased, without its scheme and fragment) with each language tag of
    ``lang``'s base language written ``{lang}``, or None where it has none:
    ``https://github.com/o/r/edit/main/content/ja/x.md`` for ``ja`` and
    ``.../content/en/x.md`` for ``en`` are both ``github.com/o/r/edit/main/content/{lang}/x.md``.
    An outside link that names its page's language (a repository's source of the page, a
    reference in the reader's language) names the same thing in each translation."""
    base = base_lang(lang)
    if not base or base == "und":
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    text = unquote(f"{parts.hostname or ''}{parts.path}?{parts.query}").lower().rstrip("?/")
    found = False

    def tag(m) -> str:
        nonlocal found
        if LANG_ALIASES.get(m.group(1), m.group(1)) != base:
            return m.group(0)
        found = True
        return "{lang}"

    out = _URL_TAG.sub(tag, text)
    return out if found else None


def hreflang_claims(pages: Iterable) -> dict[str, set[str]]:
    """URL -> the variants the site's hreflang alternates declare for it, page by page
    (``<link rel="alternate" hreflang="zh-TW" href=U>`` on any page: ``zh-tw`` for U)."""
    claims: dict[str, set[str]] = {}
    for page in pages:
        hreflang = page.get("hreflang") if isinstance(page, Mapping) else page.hreflang
        for tag, url in (hreflang or {}).items():
            if "-" in tag and url:
                claims.setdefault(url, set()).add(tag)
    return claims


def _agreed(variants: list[str]) -> str | None:
    """The one variant a page's declarations agree on, or None."""
    regions = {v for v in variants if not _is_script(v)}
    scripts = {v for v in variants if _is_script(v)}
    if len(regions) > 1 or len(scripts) > 1:
        return None
    if regions and scripts:
        region, script = next(iter(regions)), next(iter(scripts))
        allowed = SCRIPT_REGIONS.get(script)
        if allowed is not None and region.split("-", 1)[1] not in allowed:
            return None   # zh-Hans with zh-TW
        return region
    return next(iter(regions or scripts), None)


def _is_script(variant: str) -> bool:
    sub = variant.split("-", 1)[1]
    return len(sub) == 4 and sub.isalpha()


def _get(page, name, default=None):
    if isinstance(page, Mapping):
        return page.get(name, default)
    return getattr(page, name, default)


def declared_variants(page, claims: Iterable[str] = (), base: str | None = None) -> list[str]:
    """The variants of its language a page's declarations name, each time one does (see the
    module docstring); arguments as :func:`page_variant`."""
    base = base or base_lang(_get(page, "lang"))
    if not base or base == "und":
        return []
    url = _get(page, "url") or ""
    declared = list(url_variants(url))
    urls = {url, _get(page, "requested_url") or url}
    declared += [tag for tag, target in (_get(page, "hreflang") or {}).items()
                 if "-" in tag and target in urls]
    declared.append(tag_variant(_get(page, "html_lang")))
    declared += [tag_variant(t) for t in (_get(page, "content_language") or "").split(",")]
    declared += list(claims)
    return [v for v in declared if v and base_lang(v) == base]


def page_variant(page, claims: Iterable[str] = (), base: str | None = None) -> str | None:
    """The variant of its language a page's declarations name (see the module docstring),
    or None. ``page``: a page record (or its dict); ``claims``: variants other pages'
    hreflang declare for it (:func:`hreflang_claims`); ``base``: the language to read
    them for, if not the page's."""
    return _agreed(declared_variants(page, claims, base))


def asked_variant(lang: str | None, langs) -> str | None:
    """The variant ``langs`` asks for that a page or link of ``lang`` counts as, where the
    declaration is less specific than the request: a base language (``zh``) or a script
    (``zh-hans``) counts as the one variant of it asked for (``zh-cn``: of the variants
    asked, the only one of that base, written in that script), and a region (``zh-cn``)
    as the one script asked for that is written there (``zh-hans``), where ``langs``
    does not ask for ``lang`` itself. A user who asks for ``zh-cn`` from a site that declares no
    variant (or only its script) means its Chinese; a page declared ``zh-tw`` is never
    ``zh-cn``. None where no such variant, or more than one, is asked for."""
    if not lang or lang in langs:
        return None
    base = base_lang(lang)
    asked = [x for x in langs if x != base and base_lang(x) == base]
    if lang != base and _is_script(lang):
        regions = SCRIPT_REGIONS.get(lang, frozenset())
        asked = [x for x in asked if not _is_script(x) and x.split("-", 1)[1] in regions]
    elif lang != base:   # a region: the one script asked for that is written there
        region = lang.split("-", 1)[1]
        asked = [x for x in asked if region in SCRIPT_REGIONS.get(x, frozenset())]
    return asked[0] if len(asked) == 1 and base not in langs else None


def declaring_languages(pages, claims: Mapping | None = None) -> set[str]:
    """The base languages of which some of ``pages`` declare a variant (``pt`` where a
    page is at ``/pt-br/``); ``claims``: :func:`hreflang_claims` of the site."""
    claims = claims or {}
    return {base_lang(v) for p in pages
            for v in declared_variants(p, claims.get(_get(p, "url"), ()))}


def page_lang(page, langs, claims: Iterable[str] = (), declaring=frozenset()) -> str:
    """The language a page counts as when pairing ``langs``: its declared variant where
    ``langs`` asks for that variant, else its base language (``requested_lang``).
    A page that declares only a script counts as the variant asked for where
    :func:`asked_variant` names one; so does a page that declares no variant, on a site
    that declares no variant of its language (``declaring``: the base languages of which
    the site's other pages declare a variant, :func:`declaring_languages`): where a site
    serves ``/pt-br/`` and ``/pt/``, the undeclared ``/pt/`` is the other variant.
    Declarations that disagree name no variant."""
    lang = _get(page, "lang") or "und"
    declared = declared_variants(page, claims)
    variant = _agreed(declared)
    if variant is None and not declared and base_lang(lang) not in declaring:
        variant = asked_variant(base_lang(lang), langs)
    elif variant is not None and variant not in langs:
        variant = asked_variant(variant, langs) or variant
    return requested_lang(variant or base_lang(lang), langs)


def link_lang(named: str | None, langs) -> str | None:
    """The language a link's own name for its target (``hreflang``, a switch anchor)
    means when pairing ``langs``, or None where it names a base language of which
    ``langs`` asks for a variant (``hreflang="zh"`` or "中文" when ``zh-tw`` is asked
    for: the target's URL or page must tell which variant)."""
    if not named:
        return None
    lang = requested_lang(named, langs)
    if lang not in langs and "-" not in named and any(
            base_lang(x) == named for x in langs):
        return None
    return lang
