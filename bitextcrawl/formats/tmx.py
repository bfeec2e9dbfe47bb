"""TMX 1.4 writer for aligned sentence pairs (``bitext.tmx``).

Streams: each ``<tu>`` is formatted as ``lxml.etree`` serialises it and written a batch at
a time, so a million pairs never make a million nodes in memory. Follows TMX 1.4b (LISA):

    <tmx version="1.4">
      <header creationtool=… creationtoolversion=… segtype="sentence" o-tmf=…
              adminlang=… srclang=… datatype="plaintext" creationdate=…/>
      <body>
        <tu tuid=…>
          <prop type="score">0.93</prop>
          <tuv xml:lang="en"><prop type="source-document">URL</prop><seg>…</seg></tuv>
          <tuv xml:lang="fr">…</tuv>
        </tu>
      </body>
    </tmx>

Property names follow Bitextor's TMX output (``source-document``, ``score``).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import time
from typing import Iterable, Iterator

from lxml import etree

import bitextcrawl

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

# Characters XML 1.0 does not allow (C0 controls but tab/LF/CR, lone surrogates,
# U+FFFE/U+FFFF), plus C1 controls, which are never wanted in a segment.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean_segment(text) -> str:
    """One line of text: XML-invalid and control characters removed, whitespace collapsed."""
    if text is None:
        return ""
    # str.split() splits at exactly the characters re's \s matches (str.isspace): the
    # same as collapsing \s+ runs and stripping, in half the time.
    return " ".join(_INVALID_XML.sub("", str(text)).split())


def _version() -> str:
    version = getattr(bitextcrawl, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version
        return dist_version("bitextcrawl")
    except Exception:
        return "unknown"


def normalise_row(row) -> dict:
    """A bitext row as a dict: url_1, url_2, sentence_1, sentence_2, score, lang_1, lang_2.

    Accepts a dict with those keys, or a tuple ``(s1, s2)``, ``(s1, s2, score)`` or
    ``(url_1, url_2, s1, s2, score)``.
    """
    if isinstance(row, dict):
        return {
            "url_1": row.get("url_1") or "",
            "url_2": row.get("url_2") or "",
            "sentence_1": row.get("sentence_1") or "",
            "sentence_2": row.get("sentence_2") or "",
            "score": row.get("score"),
            "lang_1": row.get("lang_1") or "",
            "lang_2": row.get("lang_2") or "",
        }
    row = tuple(row)
    if len(row) == 2:
        return normalise_row({"sentence_1": row[0], "sentence_2": row[1]})
    if len(row) == 3:
        return normalise_row({"sentence_1": row[0], "sentence_2": row[1], "score": row[2]})
    if len(row) == 5:
        return normalise_row(dict(zip(("url_1", "url_2", "sentence_1", "sentence_2", "score"),
                                      row)))
    raise ValueError(f"a bitext row has 2, 3 or 5 fields, or is a dict; got {len(row)}")


def dedup_key(s1: str, s2: str) -> bytes:
    """A 16-byte digest of a (sentence_1, sentence_2) pair: constant memory per pair."""
    return hashlib.blake2b(f"{s1}\t{s2}".encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


def iter_clean_rows(rows: Iterable) -> Iterator[dict]:
    """Normalised rows, segments cleaned, empty and duplicate (s1, s2) pairs dropped."""
    seen: set[bytes] = set()
    for row in rows:
        r = normalise_row(row)
        s1 = clean_segment(r["sentence_1"])
        s2 = clean_segment(r["sentence_2"])
        if not s1 or not s2:
            continue
        key = dedup_key(s1, s2)
        if key in seen:
            continue
        seen.add(key)
        r["sentence_1"], r["sentence_2"] = s1, s2
        r["url_1"] = clean_segment(r["url_1"])
        r["url_2"] = clean_segment(r["url_2"])
        yield r


def _format_score(score) -> str | None:
    if score is None or score == "":
        return None
    try:
        return f"{float(score):.4f}"
    except (TypeError, ValueError):
        return None


def _open(path):
    path = os.fspath(path)
    if path.endswith(".gz"):
        return gzip.open(path, "wb")
    return open(path, "wb")


def _text(value: str) -> str:
    """Character data as libxml2 writes it (cleaned text has no CR, which it escapes too)."""
    if "&" in value:
        value = value.replace("&", "&amp;")
    if "<" in value:
        value = value.replace("<", "&lt;")
    if ">" in value:
        value = value.replace(">", "&gt;")
    return value


_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                           "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _tu(n: int, row: dict, lang1: str, lang2: str) -> str:
    """One ``<tu>`` of a cleaned row, as ``lxml.etree`` serialises the same element
    (``tests/unit/test_tmx.py`` compares them byte for byte)."""
    score = _format_score(row["score"])
    parts = [f'<tu tuid="{n}">']
    if score is not None:
        parts.append(f'<prop type="score">{score}</prop>')
    for lang, url, seg in ((lang1, row["url_1"], row["sentence_1"]),
                           (lang2, row["url_2"], row["sentence_2"])):
        parts.append(f'<tuv xml:lang="{lang}">')   # (escaped by write_tmx)
        if url:
            parts.append(f'<prop type="source-document">{_text(url)}</prop>')
        parts.append(f"<seg>{_text(seg)}</seg></tuv>")
    parts.append("</tu>\n")
    return "".join(parts)


# TUs written to the file at a time.
WRITE_BATCH = 512


def write_tmx(path, rows: Iterable, lang1: str, lang2: str, *,
              creationtool: str = "bitextcrawl", adminlang: str = "en",
              o_tmf: str = "bitextcrawl", clean: bool = True) -> int:
    """Write rows as a TMX 1.4 file (``.gz`` compressed by name); returns the TU count.

    ``lang1`` is the source language (header ``srclang``). Segments are cleaned of
    XML-invalid and control characters and of line breaks; pairs repeated (same two
    segments) are written once; rows with an empty side are skipped (``clean=False``:
    ``rows`` come from :func:`iter_clean_rows` already).

    The header is an ``lxml.etree`` element; each ``<tu>`` is formatted as lxml would
    serialise it (:func:`_tu`): building four elements a pair took 20 µs, 15 s of a
    100,000-page site's 745,000 pairs.
    """
    n = 0
    header_attrs = {
        "creationtool": creationtool,
        "creationtoolversion": _version(),
        "datatype": "plaintext",
        "segtype": "sentence",
        "adminlang": adminlang,
        "srclang": lang1,
        "o-tmf": o_tmf,
        "creationdate": time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
    }
    header = etree.tostring(etree.Element("header", header_attrs), encoding="unicode")
    lang1, lang2 = str(lang1).translate(_ATTRIBUTE), str(lang2).translate(_ATTRIBUTE)
    with _open(path) as fh:
        fh.write(f"<?xml version='1.0' encoding='utf-8'?>\n<tmx version=\"1.4\">\n{header}\n"
                 "<body>\n".encode("utf-8"))
        batch = []
        for r in iter_clean_rows(rows) if clean else rows:
            n += 1
            batch.append(_tu(n, r, lang1, lang2))
            if len(batch) >= WRITE_BATCH:
                fh.write("".join(batch).encode("utf-8"))
                batch = []
        fh.write(("".join(batch) + "</body>\n</tmx>").encode("utf-8"))
    return n


__all__ = ["write_tmx", "clean_segment", "normalise_row", "iter_clean_rows", "dedup_key"]
