"""LSI content similarity [Germann 2016], lexicon similarity [Liu 2014 §3.2], shared tokens."""

import json
import math
from collections import Counter

import numpy as np
import pytest

from bitextcrawl.pairing.lsi import (
    LSIModel,
    anchor_tokens,
    lexicon_similarity,
    load_lexicon,
    row_cosines,
    shared_token_similarity,
    tokenize,
)

# ----------------------------------------------------------------------------- data

def _vocab(rng, n, letters):
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(list(letters), int(rng.integers(3, 9)))))
    return sorted(words)


def _cjk_vocab(rng, n):
    words = set()
    while len(words) < n:
        words.add("".join(chr(0x4E00 + int(c)) for c in rng.integers(0, 5000, 2)))
    return sorted(words)


def make_corpus(n_docs, seed=1, n_concepts=1500, n_topics=12, cjk=False, boilerplate=True):
    """Bilingual documents: two disjoint vocabularies with a hidden word-to-word mapping.

    A document is a sequence of concepts (a mixture of 1-3 topics, Zipfian within a
    topic, 15% off-topic); each language renders it with its own words, with 10% of
    the words dropped and 10% random words inserted (independently per side). 30% of
    the pairs share a number. Each language has its own boilerplate on every page.
    """
    rng = np.random.default_rng(seed)
    lex1 = _vocab(rng, n_concepts, "abcdefghijklm")
    lex2 = _cjk_vocab(rng, n_concepts) if cjk else _vocab(rng, n_concepts, "nopqrstuvwxyz")
    lex2 = [lex2[i] for i in rng.permutation(n_concepts)]
    topics = [rng.choice(n_concepts, 120, replace=False) for _ in range(n_topics)]
    zipf = 1 / np.arange(1, 121) ** 0.8
    zipf /= zipf.sum()
    sep2 = "" if cjk else " "
    docs = []
    for _ in range(n_docs):
        k = int(rng.integers(1, 4))
        ts = rng.choice(n_topics, k, replace=False)
        w = rng.dirichlet(np.ones(k))
        concepts = []
        for _ in range(int(rng.integers(60, 160))):
            if rng.random() < 0.15:
                concepts.append(int(rng.integers(n_concepts)))
            else:
                concepts.append(int(topics[ts[rng.choice(k, p=w)]][rng.choice(120, p=zipf)]))

        def render(lex, sep):
            out = []
            for c in concepts:
                r = rng.random()
                if r < 0.1:
                    continue
                if r < 0.2:
                    out.append(lex[int(rng.integers(n_concepts))])
                out.append(lex[c])
            return sep.join(out)

        t1, t2 = render(lex1, " "), render(lex2, sep2)
        if rng.random() < 0.3:
            num = str(rng.integers(1000, 9999))
            t1, t2 = f"{t1} {num}", f"{t2} {num}"
        if boilerplate:
            t1 += "\nhome about contact news search sitemap"
            t2 += "\n首页 关于 联系" if cjk else "\naccueil propos contactez nouvelles recherche plan"
        docs.append((t1, t2))
    return docs


def _top1(sim):
    return float((sim.argmax(axis=1) == np.arange(len(sim))).mean())


def _matrix(model, test, centred=True):
    n = len(test)
    idx = np.array([(i, j) for i in range(n) for j in range(n)])
    return model.pair_similarities([a for a, _ in test], [b for _, b in test], idx,
                                   centred=centred).reshape(n, n)


def _token_cosine(a, b):
    ca, cb = Counter(tokenize(a)), Counter(tokenize(b))
    num = sum(v * cb[t] for t, v in ca.items())
    den = math.sqrt(sum(v * v for v in ca.values()) * sum(v * v for v in cb.values()))
    return num / den if den else 0.0


@pytest.fixture(scope="module")
def corpus():
    docs = make_corpus(80)
    return docs[:30], docs[30:], [t for pair in docs for t in pair]


@pytest.fixture(scope="module")
def model(corpus):
    train, _, site = corpus
    return LSIModel().fit(train, site)


# ------------------------------------------------------------------------ tokenising

