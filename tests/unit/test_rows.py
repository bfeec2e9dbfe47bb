"""The bitext rows kept on disk (bitext/rows.py): read back as appended, any number of times."""

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
