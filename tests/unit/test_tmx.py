"""TMX 1.4 and bitext TSV writers."""

from __future__ import annotations

import gzip

import pytest
from lxml import etree

from bitextcrawl.formats.tmx import XML_LANG, clean_segment, iter_clean_rows, write_tmx
from bitextcrawl.formats.tsv import COLUMNS, write_bitext_tsv

ROWS = [
    {"url_1": "http://s.ca/en/a.html", "url_2": "http://s.ca/fr/a.html",
     "sentence_1": "Prices < 5 & > 2 for \"AT&T\".", "sentence_2": "Prix < 5 & > 2 pour « AT&T ».",
     "score": 0.93},
    ("http://s.ca/en/b.html", "http://s.ca/fr/b.html", "Bell\x07 rings\x00 here\x1b.",
     "La cloche\x0c sonne\x7f ici.", 0.5),
    ("Tab\tinside and\nnewline\r\nhere.", "Tabulation\tdedans et\nsaut de ligne.", 0.7),
    ("Home", "Accueil"),
    # Duplicates (after cleaning) and an empty side: dropped.
    ("Home", "Accueil", 0.2),
    ("  Home ", "Accueil\n", 0.1),
    ("Nothing", "", 0.9),
]


def _parse(path):
    return etree.parse(str(path)).getroot()


def test_tmx_structure_and_header(tmp_path):
    path = tmp_path / "bitext.tmx"
    assert write_tmx(path, ROWS, "en", "fr") == 4
    root = _parse(path)
    assert root.tag == "tmx" and root.get("version") == "1.4"
    assert [c.tag for c in root] == ["header", "body"]
    header = root.find("header")
    for attr, value in (("srclang", "en"), ("segtype", "sentence"), ("datatype", "plaintext"),
                        ("adminlang", "en")):
        assert header.get(attr) == value
    for attr in ("creationtool", "creationtoolversion", "o-tmf", "creationdate"):
        assert header.get(attr)
    tus = root.findall("body/tu")
    assert len(tus) == 4
    for tu in tus:
        tuvs = tu.findall("tuv")
        assert [t.get(XML_LANG) for t in tuvs] == ["en", "fr"]
        assert all(len(t.findall("seg")) == 1 for t in tuvs)
        # TMX 1.4 order: props before tuvs, props before seg.
        tags = [c.tag for c in tu]
        assert tags[-2:] == ["tuv", "tuv"] and set(tags[:-2]) <= {"prop"}
    first = tus[0]
    assert first.find("prop[@type='score']").text == "0.9300"
    assert first.find("tuv/prop[@type='source-document']").text == "http://s.ca/en/a.html"
    # The xml:lang attribute is in the XML namespace, as TMX requires.
    assert 'xml:lang="en"' in path.read_text("utf-8")


def test_tmx_escaping_and_control_characters(tmp_path):
    path = tmp_path / "bitext.tmx"
    write_tmx(path, ROWS, "en", "fr")
    raw = path.read_text("utf-8")
    assert "&lt; 5 &amp; &gt; 2" in raw
    segs = [[s.text for s in tu.iter("seg")] for tu in _parse(path).iter("tu")]
    assert segs[0] == ["Prices < 5 & > 2 for \"AT&T\".", "Prix < 5 & > 2 pour « AT&T »."]
    assert segs[1] == ["Bell rings here.", "La cloche sonne ici."]
    assert segs[2] == ["Tab inside and newline here.", "Tabulation dedans et saut de ligne."]
    assert segs[3] == ["Home", "Accueil"]
    assert not any(ch in raw for ch in "\x00\x07\x0c\x1b\x7f")


def test_tmx_streams_many_rows_gzip(tmp_path):
    path = tmp_path / "bitext.tmx.gz"
    rows = ((f"Sentence {k}.", f"Phrase {k}.", 0.5) for k in range(20_000))
    assert write_tmx(path, rows, "en", "fr") == 20_000
    with gzip.open(path) as fh:
        root = etree.parse(fh).getroot()
    assert len(root.findall("body/tu")) == 20_000


