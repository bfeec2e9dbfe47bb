"""A generated web of sites for site expansion [Zhang 2013 §2.3]: seeds, outside
bilingual sites, big monolingual hubs, and outside sites that cannot be checked.

Every site is a demo site (:func:`~bitextcrawl.demo.generator.generate_site`) on its own
``*.localhost`` name and port; links between sites are written into their pages' ``<main>``:

* **seeds** (bilingual) link each other from their home and about pages;
* **hubs** (monolingual): every page of every seed, and of every first-hop bilingual site,
  links ``hub_links`` pages of each hub — the boilerplate of real documentation sites (the
  project's home, standards bodies, code hosting): hundreds of links a seed. Half the hubs
  keep ``/en/`` in their URLs (one wanted language named, as on many monolingual sites);
* **first-hop bilingual** sites are linked from 1–2 seeds a few times, the evidence on the
  link drawn per site: ``parallel`` (a seed page pair links the site's page pair: the
  English page its English page, the French page its French one), ``anchors`` (an English
  seed page links the site's French home with anchor "Français" and ``hreflang="fr"``, a
  French one its English home with "English"), or ``plain`` (a link to the root from both
  pages of a pair, no evidence at all: ``plain_share`` of them);
* **second-hop bilingual** sites are linked (``parallel``) only from first-hop ones;
* **monolingual** sites are linked plainly from 1–3 seed pages;
* **unreachable** sites (a ``*.localhost`` name on a closed port: connection refused) and
  **robots-forbidden** ones (served, ``robots.txt`` ``Disallow: /``) are linked from every
  seed like the best bilingual sites (parallel links with ``/en/`` ``/fr/`` tokens): they
  rank high and cannot be checked.

``Web.bilingual`` is what expansion should add: the first- and second-hop bilingual sites
(the forbidden ones are bilingual but not crawlable, and count apart).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port

_SCHEMES = ("prefix", "suffix", "query", "subdomain")


@dataclass
class WebSpec:
    seeds: int = 2
    bilingual: int = 3          # first-hop bilingual sites (linked from seeds)
    second_hop: int = 1         # bilingual sites linked only from first-hop ones
    hubs: int = 2               # monolingual hubs in every seed page's boilerplate
    hub_links: int = 10         # links into each hub per page
    monolingual: int = 2        # monolingual sites linked plainly from a few seed pages
    unreachable: int = 1        # closed port
    forbidden: int = 1          # robots.txt Disallow: /
    plain_share: float = 0.0    # share of first-hop bilingual sites linked without evidence
    n_pairs: int = 6            # article pairs per generated site
    seed: int = 0


@dataclass
class Web:
    sites: dict = field(default_factory=dict)        # name -> generated site (served ones)
    roots: dict = field(default_factory=dict)        # name -> "http://name.localhost:port"
    kinds: dict = field(default_factory=dict)        # name -> seed, bilingual, second_hop,
    #                                                   hub, monolingual, unreachable, forbidden
    evidence: dict = field(default_factory=dict)     # first-hop name -> parallel|anchors|plain

    def names(self, *kinds) -> list[str]:
        return [n for n, k in self.kinds.items() if k in kinds]

    @property
    def bilingual(self) -> set[str]:
        """Sites (``scheme://host:port``) expansion should add."""
        return {self.roots[n] for n in self.names("bilingual", "second_hop")}

    @property
    def seeds(self) -> list[str]:
        return [self.home(n) for n in self.names("seed")]

    def home(self, name: str) -> str:
        """The site's start page (a ``subdomain`` site serves nothing on its bare host)."""
        site = self.sites.get(name)
        return site.start_url if site is not None else self.roots[name] + "/"


def _insert(site, url: str, html: str) -> None:
    res = site.resources[url]
    res.body = res.body.replace(b"</main>", f"{html}\n</main>".encode(), 1)


def _a(href: str, text: str, hreflang: str | None = None) -> str:
    attr = f' hreflang="{hreflang}"' if hreflang else ""
    return f'<a href="{href}"{attr}>{text}</a>'


def make_monolingual(site) -> None:
    """Drop every page not in the first language, the switches and the links to them."""
    import re

    keep = site.spec.langs[0]
    dropped = {u for u, lang in site.page_langs.items() if lang != keep}
    anchor = re.compile(r'<a href="([^"]+)"[^>]*>(.*?)</a>', re.S)
    for url in dropped:
        site.resources.pop(url, None)
        site.page_langs.pop(url, None)
    site.gold_pairs = []
    for url, res in site.resources.items():
        if site.page_langs.get(url) != keep:
            continue
        text = re.sub(r'<ul class="language-switch">.*?</ul>', "", res.body.decode(), flags=re.S)
        text = anchor.sub(lambda m: m.group(2) if m.group(1) in dropped else m.group(0), text)
        res.body = text.encode()


def forbid_all(site) -> None:
    """``robots.txt`` of every host of the site: ``Disallow: /``."""
    for url, res in site.resources.items():
        if url.endswith("/robots.txt"):
            res.body = b"User-agent: *\nDisallow: /\n"


def pages_of(site) -> list[str]:
    """The site's HTML pages a crawler can reach (and that we may write links into)."""
    hidden, forbidden = set(site.hidden_urls), set(site.robots_disallowed)
    return sorted(u for u in site.page_langs if u in site.resources
                  and u not in hidden and u not in forbidden)


def generate_web(spec: WebSpec, ports: bool = True) -> Web:
    """The web of the module docstring; ``ports``: free loopback ports (else 8000 + i)."""
    rng = random.Random(spec.seed)
    web = Web()
    plan = ([("seed", f"seed{i}") for i in range(spec.seeds)]
            + [("bilingual", f"bi{i}") for i in range(spec.bilingual)]
            + [("second_hop", f"hop{i}") for i in range(spec.second_hop)]
            + [("hub", f"hub{i}") for i in range(spec.hubs)]
            + [("monolingual", f"mono{i}") for i in range(spec.monolingual)]
            + [("forbidden", f"nobots{i}") for i in range(spec.forbidden)]
            + [("unreachable", f"down{i}") for i in range(spec.unreachable)])
    for i, (kind, name) in enumerate(plan):
        port = free_port() if ports else 8000 + i
        web.kinds[name] = kind
        web.roots[name] = f"http://{name}.localhost:{port}"
        if kind == "unreachable":
            continue  # nothing serves it: the port stays closed
        scheme = ("prefix" if i % 2 == 0 else "opaque") if kind == "hub" \
            else rng.choice(_SCHEMES)
        site = generate_site(SiteSpec(scheme=scheme, n_pairs=spec.n_pairs, third_lang=None,
                                      untranslated_fraction=0.1, host=f"{name}.localhost",
                                      seed=spec.seed * 1000 + i), port)
        if kind in ("hub", "monolingual"):
            make_monolingual(site)
        if kind == "forbidden":
            forbid_all(site)
        web.sites[name] = site

    seeds = web.names("seed")
    first = web.names("bilingual")
    # Seeds link each other (home and about pages, both languages).
    for name in seeds:
        site = web.sites[name]
        others = [web.home(o) for o in seeds if o != name]
        for url in pages_of(site):
            if site.page_kinds.get(url) in ("home", "about") and others:
                _insert(site, url, "<ul>" + "".join(
                    f"<li>{_a(h, f'Partner {k}')}</li>" for k, h in enumerate(others)) + "</ul>")
    # Boilerplate: hub links on every page of seeds and first-hop bilingual sites.
    for name in seeds + first:
        site = web.sites[name]
        for url in pages_of(site):
            items = []
            for hub in web.names("hub"):
                hub_pages = pages_of(web.sites[hub])
                start = rng.randrange(len(hub_pages))
                for k in range(spec.hub_links):
                    items.append(_a(hub_pages[(start + k) % len(hub_pages)], f"{hub} {k}"))
            _insert(site, url, '<footer class="hubs">' + " · ".join(items) + "</footer>")
    n_plain = round(spec.plain_share * len(first))
    kinds = ["plain"] * n_plain + [rng.choice(("parallel", "anchors"))
                                   for _ in range(len(first) - n_plain)]
    rng.shuffle(kinds)
    for name, how in zip(first, kinds):
        web.evidence[name] = how
        for src in rng.sample(seeds, rng.randint(1, min(2, len(seeds)))):
            _link(web, rng, src, name, how, rng.randint(1, 3))
    for name in web.names("second_hop"):
        for src in first:
            _link(web, rng, src, name, "parallel", rng.randint(1, 2))
    for name in web.names("monolingual"):
        for src in rng.sample(seeds, rng.randint(1, len(seeds))):
            site = web.sites[src]
            for url in rng.sample(pages_of(site), rng.randint(1, 3)):
                _insert(site, url, _a(web.home(name), f"See {name}"))
    for name in web.names("unreachable", "forbidden"):
        for src in seeds:
            _link(web, rng, src, name, "parallel", 2)
    return web


def _link(web: Web, rng: random.Random, source: str, target: str, how: str, n: int) -> None:
    """``n`` links from ``source``'s page pairs into ``target``, with the evidence ``how``."""
    site = web.sites[source]
    pairs = rng.sample(site.gold_pairs, min(n, len(site.gold_pairs)))
    tsite = web.sites.get(target)
    root = web.roots[target]
    if tsite is not None and tsite.gold_pairs:
        tpairs = tsite.gold_pairs
    else:  # an unreachable site: URLs of a prefix-scheme site
        tpairs = [(f"{root}/en/page-{k}.html", f"{root}/fr/page-{k}.html") for k in range(8)]
    for k, (u1, u2) in enumerate(pairs):
        t1, t2 = tpairs[k % len(tpairs)]
        if how == "parallel":
            _insert(site, u1, _a(t1, f"Read more on {target}"))
            _insert(site, u2, _a(t2, f"Lire la suite sur {target}"))
        elif how == "anchors":
            _insert(site, u1, _a(t2, "Français", "fr"))
            _insert(site, u2, _a(t1, "English", "en"))
        else:
            _insert(site, u1, _a(web.home(target), target))
            _insert(site, u2, _a(web.home(target), target))
