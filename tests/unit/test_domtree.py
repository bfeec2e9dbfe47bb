"""DOM tree building and alignment [Shi 2006 §4]."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

from bitextcrawl.trees.dom import _number, preorder, release
from bitextcrawl.trees.domtree import (
    Node,
    TreeAligner,
    _Decoder,
    _Side,
    anchors,
    build_tree,
    prior_tag_prob,
)
from testkit.records import EN_URL, FR_URL, big_page

EN = """<html><head><title>Annual report 2004</title><script>var x = "hidden";</script>
<style>p { color: red }</style></head><body>
<div id="menu"><ul>
  <li><a href="/en/index.html">Home</a></li>
  <li><a href="about.html#top">About us</a></li>
  <li><a href="/fr/report.html">Français</a></li>
</ul></div>
<h1>Annual report 2004</h1>
<p>The Ministry published its <b>annual report</b> on 3 March 2004. It covers 12 regions.</p>
<p>Contact Jean Dupont at the Ottawa office for details.</p>
<p>Our budget grew from 1.5 billion to 2.25 billion dollars between 2001 and 2004.</p>
<img src="logo.png" alt="Government of Canada logo">
<p>Last modified: 2004-03-03</p>
</body></html>"""

FR = """<html><head><title>Rapport annuel 2004</title></head><body>
<div id="menu"><ul>
  <li><a href="/fr/index.html">Accueil</a></li>
  <li><a href="about.html#top">À propos de nous</a></li>
  <li><a href="/en/report.html">English</a></li>
</ul></div>
<h1>Rapport annuel 2004</h1>
<p>Le ministère a publié son <b>rapport annuel</b> le 3 mars 2004. Il couvre 12 régions.</p>
<p>Pour plus de détails, communiquez avec Jean Dupont au bureau d'Ottawa.</p>
<p>Notre budget est passé de 1,5 milliard à 2,25 milliards de dollars entre 2001 et 2004.</p>
<img src="logo.png" alt="Logo du gouvernement du Canada">
<p>Date de modification : 2004-03-03</p>
</body></html>"""



def _find(tree: Node, tag: str) -> list[Node]:
    return [n for n in tree.iter() if n.tag == tag]


# ---- document tree (§4) ----------------------------------------------------------------

def test_tree_keeps_elements_and_text_drops_script_and_style():
    tree = build_tree(EN, EN_URL)
    tags = {n.tag for n in tree.iter()}
    assert "script" not in tags and "style" not in tags
    assert not any("hidden" in n.text or "color" in n.text for n in tree.iter())
    assert tree.tag == "html" and tree.index == 1          # breadth-first numbering
    assert [n.text for n in _find(tree, "title")] == ["Annual report 2004"]


def test_alt_text_is_a_text_node_merged_into_img():
    tree = build_tree('<html><body><div><img src="a.png" alt="Company logo"></div>'
                      '<p>Click <img src="b.png" alt="here"> now</p></body></html>')
    imgs = _find(tree, "img")
    assert [i.text for i in imgs] == ["Company logo", "here"]
    assert all(not i.children for i in imgs)
    # ALT text joins the run of the paragraph it stands in.
    assert _find(tree, "p")[0].text == "Click here now"


def test_text_leaf_merged_into_parent_element():
    tree = build_tree("<html><body><table><tr><td>Cell one</td><td>Cell <i>two</i></td>"
                      "</tr></table></body></html>")
    tds = _find(tree, "td")
    assert tds[0].text == "Cell one" and tds[0].children == []
    assert tds[1].text == "Cell two"
    (i,) = tds[1].children
    assert i.tag == "i" and i.text == "two" and i.inline and not i.is_chunk
    assert not any(n.tag == "#text" for n in tree.iter())


def test_mixed_block_content_gets_text_nodes_in_order():
    tree = build_tree("<html><body><div>Intro text<p>Para</p>tail <b>bold</b></div>"
                      "</body></html>")
    div = _find(tree, "div")[0]
    assert [(c.tag, c.text) for c in div.children] == [
        ("#text", "Intro text"), ("p", "Para"), ("#text", "tail bold")]
    assert tree.chunks() == ["Intro text", "Para", "tail bold"]


def test_hrefs_resolved_against_base_url_and_base_element():
    tree = build_tree(EN, EN_URL)
    assert tree.links() == ["http://example.gc.ca/en/index.html",
                            "http://example.gc.ca/en/about.html",
                            "http://example.gc.ca/fr/report.html"]
    based = build_tree('<html><head><base href="http://other.org/dir/"></head><body>'
                       '<a href="x.html">x</a><a href="javascript:void(0)">j</a>'
                       '<a href="mailto:a@b.c">m</a></body></html>', EN_URL)
    assert based.links() == ["http://other.org/dir/x.html"]


def test_preorder_is_listed_once_and_released():
    """The document-order list the aligner keeps per tree is the tree's own order, whether
    the aligner's arrays made it or not; release drops it with the parents."""
    for made_by_side in (False, True):
        tree = build_tree(EN, EN_URL)
        side = _Side.of(tree) if made_by_side else None
        nodes = preorder(tree)
        assert nodes == list(tree.iter()) and preorder(tree) is nodes
        if side is not None:   # the arrays' pre-order ranks give the same order
            assert sorted(side.nodes, key=lambda n: side.order[side.nodes.index(n)]) == nodes
        release(tree)
        assert tree.memo is None and all(n.parent is None for n in nodes)