def test_clean_segment():
    assert clean_segment("a\x00b\tc\n d\ud800") == "ab c d"
    assert clean_segment(None) == ""


def test_tsv_columns_no_tabs_or_newlines_deduplicated(tmp_path):
    path = tmp_path / "bitext.tsv"
    assert write_bitext_tsv(path, ROWS) == 4
    lines = path.read_text("utf-8").split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert lines[0].split("\t") == list(COLUMNS)
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) == 7 for r in rows)
    assert rows[0][:5] == ["http://s.ca/en/a.html", "http://s.ca/fr/a.html",
                           "Prices < 5 & > 2 for \"AT&T\".", "Prix < 5 & > 2 pour « AT&T ».",
                           "0.9300"]
    assert rows[2][2:4] == ["Tab inside and newline here.", "Tabulation dedans et saut de ligne."]
    assert rows[3] == ["", "", "Home", "Accueil", "", "", ""]
    assert len({(r[2], r[3]) for r in rows}) == len(rows)
    assert "\r" not in path.read_text("utf-8")


def test_tsv_gzip_without_header(tmp_path):
    path = tmp_path / "bitext.tsv.gz"
    assert write_bitext_tsv(path, [("a", "b", 1)], header=False) == 1
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        assert fh.read() == "\t\ta\tb\t1.0000\t\t\n"


def _lxml_tmx(path, rows, lang1, lang2, header_attrs):
    """The same TMX built and serialised element by element with lxml.etree.xmlfile."""
    with open(path, "wb") as fh, etree.xmlfile(fh, encoding="utf-8") as xf:
        xf.write_declaration()
        with xf.element("tmx", version="1.4"):
            xf.write("\n")
            xf.write(etree.Element("header", header_attrs))
            xf.write("\n")
            with xf.element("body"):
                xf.write("\n")
                for n, r in enumerate(iter_clean_rows(rows), 1):
                    tu = etree.Element("tu", tuid=str(n))
                    if r["score"] is not None:
                        etree.SubElement(tu, "prop", type="score").text = f"{r['score']:.4f}"
                    for lang, url, seg in ((lang1, r["url_1"], r["sentence_1"]),
                                           (lang2, r["url_2"], r["sentence_2"])):
                        tuv = etree.SubElement(tu, "tuv", {XML_LANG: lang})
                        if url:
                            etree.SubElement(tuv, "prop", type="source-document").text = url
                        etree.SubElement(tuv, "seg").text = seg
                    xf.write(tu)
                    xf.write("\n")
            xf.write("\n")


@pytest.mark.parametrize("langs", [("en", "fr"), ("zh-Hant", 'x"<&>\tq')])
def test_tmx_units_are_what_lxml_serialises(tmp_path, langs):
    rows = ROWS + [{"url_1": "http://s.ca/a?x=1&y=<2>", "url_2": "", "sentence_1": "'q' \"dq\" ]]>",
                    "sentence_2": "Ünïcödé 中文 😀 &amp; &#38;", "score": None}]
    path = tmp_path / "bitext.tmx"
    assert write_tmx(path, rows, *langs) == 5
    header = etree.parse(str(path)).getroot().find("header")
    _lxml_tmx(tmp_path / "lxml.tmx", rows, *langs, dict(header.attrib))
    assert path.read_bytes() == (tmp_path / "lxml.tmx").read_bytes()
    empty = tmp_path / "empty.tmx"
    assert write_tmx(empty, [], *langs) == 0
    _lxml_tmx(tmp_path / "lxml-empty.tmx", [], *langs,
              dict(etree.parse(str(empty)).getroot().find("header").attrib))
    assert empty.read_bytes() == (tmp_path / "lxml-empty.tmx").read_bytes()
