"""The judge of a generated glossary's bitext rows (``testkit.glossary.judge_rows``):
the manual's units, and lines built of its labels, in English and the other language."""

from __future__ import annotations

from testkit import multilingual_text as mt
from testkit.glossary import judge_rows


def _row(s1: str, s2: str) -> dict:
    return {"sentence_1": s1, "sentence_2": s2}


def test_a_sentence_and_its_translation_are_right_another_is_wrong():
    a, b = mt.DESCRIPTIONS[0], mt.DESCRIPTIONS[1]
    assert judge_rows("zh", [_row(a["en"], a["zh"])]) == {"right": 1, "wrong": 0}
    assert judge_rows("zh", [_row(a["en"], b["zh"])]) == {"right": 0, "wrong": 1}


def test_a_title_of_two_labels_is_right_in_the_other_spacing():
    en = f"{mt.UI['module']['en']} ({mt.UI['status']['en']})"
    zh = f"{mt.UI['module']['zh']}（{mt.UI['status']['zh']}）"
    wrong = f"{mt.UI['status']['zh']} ({mt.UI['module']['zh']})"
    assert judge_rows("zh", [_row(en, zh), _row(en, wrong)]) == {"right": 1, "wrong": 1}