def test_anchors_numbers_and_names():
    nums, names = anchors("Jean Dupont paid 3.5 million in 2004 to the WET project.")
    assert nums == {"35", "2004"}
    assert {"dupont", "wet"} <= names and "jean" not in names   # sentence start
    nums_fr, _ = anchors("Il a payé 3,5 millions en 2004.")
    assert nums_fr == nums


def test_anchors_urls_emails_and_cjk_words():
    """URLs and e-mails are found whatever their case (texts without ``://``, ``www.`` or
    ``@`` are not searched for them); lower-case words are names only in CJK text."""
    _, names = anchors("Write to Info@Example.org or see WWW.example.org/A, HTTPS://x.org.")
    assert {"info@example.org", "www.example.org/a", "https://x.org"} <= names
    _, names = anchors("see the nginx page; version one")
    assert names == frozenset()
    _, names = anchors("配置 nginx 的 listen 指令")
    assert names == {"nginx", "listen"}


# ---- alignment (§4.1, §4.3) ------------------------------------------------------------

def test_structurally_similar_pages_give_chunk_and_link_pairs():
    t1, t2 = build_tree(EN, EN_URL), build_tree(FR, FR_URL)
    al = TreeAligner().align(t1, t2)
    assert al.method == "tree"
    pairs = [(a, b) for a, b, _ in al.text_pairs]
    assert pairs == [
        ("Annual report 2004", "Rapport annuel 2004"),
        ("Home", "Accueil"),
        ("About us", "À propos de nous"),
        ("Français", "English"),
        ("Annual report 2004", "Rapport annuel 2004"),
        ("The Ministry published its annual report on 3 March 2004. It covers 12 regions.",
         "Le ministère a publié son rapport annuel le 3 mars 2004. Il couvre 12 régions."),
        ("Contact Jean Dupont at the Ottawa office for details.",
         "Pour plus de détails, communiquez avec Jean Dupont au bureau d'Ottawa."),
        ("Our budget grew from 1.5 billion to 2.25 billion dollars between 2001 and 2004.",
         "Notre budget est passé de 1,5 milliard à 2,25 milliards de dollars entre 2001 et "
         "2004."),
        ("Government of Canada logo", "Logo du gouvernement du Canada"),
        ("Last modified: 2004-03-03", "Date de modification : 2004-03-03"),
    ]
    assert all(0.5 <= s <= 1.0 for _, _, s in al.text_pairs)
    assert al.link_pairs == [
        ("http://example.gc.ca/en/index.html", "http://example.gc.ca/fr/index.html"),
        ("http://example.gc.ca/en/about.html", "http://example.gc.ca/fr/about.html"),
        ("http://example.gc.ca/fr/report.html", "http://example.gc.ca/en/report.html"),
    ]
    assert al.n_deleted == 0 and al.n_inserted == 0
    d = json.loads(json.dumps(al.to_dict()))
    assert d["method"] == "tree" and len(d["text_pairs"]) == 10
    assert "10 text pairs, 3 link pairs" in al.report()


