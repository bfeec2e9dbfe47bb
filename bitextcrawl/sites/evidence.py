"""Evidence that an outside site is bilingual, read off the links into it before any
download (an addition to [Zhang 2013 §2.3], which ranks by the linking sites alone).

[Zhang 2013 §2.3] scores an outside site s by sums over R(s), the seed sites linking to it, and
nothing about the links themselves. On real sites the seeds' boilerplate (the project's own
home, standards bodies, code hosting) links the same few big monolingual sites from every
page and from every seed, so all three sums put those first. The links say more than that:

* **language named** — the target URL carries a URL token of a wanted language (``/fr/``,
  ``lang=fr``, ``-fr.html``, ``fr.x.org``), or the link's ``hreflang`` or anchor text names
  a wanted language (:func:`~bitextcrawl.pages.switches.link_named_language`);
* **parallel links** — the two pages of a seed page pair link s with different URLs that
  name different wanted languages (the English page links ``x.org/en/a``, its French
  counterpart ``x.org/fr/a``): the seed's translator swapped the link for its translation.
  Boilerplate links the same URL from both; links that merely differ (a "related pages"
  box, different on every page) name no language, or the same one, and do not count. So
  a site with opaque URLs is not proven this way (its anchors or hreflang may prove it).

Per (seed w, target s), :class:`LinkEvidence` keeps the distinct source pages n(w, s), the
wanted languages named, and the parallel page pairs. Two numbers come out of them:

* the **evidence level** E(s) (:func:`evidence_level`), pooled over the set's links into s:
  2 when they name two wanted languages or a seed page pair links s in parallel (the site
  has pages of both languages), 1 when they name one wanted language (the site marks
  languages in its URLs: a translation may exist), else 0;
* the **volume** g(n) = 1 − ½ⁿ of w's n distinct source pages (diminishing returns): a
  noisy-OR in which each page linking s is an independent ½ chance that w means the link.
  1 page: 0.5, 3 pages: 0.875, 1,000 pages of boilerplate: 1.0 — thousands count like a few.

:func:`~bitextcrawl.sites.graph.SiteGraph.rank_outside_sites` combines them with the
paper's WeightedPageRank (WPR):

    ΣLinkEvidence(s) = E(s) + Σ_{w ∈ R(s)} WPR(w) · g(n(w, s)) / Σ_{w ∈ set} WPR(w)

The fraction lies in [0, 1): the level decides first, and within a level the paper's
ΣWeightedPageRank, each seed's share damped by g, orders the sites. No weight trades
evidence against link mass: a level is a fact about the links, not a score to tune.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bitextcrawl.pages.language import LANG_ALIASES, normalise_tag
from bitextcrawl.pages.switches import link_named_language
from bitextcrawl.pages.urls import site_of, url_language_tokens

# E(s) levels. Two languages named (or a parallel link) shows both sides exist. One
# language named shows only that the site marks languages in its URLs or links.
BOTH_LANGUAGES = 2
ONE_LANGUAGE = 1
# g(n) = 1 − (1 − P_PAGE)ⁿ: each source page is read as an independent chance P_PAGE that the
# link is meant (content) rather than template; ½ says "no idea which" for one page alone.
P_PAGE = 0.5


@dataclass
class LinkEvidence:
    """What the links of one seed site w into one outside site s show (module docstring)."""

    pages: int = 0                      # n(w, s): distinct pages of w linking s
    links: int = 0                      # links (one per page and target URL)
    langs: set = field(default_factory=set)   # wanted languages the links name
    parallel: int = 0                   # page pairs of w linking s with different URLs

    @property
    def volume(self) -> float:
        """g(n) = 1 − ½ⁿ: diminishing returns of many source pages."""
        return 1.0 - (1.0 - P_PAGE) ** self.pages

    def to_dict(self) -> dict:
        return {"pages": self.pages, "links": self.links, "langs": sorted(self.langs),
                "parallel": self.parallel}


def merge_evidence(a: LinkEvidence, b: LinkEvidence) -> LinkEvidence:
    """The evidence of links into one site under two schemes (http and https): counted
    together (a page linking both counts twice: rare)."""
    return LinkEvidence(pages=a.pages + b.pages, links=a.links + b.links,
                        langs=set(a.langs) | set(b.langs), parallel=a.parallel + b.parallel)


def evidence_level(langs: Iterable[str], parallel: int) -> int:
    """E(s) ∈ {0, 1, 2} from the wanted languages the set's links into s name and the
    parallel page pairs linking it (module docstring)."""
    n = len(set(langs))
    if parallel > 0 or n >= 2:
        return BOTH_LANGUAGES
    return ONE_LANGUAGE if n else 0


def _get(obj, name, default=None):
    return obj.get(name, default) if isinstance(obj, Mapping) else getattr(obj, name, default)


def url_languages(url: str, wanted: Iterable[str]) -> set[str]:
    """Wanted languages a URL's tokens name (``/fr/``, ``lang=fr``, ``-fra.html``, ``fr.``),
    through the codes and aliases of :data:`~bitextcrawl.pages.language.LANG_ALIASES`."""
    wanted = set(wanted)
    out = set()
    for token in url_language_tokens(url):
        lang = token if token in wanted else LANG_ALIASES.get(token)
        if lang in wanted:
            out.add(lang)
    return out


def _safe_site(url: str) -> str | None:
    if not url.startswith(("http://", "https://")):
        return None
    try:
        return site_of(url)
    except ValueError:
        return None


def link_evidence(pages: Iterable, langs: Iterable[str],
                  pairs: Iterable[tuple[str, str]] = ()) -> dict[str, dict[str, LinkEvidence]]:
    """Per source site, per outside site it links: the :class:`LinkEvidence` of its links.

    ``pages``: page records (or dicts) with ``url`` and ``links`` (``url``, ``text``,
    ``hreflang``); ``pairs``: the source sites' page pairs ``(url_1, url_2)`` (its
    ``pairs.jsonl``), for parallel links."""
    wanted = [normalise_tag(lang) or lang for lang in langs]
    out: dict[str, dict[str, LinkEvidence]] = {}
    targets_of: dict[str, dict[str, set[str]]] = {}   # page URL -> target site -> URLs
    for page in pages:
        url = _get(page, "url")
        source = _safe_site(url or "")
        if source is None:
            continue
        by_target = out.setdefault(source, {})
        linked: dict[str, set[str]] = {}
        for link in _get(page, "links") or ():
            target_url = _get(link, "url") or ""
            target = _safe_site(target_url)
            if target is None or target == source:
                continue
            urls = linked.setdefault(target, set())
            if target_url in urls:
                continue
            urls.add(target_url)
            ev = by_target.setdefault(target, LinkEvidence())
            ev.links += 1
            named = normalise_tag(link_named_language(
                link if isinstance(link, Mapping) else {"text": _get(link, "text"),
                                                         "hreflang": _get(link, "hreflang")}))
            if named in wanted:
                ev.langs.add(named)
            ev.langs |= url_languages(target_url, wanted)
        for target in linked:
            by_target[target].pages += 1
        targets_of[url] = linked
    for u1, u2 in pairs:
        t1, t2 = targets_of.get(u1), targets_of.get(u2)
        if not t1 or not t2:
            continue
        source = _safe_site(u1)
        for target in t1.keys() & t2.keys():
            named1 = {frozenset(url_languages(u, wanted)) for u in t1[target] - t2[target]}
            named2 = {frozenset(url_languages(u, wanted)) for u in t2[target] - t1[target]}
            if any(a and b and a != b for a in named1 for b in named2):
                out[source][target].parallel += 1
    return out


def switch_pairs(pages: Iterable, langs: Iterable[str]) -> list[tuple[str, str]]:
    """Page pairs from the pages' own language switches (a page of one wanted language
    linking, inside its site, a page the switch names as another stored wanted language):
    the pairs to use where no ``pairs.jsonl`` was written."""
    wanted = {normalise_tag(lang) or lang for lang in langs}
    pages = list(pages)
    lang_of = {_get(p, "url"): _get(p, "lang") for p in pages}
    out = set()
    for page in pages:
        url, lang = _get(page, "url"), _get(page, "lang")
        if lang not in wanted:
            continue
        for link in _get(page, "links") or ():
            target = _get(link, "url")
            other = lang_of.get(target)
            named = normalise_tag(link_named_language(link)) if isinstance(link, Mapping) \
                else None
            if other in wanted and other != lang and named == other:
                out.add(tuple(sorted((url, target))))
    return sorted(out)