def test_tokenize_words_numbers_cjk():
    toks = tokenize("Hello WORLD, 1,234.56 in 2019: 中华人民 x ISO-9001 Ｆｕｌｌ")
    assert toks[:2] == ["hello", "world"]
    assert ["1", "234", "56"] == toks[2:5]                  # number format independent
    assert "2019" in toks and "9001" in toks and "iso" in toks
    assert ["中华", "华人", "人民"] == [t for t in toks if "\u4e00" <= t[0] <= "\u9fff"]
    assert "x" not in toks                                  # 1-letter words dropped
    assert "full" in toks                                   # NFKC folds full-width letters
    assert tokenize("") == [] and tokenize(None) == []
    assert tokenize("東") == ["東"]
    assert tokenize("1.234,56") == tokenize("1,234.56")


def test_anchor_tokens_and_shared_similarity():
    en = "The minister of Hong Kong met NASA on 12.03.2019. See https://www.gov.hk/en/x.html."
    zh = "香港特区政府与NASA在2019年会面。Hong Kong 详情 https://www.gov.hk/en/x.html"
    fr = "Le ministre a rencontré des chercheurs. Aucun chiffre."
    a = anchor_tokens(en)
    assert {"hong", "kong", "nasa", "2019", "www.gov.hk/en/x.html"} <= set(a)
    assert "the" not in a                                   # sentence-initial capital
    assert "a320" in anchor_tokens("Airbus A320号")
    s_en_zh = shared_token_similarity(en, zh)
    assert 0.4 < s_en_zh <= 1.0
    assert shared_token_similarity(en, fr) == 0.0
    assert shared_token_similarity("", zh) == 0.0
    # a token every page has counts little once weighted by idf
    assert shared_token_similarity(en, zh, idf={"2019": 0.0, "nasa": 0.0}) < s_en_zh


# -------------------------------------------------------------------------- lexicon

def test_load_lexicon_and_similarity(tmp_path):
    path = tmp_path / "lex.tsv"
    path.write_text("# en\tzh\nGovernment\t政府\nminister\t部长\nminister\t首长\n"
                    "report\t报告\nannual\t年度\nbad line\n\n", encoding="utf-8")
    lex = load_lexicon(str(path))
    assert lex["minister"] == {"部长", "首长"} and "government" in lex and len(lex) == 4
    en = "The Government published the annual report of the minister."
    zh = "政府发表了部长的年度报告。"
    assert lexicon_similarity(en, zh, lex) == pytest.approx(1.0)
    assert lexicon_similarity(en, "政府发表了声明。", lex) == pytest.approx(0.25)
    assert lexicon_similarity(en, "完全无关的内容", lex) == 0.0
    assert lexicon_similarity("nothing known here", zh, lex) == 0.0   # denominator: zh side
    assert lexicon_similarity("", "", lex) == 0.0
    # a plain dict works too; each target word is used once
    plain = {"cat": {"chat"}, "dog": {"chien"}}
    assert lexicon_similarity("cat cat dog", "chat chien", plain) == pytest.approx(2 / 3)
    assert lexicon_similarity("cat dog", "chat chien", {}) == 0.0


# ---------------------------------------------------------------------------- LSI

def test_lsi_ranks_true_counterpart_first_and_beats_token_cosine(model, corpus):
    _, test, _ = corpus
    assert model.mode_ == "lsi"
    assert model.rank_ == 29                    # min(100, n_pairs - 1, n_terms - 1)
    top1_lcos = _top1(_matrix(model, test, centred=True))
    raw = np.array([[_token_cosine(a, b) for _, b in test] for a, _ in test])
    top1_raw = _top1(raw)
    shared = np.array([[shared_token_similarity(a, b) for _, b in test] for a, _ in test])
    assert top1_lcos >= 0.85
    assert top1_lcos > top1_raw + 0.3
    assert top1_lcos > _top1(shared) + 0.3


def test_lcos_vs_cos(model, corpus):
    train, test, site = corpus
    cos = _matrix(model, test, centred=False)
    lcos = _matrix(model, test, centred=True)
    # boilerplate is shared by every page: it lifts every cos, and centring removes it
    off = ~np.eye(len(test), dtype=bool)
    assert cos[off].mean() > lcos[off].mean() + 0.1
    assert _top1(lcos) >= _top1(cos)
    # the site mean is the mean direction of the site's folded pages
    v = model.transform(site)
    assert np.allclose((v / np.linalg.norm(v, axis=1, keepdims=True)).mean(axis=0),
                       model.site_mean_)
    # a page against itself: 1 either way; values within [-1, 1]
    a = test[0][0]
    assert model.similarity(a, a, centred=True) == pytest.approx(1.0)
    assert model.similarity(a, a, centred=False) == pytest.approx(1.0)
    assert np.all(np.abs(lcos) <= 1.0 + 1e-9)
    # a boilerplate-only page looks like every page by cos, not by lcos
    b2 = "accueil propos contactez nouvelles recherche plan"
    cos_b = np.array([model.similarity(a, b2, centred=False) for a, _ in test])
    lcos_b = np.array([model.similarity(a, b2, centred=True) for a, _ in test])
    assert cos_b.mean() > 0.3 and lcos_b.mean() < cos_b.mean() - 0.2


