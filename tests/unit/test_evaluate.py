"""Pair evaluation: precision/recall/F1 and WMT16 recall under the 1-1 rule."""

from __future__ import annotations

import json

import pytest

from bitextcrawl.pairing.evaluate import evaluate, read_gold, read_pairs_jsonl, wmt16_one_to_one
from tests.conftest import SHARED_DATA

GOLD = [("a1", "b1"), ("a2", "b2"), ("a3", "b3")]


def test_counts_precision_recall_f1():
    predicted = [("a1", "b1"), ("a2", "b2"), ("a4", "b4"), ("a2", "b2")]  # a duplicate
    r = evaluate(GOLD, predicted)
    assert (r["tp"], r["fp"], r["fn"]) == (2, 1, 1)
    assert r["predicted"] == 3 and r["gold"] == 3
    assert r["precision"] == pytest.approx(2 / 3)
    assert r["recall"] == pytest.approx(2 / 3)
    assert r["f1"] == pytest.approx(2 / 3)
    assert r["wmt16_recall"] == pytest.approx(2 / 3)


def test_wmt16_one_to_one_rule_keeps_first_occurrence():
    # a1 is proposed twice (wrong target first), b2 is reused by a later pair.
    predicted = [("a1", "b2"), ("a1", "b1"), ("a2", "b2"), ("a3", "b3")]
    assert wmt16_one_to_one(predicted) == [("a1", "b2"), ("a3", "b3")]
    r = evaluate(GOLD, predicted)
    # Without the rule, (a1, b1) and (a2, b2) count as found ...
    assert (r["tp"], r["fp"], r["fn"]) == (3, 1, 0) and r["recall"] == 1.0
    # ... under it, only (a3, b3) survives among the gold pairs.
    assert r["wmt16_kept"] == 2 and r["wmt16_found"] == 1
    assert r["wmt16_recall"] == pytest.approx(1 / 3)
    assert r["wmt16_precision"] == pytest.approx(1 / 2)
    # Order matters: the right pair first recovers full recall.
    r = evaluate(GOLD, [("a1", "b1"), ("a1", "b2"), ("a2", "b2"), ("a3", "b3")])
    assert r["wmt16_recall"] == 1.0


def test_direction_and_unordered_matching():
    swapped = [(b, a) for a, b in GOLD]
    assert evaluate(GOLD, swapped)["tp"] == 0
    r = evaluate(GOLD, swapped, ordered=False)
    assert r["tp"] == 3 and r["wmt16_recall"] == 1.0
    # Unordered 1-1: a URL may not appear on either side twice.
    assert wmt16_one_to_one([("x", "y"), ("y", "z")], ordered=False) == [("x", "y")]


def test_empty_inputs():
    r = evaluate([], [])
    assert r["precision"] == r["recall"] == r["f1"] == r["wmt16_recall"] == 0.0
    r = evaluate(GOLD, [])
    assert r["fn"] == 3 and r["recall"] == 0.0


def test_read_gold_with_base(tmp_path):
    path = tmp_path / "gold.tsv"
    path.write_text("# comment\nLicense-en.html\tLicence-fr.html\n\n"
                    "demos/acr/acr-en.html\tdemos/acr/acr-fr.html\n"
                    "http://other.org/en\thttp://other.org/fr\n", encoding="utf-8")
    assert read_gold(path)[0] == ("License-en.html", "Licence-fr.html")
    pairs = read_gold(path, base="http://127.0.0.1:8000")
    assert pairs == [
        ("http://127.0.0.1:8000/License-en.html", "http://127.0.0.1:8000/Licence-fr.html"),
        ("http://127.0.0.1:8000/demos/acr/acr-en.html",
         "http://127.0.0.1:8000/demos/acr/acr-fr.html"),
        ("http://other.org/en", "http://other.org/fr"),
    ]
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nonly-one-field\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.tsv:2"):
        read_gold(bad)


