"""Sentence splitting and Gale–Church alignment ([Shi 2006 §5]; Gale & Church 1993)."""

from __future__ import annotations

import math

import pytest

from bitextcrawl.bitext.sentences import (
    BEAD_PRIORS,
    align_chunks,
    align_sentences,
    length_cost,
    split_sentences,
)


def test_split_english_abbreviations_numbers_initials():
    text = ("Mr. Smith paid $3.5 million in 2004. The U.S. government agreed, e.g. in "
            "Ottawa. Was it good? Yes! J. R. R. Tolkien wrote it... Then \"Stop.\" He left.")
    assert split_sentences(text, "en") == [
        "Mr. Smith paid $3.5 million in 2004.",
        "The U.S. government agreed, e.g. in Ottawa.",
        "Was it good?",
        "Yes!",
        "J. R. R. Tolkien wrote it...",
        "Then \"Stop.\"",
        "He left.",
    ]


@pytest.mark.parametrize("text, expected", [
    ("Use\u00a0the  proxy_pass\tdirective", ["Use the proxy_pass directive"]),
    ("Done… Next one", ["Done…", "Next one"]),
    ("Fertig। Weiter", ["Fertig।", "Weiter"]),
    ("هل هذا؟ نعم", ["هل هذا؟", "نعم"]),
    ("终于。然后", ["终于。", "然后"]),
    ("終わり！次", ["終わり！", "次"]),
    ("Ende． Weiter", ["Ende．", "Weiter"]),
])
def test_split_every_terminator_and_none(text, expected):
    """Lines with no terminator are kept whole without a search for one (whitespace
    collapsed as ``\\s+``); each terminator still ends a sentence."""
    assert split_sentences(text, "und") == expected


def test_split_needs_a_capital_after_the_period():
    assert split_sentences("Version 2.0 is out. see the notes. Done.", "en") == [
        "Version 2.0 is out. see the notes.", "Done."]


def test_split_french():
    text = ("M. Dupont a payé 3,5 millions en 2004. Le gouvernement, p. ex. à Ottawa, "
            "a accepté. Est-ce bien ? Oui ! « Arrêtez. » Il est parti.")
    assert split_sentences(text, "fr") == [
        "M. Dupont a payé 3,5 millions en 2004.",
        "Le gouvernement, p. ex. à Ottawa, a accepté.",
        "Est-ce bien ?",
        "Oui !",
        "« Arrêtez. »",
        "Il est parti.",
    ]


def test_split_chinese_without_spaces():
    assert split_sentences("北京是中国的首都。上海是最大的城市！你去过吗？我去过。", "zh") == [
        "北京是中国的首都。", "上海是最大的城市！", "你去过吗？", "我去过。"]


def test_split_japanese_keeps_quoted_speech():
    text = "今日は晴れです。「こんにちは。」と言った。明日は雨でしょうか？たぶん。"
    assert split_sentences(text, "ja") == [
        "今日は晴れです。", "「こんにちは。」と言った。", "明日は雨でしょうか？", "たぶん。"]


def test_split_german_ordinals_and_lines():
    assert split_sentences("Am 3. Oktober feiern wir. Das ist z.B. schön.", "de") == [
        "Am 3. Oktober feiern wir.", "Das ist z.B. schön."]
    assert split_sentences("First line\nSecond line.  \n\n Third", "en") == [
        "First line", "Second line.", "Third"]


def test_length_cost_is_gale_church_distance():
    assert length_cost(100, 100) == pytest.approx(0.0, abs=1e-12)
    # δ = (c·l1 − l2) / sqrt(s² (l1 + l2/c) / 2), P = 2 (1 − Φ(|δ|)).
    delta = (100 - 130) / math.sqrt(6.8 * (100 + 130) / 2)
    p = math.erfc(abs(delta) / math.sqrt(2))
    assert length_cost(100, 130) == pytest.approx(-math.log(p))
    assert length_cost(10, 1000) > 50          # log space: no underflow to inf
    assert math.isfinite(length_cost(10, 100_000))


def test_gale_church_priors_are_the_originals():
    assert BEAD_PRIORS[(1, 1)] == 0.89
    assert BEAD_PRIORS[(2, 1)] == BEAD_PRIORS[(1, 2)] == 0.089
    assert BEAD_PRIORS[(1, 0)] == BEAD_PRIORS[(0, 1)] == 0.0099
    assert BEAD_PRIORS[(2, 2)] == 0.011


