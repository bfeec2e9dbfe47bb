#!/usr/bin/env python3
"""Make the opaque variant of the WET en/fr site (shared/data/wet): every French page moved to
/p/<hash>.html, every link to it rewritten, and nothing left that says which pages translate
each other; one plain link on /index-en.html leads into the French side.

French pages: ``*-fr.html`` and any page whose ``<html lang>`` is French. In every page,
``href``, ``action`` and ``src`` values inside the site become absolute paths (moved pages'
paths rewritten, query and fragment kept), and ``data-*`` values that name a moved page (the
AJAX includes) are rewritten too. Removed: the language toggle (``<section id="wb-lng">``)
on a moved page or leading to one, ``<link rel="alternate" hreflang>`` to or from a moved
page, the ``hreflang`` attribute of in-page links to or from a moved page (the page record
reads it as a declared alternate), and a moved page's ``<link rel="canonical">`` (it names
the French file). ``OUT/gold.tsv`` is the gold (``path1<TAB>path2`` relative to the site
root, like ``wet-gold.tsv``) with the French paths rewritten.

This is the WET counterpart of the data's own ``nginx/make_opaque.py`` and
``tldr/make_opaque.py``: the case where neither URLs nor switches pair anything.
Standard library only.

usage: make_wet_opaque.py SITE GOLD OUT   e.g. make_wet_opaque.py wet wet-gold.tsv OUT
       (writes OUT/site and OUT/gold.tsv)
"""
import hashlib
import os
import re
import shutil
import sys
from urllib.parse import urljoin, urlsplit, urlunsplit

HOST = "http://wet.invalid"
URL_ATTR = re.compile(r'(?<![\w-])(href|action|src)="([^"]*)"')
DATA_ATTR = re.compile(r'(?<![\w-])(data-[a-z-]+)="([^"]*)"')
HTML_LANG = re.compile(r'<html\b[^>]*?\blang="([^"]*)"', re.I)
TOGGLE = re.compile(r'<section id="wb-lng"[^>]*>.*?</section>\n?', re.S)
ALTERNATE = re.compile(r'<link rel="alternate" hreflang="[^"]*" href="([^"]*)">\n?')
CANONICAL = re.compile(r'<link rel="canonical" href="[^"]*">\n?')
ANCHOR = re.compile(r'<a\b[^>]*\bhreflang="[^"]*"[^>]*>')
ANCHOR_HREF = re.compile(r'\bhref="([^"]*)"')
HREFLANG_ATTR = re.compile(r'\s+hreflang="[^"]*"')
BODY = re.compile(r"(<body[^>]*>)")
ENTRY = "/index-en.html"     # the crawl's start: its one plain link into the French side
FRENCH_HOME = "/index-fr.html"


def opaque(path):  # '/demos/x-fr.html' -> '/p/<hash>.html'
    return "/p/%s.html" % hashlib.sha1(path.encode()).hexdigest()[:12]


def is_french(path, html):
    if path.endswith("-fr.html"):
        return True
    m = HTML_LANG.search(html)
    return bool(m) and m.group(1).lower().split("-")[0] == "fr"


def resolve(value, base):
    """(path, query, fragment) of a link inside the site, None for another site or a scheme."""
    if not value or value.startswith("#"):
        return None
    url = urlsplit(urljoin(HOST + base, value))
    if "%s://%s" % (url.scheme, url.netloc) != HOST:
        return None
    return url.path or "/", url.query, url.fragment


def main():
    site, gold, out = sys.argv[1:4]
    dst = os.path.join(out, "site")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    files = {}   # '/demos/x-en.html' -> file on disk
    for d, dirs, names in os.walk(site):
        dirs.sort()
        for f in sorted(names):
            files["/" + os.path.relpath(os.path.join(d, f), site).replace(os.sep, "/")] = \
                os.path.join(d, f)
    pages = {u: open(p, encoding="utf-8").read() for u, p in files.items() if u.endswith(".html")}
    moved = {u for u, html in pages.items() if is_french(u, html)}

    def leads_in(value, base):  # does this link lead to a moved page?
        r = resolve(value, base)
        return r is not None and r[0] in moved

    for u, src in files.items():
        target = opaque(u) if u in moved else u
        path = os.path.join(dst, target.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if u not in pages:
            shutil.copy(src, path)
            continue
        page = pages[u]
        if u in moved:   # nothing on a moved page says which pages are its translations
            page = CANONICAL.sub("", TOGGLE.sub("", ALTERNATE.sub("", page)))

            def unmark(m, u=u):
                href = ANCHOR_HREF.search(m.group(0))
                keep = href is None or resolve(href.group(1), u) is None   # another site's
                return m.group(0) if keep else HREFLANG_ATTR.sub("", m.group(0))
        else:
            page = ALTERNATE.sub(lambda m, u=u: "" if leads_in(m.group(1), u) else m.group(0), page)
            page = TOGGLE.sub(lambda m, u=u: "" if any(leads_in(h, u) for h in
                                                      ANCHOR_HREF.findall(m.group(0)))
                              else m.group(0), page)

            def unmark(m, u=u):
                href = ANCHOR_HREF.search(m.group(0))
                lead = href is not None and leads_in(href.group(1), u)
                return HREFLANG_ATTR.sub("", m.group(0)) if lead else m.group(0)
        page = ANCHOR.sub(unmark, page)

        def rewrite(m, u=u):
            attr, value = m.group(1), m.group(2)
            r = resolve(value, u)
            if r is None:
                return m.group(0)
            p, query, fragment = r
            return '%s="%s"' % (attr, urlunsplit(("", "", opaque(p) if p in moved else p,
                                                 query, fragment)))

        def rewrite_data(m, u=u):  # AJAX includes: only the words naming a moved page
            words = []
            for w in m.group(2).split(" "):
                r = resolve(w, u)
                if r is not None and r[0] in moved:
                    w = urlunsplit(("", "", opaque(r[0]), r[1], r[2]))
                words.append(w)
            return '%s="%s"' % (m.group(1), " ".join(words))
        page = DATA_ATTR.sub(rewrite_data, URL_ATTR.sub(rewrite, page))
        if u == ENTRY:
            page = BODY.sub(r'\1<p><a href="%s">Version française</a></p>' % opaque(FRENCH_HOME),
                            page, count=1)
        open(path, "w", encoding="utf-8", newline="").write(page)
    with open(os.path.join(out, "gold.tsv"), "w", encoding="utf-8", newline="\n") as g:
        for line in open(gold, encoding="utf-8"):
            if not line.strip():
                continue
            paths = ["/" + p.lstrip("/") for p in line.rstrip("\n").split("\t")]
            g.write("\t".join((opaque(p) if p in moved else p).lstrip("/") for p in paths) + "\n")


if __name__ == "__main__":
    main()