def test_read_pairs_jsonl_keeps_order(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = [{"url_1": "a2", "url_2": "b2", "score": 0.9},
            {"url_1": "a1", "url_2": "b1", "score": 0.8}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n", encoding="utf-8")
    assert read_pairs_jsonl(path) == [("a2", "b2"), ("a1", "b1")]
    path.write_text('{"url_1": "a"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="pairs.jsonl:1"):
        read_pairs_jsonl(path)


def test_real_wet_gold():
    gold_file = SHARED_DATA / "wet-gold.tsv"
    if not gold_file.exists():
        pytest.skip(f"real data not found at {gold_file} (../shared/data beside the project)")
    gold = read_gold(gold_file, base="http://127.0.0.1:8000/")
    assert len(gold) == 250
    assert all(a.startswith("http://127.0.0.1:8000/") for a, _ in gold)
    r = evaluate(gold, gold)
    assert r["precision"] == r["recall"] == r["wmt16_recall"] == 1.0


def test_evaluate_silver_judges_only_pairs_touching_gold():
    from bitextcrawl.pairing.evaluate import evaluate_silver

    gold = [("a1", "a2"), ("b1", "b2"), ("c1", "c2")]
    predicted = [("a1", "a2"), ("b1", "x2"), ("y1", "y2")]  # y: unjudgeable
    s = evaluate_silver(gold, predicted, found_pages={"a1", "a2", "b1", "b2", "x2"})
    assert (s["judged"], s["correct"]) == (2, 1) and s["precision"] == 0.5
    assert (s["findable"], s["found"]) == (2, 1) and s["recall"] == 0.5
    assert s["f1"] == 0.5
    assert evaluate_silver(gold, predicted)["findable"] == 3


def test_read_pairs_jsonl_for_two_languages_in_the_gold_order(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in [
        {"url_1": "e1", "url_2": "z1", "lang_1": "en", "lang_2": "zh"},
        {"url_1": "z2", "url_2": "e2", "lang_1": "zh", "lang_2": "en"},
        {"url_1": "e3", "url_2": "r3", "lang_1": "en", "lang_2": "ru"}]) + "\n")
    assert read_pairs_jsonl(path) == [("e1", "z1"), ("z2", "e2"), ("e3", "r3")]
    assert read_pairs_jsonl(path, ("en", "zh")) == [("e1", "z1"), ("e2", "z2")]


def _run_evaluate(capsys, **options):
    """``scrapy evaluate`` with ``options`` (its argparse names); (exit status, stdout,
    stderr)."""
    import argparse

    from bitextcrawl.commands.evaluate import Command

    opts = argparse.Namespace(**{"langs": None, "base": None, "directory_index": None,
                                 **options})
    try:
        Command().run([], opts)
        status = 0
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_evaluate_command_langs_scores_the_gold_language_pair_only(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(json.dumps(p) for p in [
        {"url_1": "e1", "url_2": "r1", "lang_1": "en", "lang_2": "ru"},
        {"url_1": "e1", "url_2": "z1", "lang_1": "en", "lang_2": "zh"}]) + "\n")
    gold = tmp_path / "gold.tsv"
    gold.write_text("e1\tr1\n")
    status, out, err = _run_evaluate(capsys, gold=str(gold), pairs=str(pairs))
    assert status == 0 and json.loads(out)["precision"] == 0.5
    assert "2 language pairs (en-ru, en-zh)" in err and "--langs" in err
    status, out, err = _run_evaluate(capsys, gold=str(gold), pairs=str(pairs), langs="en,ru")
    assert status == 0 and json.loads(out)["precision"] == 1.0 and err == ""
    status, out, err = _run_evaluate(capsys, gold=str(gold), pairs=str(pairs),
                                     langs="en,ru,zh")
    assert status == 2 and err.count("\n") == 1 and "two languages" in err


def test_evaluate_command_malformed_gold_is_one_line(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"url_1": "e1", "url_2": "r1", "lang_1": "en",
                                 "lang_2": "ru"}) + "\n")
    gold = tmp_path / "gold.tsv"
    gold.write_text("e1 r1\n")
    status, out, err = _run_evaluate(capsys, gold=str(gold), pairs=str(pairs))
    assert status == 2 and out == ""
    assert err == f"scrapy evaluate: error: cannot read input: {gold}:1: expected url_1<TAB>url_2\n"