def test_inserted_paragraph_is_aligned_as_insertion():
    extra = ("<p>This paragraph was written for the French page only and has no English "
             "counterpart at all.</p>")
    fr = FR.replace("<p>Pour plus", extra + "<p>Pour plus")
    t1, t2 = build_tree(EN, EN_URL), build_tree(fr, FR_URL)
    al = TreeAligner().align(t1, t2)
    assert al.n_inserted == 1 and al.n_deleted == 0       # the <p>, nothing else
    inserted_text = "This paragraph was written for the French page only"
    assert not any(inserted_text in b for _, b, _ in al.text_pairs)
    aligned2 = {id(v) for _, v, _ in al.node_pairs}
    extra_node = next(n for n in t2.iter() if n.text.startswith(inserted_text))
    assert id(extra_node) not in aligned2
    pairs = {a: b for a, b, _ in al.text_pairs}
    assert pairs["Contact Jean Dupont at the Ottawa office for details."].startswith(
        "Pour plus de détails")


def test_text_similarity_callable_decides_between_equal_lengths():
    en = "<html><body><p>Apple pie recipe.</p><p>Cheese on toast.</p></body></html>"
    fr = "<html><body><p>Tarte aux pommes.</p></body></html>"
    t1, t2 = build_tree(en), build_tree(fr)
    lexicon = {("Apple pie recipe.", "Tarte aux pommes."): 0.05,
               ("Cheese on toast.", "Tarte aux pommes."): 0.9}
    calls = []

    def sim(a, b):
        calls.append((a, b))
        return lexicon.get((a, b), 0.0)

    al = TreeAligner().align(t1, t2, text_similarity=sim)
    assert [(a, b) for a, b, _ in al.text_pairs] == [("Cheese on toast.", "Tarte aux pommes.")]
    assert calls and all(isinstance(a, str) for a, _ in calls)


def test_em_training_learns_b_strong_mapping():
    rng = random.Random(7)
    words = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma".split()

    def page(tag, n, seed):
        r = random.Random(seed)
        paras = []
        for k in range(n):
            text = " ".join(r.choice(words) for _ in range(r.randint(4, 12)))
            paras.append(f"<p>Item {k + 1}: {text} <{tag}>{r.choice(words)}</{tag}>.</p>")
        return "<html><body><div>" + "".join(paras) + "</div></body></html>"

    pairs = []
    for k in range(6):
        seed = rng.random()
        pairs.append((build_tree(page("b", 5, seed)), build_tree(page("strong", 5, seed))))
    aligner = TreeAligner(n_iter=4)
    before = aligner.tag_prob("b", "strong")
    assert before == pytest.approx(prior_tag_prob("b", "strong"))
    aligner.fit(pairs)
    probs = aligner.tag_probs_
    assert probs[("b", "strong")] > before
    assert probs[("b", "strong")] > probs[("b", "b")]
    assert probs[("p", "p")] > 0.5
    # Clean pages: almost nothing deleted, so p_d drops well below its initial 0.1.
    assert aligner.delete_prob_ < 0.05
    assert 1 <= aligner.n_iter_ <= 4 and aligner.history_[0]["aligned"] > 0
    # Decodings made under the initial parameters (a caller verifying its pairs) stand in
    # for the first E-step's: the same model, those pairs not decoded again.
    initial = TreeAligner(n_iter=4)
    given = {k: initial.align(t1, t2) for k, (t1, t2) in enumerate(pairs) if k % 2 == 0}
    calls = []
    reused = TreeAligner(n_iter=4)
    align = reused.align
    reused.align = lambda *a, **kw: calls.append(1) or align(*a, **kw)
    reused.fit(pairs, initial_alignments=given)
    assert reused._params() == aligner._params()
    plain_calls = len(pairs) * aligner.n_iter_
    assert len(calls) == plain_calls - len(given)
    # Round trip of the fitted model.
    again = TreeAligner.from_dict(json.loads(json.dumps(aligner.to_dict())))
    assert again.tag_prob("b", "strong") == pytest.approx(probs[("b", "strong")])
    assert "b → strong" in aligner.report()





def test_huge_trees_fall_back_to_linear_alignment():
    # (its time: bench/bench_time_limits.py)
    t1 = build_tree(big_page(1200, "en"), EN_URL)
    t2 = build_tree(big_page(1200, "fr"), FR_URL)
    assert t1.size > 1500
    al = TreeAligner(max_nodes=1500).align(t1, t2)
    assert al.method == "linear" and "1500" in al.reason
    assert len(al.link_pairs) == 1200
    assert al.link_pairs[5] == ("http://example.gc.ca/en/p5.html",
                                "http://example.gc.ca/fr/p5.html")
    assert ("Item number 5 text 5", "Article number 5 text 5") in [
        (a, b) for a, b, _ in al.text_pairs]