def test_short_pages_do_not_all_look_alike_after_centring(model, corpus):
    """nginx.org: its English 404 page and a Russian stub were 0.99 alike by lcos, as
    centring raw vectors sends every page of few words to about -mean."""
    train, test, site = corpus
    short = [a.split()[:3] for a, _ in test[:10]]
    lcos = np.array([[model.similarity(" ".join(x), " ".join(y)) for y in short] for x in short])
    off = ~np.eye(len(short), dtype=bool)
    assert lcos[off].mean() < 0.5


def test_lsi_cjk_without_spaces():
    docs = make_corpus(70, seed=3, cjk=True)
    train, test = docs[:30], docs[30:]
    model = LSIModel().fit(train, [t for pair in docs for t in pair])
    assert model.mode_ == "lsi"
    assert _top1(_matrix(model, test)) >= 0.8


def test_transform_shapes_and_unknown_text(model):
    v = model.transform(["", "zzzz qqqq unknown", "abc"])
    assert v.shape == (3, model.rank_)
    assert np.all(np.isfinite(v))
    # a page with no known term is similar to nothing (even to another empty page, centred)
    assert model.similarity("", "") == 0.0
    assert model.similarity("", "", centred=False) == 0.0
    assert model.similarity("zzzz", "qqqq unknown") == 0.0
    assert model.pair_similarities([], [], np.zeros((0, 2))).shape == (0,)
    assert model.transform([]).shape == (0, model.rank_)


def test_rank_rule_and_explicit_rank(corpus):
    train, _, site = corpus
    assert LSIModel(rank=5).fit(train, site).rank_ == 5
    assert LSIModel(rank=500).fit(train, site).rank_ == 29      # clipped to n_pairs - 1
    assert LSIModel(max_rank=10).fit(train, site).rank_ == 10
    m = LSIModel().fit(train)                                     # no site texts: pairs' pages
    assert m.mode_ == "lsi" and m.n_site_docs_ == 0 and m.n_idf_docs_ == 60


def test_reproducible_and_serialisable(model, corpus):
    train, test, site = corpus
    again = LSIModel().fit(train, site)
    assert np.allclose(_matrix(again, test[:5]), _matrix(model, test[:5]))
    restored = LSIModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert np.allclose(_matrix(restored, test[:5]), _matrix(model, test[:5]))
    rep = model.report()
    assert rep["mode"] == "lsi" and rep["rank"] == 29 and 0 < rep["explained_variance_ratio"] <= 1
    assert rep["n_pairs"] == 30 and rep["n_terms"] == len(model.vocabulary_)


def test_degenerate_mode_few_pairs():
    pages = ["Report 2019 on Hong Kong trade, see A320 ref 4471.",
             "Rapport 2019 sur le commerce de Hong Kong, voir A320 réf 4471.",
             "Annual budget 1998 of the Council.",
             "Budget annuel 1998 du Conseil.",
             "Nothing shared here at all.",
             "Rien de commun."]
    model = LSIModel().fit([(pages[0], pages[1])], pages)       # 1 pair < min_pairs
    assert model.mode_ == "shared_tokens" and model.rank_ == 0
    assert model.degenerate_reason_
    s_true = model.similarity(pages[0], pages[1])
    s_false = model.similarity(pages[0], pages[3])
    assert np.isfinite(s_true) and s_true > s_false
    assert model.similarity(pages[4], pages[5]) == 0.0          # no anchor token: 0, not NaN
    idx = np.array([(0, 1), (2, 3), (4, 5), (0, 3)])
    sims = model.pair_similarities(pages, pages, idx, centred=False)
    assert np.all(np.isfinite(sims)) and sims[0] > sims[3] and sims[2] == 0.0
    restored = LSIModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert restored.similarity(pages[0], pages[1]) == pytest.approx(s_true)
    assert model.report()["mode"] == "shared_tokens"
    # nothing at all
    empty = LSIModel().fit([], [])
    assert empty.mode_ == "shared_tokens"
    assert empty.similarity("a", "b") == 0.0
    assert empty.transform(["x"]).shape == (1, empty.degenerate_dim)


