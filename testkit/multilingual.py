"""A multilingual documentation site served the way real ones are (Apache-manual style).

``generate_manual(ManualSpec(...), port)`` builds, in memory and deterministically per seed,
a server manual in up to twelve languages (``multilingual_text.LANGS`` by default, Hindi and
Bengali on request, ``multilingual_text.EXTRA_LANGS``): one module page per module plus a
module index, under ``/manual/<lang>/<page>.html``. Every page is written in English; each
other language translates only a share of the pages (``ManualSpec.shares``), sentence by
sentence (``multilingual_text.SENTENCES``), while the module index is translated
everywhere; it describes a module in its page's language (English where the page has no
translation). It reproduces three mechanisms of real multilingual manuals:

Fallback copies (content negotiation)
    Where a page has no translation into a language, the server answers that language's URL
    with the English page, byte for byte (as Apache's MultiViews with ``LanguagePriority en``
    does). The language's module index still links to it. Such a URL is in
    ``fallback_urls``; its ``page_langs`` entry is ``en``; it is never in the gold.

    With ``ManualSpec.fallback="notice"`` the copy is a static site generator's instead:
    the English title and content inside that language's template, under a notice in that
    language, so that no two copies have the same bytes.

Relative language switches that redirect
    Every page starts and ends with an "Available Languages" bar listing the languages the
    page really exists in, written as relative links ``./fr/mod_foo.html`` with ``hreflang``
    (an include written for the language-neutral directory ``/manual/``). From
    ``/manual/en/mod_foo.html`` they resolve to ``/manual/en/fr/mod_foo.html``, which the
    server answers with a **301** to the canonical ``/manual/fr/mod_foo.html`` (a rewrite rule
    ``/manual/<any>/<lang>/<page>`` -> ``/manual/<lang>/<page>``). ``/``, ``/manual/`` and
    ``/manual/<lang>/`` redirect to the English (or that language's) index.

Relative links everywhere
    Page bodies link only relatively (``mod_bar.html``, ``#directive``), so a fallback copy
    served from ``/manual/ja/`` links into ``/manual/ja/`` like a real one.

Gold: ``gold_pairs[lang]`` lists, per non-English language, ``(English URL, lang URL)`` for
the index and for every page really translated into ``lang``. ``write_gold(path, lang)``
writes the ``scrapy evaluate`` format. ``lookup(host, path)`` is what the loopback server
(``demo/server.py``: ``serve_site``) answers; ``resources`` holds the canonical pages.

Nothing here tells a crawler which URL is a fallback: the bodies, headers and links are what
a real server would send.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass, field

from bitextcrawl.demo.generator import Resource
from testkit.multilingual_text import (
    ALL_LANGS,
    DESCRIPTIONS,
    LANG_NAMES,
    LANGS,
    NO_SPACE,
    SENTENCES,
    UI,
)

__all__ = ["ALL_LANGS", "DEFAULT_SHARES", "LANGS", "ManualSpec", "MultilingualSite",
           "generate_manual"]

# Share of the module pages translated into each language (the index is always translated).
DEFAULT_SHARES = {"fr": 0.8, "de": 0.7, "es": 0.6, "zh": 0.5, "ru": 0.5, "it": 0.45,
                  "ko": 0.4, "pt": 0.35, "ja": 0.3, "hi": 0.4, "bn": 0.35}

_HTML_HEADERS = {"Content-Type": "text/html; charset=utf-8"}
_SWITCH_RE = re.compile(r"^/manual/([a-z]{2}(?:-[a-z]{2})?)/([a-z]{2})/([\w.-]+\.html)$")
_LANG_DIR_RE = re.compile(r"^/manual/([a-z]{2})/?$")


@dataclass
class ManualSpec:
    n_pages: int = 70                  # module pages in English (the index comes on top)
    langs: tuple = LANGS               # "en" first, then any of ALL_LANGS; each translates a share
    shares: dict = field(default_factory=lambda: dict(DEFAULT_SHARES))
    outdated_fraction: float = 0.2     # translations carrying an "out of date" notice
    fallback: str = "bytes"            # an untranslated page's copy: "bytes" or "notice"
    host: str = "docs.localhost"
    seed: int = 0


@dataclass(repr=False, eq=False)
class MultilingualSite:
    spec: ManualSpec
    port: int
    resources: dict[str, Resource]           # canonical page URL -> resource (fallbacks too)
    start_url: str                           # the English module index
    page_langs: dict[str, str]               # every served page URL -> language of its text
    fallback_urls: set[str]                  # URLs served with the English page's bytes
    translated: dict[str, set[str]]          # lang -> page names really translated
    gold_pairs: dict[str, list[tuple[str, str]]]  # lang -> [(English URL, lang URL)]
    pages: list[str] = field(default_factory=list)  # page names, index first

    @property
    def root(self) -> str:
        return f"http://{self.spec.host}:{self.port}"

    def url(self, lang: str, page: str) -> str:
        return f"{self.root}/manual/{lang}/{page}"

    def lookup(self, host_header: str, path_and_query: str) -> Resource | None:
        """The answer to ``GET path`` with this Host header; None means 404."""
        host = (host_header or "").strip().lower().split(":")[0] or self.spec.host
        if host != self.spec.host:
            return None
        path = (path_and_query or "/").split("#", 1)[0].split("?", 1)[0] or "/"
        res = self.resources.get(f"{self.root}{path}")
        if res is not None:
            return res
        m = _SWITCH_RE.match(path)
        if m and f"{self.root}/manual/{m.group(2)}/{m.group(3)}" in self.resources:
            return _redirect(self.url(m.group(2), m.group(3)))
        if path in ("/", "/manual", "/manual/"):
            return _redirect(self.start_url)
        m = _LANG_DIR_RE.match(path)
        if m and m.group(1) in self.spec.langs:
            return _redirect(self.url(m.group(1), "index.html"))
        return None

    def write_gold(self, path, lang: str) -> None:
        """``url_1<TAB>url_2`` lines for en-``lang`` (the format of ``scrapy evaluate``)."""
        with open(path, "w", encoding="utf-8") as f:
            for u1, u2 in self.gold_pairs[lang]:
                f.write(f"{u1}\t{u2}\n")

    def __repr__(self) -> str:
        return (f"MultilingualSite(start_url={self.start_url!r}, {len(self.pages)} pages x "
                f"{len(self.spec.langs)} languages, {len(self.fallback_urls)} fallbacks)")


def _redirect(location: str) -> Resource:
    body = (f'<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n'
            f"<title>301 Moved Permanently</title>\n</head><body>\n<h1>Moved Permanently</h1>\n"
            f'<p>The document has moved <a href="{location}">here</a>.</p>\n'
            f"</body></html>\n").encode()
    return Resource(301, {"Location": location, "Content-Type": "text/html; charset=iso-8859-1"},
                    body)


# ---------------------------------------------------------------------------------------
# Names: language-independent tokens of the manual
# ---------------------------------------------------------------------------------------

_MODULE_WORDS = (
    "access", "actions", "alias", "asis", "auth", "autoindex", "balancer", "basic", "buffer",
    "cache", "cgi", "charset", "data", "dav", "deflate", "digest", "dir", "disk", "dumpio",
    "echo", "env", "expires", "ext", "fcgi", "file", "filter", "form", "group", "headers",
    "heartbeat", "host", "ident", "imagemap", "include", "info", "ldap", "log", "lua", "macro",
    "mem", "mime", "negotiation", "policy", "proxy", "ratelimit", "remoteip", "request",
    "reqtimeout", "rewrite", "sed", "session", "setenvif", "shm", "socache", "speling", "ssl",
    "status", "substitute", "unique", "user", "usertrack", "version", "vhost", "watchdog",
    "xml")
_DIRECTIVE_WORDS = (
    "Access", "Active", "Alias", "Allow", "Auth", "Balancer", "Base", "Body", "Buffer", "Cache",
    "Case", "Charset", "Child", "Cond", "Connection", "Cookie", "Count", "Custom", "Default",
    "Digest", "Directory", "Domain", "Enable", "Engine", "Error", "Expires", "Field", "File",
    "Filter", "Format", "Group", "Header", "Host", "Ignore", "Index", "Input", "Interval",
    "Keep", "Language", "Level", "Limit", "Line", "Lock", "Log", "Map", "Match", "Max",
    "Memory", "Method", "Min", "Mode", "Name", "Options", "Order", "Output", "Pass", "Path",
    "Persist", "Provider", "Proxy", "Request", "Require", "Retry", "Reverse", "Root", "Rule",
    "Script", "Server", "Session", "Size", "Socket", "Spare", "Stack", "Status", "Suffix",
    "Thread", "Timeout", "Trace", "Type", "User", "Window")
_ARG_WORDS = ("On|Off", "seconds", "number", "bytes", "file-path", "directory-path", "URL",
              "expression", "header value", "name")
_LEVELS = ("debug", "info", "notice", "warn", "error", "crit", "trace1", "trace3", "trace6")
_CODES = ("400", "403", "408", "413", "414", "429", "431", "503")
_FILE_DIRS = ("conf/extra", "logs", "conf", "modules", "htdocs", "var/run", "cache")
_FILE_EXTS = ("conf", "log", "map", "txt", "db", "pid")


def _module_names(rng: random.Random, n: int) -> list[str]:
    singles = list(_MODULE_WORDS)
    doubles = [f"{a}_{b}" for a in _MODULE_WORDS for b in _MODULE_WORDS if a != b]
    rng.shuffle(singles)
    pool = singles + rng.sample(doubles, max(0, n - len(singles)))
    return sorted(f"mod_{w}" for w in pool[:n])


def _directive_name(rng: random.Random, used: set[str]) -> str:
    while True:
        k = rng.choice((2, 2, 3))
        name = "".join(rng.sample(_DIRECTIVE_WORDS, k))
        if name not in used:
            used.add(name)
            return name


# ---------------------------------------------------------------------------------------
# Page plans: language-independent, rendered once per language
# ---------------------------------------------------------------------------------------

@dataclass
class _Sentence:
    template: int
    slots: dict


@dataclass
class _Directive:
    name: str
    arg: str
    default: str | None
    contexts: tuple
    paragraphs: list          # lists of _Sentence
    example: list | None      # configuration lines (never translated)


@dataclass
class _Module:
    name: str
    description: int
    status: str
    summary: list             # _Sentence
    directives: list          # _Directive
    see_also: list            # module names


def _slots(rng: random.Random, module: str, own: list[str], others: list[str],
           modules: list[str]) -> dict:
    d = rng.choice(own)
    return {
        "D": ("dir", d),
        "D2": ("dir2", rng.choice([x for x in others if x != d] or own)),
        "M": ("mod", rng.choice([m for m in modules if m != module] or [module])),
        "N": ("num", str(rng.choice((2, 3, 5, 8, 10, 15, 16, 20, 30, 32, 60, 64, 100, 120, 128,
                                     256, 300, 512, 1024, 4096, 8190)))),
        "F": ("file", f"{rng.choice(_FILE_DIRS)}/{module[4:].replace('_', '-')}"
                      f".{rng.choice(_FILE_EXTS)}"),
        "S": ("code", f"{module}.c"),
        "V": ("code", rng.choice(_LEVELS)),
        "C": ("code", rng.choice(_CODES)),
    }


def _plan_module(rng: random.Random, name: str, modules: list[str], used: set[str],
                 all_directives: list[str]) -> _Module:
    n_dir = rng.choice((1, 2, 2, 3, 3, 4))
    names = [_directive_name(rng, used) for _ in range(n_dir)]
    all_directives.extend(names)
    order = list(range(len(SENTENCES)))
    rng.shuffle(order)
    queue = iter(order * 3)

    def sentences(k: int) -> list[_Sentence]:
        return [_Sentence(next(queue), _slots(rng, name, names, all_directives, modules))
                for _ in range(k)]

    directives = []
    for d in names:
        paragraphs = [sentences(rng.randint(2, 4)) for _ in range(rng.choice((1, 1, 2)))]
        example = None
        if rng.random() < 0.5:
            arg = rng.choice(("On", "Off", str(rng.randint(1, 600)), '"/var/www/html"'))
            example = [f"<Directory \"/usr/local/apache2/htdocs/{name[4:]}\">",
                       f"    {d} {arg}", "</Directory>"]
        contexts = rng.choice((("ctx_server",), ("ctx_server", "ctx_vhost"),
                               ("ctx_server", "ctx_vhost", "ctx_dir"),
                               ("ctx_dir", ".htaccess")))
        default = f"{d} {rng.choice(('Off', 'On', rng.randint(1, 300)))}" \
            if rng.random() < 0.7 else None
        directives.append(_Directive(d, rng.choice(_ARG_WORDS), default, contexts,
                                     paragraphs, example))
    see_also = sorted(rng.sample([m for m in modules if m != name], rng.randint(1, 3)))
    return _Module(name, rng.randrange(len(DESCRIPTIONS)),
                   rng.choice(("Base", "Extension", "Experimental")),
                   sentences(rng.randint(2, 4)), directives, see_also)


# ---------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------

_esc = html.escape


def _slot_html(kind: str, value: str) -> str:
    if kind == "dir":
        return f'<code class="directive"><a href="#{value.lower()}">{_esc(value)}</a></code>'
    if kind == "dir2":
        return f'<code class="directive">{_esc(value)}</code>'
    if kind == "mod":
        return f'<code class="module"><a href="{value}.html">{_esc(value)}</a></code>'
    if kind in ("file", "code"):
        return f"<code>{_esc(value)}</code>"
    return _esc(value)


def _sentence_html(lang: str, s: _Sentence) -> str:
    text = _esc(SENTENCES[s.template][lang], quote=False)
    return re.sub(r"\{(\w+)\}", lambda m: _slot_html(*s.slots[m.group(1)]), text)


def _paragraph(lang: str, sents: list[_Sentence]) -> str:
    sep = "" if lang in NO_SPACE else " "
    return "<p>" + sep.join(_sentence_html(lang, s) for s in sents) + "</p>\n"


def _switches(page: str, available: list[str]) -> str:
    return "\n".join(
        f'<a href="./{lg}/{page}" hreflang="{lg}" rel="alternate" '
        f'title="{_esc(LANG_NAMES[lg])}">&nbsp;{lg}&nbsp;</a>' + (" |" if i < len(available) - 1
                                                              else "")
        for i, lg in enumerate(available))


def _page(lang: str, title: str, page: str, available: list[str], content: str,
          outdated: bool, notice: str = "") -> bytes:
    ui = {k: v[lang] for k, v in UI.items()}
    bar = _switches(page, available)
    note = (f'<div class="outofdate">{_esc(notice or ui["outdated"])}</div>\n'
            if outdated or notice else "")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml" lang="{lang}" xml:lang="{lang}"><head>\n'
        '<meta content="text/html; charset=UTF-8" http-equiv="Content-Type" />\n'
        f"<title>{_esc(title)} - {_esc(ui['doc'])}</title>\n"
        '<link href="../style/css/manual.css" rel="stylesheet" media="all" type="text/css" />\n'
        "</head>\n<body>\n"
        f'<div id="page-header">\n<p class="menu"><a href="index.html">{_esc(ui["modules"])}</a>'
        f"</p>\n<p class=\"apache\">{_esc(ui['doc'])}</p>\n</div>\n"
        f'<div id="path">\n<a href="index.html">{_esc(ui["docs"])}</a> &gt; '
        f'<a href="index.html">{_esc(ui["modules"])}</a></div>\n'
        f'<div id="page-content">\n<div id="preamble"><h1>{_esc(title)}</h1>\n'
        f'<div class="toplang">\n<p><span>{_esc(ui["available"])} </span>{bar}</p>\n</div>\n'
        f"{note}{content}</div>\n"
        f'<div class="bottomlang">\n<p><span>{_esc(ui["available"])} </span>{bar}</p>\n</div>\n'
        f'<div class="top"><a href="#page-header">&#8593;</a></div>\n'
        f'<div class="section"><h2>{_esc(ui["comments"])}</h2><div class="warning">'
        f'{_esc(ui["notice"])}</div></div>\n'
        f'<div id="footer">\n<p class="apache">Copyright 2024 The Apache Software Foundation.'
        f'<br />{_esc(ui["license"])}</p>\n'
        f'<p class="menu"><a href="index.html">{_esc(ui["modules"])}</a></p></div>\n'
        "</body></html>\n").encode("utf-8")


def _module_content(lang: str, m: _Module) -> str:
    ui = {k: v[lang] for k, v in UI.items()}
    rows = "".join(f'<tr><th>{_esc(ui[k])}</th><td>{v}</td></tr>\n' for k, v in (
        ("description", _esc(DESCRIPTIONS[m.description][lang])),
        ("status", m.status),
        ("identifier", f"{m.name[4:]}_module"),
        ("source", f"{m.name}.c")))
    out = [f'<table class="module">{rows}</table>\n',
           f'<h3>{_esc(ui["summary"])}</h3>\n', _paragraph(lang, m.summary), "</div>\n",
           f'<div id="quickview"><h3 class="directives">{_esc(ui["directives"])}</h3>\n<ul id="toc">\n']
    out += [f'<li><img alt="" src="../images/down.gif" /> <a href="#{d.name.lower()}">'
            f"{d.name}</a></li>\n" for d in m.directives]
    out.append(f'</ul>\n<h3>{_esc(ui["see_also"])}</h3>\n<ul class="seealso">\n')
    out += [f'<li><code class="module"><a href="{s}.html">{s}</a></code></li>\n'
            for s in m.see_also]
    out.append("</ul></div>\n")
    for d in m.directives:
        contexts = ", ".join(ui.get(c, c) for c in d.contexts)
        table = [("description", _esc(DESCRIPTIONS[m.description][lang])),
                 ("syntax", f"<code>{d.name} <var>{_esc(d.arg)}</var></code>")]
        if d.default:
            table.append(("default", f"<code>{_esc(d.default)}</code>"))
        table += [("context", _esc(contexts)), ("status", m.status), ("module", m.name)]
        rows = "".join(f"<tr><th>{_esc(ui[k])}</th><td>{v}</td></tr>\n" for k, v in table)
        out.append(f'<div class="directive-section"><h2><a name="{d.name.lower()}" '
                   f'id="{d.name.lower()}">{d.name}</a> <a name="{d.name}">'
                   f'{_esc(ui["directive"])}</a></h2>\n<table class="directive">\n{rows}</table>\n')
        out += [_paragraph(lang, p) for p in d.paragraphs]
        if d.example:
            code = "\n".join(_esc(line) for line in d.example)
            out.append(f'<pre class="prettyprint lang-config">{code}</pre>\n')
        out.append("</div>\n")
    return "".join(out)


def _index_content(lang: str, modules: list[_Module], translated: set[str]) -> str:
    ui = {k: v[lang] for k, v in UI.items()}
    # a module's description comes from its page's translation, or the English page's
    # where there is none (the Apache manual's indexes are generated so)
    items = "".join(
        f'<dt><a href="{m.name}.html">{m.name}</a></dt><dd>'
        f"{_esc(DESCRIPTIONS[m.description][lang if f'{m.name}.html' in translated else 'en'])}"
        "</dd>\n" for m in modules)
    sep = "" if lang in NO_SPACE else " "
    intro = _esc(ui["index_intro"]) + sep + _esc(ui["index_more"])
    return f"<p>{intro}</p>\n</div>\n<dl>\n{items}</dl>\n"


# ---------------------------------------------------------------------------------------
# The site
# ---------------------------------------------------------------------------------------

def generate_manual(spec: ManualSpec | None = None, port: int = 8080) -> MultilingualSite:
    """Build the whole manual for ``spec`` to be served on ``http://spec.host:port``."""
    spec = spec or ManualSpec()
    langs = tuple(spec.langs)
    if langs[0] != "en" or not set(langs) <= set(ALL_LANGS):
        raise ValueError(f"langs must start with 'en' and come from {ALL_LANGS}: {langs}")
    if spec.fallback not in ("bytes", "notice"):
        raise ValueError(f"fallback is 'bytes' or 'notice', not {spec.fallback!r}")
    rng = random.Random(spec.seed)
    names = _module_names(rng, spec.n_pages)
    used: set[str] = set()
    all_directives: list[str] = []
    modules = [_plan_module(rng, n, names, used, all_directives) for n in names]
    pages = ["index.html"] + [f"{m.name}.html" for m in modules]

    translated: dict[str, set[str]] = {"en": set(pages)}
    outdated: dict[str, set[str]] = {}
    for lang in langs[1:]:
        k = round(spec.shares.get(lang, 0.5) * len(modules))
        chosen = {f"{m.name}.html" for m in rng.sample(modules, k)}
        translated[lang] = {"index.html"} | chosen
        outdated[lang] = {p for p in sorted(chosen) if rng.random() < spec.outdated_fraction}

    site = MultilingualSite(spec, port, {}, "", {}, set(), translated,
                            {lang: [] for lang in langs[1:]}, pages)
    site.start_url = site.url("en", "index.html")

    def available(page: str) -> list[str]:
        return [lg for lg in langs if page in translated[lg]]

    bodies: dict[tuple[str, str], bytes] = {}
    for lang in langs:
        for page, module in zip(pages, [None] + modules):
            if page not in translated[lang]:
                continue
            if module is None:
                title, content = UI["index_title"][lang], _index_content(lang, modules, translated[lang])
            else:
                title = UI["module_title"][lang].replace("{M}", module.name)
                content = _module_content(lang, module)
            bodies[lang, page] = _page(lang, title, page, available(page), content,
                                       page in outdated.get(lang, ()))
    for lang in langs:
        for page in pages:
            url = site.url(lang, page)
            if (lang, page) in bodies:
                site.resources[url] = Resource(200, dict(_HTML_HEADERS), bodies[lang, page])
                site.page_langs[url] = lang
                if lang != "en":
                    site.gold_pairs[lang].append((site.url("en", page), url))
            else:  # content negotiation falls back to the English page, byte for byte
                body = bodies["en", page]
                if spec.fallback == "notice":  # or a generator copies it into the template
                    module = modules[pages.index(page) - 1]
                    body = _page(lang, UI["module_title"]["en"].replace("{M}", module.name),
                                 page, available(page), _module_content("en", module), False,
                                 notice=UI["outdated"][lang])
                site.resources[url] = Resource(200, dict(_HTML_HEADERS), body)
                site.page_langs[url] = "en"
                site.fallback_urls.add(url)
    return site