def test_decoding_time_limit_falls_back():
    t1 = build_tree(big_page(150, "en"), EN_URL)
    t2 = build_tree(big_page(150, "fr"), FR_URL)
    al = TreeAligner(time_limit=1e-9).align(t1, t2)
    assert al.method == "linear" and "decoding over" in al.reason
    assert len(al.link_pairs) == 150


def test_a_process_first_pair_is_not_timed_while_the_kernels_load():
    """The compiled kernels load (or compile) before the time limit's clock starts: a
    fresh process's first pair is decoded like the rest, not aligned linearly because
    numba's start-up (0.3 s and more) took longer than the limit."""
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import json, sys, time\n"
        "from bitextcrawl.trees.domtree import TreeAligner, build_tree\n"
        "import tests.unit.test_domtree as t\n"
        "t1, t2 = build_tree(t.EN, t.EN_URL), build_tree(t.FR, t.FR_URL)\n"
        "start = time.monotonic()\n"
        "al = TreeAligner(time_limit=0.1).align(t1, t2)\n"
        "print(json.dumps([al.method, time.monotonic() - start, 'numba' in sys.modules]))")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True,
                         text=True, check=True).stdout
    method, seconds, loaded = json.loads(out.splitlines()[-1])
    assert loaded and seconds > 0.1     # the kernels loaded within the call, over the limit
    assert method == "tree"


def test_band_pruning_on_large_pairs_still_aligns():
    t1 = build_tree(big_page(150, "en"), EN_URL)
    t2 = build_tree(big_page(150, "fr"), FR_URL)
    al = TreeAligner(band_min_pairs=1000).align(t1, t2)
    assert al.method == "tree" and al.pruned
    assert len(al.link_pairs) == 150 and al.n_deleted == 0


def test_node_costs_band_and_text_similarity():
    """The cost matrix (§4.1): INF outside the band and the same inside; the empty-text
    cost where one node has text; the similarity's −log only on chunk pairs in the band."""
    s1, s2 = _Side.of(build_tree(EN, EN_URL)), _Side.of(build_tree(FR, FR_URL))
    aligner = TreeAligner(band=0.2)
    whole, _ = aligner._substitution(s1, s2, None, False)
    plain, _ = aligner._substitution(s1, s2, None, True)
    halved, _ = aligner._substitution(s1, s2, lambda a, b: 0.5, True)
    far = np.abs(s1.rank[:, None] - s2.rank[None, :]) > 0.2
    assert np.isinf(plain[far]).all() and np.isinf(halved[far]).all()
    assert np.isfinite(whole).all() and (plain[~far] == whole[~far]).all()
    one = (s1.lengths[:, None] > 0) ^ (s2.lengths[None, :] > 0)
    assert (whole[one] > -np.log(aligner.empty_text_prob)).all()
    changed = ~far & (halved != plain)
    assert changed.any() and not (changed & ~(s1.chunk[:, None] & s2.chunk[None, :])).any()
    assert np.allclose(halved[changed] - plain[changed], -np.log(0.5))


# ---- the decoder against its definition --------------------------------------------------

def _random_tree(rng, n):
    root = Node(rng.choice("abc"))
    nodes = [root]
    for _ in range(n - 1):
        child = Node(rng.choice("abc"))
        rng.choice(nodes).append(child)
        nodes.append(child)
    return _number(root)


def _random_pairs(seed: int, smallest: int, largest: int, n: int = 60):
    """``n`` pairs of random trees: (tree 1, tree 2, their sides, random substitution costs)."""
    rng = random.Random(seed)
    for _ in range(n):
        t1 = _random_tree(rng, rng.randint(smallest, largest))
        t2 = _random_tree(rng, rng.randint(smallest, largest))
        s1, s2 = _Side.of(t1), _Side.of(t2)
        yield t1, t2, s1, s2, np.array([[rng.uniform(0.1, 6.0) for _ in s2.nodes]
                                        for _ in s1.nodes])