def test_not_fitted():
    with pytest.raises(RuntimeError):
        LSIModel().transform(["a"])


def test_row_cosines_zero_safe():
    a = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    b = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, -1.0]])
    assert np.allclose(row_cosines(a, b), [1.0, 0.0, -1.0])


def test_nearest_pairs_keeps_each_pages_k_nearest(model, corpus):
    _, test, _ = corpus
    t1, t2 = [a for a, _ in test], [b for _, b in test]
    full = _matrix(model, test)
    pairs = model.nearest_pairs(t1, t2, k=3)
    found = {(i, j) for i, j, _ in pairs}
    assert len(found) == len(pairs)                               # each pair once
    # both directions' top 3 (ties aside), and nothing else
    expected = {(i, int(j)) for i in range(len(t1)) for j in np.argsort(-full[i])[:3]}
    expected |= {(int(i), j) for j in range(len(t2)) for i in np.argsort(-full[:, j])[:3]}
    assert found == {p for p in expected if full[p] > 0}
    for i, j, s in pairs:
        assert s == pytest.approx(full[i, j], abs=1e-4)
    # the true counterpart is among them for nearly every page
    assert sum((i, i) in found for i in range(len(t1))) >= 0.95 * len(t1)
    # row restriction: only the listed pages are compared; blocks change nothing
    sub = model.nearest_pairs(t1, t2, k=3, rows1=[0, 1, 2], rows2=list(range(10)), block=2)
    assert sub and all(i in (0, 1, 2) and j < 10 for i, j, _ in sub)
    assert model.nearest_pairs(t1, t2, k=0) == [] and model.nearest_pairs(t1, [], k=3) == []


def test_nearest_pairs_ignores_pages_without_known_terms(model, corpus):
    _, test, _ = corpus
    pairs = model.nearest_pairs([test[0][0], "zzzz qqqq"], [test[0][1], "xxxx yyyy"], k=2)
    assert {(i, j) for i, j, _ in pairs} == {(0, 0)}


def test_token_cache_is_per_fit_and_bounded(corpus):
    train, test, _ = corpus
    site = [t for pair in train + test for t in pair]
    big = LSIModel().fit(train, site)
    small = LSIModel(token_cache=1000).fit(train, site)
    assert small._tokenize.size <= 1000 < big._tokenize.size
    t1, t2 = [a for a, _ in test], [b for _, b in test]
    assert np.array_equal(big.transform(t1), small.transform(t1))
    assert big.nearest_pairs(t1, t2, k=3) == small.nearest_pairs(t1, t2, k=3)
    # a new fit starts afresh; a copied model takes no texts along
    cache = big._tokenize
    big.fit(train[:5], [t for pair in train[:5] for t in pair])
    assert big._tokenize is not cache
    import pickle
    assert pickle.loads(pickle.dumps(big))._tokenize.size == 0


def test_fits_sharing_the_site_terms_are_the_fits_without(corpus):
    """Models fitted one after the other on other training pairs over the same pages,
    reading the pages' tokens and idf once (``SiteTerms``), are the models fitted afresh."""
    from bitextcrawl.pairing.lsi import SiteTerms

    train, test, site = corpus
    terms = SiteTerms(5_000_000)
    t1, t2 = [a for a, _ in test], [b for _, b in test]
    for pairs in (train[:10], train, train[5:25]):
        shared = LSIModel().fit(pairs, site, site_terms=terms)
        alone = LSIModel().fit(pairs, site)
        assert shared.to_dict() == alone.to_dict()
        assert np.array_equal(shared.transform(t1), alone.transform(t1))
        assert shared.nearest_pairs(t1, t2, k=3) == alone.nearest_pairs(t1, t2, k=3)
    stats = terms.stats(site)
    assert terms.stats(list(site)) is stats                 # the same texts: counted once
    assert terms.stats(site[:10]) is not stats
