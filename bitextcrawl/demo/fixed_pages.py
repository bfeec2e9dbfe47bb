"""The pages of a generated site beside its articles and indexes: the home and about pages,
the ``/private/`` area ``robots.txt`` forbids, the server's own files (``robots.txt``,
redirects) and the bad resources (``BAD_RESOURCES``)."""

from __future__ import annotations

import random
from urllib.parse import urlsplit

from bitextcrawl.demo.lexicon import _LANG_COL, _PLACES
from bitextcrawl.demo.phrases import (
    _CUM_WEIGHTS,
    _href,
    _Pool,
    _sentence,
    _t,
)
from bitextcrawl.demo.site_model import (
    _HTML_UTF8,
    BAD_RESOURCES,
    Resource,
    _trap_page,
)


class _FixedPages:
    """Rendering of the home, about and private pages, the server files and the bad resources
    (a part of the generator's builder)."""

    def render_homes(self) -> None:
        pool = _Pool(self.rng, self.place)
        extra = [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]) for _ in range(2)]
        sents = {}
        for lang in self.langs:
            intro = [self.ui(lang, "welcome"), self.ui(lang, "home_more")]
            body = [s.render(lang) for s in extra]
            main = [f"<h1>{_t(self.ui(lang, 'site'))}</h1>\n<p>{_t(' '.join(intro))}</p>\n"
                    f"<p>{_t(' '.join(body))}</p>\n"]
            sents[lang] = [intro, body]
            if lang == self.l3:
                listed = self.third
                switch = [(self.l1, self.homes[self.l1]), (self.l2, self.homes[self.l2])]
            else:
                listed = self.latest[lang]
                other = self.l2 if lang == self.l1 else self.l1
                # Home pages always link the other homes, so the site stays connected
                # when pages carry no language switch.
                switch = [(other, self.homes[other])]
                if self.l3:
                    switch.append((self.l3, self.homes[self.l3]))
            lis = "".join(f'<li><a href="{_href(a.urls[lang])}">{_t(a.titles[lang])}</a></li>'
                          for a in listed)
            main.append(f'<section class="latest"><h2>{_t(self.ui(lang, "latest"))}</h2>'
                        f"<ul>{lis}</ul></section>\n")
            if lang != self.l3:
                secs = "".join(f'<li><a href="{_href(s.pages[lang][0])}">'
                               f"{_t(s.label[_LANG_COL[lang]])}</a></li>" for s in self.sections)
                main.append(f'<section class="sections"><h2>{_t(self.ui(lang, "sections"))}</h2>'
                            f"<ul>{secs}</ul></section>\n")
            if lang == self.l1:
                main.append(self.home_extras(lang))
            alternates = None
            if self.spec.hreflang_alternates:
                alternates = dict(self.homes)
            self.emit(self.homes[lang], lang, "home",
                      self.page(lang, self.ui(lang, "home"), "".join(main), switch=switch,
                                alternates=alternates, sections_nav=lang != self.l3))
        self.pair_gold(self.homes[self.l1], self.homes[self.l2], sents[self.l1], sents[self.l2])

    def home_extras(self, lang: str) -> str:
        """Links only the langs[0] home page has: the staff area and bad resources."""
        items = [f'<li><a href="{_href(self.private[0])}">{_t(self.ui(lang, "staff"))}</a></li>']
        if self.spec.bad_pages:
            b = self.base(self.l1)
            for key, path in BAD_RESOURCES.items():
                if key != "redirect_loop_b":
                    items.append(f'<li><a href="{_href(b + path)}">{key.replace("_", " ")}</a></li>')
        return (f'<aside class="archives"><h2>{_t(self.ui(lang, "archives"))}</h2>'
                f'<ul>{"".join(items)}</ul></aside>\n')

    def render_about(self) -> None:
        pool = _Pool(self.rng, self.place)
        extra = [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]) for _ in range(3)]
        sents = {}
        for lang in (self.l1, self.l2):
            other = self.l2 if lang == self.l1 else self.l1
            paras = [[self.ui(lang, "about_intro"), self.ui(lang, "about_team")],
                     [s.render(lang) for s in extra],
                     [self.ui(lang, "contact_line", T=self.phone, E=self.email)]]
            ids = ("", ' id="press"', ' id="legal"')
            main = f"<h1>{_t(self.ui(lang, 'about'))}</h1>\n" + "".join(
                f'<p{ids[i]}>{_t(" ".join(p))}</p>\n' for i, p in enumerate(paras))
            sents[lang] = paras
            alternates = dict(self.abouts) if self.spec.hreflang_alternates else None
            self.emit(self.abouts[lang], lang, "about", self.page(
                lang, self.ui(lang, "about"), main,
                switch=self.switch_for(lang, self.abouts[other]), alternates=alternates))
        self.pair_gold(self.abouts[self.l1], self.abouts[self.l2], sents[self.l1], sents[self.l2])

    def render_private(self) -> None:
        lang = self.l1
        pool = _Pool(self.rng, self.place)
        body = [self.ui(lang, "private"), self.ui(lang, "private_more")]
        body += [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]).render(lang) for _ in range(2)]
        first, second = self.private
        main = (f"<h1>{_t(self.ui(lang, 'staff'))}</h1>\n<p>{_t(' '.join(body))}</p>\n"
                f'<ul><li><a href="{_href(second)}">{_t(self.ui(lang, "staff"))} 2</a></li></ul>\n')
        self.emit(first, lang, "private", self.page(lang, self.ui(lang, "staff"), main))
        main2 = f"<h1>{_t(self.ui(lang, 'staff'))} 2</h1>\n<p>{_t(' '.join(reversed(body)))}</p>\n"
        self.emit(second, lang, "private", self.page(lang, self.ui(lang, "staff"), main2))

    def render_server_files(self) -> None:
        """robots.txt on every host, and "/" redirecting to the home page where it is none."""
        hosts = sorted({urlsplit(u).netloc for u in self.out.page_langs})
        robots = b"User-agent: *\nDisallow: /private/\n"
        for h in hosts:
            self.out.resources[f"http://{h}/robots.txt"] = Resource(
                200, {"Content-Type": "text/plain; charset=utf-8"}, robots)
            root = f"http://{h}/"
            if root not in self.out.resources:
                target = next((u for u in self.homes.values() if urlsplit(u).netloc == h),
                              self.homes[self.l1])
                self.out.resources[root] = Resource(302, {"Location": target,
                                                          **_HTML_UTF8}, b"")
        self.hosts = hosts

    def render_bad(self) -> dict[str, str]:
        b = self.base(self.l1)
        urls = {k: b + p for k, p in BAD_RESOURCES.items()}
        rng = random.Random(self.spec.seed * 7919 + 17)
        res = self.out.resources

        raw = bytearray(rng.randbytes(30000))
        for i in range(0, len(raw), 97):  # make sure it holds NULs, as binary files do
            raw[i] = 0
        res[urls["binary"]] = Resource(200, dict(_HTML_UTF8), bytes(raw))

        pool = _Pool(rng, self.place)
        french = " ".join(_sentence(rng, pool, _CUM_WEIGHTS[False, True]).render("fr") for _ in range(8))
        french += " Les élèves ont découvert l'église et le château à Noël ; où était-ce déjà ?"
        latin1 = (f'<!DOCTYPE html><html lang="fr"><head><title>Ancien article</title></head>'
                  f"<body><main><h1>Été à {_PLACES[self.place][1]}</h1><p>{_t(french)}</p>"
                  f"</main></body></html>")
        res[urls["latin1_as_utf8"]] = Resource(200, dict(_HTML_UTF8),
                                               latin1.encode("latin-1", "replace"))
        cp = (f"<html><head><title>Communiqué</title></head><body><main><h1>Communiqué de "
              f"presse</h1><p>L’œuvre coûte 45 € ; c’est « une réussite ». {_t(french)}</p>"
              f"</main></body></html>")
        res[urls["cp1252_undeclared"]] = Resource(200, {"Content-Type": "text/html"},
                                                  cp.encode("cp1252", "replace"))

        page = res[self.pairs[0].urls[self.l1]].body
        cut = page.find(b"<a href", len(page) // 2)
        res[urls["truncated"]] = Resource(200, dict(_HTML_UTF8),
                                          page[:cut + 5] if cut > 0 else page[:len(page) // 2])

        chunk = b"".join(f"<p>{_t(_sentence(rng, pool, _CUM_WEIGHTS[False, True]).render(self.l1))}"
                         f"</p>\n".encode() for _ in range(40))
        reps = 6_300_000 // len(chunk) + 1
        huge = b"<!DOCTYPE html><html><head><title>Archive</title></head><body><main>\n" + \
            chunk * reps + b"</main></body></html>\n"
        res[urls["huge"]] = Resource(200, dict(_HTML_UTF8), huge)

        res[urls["redirect_loop"]] = Resource(302, {"Location": urls["redirect_loop_b"],
                                                    **_HTML_UTF8}, b"")
        res[urls["redirect_loop_b"]] = Resource(302, {"Location": urls["redirect_loop"],
                                                      **_HTML_UTF8}, b"")
        res[urls["server_error"]] = Resource(
            500, dict(_HTML_UTF8), b"<html><body><h1>500 Internal Server Error</h1></body></html>")
        res[urls["empty"]] = Resource(200, dict(_HTML_UTF8), b"")
        res[urls["trap"]] = _trap_page(b, "/cal/")
        # "not_found" is deliberately absent: lookup() answers None, the server 404.
        return urls
