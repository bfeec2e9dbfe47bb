"""URL-only pairing of the partial translations of a multilingual site (``scrapy urlpairs``).

On a site of many languages |w| counts the pages of all of them ([Zhang 2013]'s "size of w"), so
a translation of a few pages explains less than C(p,w) > 0.1 of it however plain its URLs
(``/en/common/cat.html`` ↔ ``/de/common/cat.html``). The weak key is rescued where its two
tokens are the site's own markers of its two languages, learned from the languages of its
URLs (the ``lang`` column of the lines, or the language ``pair_urls`` gave URLs listed alone),
as a crawl learns them from fastText's labels. The shapes here are those of tldr-pages and
nginx.org (``../shared/data``), scaled down; the last tests read the real URL lists.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from bitextcrawl.pairing.url_pairs import pair_urls, parse_url_lines
from bitextcrawl.pairing.url_patterns import UrlPatternLearner
from tests.conftest import SHARED_DATA

B = "http://127.0.0.1:8000"
COMMANDS = ("cat", "cd", "chmod", "brew-abv", "c++", "ar", "bg", "at", "cal", "age-keygen",
            "cryptsetup-luksformat", "colon", "a2ping", "base64", "bzip2")
# Pages per language of the tldr shape (the real site's ratios, a third of its size): the
# German, Russian and Japanese translations each pair less than 10% of the site's pages.
TLDR_PAGES = {"en": 300, "ko": 298, "es": 123, "zh": 84, "pt-br": 70, "fr": 68, "de": 48,
              "ru": 32, "ja": 19}


def _command(i: int) -> str:
    return COMMANDS[i] if i < len(COMMANDS) else f"{COMMANDS[i % len(COMMANDS)]}{i}"


def tldr_shape(labelled: bool = True):
    """``lang<TAB>url`` lines (bare URLs when not ``labelled``) of a tldr-pages-like site, and
    the gold of every language with English: the same command page of the same platform,
    the home page and the platform indexes."""
    lines, pages = [], {}
    for lang, n in TLDR_PAGES.items():
        urls = [f"{B}/{lang}/index.html", f"{B}/{lang}/common/index.html",
                f"{B}/{lang}/linux/index.html"]
        # the first pages of each platform are translated first; ``ko`` has all but two
        urls += [f"{B}/{lang}/{'common' if i % 3 else 'linux'}/{_command(i)}.html"
                 for i in range(n)]
        pages[lang] = urls
        lines += [f"{lang}\t{u}" if labelled else u for u in urls]
    lines += [f"{B}/LICENSE.html"]   # (no language)
    gold = {}
    for lang, urls in pages.items():
        if lang != "en":
            gold[lang] = {u.replace(f"/{lang}/", "/en/", 1): u for u in urls}
    return lines, gold


NGINX_PAGES = {  # /XX/ pages of the nginx.org shape with an English original: the real counts
    "en": 160, "ru": 130, "cn": 34, "it": 19, "tr": 10, "ja": 9, "he": 5}
NGINX_DOCS = ("index", "docs/index", "docs/windows", "docs/http/server_names",
              "docs/http/converting_rewrite_rules", "docs/beginners_guide", "docs/install",
              "docs/configure", "docs/control", "docs/events", "docs/hash", "docs/syntax",
              "docs/debugging_log", "docs/http/request_processing", "download", "support",
              "linux_packages", "docs/contributing_changes", "docs/faq", "docs/sys_errlist")


def nginx_shape():
    lines, pages = [], {}
    for lang, n in NGINX_PAGES.items():
        names = [NGINX_DOCS[i] if i < len(NGINX_DOCS) else f"docs/http/ngx_http_m{i}_module"
                 for i in range(n)]
        pages[lang] = [f"{B}/{lang}/{name}.html" for name in names]
        lines += [f"{lang}\t{u}" for u in pages[lang]]
    lines += [f"it\t{B}/it/partners.html"]   # an Italian page without an English original
    # 21 language-neutral pages at the root, unlabelled
    lines += [f"{B}/{year}.html" for year in range(2009, 2027)]
    lines += [f"{B}/index.html", f"{B}/404.html", f"{B}/books.html"]
    gold = {lang: {u.replace(f"/{lang}/", "/en/", 1): u for u in urls}
            for lang, urls in pages.items() if lang != "en"}
    return lines, gold


def _fit_as_the_paper(lines, langs):
    """The learner without the site's language tokens: C(p,w) > 0.1 or C(p) > 500 only."""
    d = defaultdict(list)
    for lang, url in parse_url_lines(lines):
        d[lang or ""].append(url)
    return UrlPatternLearner(langs).fit(d)


