"""The bitext rows kept on disk (bitext/rows.py): read back as appended, any number of times."""

import re

from bitextcrawl.bitext.rows import RowSpill


def _row(i):
    return {"url_1": "http://s.test/en/a", "url_2": "http://s.test/fr/a",
            "sentence_1": f"Sentence {i} \ud800 é", "sentence_2": f"Phrase {i}\t",
            "score": round(i / 7, 4), "lang_1": "en", "lang_2": "fr"}


def test_row_spill_reads_back_what_went_in(tmp_path):
    rows = RowSpill(str(tmp_path), batch=3)
    assert not rows and len(rows) == 0 and list(rows) == []
    for i in range(10):
        rows.append(_row(i))
    assert len(rows) == 10 and rows
    assert list(rows) == [_row(i) for i in range(10)]
    assert list(rows) == [_row(i) for i in range(10)]   # read again
    # an iteration beside appends and beside another iteration
    seen = []
    for k, (a, b) in enumerate(zip(rows, rows)):
        assert a == b
        seen.append(a)
        if k < 2:
            rows.append(_row(10 + k))
    assert seen == [_row(i) for i in range(10)]
    assert list(rows) == [_row(i) for i in range(12)]
    assert list(tmp_path.iterdir()) == []   # no file left with a name
    rows.close()


def test_rows_are_written_as_write_tmx_and_write_bitext_tsv_write_them(tmp_path):
    """extract.write_rows: the files of the two writers, each row scored by the
    probability fitted on its language pair's rows, bitext.tsv skipping what an earlier
    language pair had; checks drop and count."""
    from collections import Counter

    from bitextcrawl.bitext.calibration import RowProbability
    from bitextcrawl.bitext.extract import write_rows
    from bitextcrawl.bitext.langcheck import RowChecks
    from bitextcrawl.formats.tmx import iter_clean_rows, write_tmx
    from bitextcrawl.formats.tsv import write_bitext_tsv

    def row(s1, s2, l2, url="http://s.test/a"):
        return {"url_1": url, "url_2": url + l2, "sentence_1": s1, "sentence_2": s2,
                "score": 0.5, "lang_1": "en", "lang_2": l2}

    fr = [row("One  line.", "Une ligne.", "fr"), row("One line.", "Une\nligne.", "fr"),
          row("Home", "Accueil", "fr"), row("Accueil", "Home", "fr"),
          row("", "Vide", "fr"), row("Shared.", "Shared text.", "fr")]
    de = [row("Shared.", "Shared text.", "de"), row("Two \x01lines.", "Zwei Zeilen.", "de")]
    checks = RowChecks()
    for r in fr:
        checks.add(r)
    counts, samples = Counter(), {}
    results = {("en", "fr"): (RowSpill(str(tmp_path)), None, checks),
               ("en", "de"): (list(de), None, None)}
    for r in fr:
        results["en", "fr"][0].append(dict(r))
    out = tmp_path / "out"
    out.mkdir()
    write_rows(results, str(out), "", counts, samples)

    kept_fr = [r for r in fr if r["sentence_1"] not in ("Home", "Accueil")]  # crosswise

    def calibrated(rows):
        # each row's score: the probability fitted on its language pair's clean rows
        clean = list(iter_clean_rows(rows))
        model = RowProbability().fit([(r["sentence_1"], r["sentence_2"], r["score"])
                                      for r in clean])
        return [dict(r, score=round(float(p), 4)) for r, p in zip(clean, model.proba_)]

    want = tmp_path / "want"
    want.mkdir()
    assert write_tmx(want / "bitext.tmx", calibrated(de), "en", "de") == 2
    assert write_tmx(want / "bitext.en-fr.tmx", calibrated(kept_fr), "en", "fr") == 2
    assert write_bitext_tsv(want / "bitext.tsv", calibrated(de) + calibrated(kept_fr)) == 3
    for name in ("bitext.tmx", "bitext.en-fr.tmx", "bitext.tsv"):
        got, expected = (out / name).read_text(), (want / name).read_text()
        if name.endswith(".tmx"):    # written a moment apart
            got, expected = (re.sub('creationdate="[^"]+"', "", t) for t in (got, expected))
        assert got == expected, name
    filters = {k: v for k, v in counts.items() if k.endswith(
        ("suggested_threshold", "estimated_precision", "estimated_right_share"))}
    assert sorted(filters) == [f"bitext/bitext/en-{l2}/{name}" for l2 in ("de", "fr")
                               for name in ("estimated_precision", "estimated_right_share",
                                            "suggested_threshold")]
    assert {k: v for k, v in counts.items() if k not in filters} == {
        "bitext/bitext/dropped/crosswise": 2, "bitext/bitext/en-de/tmx_units": 2,
        "bitext/bitext/en-fr/tmx_units": 2, "bitext/bitext/sentence_pairs": 3}
    assert samples[("http://s.test/a", "http://s.test/afr")][0] == ("One  line.", "Une ligne.")
