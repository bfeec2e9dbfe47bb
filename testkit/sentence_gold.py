"""Scoring bitext rows against a generated site's sentence gold.

The gold lists the sentences of each page's ``<main>`` paragraphs only, so a row is
judged when one of its sides is one or more whole sentences of such a paragraph; rows
of titles, menus, lists and footers are counted apart, not judged.
"""

from __future__ import annotations

from lxml import html as lxml_html


def norm(text: str) -> str:
    return " ".join(text.split())


def whole_sentences_of(sentence: str, paragraph: str) -> bool:
    """True if ``sentence`` is one or more whole sentences of ``paragraph``."""
    start = paragraph.find(sentence)
    while start >= 0:
        end = start + len(sentence)
        starts = start == 0 or paragraph[start - 1] == " " and paragraph[start - 2] in ".!?»\"'"
        ends = end == len(paragraph) or (paragraph[end] == " " and sentence[-1] in ".!?»\"'")
        if starts and ends:
            return True
        start = paragraph.find(sentence, start + 1)
    return False


def main_paragraphs(html: str) -> list[str]:
    """The whitespace-normalised text of every ``<main>`` paragraph of a page."""
    return [norm(p.text_content()) for p in lxml_html.fromstring(html).xpath("//main//p")]
