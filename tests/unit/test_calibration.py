"""The probability that a bitext row is a translation (``bitext/calibration.py``), fitted
per language pair on constructed rows: translated rows rank above the same rows with
their sides mismatched, by lengths and shared names where the scripts agree, by the
lexicon the rows teach where they do not (Chinese, whose lengths say little)."""

from __future__ import annotations

import random

import numpy as np

from bitextcrawl.bitext.calibration import RowProbability, _anchor_agreement, row_words

# A small vocabulary of each language: (English, French, Chinese) word by word.
WORDS = [("file", "fichier", "文件"), ("list", "lister", "列出"), ("show", "afficher", "显示"),
         ("delete", "supprimer", "删除"), ("create", "créer", "创建"),
         ("directory", "répertoire", "目录"), ("user", "utilisateur", "用户"),
         ("package", "paquet", "软件包"), ("version", "version", "版本"),
         ("network", "réseau", "网络"), ("server", "serveur", "服务器"),
         ("process", "processus", "进程"), ("archive", "archive", "归档"),
         ("image", "image", "镜像"), ("config", "configuration", "配置"),
         ("remote", "distant", "远程"), ("branch", "branche", "分支"),
         ("log", "journal", "日志"), ("port", "port", "端口"), ("key", "clé", "密钥")]


