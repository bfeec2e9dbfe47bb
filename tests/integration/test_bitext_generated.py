"""Sentence pairs (bitext.tsv) against the known sentence alignments of generated sites.

How the output is scored — exactly:

* Text is compared after whitespace normalisation (``" ".join(s.split())``), exact match.
* Gold: the sentence pairs of the main text of every gold page pair
  (``GeneratedSite.sentence_gold``: article paragraphs shared by both versions, the intro
  paragraphs of home, about and section index pages), as distinct (sentence_1,
  sentence_2) pairs — ``bitext.tsv`` writes each distinct sentence pair once (a sentence
  pair repeated on several pages, like an index page's intro, is one row), so the gold
  is taken the same way.
* Recall = gold pairs present among the output rows / gold pairs.
* Precision is measured on the *main-text rows*: rows whose sentence_1 is one or more
  whole sentences of a ``<main>`` paragraph (``<p>``) of the url_1 page, or whose
  sentence_2 is so of the url_2 page ("whole": it starts the paragraph or follows a
  sentence end and a space, and ends the paragraph or ends with . ! ? before a space;
  a price "€97" inside a sentence is not). Every other row is *boilerplate* — titles,
  menus, breadcrumbs, list items, table cells, captions, footers — for which the
  generator has no gold; those
  rows are counted and printed, not judged. Main-text rows include the paragraphs that
  only one version has (``plan.only``: they have no gold counterpart, so any row made
  from them is wrong) and rows of wrongly paired pages, and a row merging two sentences
  (a 2-1 bead) is wrong unless the gold has it: the judged set is strict.
"""

from __future__ import annotations

import json

import pytest

from bitextcrawl.bitext.extract import write_bitext
from bitextcrawl.bitext.similarity import lsi_text_similarity, site_text_similarity
from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.formats.tsv import read_bitext_tsv
from bitextcrawl.outputs import run_closing
from bitextcrawl.pairing.align import AlignConfig, Pair
from bitextcrawl.pairing.lsi import LSIModel
from testkit.records import site_records
from testkit.sentence_gold import main_paragraphs, norm, whole_sentences_of
from tests.conftest import run_crawl

pytestmark = pytest.mark.integration

MIN_PRECISION = 0.95
MIN_RECALL = 0.90


def score_bitext(site, rows) -> dict:
    """Precision on main-text rows, recall on gold sentence pairs (module docstring)."""
    gold = {(norm(a), norm(b)) for pairs in site.sentence_gold.values() for a, b in pairs}
    paragraphs: dict[str, list[str]] = {}

    def inside(sentence: str, url: str) -> bool:
        if url not in paragraphs:
            res = site.resources.get(url)
            paragraphs[url] = main_paragraphs(res.body.decode("utf-8")) if res else []
        return any(whole_sentences_of(sentence, p) for p in paragraphs[url])

    out = {(norm(r["sentence_1"]), norm(r["sentence_2"])): r for r in rows}
    judged = [k for k, r in out.items()
              if inside(k[0], r["url_1"]) or inside(k[1], r["url_2"])]
    correct = sum(k in gold for k in judged)
    wrong = [k for k in judged if k not in gold]
    return {
        "precision": correct / len(judged) if judged else 0.0,
        "recall": len(gold & set(out)) / len(gold) if gold else 0.0,
        "judged": len(judged), "correct": correct, "gold": len(gold),
        "boilerplate_rows": len(out) - len(judged), "rows": len(out),
        "wrong_examples": wrong[:5],
        "missed_examples": sorted(gold - set(out))[:5],
    }


# ---- a real crawl -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    spec = SiteSpec(scheme="mixed", n_pairs=40, third_lang="de", n_third=6,
                    untranslated_fraction=0.1, seed=21)
    port = free_port()
    site = generate_site(spec, port)
    out = tmp_path_factory.mktemp("bitext_crawl")
    with serve_site(site, port):
        run_crawl(site.start_url, out)
    return site, out


def test_crawl_bitext_against_gold(crawled):
    site, out = crawled
    rows = read_bitext_tsv(out / "bitext.tsv")
    scores = score_bitext(site, rows)
    print("crawl bitext vs sentence gold:", json.dumps(scores, ensure_ascii=False))
    assert scores["precision"] >= MIN_PRECISION, scores
    assert scores["recall"] >= MIN_RECALL, scores
    # The TMX holds the same sentence pairs.
    tmx = (out / "bitext.tmx").read_text(encoding="utf-8")
    assert tmx.count("<tu>") + tmx.count("<tu ") == len(rows)


