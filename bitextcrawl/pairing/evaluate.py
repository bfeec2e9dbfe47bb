"""Evaluation of page pairs against a gold list: precision, recall, F1, and WMT16-style
recall under the 1-1 rule.

Pairs are ``(url_1, url_2)`` with ``url_1`` in the first language (gold files:
``url_1<TAB>url_2`` a line). Matching is by exact URL strings, in that order
(``ordered=False`` compares unordered pairs, for gold files written the other way round).

**The WMT16 1-1 rule** (WMT16 Bilingual Document Alignment Shared Task, as its official
``eval.py`` applies it): predicted pairs are read in the order given (best first), and a
pair is kept only if neither its source URL nor its target URL occurs in a pair kept
before; later pairs reusing a URL are dropped. Recall is then the share of gold pairs
among the kept pairs. So a system gains nothing from proposing several targets for one
source, and the order of the predictions matters.

Plain precision/recall/F1 count distinct predicted pairs without that rule.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from urllib.parse import urljoin

Pair = tuple[str, str]


def _norm(pair: Pair, ordered: bool) -> Pair:
    a, b = pair
    return (a, b) if ordered or a <= b else (b, a)


def _dedupe(pairs: Iterable[Pair], ordered: bool) -> list[Pair]:
    seen: set[Pair] = set()
    out: list[Pair] = []
    for p in pairs:
        p = _norm((str(p[0]), str(p[1])), ordered)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def wmt16_one_to_one(predicted: Iterable[Pair], ordered: bool = True) -> list[Pair]:
    """The WMT16 1-1 rule: keep a pair only if neither URL was in a pair kept before."""
    kept: list[Pair] = []
    if ordered:
        used_src: set[str] = set()
        used_tgt: set[str] = set()
        for src, tgt in predicted:
            if src in used_src or tgt in used_tgt:
                continue
            used_src.add(src)
            used_tgt.add(tgt)
            kept.append((src, tgt))
    else:
        used: set[str] = set()
        for a, b in predicted:
            if a in used or b in used:
                continue
            used.update((a, b))
            kept.append(_norm((a, b), False))
    return kept


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def with_directory_index(pairs: Iterable[Pair], index: str) -> list[Pair]:
    """``/docs/`` and ``/docs/index.html`` as one URL (gold files list the file, sites link
    the directory)."""
    def one(url: str) -> str:
        return url + index if url.endswith("/") else url
    return [(one(a), one(b)) for a, b in pairs]


def evaluate(gold: list[Pair], predicted: list[Pair], ordered: bool = True,
             directory_index: str | None = None) -> dict:
    """Precision, recall, F1 (tp/fp/fn over distinct pairs) and WMT16 recall under the
    1-1 rule (``wmt16_recall``, with ``wmt16_kept`` and ``wmt16_found``).
    ``directory_index`` (e.g. ``index.html``): a URL ending in ``/`` means that file."""
    if directory_index:
        gold = with_directory_index(gold, directory_index)
        predicted = with_directory_index(predicted, directory_index)
    gold_set = set(_dedupe(gold, ordered))
    pred = _dedupe(predicted, ordered)
    pred_set = set(pred)
    tp = len(gold_set & pred_set)
    fp = len(pred_set) - tp
    fn = len(gold_set) - tp
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = _ratio(2 * tp, 2 * tp + fp + fn)
    kept = wmt16_one_to_one(pred, ordered)
    found = len(gold_set.intersection(kept))
    return {
        "gold": len(gold_set),
        "predicted": len(pred_set),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "wmt16_kept": len(kept),
        "wmt16_found": found,
        "wmt16_recall": _ratio(found, len(gold_set)),
        "wmt16_precision": _ratio(found, len(kept)),
    }


def evaluate_silver(gold: list[Pair], predicted: list[Pair],
                    found_pages: set[str] | None = None,
                    unpaired: Iterable[str] = ()) -> dict:
    """Precision and recall against a partial ("silver") gold such as WET's.

    A silver gold holds only the pairs it is sure of, so a predicted pair is *judged*
    only where it touches a gold URL or one of ``unpaired`` (pages known to have no
    counterpart, such as untranslated copies), and a gold pair is *findable* only where
    both of its pages were found (``found_pages``; every gold pair when None).
    """
    gold_set = set(gold)
    gold_urls = {u for pair in gold_set for u in pair} | set(unpaired)
    predicted_set = set(predicted)
    judged = [p for p in predicted if p[0] in gold_urls or p[1] in gold_urls]
    findable = [g for g in gold_set if found_pages is None
                or (g[0] in found_pages and g[1] in found_pages)]
    correct = sum(p in gold_set for p in judged)
    found = sum(g in predicted_set for g in findable)
    precision = _ratio(correct, len(judged))
    recall = _ratio(found, len(findable))
    return {"judged": len(judged), "correct": correct, "findable": len(findable),
            "found": found, "precision": precision, "recall": recall,
            "f1": _ratio(2 * precision * recall, precision + recall)}


def read_gold(path: str | os.PathLike, base: str | None = None) -> list[Pair]:
    """Gold pairs from ``url_1<TAB>url_2`` lines. With ``base`` (a site root such as
    ``http://127.0.0.1:8000/``), relative paths are resolved against it; absolute URLs are
    kept. Blank lines and ``#`` comments are skipped; other malformed lines raise
    ValueError naming the line."""
    if base is not None and not base.endswith("/"):
        base += "/"
    pairs: list[Pair] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")]
            if len(fields) != 2 or not all(fields):
                raise ValueError(f"{os.fspath(path)}:{lineno}: expected url_1<TAB>url_2")
            if base is not None:
                fields = [urljoin(base, f) for f in fields]
            pairs.append((fields[0], fields[1]))
    return pairs


def read_pairs_jsonl(path: str | os.PathLike, langs: tuple[str, str] | None = None) -> list[Pair]:
    """``(url_1, url_2)`` of a ``pairs.jsonl``, in file order (the order the 1-1 rule uses).
    With ``langs=(first, second)``: only the pairs of those two languages, the page in
    ``first`` first (a gold's order). Lines that are not JSON objects with both URLs
    raise ValueError naming the line."""
    pairs: list[Pair] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                pair = (str(obj["url_1"]), str(obj["url_2"]))
                if langs is not None:
                    found = (obj["lang_1"], obj["lang_2"])
                    if found == tuple(langs[::-1]):
                        pair = pair[::-1]
                    elif found != tuple(langs):
                        continue
                pairs.append(pair)
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{os.fspath(path)}:{lineno}: not a pair object ({exc})") \
                    from exc
    return pairs