def manual_records(site: MultilingualSite, identify, opaque: bool = False):
    """The manual's pages as the crawl's records (``build_record``, fastText ``identify``),
    offline: (records, redirects, url), ``url`` mapping the site's URLs to the records'.

    ``opaque``: every page but the English index at ``/p/<hash>.html``, links rewritten
    to it (redirects followed), without language bars or ``lang`` attributes: nothing in
    the URLs or the markup names a language, and a fallback copy is told from its
    original by its words and by who links it."""
    import hashlib
    from urllib.parse import urljoin

    from bitextcrawl.pages.record import build_record

    def target(url: str) -> str:
        for _ in range(3):
            if url in site.resources:
                return url
            path = url.split(f":{site.port}", 1)[1] if f":{site.port}" in url else None
            res = site.lookup(site.spec.host, path) if path else None
            if res is None or res.status not in (301, 302):
                return url
            url = res.headers["Location"]
        return url

    def hashed(url: str) -> str:
        url = target(url)
        if not opaque or url == site.start_url or "/manual/" not in url:
            return url
        return f"{site.root}/p/{hashlib.sha1(url.encode()).hexdigest()[:12]}.html"

    records, redirects, url_of = [], {}, {}
    for url, res in sorted(site.resources.items()):
        html = res.body.decode("utf-8")
        if opaque:
            html = re.sub(r'<div class="(top|bottom)lang">.*?</div>', "", html, flags=re.S)
            html = re.sub(r'href="([^"#]+)', lambda m: 'href="' + hashed(urljoin(url, m.group(1))),
                          html)
            html = re.sub(r' (xml:)?lang="[a-z-]+"', "", html)
        url_of[url] = hashed(url)
        record = build_record(url_of[url], html, identify)
        records.append(record)
        for link in record.links:
            if link["url"] not in site.resources and target(link["url"]) != link["url"]:
                redirects[link["url"]] = target(link["url"])
    return records, redirects, url_of