@pytest.mark.parametrize("lang", ["de", "ru", "ja"])
def test_tldr_shape_partial_translation_is_paired(lang):
    lines, gold = tldr_shape()
    # the miss: the key <en,XX> is right, but pairs < 10% of the site's pages
    paper = _fit_as_the_paper(lines, ("en", lang))
    key = next(p for p in paper.patterns_ if (p.lang1_token, p.lang2_token) == ("en", lang))
    assert key.pairs == len(gold[lang]) and key.local_credibility < 0.1 and not key.credible
    assert [p for p in paper.pairs() if (p.lang_1, p.lang_2) == ("en", lang)] == []
    # the fix: both tokens are the site's own markers of exactly these languages
    pairs = pair_urls(lines, langs=("en", lang))
    assert dict(pairs) == gold[lang]


def test_tldr_shape_languages_that_passed_keep_passing():
    lines, gold = tldr_shape()
    for lang in ("ko", "es", "zh", "fr", "pt-br"):
        assert dict(pair_urls(lines, langs=("en", lang))) == gold[lang]


def test_tldr_shape_urls_alone():
    # no labels at all: the URLs of en and ja take their language from their code token,
    # the other languages' URLs stay unlabelled (and still count in |w|)
    lines, gold = tldr_shape(labelled=False)
    for lang in ("de", "ja"):
        assert dict(pair_urls(lines, langs=("en", lang))) == gold[lang]


def test_tldr_shape_only_the_two_languages_labelled():
    # only the lines of the two languages asked carry a label, the rest are bare URLs
    lines, gold = tldr_shape()
    lines = [ln if ln.startswith(("en\t", "ru\t")) else ln.split("\t")[-1] for ln in lines]
    assert dict(pair_urls(lines, langs=("en", "ru"))) == gold["ru"]


@pytest.mark.parametrize("lang", ["it", "tr", "ja", "he"])
def test_nginx_shape_small_translations_are_paired(lang):
    lines, gold = nginx_shape()
    paper = _fit_as_the_paper(lines, ("en", lang))
    assert [p for p in paper.pairs() if (p.lang_1, p.lang_2) == ("en", lang)] == []
    assert dict(pair_urls(lines, langs=("en", lang))) == gold[lang]


def test_nginx_shape_rescue_is_by_language_tokens_and_larger_ones_by_c_p_w():
    from bitextcrawl.pairing.url_pairs import _site_token_langs
    lines, gold = nginx_shape()
    items = parse_url_lines(lines)
    tokens = _site_token_langs(items)
    assert {t: tokens[t] for t in ("en", "ru", "cn", "he")} == {
        "en": "en", "ru": "ru", "cn": "cn", "he": "he"}
    assert "org" not in tokens and "docs" not in tokens and "http" not in tokens
    d = defaultdict(list)
    for lang, url in items:
        d[lang or ""].append(url)
    he = UrlPatternLearner(("en", "he")).fit(d, token_langs=tokens)
    p = he.patterns_[0]
    assert (p.lang1_token, p.lang2_token, p.pairs) == ("en", "he", 5)
    assert p.local_credibility < 0.1 and p.credible and p.rescued_by == "language_tokens"
    ru = UrlPatternLearner(("en", "ru")).fit(d, token_langs=tokens).patterns_[0]
    assert ru.credible and not ru.rescued and ru.local_credibility > 0.1


# ----------------------------------------------------------------------------- what stays out


