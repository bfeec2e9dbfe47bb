"""Lists two pages order differently, paired item by item by their links to known page
pairs (``bitext/chunks.reordered_lists``)."""

from __future__ import annotations

from bitextcrawl.bitext.chunks import reordered_lists
from bitextcrawl.trees.dom import build_tree

H = "http://example.org"
EN = [("a", "Alpha is the first entry of the list."), ("b", "Beta comes second in English."),
      ("c", "Gamma closes the English list.")]
FR = {"a": "Alpha est la première entrée.", "b": "Bêta vient en second en anglais.",
      "c": "Gamma ferme la liste anglaise."}
KNOWN = tuple((f"{H}/en/{k}.html", f"{H}/fr/{k}.html") for k, _ in EN)


def _page(lang, items, list_tag="ul", item_tag="li"):
    body = "".join(f'<{item_tag}><p>{text}</p><a href="{H}/{lang}/{k}.html">more</a></{item_tag}>'
                   for k, text in items)
    return build_tree(f"<html><body><{list_tag}>{body}</{list_tag}></body></html>",
                      f"{H}/{lang}/list.html")


def _texts(found):
    return {(" ".join(n.text for n in a), " ".join(n.text for n in b)) for a, b, _ in found.pairs}


def test_a_list_in_another_order_is_matched_by_its_links():
    fr = [(k, FR[k]) for k in ("c", "a", "b")]
    found = reordered_lists(_page("en", EN), _page("fr", fr), KNOWN)
    pairs = _texts(found)
    assert (EN[0][1], FR["a"]) in pairs and (EN[2][1], FR["c"]) in pairs
    assert not any(e == EN[0][1] and f != FR["a"] for e, f in pairs)


def test_the_same_order_is_left_to_the_tree_alignment():
    fr = [(k, FR[k]) for k, _ in EN]
    assert not reordered_lists(_page("en", EN), _page("fr", fr), KNOWN)


def test_blocks_of_a_layout_are_no_list():
    fr = [(k, FR[k]) for k in ("c", "a", "b")]
    found = reordered_lists(_page("en", EN, "div", "div"), _page("fr", fr, "div", "div"), KNOWN)
    assert not found


def _by_position(tree1, tree2) -> set:
    """The chunk pairs of an alignment by position: the k-th chunk with the k-th."""
    from bitextcrawl.trees.dom import preorder
    c1 = [n for n in preorder(tree1) if n.is_chunk]
    c2 = [n for n in preorder(tree2) if n.is_chunk]
    return {(id(a), id(b)) for a, b in zip(c1, c2)}


def test_the_same_order_with_an_item_missing_is_matched_by_its_links():
    # French leaves "b" untranslated: the order is kept, and an alignment by position
    # pairs English "b" with French "c"
    en, fr = _page("en", EN), _page("fr", [(k, FR[k]) for k in ("a", "c")])
    found = reordered_lists(en, fr, KNOWN, aligned=_by_position(en, fr))
    pairs = _texts(found)
    assert (EN[0][1], FR["a"]) in pairs and (EN[2][1], FR["c"]) in pairs
    assert not any(e == EN[1][1] for e, _ in pairs)


def test_the_same_order_aligned_so_is_left_to_the_tree_alignment():
    en, fr = _page("en", EN), _page("fr", [(k, FR[k]) for k, _ in EN])
    assert not reordered_lists(en, fr, KNOWN, aligned=_by_position(en, fr))
