"""Is a site bilingual? Checked from a handful of its pages [Shi 2006 §3 step 1].

[Shi 2006] downloads a site's root page and the pages linked from it, and compares every
anchor text with predefined strings that announce a translation ("English", "中文", …;
after Nie et al. 1999): when trigger strings for *both* languages are found, the site is
bilingual. Here three kinds of evidence are gathered from those pages, each only from
links that stay on the same site (a list of links to *other* sites named "English",
"Deutsch", … is a language portal, not a switch):

* **switch anchors**: anchor texts that name a language
  (:func:`bitextcrawl.pages.switches.switch_language`, over the table
  :data:`bitextcrawl.pages.switches.LANGUAGE_SWITCH_NAMES`);
* **hreflang**: declared alternates (``<link rel=alternate hreflang>``, ``<a hreflang>``);
* **language mix**: the share of the pages identified in each requested language.

Decision (:func:`detect_bilingual`): the site is bilingual when every requested language
is *covered* — named by a switch anchor, declared by hreflang, or the language of at least
:data:`MIN_LANG_PAGES` page(s) making at least :data:`MIN_LANG_SHARE` of the pages — and
the coverage is corroborated by at least one switch anchor or hreflang naming a requested
language, or by at least :data:`MIN_PAGES_WITHOUT_LINKS` pages in every requested language
(one misidentified page alone does not make a site bilingual). [Shi 2006]'s own rule (switch
anchors for both languages) is the special case where switch anchors cover everything.

``score`` = mean of the three evidence fractions (share of requested languages covered by
switch anchors, by hreflang, by the language mix): 1.0 when all evidence agrees; it is for
ordering sites, the decision does not use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bitextcrawl.pages.language import normalise_tag
from bitextcrawl.pages.switches import switch_language
from bitextcrawl.pages.urls import site_of

MIN_LANG_SHARE = 0.1          # a language "has pages" from this share of the pages on
MIN_LANG_PAGES = 1            # ... and at least this many pages
MIN_PAGES_WITHOUT_LINKS = 2   # pages per language needed when no switch/hreflang corroborates

# --------------------------------------------------------------------------- detection

@dataclass
class Detection:
    bilingual: bool
    score: float
    evidence: dict = field(default_factory=dict)


def _site(url: str) -> str | None:
    try:
        return site_of(url)
    except ValueError:
        return None


def _get(page, name, default=None):
    if isinstance(page, Mapping):
        return page.get(name, default)
    return getattr(page, name, default)


def _scan_page(page, site: str | None, switch_anchors: dict[str, list[str]],
               other_switches: dict[str, int]) -> tuple[set[str], set[str]]:
    """The wanted languages (the keys of ``switch_anchors``) that one page's same-site
    switch anchors name, and those its hreflang declares; the anchors' texts (five per
    language) and its switches into other languages are added to the two tallies."""
    named_here: set[str] = set()
    declared_here: set[str] = set()
    for alt_lang, alt_url in (_get(page, "hreflang") or {}).items():
        tag = normalise_tag(alt_lang)
        if tag in switch_anchors and _site(alt_url or "") == site:
            declared_here.add(tag)
    for link in _get(page, "links") or ():
        url = link.get("url", "") if isinstance(link, Mapping) else link.url
        if not url or _site(url) != site:
            continue
        text = (link.get("text") if isinstance(link, Mapping) else link.text) or ""
        hl = normalise_tag(link.get("hreflang") if isinstance(link, Mapping) else link.hreflang)
        if hl in switch_anchors:
            declared_here.add(hl)
        named = switch_language(text)
        if named is None:
            continue
        if named in switch_anchors:
            named_here.add(named)
            if len(switch_anchors[named]) < 5 and text not in switch_anchors[named]:
                switch_anchors[named].append(text)
        else:
            other_switches[named] = other_switches.get(named, 0) + 1
    return named_here, declared_here


def detect_bilingual(pages: Iterable, langs: Iterable[str], site: str | None = None,
                     ) -> Detection:
    """Bilingual-site check over a few page records of one site ([Shi 2006 §3 step 1],
    with hreflang and language-mix evidence; thresholds in the module docstring)."""
    langs = [normalise_tag(lang) or lang for lang in langs]
    wanted = list(dict.fromkeys(langs))
    pages = list(pages)
    if site is None and pages:
        site = _site(_get(pages[0], "url") or "")
    lang_pages = dict.fromkeys(wanted, 0)
    switch_pages: dict[str, int] = dict.fromkeys(wanted, 0)
    switch_anchors: dict[str, list[str]] = {lang: [] for lang in wanted}
    hreflang_seen: dict[str, int] = dict.fromkeys(wanted, 0)
    other_switches: dict[str, int] = {}

    counted = 0
    for page in pages:
        lang = normalise_tag(_get(page, "lang")) or "und"   # (``pt-br``: ``pt``)
        if lang != "und":
            counted += 1
        if lang in lang_pages:
            lang_pages[lang] += 1
        named_here, declared_here = _scan_page(page, site, switch_anchors, other_switches)
        for lang_named in named_here:
            switch_pages[lang_named] += 1
        for tag in declared_here:
            hreflang_seen[tag] += 1

    total = max(counted, 1)
    share = {lang: lang_pages[lang] / total for lang in wanted}
    by_switch = {lang for lang in wanted if switch_pages[lang] > 0}
    by_hreflang = {lang for lang in wanted if hreflang_seen[lang] > 0}
    by_mix = {lang for lang in wanted
              if lang_pages[lang] >= MIN_LANG_PAGES and share[lang] >= MIN_LANG_SHARE}
    covered = by_switch | by_hreflang | by_mix
    corroborated = bool(by_switch or by_hreflang) or all(
        lang_pages[lang] >= MIN_PAGES_WITHOUT_LINKS for lang in wanted)
    bilingual = bool(wanted) and len(wanted) >= 2 and covered >= set(wanted) \
        and corroborated
    n = max(len(wanted), 1)
    fractions = {"switch": len(by_switch) / n, "hreflang": len(by_hreflang) / n,
                 "mix": len(by_mix) / n}
    score = round(sum(fractions.values()) / 3, 4)
    if not bilingual:
        reason = "missing: " + ",".join(lang for lang in wanted if lang not in covered) \
            if covered < set(wanted) else "uncorroborated"
    elif by_switch >= set(wanted):
        reason = "switch_anchors"
    elif by_hreflang >= set(wanted):
        reason = "hreflang"
    else:
        reason = "mixed"
    return Detection(bilingual, score, {
        "site": site,
        "pages": len(pages),
        "lang_pages": lang_pages,
        "lang_share": {k: round(v, 4) for k, v in share.items()},
        "switch_pages": switch_pages,
        "switch_anchors": switch_anchors,
        "other_switches": other_switches,
        "hreflang_pages": hreflang_seen,
        "fractions": fractions,
        "reason": reason,
    })


def detection_order(links: Iterable, langs: Iterable[str]) -> list:
    """A root page's links in the order to download them for the bilingual-site check
    [Shi 2006 §3 step 1]: switches to a requested language first (hreflang or anchor text),
    then links with no language evidence, links to other languages last; stable within each."""
    wanted = {normalise_tag(lang) or lang for lang in langs}

    def rank(link) -> int:
        text = (link.get("text") if isinstance(link, Mapping) else link.text) or ""
        hreflang = link.get("hreflang") if isinstance(link, Mapping) else link.hreflang
        named = normalise_tag(hreflang) or switch_language(text)
        if named is None:
            return 1
        return 0 if named in wanted else 2

    return sorted(links, key=rank)