def test_gale_church_finds_a_two_to_one_bead():
    en = ["The cat sat on the mat.",
          "It was very happy because the sun was warm and the day was long.",
          "Then it slept."]
    fr = ["Le chat était assis sur le tapis.",
          "Il était très heureux.",
          "Car le soleil était chaud et la journée était longue.",
          "Puis il a dormi."]
    out = align_sentences(en, fr)
    assert [(a, b) for a, b, _ in out] == [
        (en[0], fr[0]),
        (en[1], fr[1] + " " + fr[2]),
        (en[2], fr[3]),
    ]
    assert all(0.0 < s <= 1.0 for _, _, s in out)
    # Symmetric: the 1-2 bead seen from the other side is a 2-1 bead.
    back = align_sentences(fr, en)
    assert [(b, a) for a, b, _ in back] == [(a, b) for a, b, _ in out]


def test_gale_church_outputs_no_one_sided_beads():
    # Only 1-0 / 0-1 beads are possible here, and they are not output.
    assert align_sentences(["Only on one side."], []) == []
    assert align_sentences([], ["Seulement d'un côté."]) == []
    # G&C merge a short extra sentence into its neighbour (2-1) rather than delete it:
    # the 2-1 prior (0.089) beats 1-0 (0.0099) plus the cost of a 1-0 length mismatch.
    out = align_sentences(["See below.", "The report has twelve chapters in all."],
                          ["Le rapport compte douze chapitres en tout."])
    assert out == [("See below. The report has twelve chapters in all.",
                    "Le rapport compte douze chapitres en tout.", out[0][2])]


def test_align_chunks_aligns_inside_each_chunk_pair():
    pairs = [
        ("Home", "Accueil", 0.9),
        ("The report is out. It has 12 chapters.",
         "Le rapport est publié. Il compte 12 chapitres.", 0.8),
    ]
    out = align_chunks(pairs, "en", "fr")
    assert [(a, b) for a, b, _ in out] == [
        ("Home", "Accueil"),
        ("The report is out.", "Le rapport est publié."),
        ("It has 12 chapters.", "Il compte 12 chapitres."),
    ]
    assert out[1][2] <= 0.8 and out[0][2] <= 0.9


def test_align_chunks_chinese_english_estimates_the_length_ratio():
    pairs = [("北京是中国的首都。上海是最大的城市。",
              "Beijing is the capital of China. Shanghai is the largest city.")]
    out = align_chunks(pairs, "zh", "en")
    assert [(a, b) for a, b, _ in out] == [
        ("北京是中国的首都。", "Beijing is the capital of China."),
        ("上海是最大的城市。", "Shanghai is the largest city."),
    ]
    # Two Chinese sentences in one bead are joined without a space.
    joined = align_sentences(["北京是首都。", "很大。"], ["Beijing is the capital and it is big."],
                             c=3.0)
    assert joined[0][0] == "北京是首都。很大。"


def test_a_danda_ends_a_sentence_before_a_lower_case_latin_word():
    """The lower-case rule ("e.g. this") is the Latin period's: a danda or an Arabic full
    stop ends the sentence whatever word follows, a Latin-script term included."""
    assert split_sentences("এই মডিউলটি অনুরোধ পরিচালনা করে। server কনফিগারেশনে ব্যবহার করা যায়।",
                           "bn") == ["এই মডিউলটি অনুরোধ পরিচালনা করে।",
                                     "server কনফিগারেশনে ব্যবহার করা যায়।"]
    assert split_sentences("यह मॉड्यूल अनुरोध सँभालता है। mod_ssl इसके बाद चलता है।", "hi") == [
        "यह मॉड्यूल अनुरोध सँभालता है।", "mod_ssl इसके बाद चलता है।"]
    assert split_sentences("Use e.g. this one.", "en") == ["Use e.g. this one."]


def test_chunks_split_once_align_as_split_afresh():
    """align_chunks splits each chunk text once per language (menus recur on every page
    pair): its sentence pairs are those of the chunks split afresh."""
    from bitextcrawl.bitext import sentences as sent

    pairs = [("Home. Contact us.", "Accueil. Contactez-nous.", 0.9),
             ("The server reads the file. It stops.", "Le serveur lit le fichier. Il s'arrête.", 0.8),
             ("Home. Contact us.", "Accueil. Contactez-nous.", 0.7)]
    c = sent.estimate_ratio(pairs)
    expected = [(a, b, score * chunk)
                for t1, t2, chunk in pairs
                for a, b, score in sent.align_sentences(sent.split_sentences(t1, "en"),
                                                        sent.split_sentences(t2, "fr"), c=c)]
    sent._sentences.cache_clear()
    assert sent.align_chunks(pairs, "en", "fr") == expected
    assert sent._sentences.cache_info().hits == 2      # the third pair's two chunks
    assert sent._sentences("Home. Contact us.", "en") == ("Home.", "Contact us.")
