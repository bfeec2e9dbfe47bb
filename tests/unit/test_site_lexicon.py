"""The site lexicon: title words translated as the site's proven pairs translate them."""

from __future__ import annotations

import pytest

from bitextcrawl.pairing.anchors import anchor_overlaps
from bitextcrawl.pairing.site_lexicon import SiteLexicon

EN_TERMS = ["Context", "Module", "Status", "Syntax", "Default"]
JA_TERMS = ["コンテキスト", "モジュール", "ステータス", "構文", "デフォルト"]


def page(url, title):
    return {"url": url, "title": title, "text": "", "html": "", "links": []}


def glossary_pairs(n_terms=5):
    """Entries titled "A (B)" in English and "A' (B')" in Japanese, for each two terms."""
    pairs = []
    for i in range(n_terms):
        for j in range(n_terms):
            if i != j:
                pairs.append((page(f"http://g.test/en/{i}-{j}",
                                   f"{EN_TERMS[i]} ({EN_TERMS[j]}) — Cloud Glossary 2.4"),
                              page(f"http://g.test/p/{j}{i}",
                                   f"{JA_TERMS[i]} ({JA_TERMS[j]}) — クラウド用語集 2.4")))
    return pairs


def test_learns_each_term_from_the_pairs_titles():
    lex = SiteLexicon().fit(glossary_pairs())
    for en, ja in zip(EN_TERMS, JA_TERMS):
        assert lex.translations_["h:" + ja] == "h:" + en.lower()
    # the number is shared already: not linked
    assert "h:2.4" not in lex.translations_


def test_one_pair_teaches_nothing():
    """A word pair seen in one title only is a coincidence, not a translation."""
    assert len(SiteLexicon().fit(glossary_pairs()[:1])) == 0
    assert len(SiteLexicon().fit([])) == 0


def test_inconsistent_pairs_teach_nothing():
    """Titles paired at random: no word pair co-occurs often enough to be linked."""
    pairs = glossary_pairs()
    shuffled = [(p1, pairs[(i * 7 + 3) % len(pairs)][1]) for i, (p1, _) in enumerate(pairs)]
    right = SiteLexicon().fit(pairs).translations_
    wrong = SiteLexicon().fit(shuffled).translations_
    term_links = {v for v in right if v[2:] in JA_TERMS}
    assert len(term_links) == 5
    assert sum(wrong.get(v) == right[v] for v in term_links) < 3


def test_translated_titles_make_the_counterpart_the_best_overlap():
    """Without the lexicon a Japanese title shares nothing with its English original;
    with it, the counterpart overlaps more than any sibling."""
    pairs = glossary_pairs()
    lex = SiteLexicon().fit(pairs[:10])
    pages1 = {p1["url"]: p1 for p1, _ in pairs}
    pages2 = {p2["url"]: p2 for _, p2 in pairs}
    cands = [(a, b) for a in pages1 for b in pages2]
    plain = dict(zip(cands, anchor_overlaps(pages1, pages2, cands)))
    learned = dict(zip(cands, anchor_overlaps(pages1, pages2, cands, lex.translate)))
    for p1, p2 in pairs:
        a, b = p1["url"], p2["url"]
        assert plain[(a, b)] == pytest.approx(max(plain[(a, other)] for other in pages2),
                                              rel=1e-12)   # all tie
        # "A (B)" and "B (A)" have the same words: the one sibling that ties
        i, j = a.rsplit("/", 1)[1].split("-")
        swapped = f"http://g.test/p/{i}{j}"
        # (idf sums over sets: their order, and the last bits, follow the hash seed)
        assert learned[(a, b)] == pytest.approx(learned[(a, swapped)], rel=1e-12)
        assert learned[(a, b)] > 0.3
        assert all(learned[(a, b)] > learned[(a, other)] for other in pages2
                   if other not in (b, swapped))


def test_nearest_sums_each_title_idf_once(monkeypatch):
    """Each title's idf sum is made once, not once for every title it is compared with:
    the same pages, each ranked by the same overlaps as when every comparison made both
    sums itself."""
    from bitextcrawl.pairing import anchors, site_lexicon

    pairs = glossary_pairs()
    lex = SiteLexicon().fit(pairs[:10])
    pages1 = {p1["url"]: p1 for p1, _ in pairs}
    pages2 = {p2["url"]: p2 for _, p2 in pairs}
    sums = []
    weight = anchors._weight
    monkeypatch.setattr(anchors, "_weight", lambda a, idf: sums.append(a) or weight(a, idf))
    found = lex.nearest(pages1, pages2, top_k=3)
    assert len(sums) <= len(pages1) + len(pages2)

    def overlap_summing_each_time(a, b, idf, weights=None):
        return anchors.weighted_overlap(a, b, idf)

    monkeypatch.setattr(site_lexicon, "weighted_overlap", overlap_summing_each_time)
    assert lex.nearest(pages1, pages2, top_k=3) == found
    assert found and all(a in pages1 and b in pages2 for a, b in found)