def _rows(lang: int, n: int, seed: int) -> list:
    """``n`` translated rows of English against language ``lang`` (1: French, 2: Chinese),
    each 3 to 6 words of the vocabulary; where ``lang`` is French, each row also names a
    tool and a number both sides carry."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        picked = rng.sample(WORDS, rng.randint(3, 6))
        en = " ".join(w[0] for w in picked)
        other = ("" if lang == 2 else " ").join(w[lang] for w in picked)
        if lang == 1:
            tool = f"Tool{k % 37}"
            en, other = f"{en} with {tool} {k}.", f"{other} avec {tool} {k}."
        out.append((en.capitalize(), other, 0.9))
    return out


def _shuffled(rows: list, shift: int) -> list:
    return [(rows[k][0], rows[(k + shift) % len(rows)][1]) for k in range(len(rows))]


def _auc(right: np.ndarray, wrong: np.ndarray) -> float:
    """The share of (right, wrong) couples the scores order right (ties half)."""
    r, w = right[:, None], wrong[None, :]
    return float(((r > w) + 0.5 * (r == w)).mean())


def test_row_words_reads_cjk_as_bigrams_and_latin_as_words():
    assert row_words("列出文件 with ls") == ("列出", "出文", "文件", "with", "ls")
    assert row_words("Show the File, show it") == ("show", "the", "file", "it")


def test_each_language_pair_ranks_its_translations_above_shuffled_rows():
    for lang in (1, 2):
        rows = _rows(lang, 400, seed=lang)
        model = RowProbability().fit(rows)
        test = _rows(lang, 200, seed=10 + lang)
        right = model.predict_proba(test)
        wrong = model.predict_proba(_shuffled(test, 7))
        assert _auc(right, wrong) > 0.95, lang
        # the log-odds of right against shuffled: a likelihood ratio each side of 1
        odds_right = model.log_odds(test)
        odds_wrong = model.log_odds(_shuffled(test, 7))
        assert np.median(odds_right) > 2 and np.median(odds_wrong) < -2, lang
        # fitted per pair: the length ratio of the pair's own rows
        ratio = sum(len(b) for _, b, _ in rows) / sum(len(a) for a, _, _ in rows)
        assert abs(model.c_ - ratio) < 1e-9


def test_chinese_rows_are_ranked_by_the_lexicon_they_teach():
    rows = _rows(2, 400, seed=3)
    model = RowProbability().fit(rows)
    # word translations learnt from the sure rows: English word -> its Chinese bigram
    learnt = {w[2:]: v[2:] for v, w in model.lexicon_.translations_.items()}
    assert learnt.get("file") == "文件" and learnt.get("user") == "用户"
    test = _rows(2, 200, seed=13)
    same = [(a, b) for a, b, _ in test]
    wrong = _shuffled(same, 1)
    assert model.coef_[3] > 0.5     # lexicon_found: a translation found counts for
    without = RowProbability(min_pairs=10 ** 6).fit(rows)   # no word linked
    assert len(without.lexicon_) == 0
    with_lexicon = _auc(model.predict_proba(same), model.predict_proba(wrong))
    lengths_only = _auc(without.predict_proba(same), without.predict_proba(wrong))
    assert with_lexicon > 0.95 and with_lexicon > lengths_only + 0.1


def test_the_threshold_keeps_rows_at_the_target_precision():
    rows = _rows(1, 300, seed=5)
    # a quarter of the rows wrong (side 2 of another row), which the aligner scored
    # under its sure rows (a list aligned position by position)
    bad = [(a, b, 0.4) for a, b in _shuffled(rows[:100], 50)]
    mixed = rows[100:] + bad
    model = RowProbability(target_precision=0.97).fit(mixed)
    assert 0.6 < model.right_share_ < 0.9
    kept = np.round(model.proba_, 4) >= model.threshold_   # as bitext.tsv writes it
    assert model.precision_ >= 0.97
    assert kept[:200].sum() >= 190 and kept[200:].sum() <= 0.03 * kept.sum()
    np.testing.assert_allclose(model.proba_, model.predict_proba(mixed))
    # without the wrong rows, every row is kept
    clean = RowProbability(target_precision=0.97).fit(rows)
    assert (np.round(clean.proba_, 4) >= clean.threshold_).all() and clean.right_share_ > 0.95


def _looser(rows: list) -> list:
    """``rows`` as a looser translation words them: the tool and the number only in the
    first side (the second says "it" and leaves the number out), the aligner less sure."""
    return [(a, b.split(" avec ")[0] + " avec lui.", 0.4) for a, b, _ in rows]


def test_right_rows_looser_than_the_sure_ones_are_kept_by_the_decoys():
    # the sure rows teach the model, which judges right rows looser than them too
    # harshly; the pair's rows against shuffled ones (decoys) show that rows scoring so
    # are more than wrong rows would give: they are kept, most wrong rows are not
    sure = _rows(1, 300, seed=21)
    looser = _looser(_rows(1, 100, seed=22))
    wrong = [(a, b, 0.4) for a, b in _shuffled(_rows(1, 60, seed=23), 17)]
    model = RowProbability(target_precision=0.97).fit(sure + looser + wrong)
    kept = np.round(model.proba_, 4) >= model.threshold_
    assert kept[:300].all() and kept[300:400].mean() >= 0.9
    assert kept[400:].mean() <= 0.3 and kept[:400].sum() / kept.sum() >= 0.95
    np.testing.assert_allclose(model.proba_, model.predict_proba(sure + looser + wrong))


def test_the_threshold_keeps_no_row_likelier_wrong_than_right():
    # 400 very sure rows and 8 the model finds likelier wrong: the mean probability of
    # them all is above 0.97, yet a row under 0.5 is never suggested
    model = RowProbability(target_precision=0.97)
    model._set_threshold(np.array([0.999] * 400 + [0.3] * 8))
    assert model.threshold_ == 0.999
    model._set_threshold(np.array([0.2] * 5))
    assert model.threshold_ == 0.5 and model.precision_ == 0.0


def test_a_few_rows_do_not_make_a_precision_of_one():
    # 30 right rows: the model doubts none, the estimate counts one wrong row in (a
    # uniform prior on the kept rows' precision); on many rows it is the rows' mean
    few = RowProbability().fit(_rows(1, 30, seed=41))
    kept = np.round(few.proba_, 4) >= few.threshold_
    assert few.precision_ <= (kept.sum() + 1) / (kept.sum() + 2) < 0.99
    many = RowProbability().fit(_rows(1, 1000, seed=42))
    kept = np.round(many.proba_, 4) >= many.threshold_
    assert abs(many.precision_ - many.proba_[kept].mean()) < 1e-3


def _rows_with_fitting_wrong(seed: int = 0, n_right: int = 600, n_wrong: int = 120):
    """Translated rows of a made-up language pair (each word rendered by one word of the
    other language), aligner scores 0.5–0.95, and wrong rows as the aligner makes them:
    a side 1 against the side 2 of another row of about the same length, scored as
    high. Returns (rows in a random order, which are right)."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou")
                     for _ in range(rng.randint(2, 4))) for _ in range(150)]
    other = {w: "q" + w[::-1] + rng.choice(("", "e", "en")) for w in words}
    right = []
    for _ in range(n_right):
        said = [rng.choice(words) for _ in range(rng.randint(2, 14))]
        right.append((" ".join(said).capitalize() + ".",
                      " ".join(other[w] for w in said).capitalize() + ".",
                      rng.uniform(0.5, 0.95)))
    by_length = sorted(range(n_right), key=lambda k: len(right[k][1]))
    wrong = [(right[by_length[p]][0], right[by_length[p + 1]][1], rng.uniform(0.5, 0.95))
             for p in rng.sample(range(n_right - 1), n_wrong)]
    rows = [(r, True) for r in right] + [(r, False) for r in wrong]
    rng.shuffle(rows)
    return [r for r, _ in rows], np.array([y for _, y in rows])


def test_wrong_rows_whose_lengths_fit_are_told_by_their_words():
    # the aligner's wrong rows have lengths that fit: only the words tell them
    rows, right = _rows_with_fitting_wrong()
    model = RowProbability().fit(rows)
    assert model.proba_[~right].mean() < 0.5 < model.proba_[right].mean()
    kept = model.proba_ >= model.threshold_
    assert right[kept].mean() >= 0.95 and kept[right].mean() >= 0.9


def test_a_name_is_found_as_a_word_of_the_other_side():
    # a Chinese menu item's "[en]" is not in "documentation"; an identifier is a name
    assert _anchor_agreement("documentation", "安全漏洞 [en]") == (0, 1)
    assert _anchor_agreement("limit_req", "指令") == (0, 1)
    assert _anchor_agreement("Sets the limit_req zone", "设置limit_req区域") == (1, 0)
    assert _anchor_agreement("Restart nginx", "重启nginx进程") == (1, 0)
    assert _anchor_agreement("List the APIs", "Lister les API")[1] == 0