def _weak_site(extra_en=(), extra_fr=()):
    H = "http://www.example.org"
    en = [f"{H}/eng/page{i}.html" for i in range(3)] + [f"{H}/a/x{i}" for i in range(60)]
    fr = [f"{H}/fre/page{i}.html" for i in range(3)] + [f"{H}/b/y{i}" for i in range(60)]
    en += list(extra_en)
    fr += list(extra_fr)
    return [f"en\t{u}" for u in en] + [f"fr\t{u}" for u in fr]


def test_weak_key_whose_token_other_languages_carry_pairs_nothing():
    H = "http://www.example.org"
    # ``eng`` also holds three French pages: no marker of English on this site
    lines = _weak_site(extra_fr=[f"{H}/eng/fr{i}.html" for i in range(3)])
    assert pair_urls(lines, langs=("en", "fr")) == []
    # nor when a third language carries it (every language of the site is read)
    lines = _weak_site() + [f"de\t{H}/eng/de{i}.html" for i in range(3)]
    assert pair_urls(lines, langs=("en", "fr")) == []


def test_weak_key_of_two_pairs_pairs_nothing():
    H = "http://www.example.org"
    lines = [ln for ln in _weak_site() if "/page2.html" not in ln]
    assert pair_urls(lines, langs=("en", "fr")) == []
    # (a token on two pages is no marker either: the same with /eng/ on a third page alone)
    lines += [f"en\t{H}/eng/solo.html"]
    assert pair_urls(lines, langs=("en", "fr")) == []


def test_weak_key_without_labels_or_language_codes_pairs_nothing():
    # URLs alone and no token equal to a code asked or one of its aliases: nothing names
    # a language
    lines = [ln.split("\t")[1].replace("/eng/", "/e1/").replace("/fre/", "/f1/")
             for ln in _weak_site()]
    assert pair_urls(lines, langs=("en", "fr")) == []
    # eng and fre are ISO 639-2 codes of English and French: they name them
    lines = [ln.split("\t")[1] for ln in _weak_site()]
    assert sorted(pair_urls(lines, langs=("en", "fr"))) == [
        (f"http://www.example.org/eng/page{i}.html", f"http://www.example.org/fre/page{i}.html")
        for i in range(3)]


# ----------------------------------------------------------------------------- real URL lists


def _site_lines(site, langs):
    lines = []
    for f in sorted(site.rglob("*.html")):
        rel = f.relative_to(site).as_posix()
        top = rel.split("/", 1)[0]
        lines.append(f"{top}\t{B}/{rel}" if top in langs else f"{B}/{rel}")
    return lines


def _gold(path):
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            a, b = line.split("\t")[:2]
            out[B + a.strip()] = B + b.strip()
    return out


NGINX = SHARED_DATA / "nginx"
TLDR = SHARED_DATA / "tldr"


@pytest.mark.skipif(not (NGINX / "site").is_dir(), reason=f"real data absent: {NGINX}")
def test_real_nginx_partial_translations():
    langs = ("en", "ru", "cn", "it", "tr", "ja", "he")
    lines = _site_lines(NGINX / "site", set(langs))
    for lang in ("it", "tr", "ja", "he"):
        gold = _gold(NGINX / "gold" / f"en-{lang}.tsv")
        assert dict(pair_urls(lines, langs=("en", lang))) == gold, lang


@pytest.mark.skipif(not (TLDR / "site").is_dir(), reason=f"real data absent: {TLDR}")
def test_real_tldr_partial_translations():
    langs = ("en", "fr", "de", "es", "ru", "zh", "ja", "ko", "pt-br")
    lines = _site_lines(TLDR / "site", set(langs))
    for lang in ("de", "ru", "ja"):
        gold = _gold(TLDR / "gold" / f"en-{lang}.tsv")
        for idx in ("index.html", "common/index.html", "linux/index.html"):
            gold[f"{B}/en/{idx}"] = f"{B}/{lang}/{idx}"
        assert dict(pair_urls(lines, langs=("en", lang))) == gold, lang
