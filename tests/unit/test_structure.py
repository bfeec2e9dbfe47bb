"""STRAND alignment features W, M, N, L1, L2 [Assylbekov 2015 §2] and aligned chunks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from bitextcrawl.pages.strand import linearise
from bitextcrawl.pairing.structure import (
    StrandFeatures,
    Vocabulary,
    encode,
    features_matrix,
    pair_features_matrix,
    strand_features,
)

# The paper's example (§2): the English page has an extra <h1> block.
PAPER_EN = ["[START:HTML]", "[START:TITLE]", "[Chunk:23]", "[END:TITLE]", "[START:BODY]",
            "[START:H1]", "[Chunk:23]", "[END:H1]", "[Chunk:72]"]
PAPER_KK = ["[START:HTML]", "[START:TITLE]", "[Chunk:21]", "[END:TITLE]", "[START:BODY]",
            "[Chunk:69]"]


def test_paper_example():
    f = strand_features(PAPER_EN, PAPER_KK)
    assert (f.w, f.m, f.n) == (3, 9, 6)
    assert (f.l1, f.l2) == (23 + 23 + 72, 21 + 69)
    assert f.lcs == 6
    # The title chunks align; the body chunk 72 ↔ 69 as in the paper's alignment.
    assert f.aligned_chunks == [(0, 0), (2, 1)]


def test_paper_example_symmetric():
    f = strand_features(PAPER_KK, PAPER_EN)
    assert (f.w, f.m, f.n, f.l1, f.l2) == (3, 6, 9, 90, 118)
    assert f.aligned_chunks == [(0, 0), (1, 2)]


def test_chunks_match_whatever_their_length_tags_do_not():
    assert strand_features(["[Chunk:1]"], ["[Chunk:999]"]).w == 0
    assert strand_features(["[START:P]"], ["[START:DIV]"]).w == 2
    assert strand_features(["[START:P]"], ["[Chunk:3]"]).w == 2


def test_empty_sequences():
    f = strand_features([], [])
    assert (f.w, f.m, f.n, f.l1, f.l2, f.aligned_chunks) == (0, 0, 0, 0, 0, [])
    f = strand_features(PAPER_EN, [])
    assert (f.w, f.m, f.n) == (9, 9, 0)


def test_without_alignment_gives_same_numbers():
    a = strand_features(PAPER_EN, PAPER_KK)
    b = strand_features(PAPER_EN, PAPER_KK, align_chunks=False)
    assert a.as_row() == b.as_row() and b.aligned_chunks == []


def test_encoded_input_and_batch_matrix():
    e1, e2 = encode(PAPER_EN), encode(PAPER_KK)
    assert strand_features(e1, e2).as_row() == strand_features(PAPER_EN, PAPER_KK).as_row()
    pages1 = {"en": PAPER_EN, "en2": PAPER_KK}
    pages2 = {"kk": PAPER_KK}
    pairs = [("en", "kk"), ("en2", "kk")]
    X = pair_features_matrix(pages1, pages2, pairs)
    ref = features_matrix([strand_features(pages1[a], pages2[b]) for a, b in pairs])
    assert X.shape == (2, 5) and np.array_equal(X, ref)
    assert features_matrix([]).shape == (0, 5)
    assert pair_features_matrix({}, {}, []).shape == (0, 5)


def test_real_linearisation():
    en = lxml_html.fromstring("<html><head><title>The Republic of Kazakhstan</title></head>"
                              "<body><h1>The Republic of Kazakhstan</h1><p>A unitary state.</p>"
                              "<p>Second <b>para</b>.</p></body></html>")
    fr = lxml_html.fromstring("<html><head><title>La République du Kazakhstan</title></head>"
                              "<body><p>Un État unitaire.</p><p>Second para.</p></body></html>")
    t1, c1 = linearise(en)
    t2, c2 = linearise(fr)
    f = strand_features(t1, t2)
    assert f.w == 3  # [START:H1] chunk [END:H1]
    assert f.l1 == sum(map(len, c1)) and f.l2 == sum(map(len, c2))
    assert [(c1[i], c2[j]) for i, j in f.aligned_chunks] == [
        ("The Republic of Kazakhstan", "La République du Kazakhstan"),
        ("A unitary state.", "Un État unitaire."),
        ("Second para.", "Second para."),
    ]


# ---------------------------------------------------------------- property tests

TOKENS = st.sampled_from(["[START:P]", "[END:P]", "[START:DIV]", "[END:DIV]", "[START:H1]",
                          "[END:H1]", "[START:BR]", "[Chunk:5]", "[Chunk:17]", "[Chunk:120]"])
SEQ = st.lists(TOKENS, max_size=40)


def _lcs_dp(a, b):
    sym = lambda t: "C" if t.startswith("[Chunk:") else t  # noqa: E731
    a, b = [sym(t) for t in a], [sym(t) for t in b]
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            dp[i + 1][j + 1] = dp[i][j] + 1 if a[i] == b[j] else max(dp[i][j + 1], dp[i + 1][j])
    return dp[-1][-1]


@settings(max_examples=200, deadline=None)
@given(SEQ, SEQ)
def test_w_is_m_plus_n_minus_twice_lcs(a, b):
    f = strand_features(a, b)
    assert f.m == len(a) and f.n == len(b)
    assert f.w == f.m + f.n - 2 * _lcs_dp(a, b)
    assert abs(f.m - f.n) <= f.w <= f.m + f.n


@settings(max_examples=200, deadline=None)
@given(SEQ, SEQ)
def test_symmetry_and_alignment_is_monotone(a, b):
    f, g = strand_features(a, b), strand_features(b, a)
    assert (f.w, f.m, f.n, f.l1, f.l2) == (g.w, g.n, g.m, g.l2, g.l1)
    chunks_a = sum(t.startswith("[Chunk:") for t in a)
    chunks_b = sum(t.startswith("[Chunk:") for t in b)
    pairs = f.aligned_chunks
    assert len(pairs) <= min(chunks_a, chunks_b)
    assert all(0 <= i < chunks_a and 0 <= j < chunks_b for i, j in pairs)
    assert all(p[0] < q[0] and p[1] < q[1] for p, q in zip(pairs, pairs[1:]))


@settings(max_examples=100, deadline=None)
@given(SEQ)
def test_identical_pages_align_completely(a):
    f = strand_features(a, list(a))
    n_chunks = sum(t.startswith("[Chunk:") for t in a)
    assert f.w == 0 and f.aligned_chunks == [(i, i) for i in range(n_chunks)]
    assert isinstance(f, StrandFeatures) and f.to_dict()["w"] == 0


# ------------------------------------------------------------ site template [Assylbekov 2015 §4]

from bitextcrawl.pages.strand import is_chunk  # noqa: E402
from bitextcrawl.pairing.structure import site_template_mask, strip_site_template  # noqa: E402

MENU = ["[START:HTML]", "[START:BODY]", "[START:UL]", "[START:LI]", "[Chunk:4]", "[END:LI]",
        "[START:LI]", "[Chunk:8]", "[END:LI]", "[END:UL]"]
FOOT = ["[START:DIV]", "[Chunk:21]", "[END:DIV]", "[END:BODY]", "[END:HTML]"]


def _content(i: int) -> list[str]:
    out = ["[START:H1]", f"[Chunk:{10 + i}]", "[END:H1]"]
    for j in range(1 + i % 3):
        out += ["[START:P]", f"[Chunk:{100 + 7 * i + j}]", "[END:P]"]
    return out


def test_template_is_stripped_and_content_kept():
    site = {f"u{i}": MENU + _content(i) + FOOT for i in range(10)}
    out = strip_site_template(site)
    for i in range(10):
        content = _content(i)
        got = out[f"u{i}"]
        # every content chunk stays; menu and footer go (tags next to them, shared by
        # all pages, may go with them)
        assert [t for t in got if is_chunk(t)] == [t for t in content if is_chunk(t)]
        assert len(content) - 2 <= len(got) <= len(content)
        assert "[START:UL]" not in got and "[Chunk:21]" not in got
    masks = site_template_mask(site)
    assert sum(masks["u0"]) >= len(MENU) + len(FOOT)


def test_template_share_and_small_sites():
    site = {f"u{i}": MENU + _content(i) + FOOT for i in range(10)}
    # a block on 7 of 10 pages is not template at share 0.8, but is at 0.5
    for i in range(7):
        site[f"u{i}"] = site[f"u{i}"][:-5] + ["[START:PRE]", "[Chunk:33]", "[END:PRE]",
                                              "[START:HR]", "[Chunk:2]"] + FOOT
    assert "[START:PRE]" in strip_site_template(site)["u0"]
    assert "[START:PRE]" not in strip_site_template(site, share=0.5)["u0"]
    # fewer than min_pages pages: nothing is stripped
    few = {k: v for k, v in list(site.items())[:3]}
    assert strip_site_template(few) == few


def test_stripped_pages_feed_pair_features_matrix():
    site1 = {f"e{i}": MENU + _content(i) + FOOT for i in range(8)}
    menu2 = [t.replace("[Chunk:4]", "[Chunk:6]") for t in MENU]  # the translated menu
    site2 = {f"f{i}": menu2 + _content(i) + FOOT for i in range(8)}
    site2["f_empty"] = menu2 + FOOT  # a page that is all template
    pairs = [("e1", "f1"), ("e1", "f2"), ("e3", "f_empty")]
    whole = pair_features_matrix(site1, site2, pairs)
    bare = pair_features_matrix(strip_site_template(site1), strip_site_template(site2), pairs)
    assert bare[0, 0] == 0 and bare[1, 0] > 0                 # the counterpart aligns exactly
    assert np.all(bare[:, 1] < whole[:, 1])                   # M counts content only
    # the look-alike's relative cost grows once the shared template is gone
    assert bare[1, 0] / (bare[1, 1] + bare[1, 2]) > whole[1, 0] / (whole[1, 1] + whole[1, 2])
    assert bare[2, 2] == 0 and bare[2, 0] == bare[2, 1]       # nothing left of f_empty


def test_vocabulary_per_batch():
    # code points come from the batch's own vocabulary: pages encoded apart compare as
    # if encoded together, and no table is left behind at module level
    e1, e2 = encode(PAPER_EN), encode(PAPER_KK)
    assert e1.vocabulary is not e2.vocabulary
    assert strand_features(e1, e2).as_row() == strand_features(PAPER_EN, PAPER_KK).as_row()
    vocabulary = Vocabulary()
    s1, s2 = vocabulary.encode(PAPER_EN), vocabulary.encode(PAPER_KK)
    assert vocabulary.encode(s1) is s1 and s2.vocabulary is vocabulary
    X = pair_features_matrix({"en": s1}, {"kk": e2}, [("en", "kk")], vocabulary)
    assert np.array_equal(X, pair_features_matrix({"en": PAPER_EN}, {"kk": PAPER_KK},
                                                  [("en", "kk")]))
    assert len(Vocabulary().encode(["[START:P]", "[Chunk:3]"]).vocabulary.codes) == 2