@pytest.mark.parametrize("splice", [True, False])
def test_decoder_alignment_is_consistent_and_preserves_order_and_hierarchy(splice):
    for t1, t2, s1, s2, S in _random_pairs(3, 1, 9):
        dec = _Decoder(s1, s2, S, 2.3, 2.0, splice)
        dec.run(None)
        total, pairs = dec.trace()
        k = len(pairs)
        assert total == pytest.approx(sum(S[i, j] for i, j in pairs)
                                      + (len(s1.nodes) - k) * 2.3 + (len(s2.nodes) - k) * 2.0)
        assert total <= len(s1.nodes) * 2.3 + len(s2.nodes) * 2.0 + 1e-9
        pre1 = {id(n): r for r, n in enumerate(t1.iter())}
        pre2 = {id(n): r for r, n in enumerate(t2.iter())}

        def is_ancestor(a, b):
            p = b.parent
            while p is not None:
                if p is a:
                    return True
                p = p.parent
            return False

        for (a1, b1), (a2, b2) in itertools.permutations(pairs, 2):
            u1, u2, v1, v2 = s1.nodes[a1], s1.nodes[a2], s2.nodes[b1], s2.nodes[b2]
            assert is_ancestor(u1, u2) == is_ancestor(v1, v2)
            assert (pre1[id(u1)] < pre1[id(u2)]) == (pre2[id(v1)] < pre2[id(v2)])


# ---- real pages ---------------------------------------------------------------------------

def test_real_wet_license_pair(shared_data):
    wet = shared_data / "wet"
    t1 = build_tree((wet / "License-en.html").read_text("utf-8"), "http://wet/License-en.html")
    t2 = build_tree((wet / "Licence-fr.html").read_text("utf-8"), "http://wet/Licence-fr.html")
    al = TreeAligner().align(t1, t2)
    assert al.method == "tree"
    assert ("http://wet/index-en.html", "http://wet/index-fr.html") in al.link_pairs
    assert ("http://wet/Licence-fr.html", "http://wet/License-en.html") in al.link_pairs
    assert ("Skip to main content", "Passer au contenu principal") in [
        (a, b) for a, b, _ in al.text_pairs]


def test_tree_of_html_is_the_tree_of_its_lxml_html_document():
    """``build_tree`` parses HTML into lxml's own elements: the same tree, node for node,
    as from lxml.html's document (comments, entities, a processing instruction, a base
    element, inline and block text, ALT text)."""
    from bitextcrawl.pages.text import parse
    from bitextcrawl.trees.dom import preorder

    html = ("<?xml version='1.0'?><html><head><title>T &amp; t</title><base href='/d/'>"
            "</head><body><!-- c -->lead<p>Para <b>bold</b> &eacute;t&#233; <a href='x.html#f'>"
            "link</a><img src='i.png' alt='Alt'></p><?pi x?><ul><li>one</li><li><i>two</i>"
            "</li></ul><script>s()</script>tail<table><tr><td>cell</td></tr></table>"
            + "".join(f"<div><span>item {k}</span> of <em>{k}</em></div>" for k in range(20))
            + "</body></html>")
    fields = ("tag", "text", "href", "inline", "index", "depth")

    def nodes(tree):
        return [tuple(getattr(n, f) for f in fields) for n in preorder(tree)]

    got = nodes(build_tree(html, "http://s.test/a/b.html"))
    assert got == nodes(build_tree(parse(html), "http://s.test/a/b.html"))
    assert len(got) > 40 and ("a", "link", "http://s.test/d/x.html", True) in \
        [n[:4] for n in got]


class _TablesAgain(_Decoder):
    """The traceback with every forest's tables made again (none handed on by the
    tree's check): the slow path of :meth:`_Decoder.trace`."""

    handed = 0

    def _trace_tree(self, u, v, pairs, tasks):
        n = len(tasks)
        super()._trace_tree(u, v, pairs, tasks)
        if len(tasks) > n and len(tasks[-1]) > 3:
            type(self).handed += 1
            tasks[-1] = tasks[-1][:3]


@pytest.mark.parametrize("splice", [True, False])
def test_traceback_with_the_checks_tables_equals_the_tables_made_again(splice):
    """A tree's check in the traceback makes the tables of forests without a closed form,
    and the forest's traceback reads them: the same cost as ``_forest``'s, bit for bit,
    and the same alignment as with the tables made again."""
    for _, _, s1, s2, S in _random_pairs(5, 5, 30):
        fast = _Decoder(s1, s2, S, 2.3, 2.0, splice)
        slow = _TablesAgain(s1, s2, S, 2.3, 2.0, splice)
        for dec in (fast, slow):
            dec.run(None)
        assert fast.trace() == slow.trace()
        for u, v in itertools.product(range(len(s1.nodes)), range(len(s2.nodes))):
            ci, cj = fast.ch1[u], fast.ch2[v]
            if len(ci) >= 2 and len(cj) >= 2:
                assert fast._tables(ci, cj)[0] == fast._cost(ci, cj)
    assert _TablesAgain.handed > 50