def test_crawl_parallel_links_file(crawled):
    site, out = crawled
    gold = set(site.gold_pairs)
    links = [json.loads(line) for line in (out / "parallel_links.jsonl").open()]
    assert links
    langs = site.page_langs
    judged = [(d["url_1"], d["url_2"]) for d in links
              if langs.get(d["url_1"]) == "en" and langs.get(d["url_2"]) == "fr"]
    precision = sum(p in gold for p in judged) / len(judged)
    print(f"parallel links in en-fr: {len(judged)}, precision vs gold pairs {precision:.3f}")
    assert precision >= 0.9


# ---- the closing pipeline on generated pages (several URL schemes) ------------------------

@pytest.mark.parametrize("scheme,switch,seed", [("prefix", True, 1), ("opaque", False, 2),
                                                ("query", True, 3)])
def test_closing_bitext_against_gold(tmp_path, scheme, switch, seed):
    site = generate_site(SiteSpec(scheme=scheme, n_pairs=30, language_switch=switch,
                                  third_lang="de", n_third=4, seed=seed), 8000)
    run_closing(site_records(site), AlignConfig(langs=("en", "fr")), str(tmp_path))
    rows = read_bitext_tsv(tmp_path / "bitext.tsv")
    # the switch bar ("English", "Français", "Deutsch") aligned with itself is no bitext
    names = {"English", "Français", "Deutsch"}
    assert not [r for r in rows if r["sentence_1"] in names and r["sentence_2"] in names]
    scores = score_bitext(site, rows)
    print(f"{scheme}: {json.dumps(scores, ensure_ascii=False)}")
    assert scores["precision"] >= MIN_PRECISION, scores
    assert scores["recall"] >= MIN_RECALL, scores


# ---- text translation probability from the site's LSI space (optional) --------------------

@pytest.fixture(scope="module")
def small_site():
    site = generate_site(SiteSpec(scheme="prefix", n_pairs=30, third_lang=None, seed=4), 8000)
    index = {r.url: r for r in site_records(site, langs=("en", "fr"))}
    pairs = [Pair(a, b, "en", "fr", 1.0, ["gold"], {}) for a, b in site.gold_pairs]
    return site, index, pairs


def test_lsi_text_similarity_separates_translations(small_site):
    site, index, pairs = small_site
    model = LSIModel().fit([(index[p.url_1].text, index[p.url_2].text) for p in pairs],
                           [r.text for r in index.values()])
    sim = lsi_text_similarity(model)
    gold = [(a, b) for v in site.sentence_gold.values() for a, b in v if len(a) > 40]
    same = [sim(a, b) for a, b in gold[:100]]
    other = [sim(a, gold[(i + 37) % len(gold)][1]) for i, (a, _) in enumerate(gold[:100])]
    assert sum(same) / len(same) > 0.9
    assert sum(other) / len(other) < 0.4
    # Too few known terms: no evidence either way.
    assert sim("Home", "Accueil") == 1.0
    assert sim("2024", "2024") == 1.0


def test_write_bitext_with_text_similarity(small_site, tmp_path):
    site, index, pairs = small_site
    sims = site_text_similarity(pairs, index)
    assert set(sims) == {("en", "fr")}
    counts = write_bitext(pairs, index, str(tmp_path), text_similarity=sims)
    assert counts["bitext/bitext/en-fr/text_similarity"] == 1
    scores = score_bitext(site, read_bitext_tsv(tmp_path / "bitext.tsv"))
    print("with LSI text similarity:", json.dumps(scores, ensure_ascii=False))
    assert scores["precision"] >= MIN_PRECISION and scores["recall"] >= MIN_RECALL
    # A factory (l1, l2) -> callable is accepted too; None for a pair switches it off.
    out2 = tmp_path / "factory"
    out2.mkdir()
    counts = write_bitext(pairs, index, str(out2), text_similarity=lambda l1, l2: None)
    assert "bitext/bitext/en-fr/text_similarity" not in counts
    assert counts["bitext/bitext/sentence_pairs"] > 0
