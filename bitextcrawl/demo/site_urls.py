"""The URLs of a generated site's pages under each URL scheme (``SiteSpec.scheme``: prefix,
subdomain, suffix, query, opaque, mixed), and the unique object ids and slugs they use."""

from __future__ import annotations

from bitextcrawl.demo.lexicon import _LANG_COL
from bitextcrawl.demo.site_model import (
    _Article,
    _Section,
)

# The home and about pages' paths per URL scheme (the opaque scheme: node ids).
_HOME_PATHS = {"prefix": "/{lang}/", "subdomain": "/", "suffix": "/index_{lang}.html",
               "query": "/index.php?lang={lang}"}
_ABOUT_PATHS = {"prefix": "/{lang}/about.html", "subdomain": "/about.html",
                "suffix": "/about_{lang}.html", "query": "/about.php?lang={lang}"}


class _Urls:
    """The URL scheme's addresses of a site's pages (a part of the generator's builder)."""

    def base(self, lang: str) -> str:
        if self.spec.scheme == "subdomain":
            return f"http://{lang}.{self.host}:{self.port}"
        return f"http://{self.host}:{self.port}"

    def oid(self) -> int:
        while True:
            n = self.rng.randrange(10 ** 6, 10 ** 7)
            if n not in self._oids:
                self._oids.add(n)
                return n

    def unique_slug(self, slug: str) -> str:
        candidate, n = slug, 1
        while candidate in self._slugs_seen:
            n += 1
            candidate = f"{slug}-{n}"
        self._slugs_seen[candidate] = 1
        return candidate

    def site_scheme(self) -> str:
        """The scheme of pages outside sections (home, about)."""
        s = self.spec.scheme
        return "prefix" if s == "mixed" else s

    def home_url(self, lang: str) -> str:
        return self._site_page_url(lang, _HOME_PATHS, opaque_root=True)

    def about_url(self, lang: str) -> str:
        return self._site_page_url(lang, _ABOUT_PATHS, opaque_root=False)

    def _site_page_url(self, lang: str, paths: dict[str, str], opaque_root: bool) -> str:
        """A page outside sections under the site's scheme (``paths``: scheme -> path); an
        opaque site gives it a node id (its langs[0] home page: the root)."""
        s, b = self.site_scheme(), self.base(lang)
        if s in paths:
            return b + paths[s].format(lang=lang)
        return f"{b}/" if opaque_root and lang == self.l1 else f"{b}/node/{self.oid()}.html"

    def index_url(self, lang: str, sec: _Section, page: int) -> str:
        b, slug = self.base(lang), sec.slug[0]
        s = sec.scheme
        if s in ("prefix", "subdomain", "slug"):
            root = {"prefix": f"/{lang}/{slug}/", "subdomain": f"/{slug}/",
                    "slug": f"/{lang}/{sec.slug[_LANG_COL[lang]]}/"}[s]
            return b + root + ("" if page == 1 else f"page/{page}/")
        if s == "suffix":
            return f"{b}/{slug}/index{'' if page == 1 else page}_{lang}.html"
        if s == "query":
            return f"{b}/section.php?s={slug}" + ("" if page == 1 else f"&p={page}") + \
                f"&lang={lang}"
        return f"{b}/node/{self.oid()}.html"

    def article_url(self, lang: str, art: _Article) -> str:
        b, sec = self.base(lang), art.section
        s = sec.scheme
        shared = art.slugs.get(self.l1) or next(iter(art.slugs.values()))
        if s == "prefix":
            return f"{b}/{lang}/{sec.slug[0]}/{shared}.html"
        if s == "subdomain":
            return f"{b}/{sec.slug[0]}/{shared}.html"
        if s == "suffix":
            return f"{b}/{sec.slug[0]}/{shared}_{lang}.html"
        if s == "query":
            return f"{b}/page.php?id={art.nid}&lang={lang}"
        if s == "slug":
            return f"{b}/{lang}/{sec.slug[_LANG_COL[lang]]}/{art.nid}-{art.slugs[lang]}"
        return f"{b}/node/{self.oid()}.html"
