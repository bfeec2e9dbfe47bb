"""What of a page's text is prose, and whether one page's prose is another's copy (pure).

A language ID reads a page of lists better on its prose alone, and a page served under one
language's URL with another page's prose, line for line, is an untranslated copy of it
(a site's fallback for a missing translation, often under a notice in the URL's
language): the same words, not a translation.
"""

from __future__ import annotations

import re
from collections import Counter

from bitextcrawl.pages.language import CJK_CHARS
from bitextcrawl.pages.tokens import WORD_OF_TWO

# What a language ID reads of a page of lists: words, not identifiers, paths or numbers.
_IDENTIFIER = re.compile(r"[_$\d/\\.:=<>{}()\[\]@#%&|*]")
# Scripts written without spaces between words (and Thai): one "word" of them is a phrase.
_UNSEGMENTED = re.compile("[" + CJK_CHARS + "\u0e00-\u0e7f]")
# A line whose prose is this long (characters) is written, not listed or coded: the same
# line on two pages was copied, not translated twice into the same words.
COPY_LINE_CHARS = 40
_SENTENCE_END = frozenset(".!?。！？")
# Two pages share this much of their prose (characters of the longer) verbatim: one is a
# copy of the other.
COPY_SHARE = 0.5


def prose(text: str) -> str:
    """The words of a text that are prose: tokens without identifier characters, from
    lines that keep more than one such word (a line of one word is an entry of a list, a
    name: ``deny`` in an index of directives). In scripts written without spaces one
    token is a phrase and is kept."""
    out = []
    for line in text.split("\n"):
        words = [w for w in line.split() if not _IDENTIFIER.search(w)]
        if len(words) > 1 or (words and _UNSEGMENTED.search(words[0])):
            out.extend(words)
    return " ".join(out)


def prose_lines(text: str) -> frozenset:
    """The sentences of ``text``: lines that end as a sentence ends and whose prose is long
    enough to be written (:data:`COPY_LINE_CHARS`), as their prose. Commands, code, paths
    and lists of names are left out: a translation keeps its command lines (``aws acm
    list-certificates --certificate-statuses status``), which say nothing of a copy."""
    out = set()
    for line in (text or "").split("\n"):
        line = line.strip()
        if not line or line[-1] not in _SENTENCE_END:
            continue
        words = " ".join(w for w in prose(line).split() if not w.startswith("-"))
        if len(words) >= COPY_LINE_CHARS:
            out.add(words)
    return frozenset(out)


def copied_share(lines_1: frozenset, lines_2: frozenset) -> float:
    """Share of the longer side's prose (characters) that the other has verbatim, 0..1."""
    if not lines_1 or not lines_2:
        return 0.0
    shared = sum(len(line) for line in lines_1 & lines_2)
    if not shared:
        return 0.0
    return shared / max(sum(map(len, lines_1)), sum(map(len, lines_2)))


_TITLE_WORD = re.compile(WORD_OF_TWO)


def title_words(title: str, ignore: frozenset = frozenset()) -> frozenset:
    """The words of a page title, lower-cased (numbers and one-letter words left out), but
    those in ``ignore`` (:func:`site_title_words`)."""
    return frozenset(w.lower() for w in _TITLE_WORD.findall(title or "")) - ignore


# A word in this share of one language's titles (3 titles at least) is the site's name or
# tagline, which a site localises around titles it leaves untranslated.
SITE_TITLE_SHARE = 0.5


def site_title_words(titles) -> frozenset:
    """The words in :data:`SITE_TITLE_SHARE` of ``titles`` (of one language's pages)."""
    counts: Counter = Counter()
    n = 0
    for n, title in enumerate(titles, 1):
        counts.update(title_words(title))
    if n < 3:
        return frozenset()
    return frozenset(w for w, c in counts.items() if c >= SITE_TITLE_SHARE * n)


# The share of the shorter title's words the other has where the title was not translated.
SAME_TITLE = 0.8


def same_title(title_1: str, title_2: str, ignore: frozenset = frozenset()) -> bool:
    """The shorter title's words are nearly all the other's (:data:`SAME_TITLE`): the title
    was not translated (a site's own name or tagline, localised, may follow it: its words
    are in ``ignore``). A name and a translated site name (``aws acm — 명령줄 치트시트``) is
    a translated title."""
    a, b = title_words(title_1, ignore), title_words(title_2, ignore)
    if not a or not b:
        return True
    return len(a & b) >= SAME_TITLE * min(len(a), len(b))


def is_copy(lines_1: frozenset, lines_2: frozenset, title_1: str = "",
            title_2: str = "", ignore: frozenset = frozenset()) -> bool:
    """The second page is the first's text, untranslated: :data:`COPY_SHARE` of their
    prose verbatim, under a title that was not translated either (the site's own title
    words ``ignore`` aside). A page whose title and headings were translated around a body
    left in the original language (release notes in a translated frame) is a partial
    translation, not a copy."""
    return (copied_share(lines_1, lines_2) >= COPY_SHARE
            and same_title(title_1, title_2, ignore))


# A copy's words: this share of the longer side's prose words (as a multiset) are the
# other's, :data:`COPY_MIN_WORDS` words at least. A short page has no line long enough
# to compare, and a copy's links may carry their targets' translated titles; a
# translation shares its names and a few cognates.
COPY_WORD_SHARE = 0.8
COPY_MIN_WORDS = 6


_EDGE_PUNCTUATION = "\"'.,;:!?()[]«»“”„‘’¿¡…—–-、。，：；！？（）「」『』"


def prose_words(text: str) -> Counter:
    """The words of a text, lower-cased, with their counts (:func:`same_prose`): tokens
    without the punctuation around them, identifiers, numbers and paths left out."""
    out: Counter = Counter()
    for tok in (text or "").split():
        tok = tok.strip(_EDGE_PUNCTUATION)
        if tok and not _IDENTIFIER.search(tok):
            out[tok.lower()] += 1
    return out


def same_prose(words_1: Counter, words_2: Counter, links_1: Counter | None = None,
               links_2: Counter | None = None) -> bool:
    """Nearly all the prose words (:func:`prose_words`) of two texts are the same
    (:data:`COPY_WORD_SHARE` of the shared and differing words), :data:`COPY_MIN_WORDS`
    shared at least. A word of one text only that is in its links' texts (``links_1``,
    ``links_2``: their :func:`prose_words`) does not differ: a copy's links carry their
    targets' titles, translated where the targets are."""
    shared = sum((words_1 & words_2).values())
    if shared < COPY_MIN_WORDS:
        return False
    only_1 = words_1 - words_2 - (links_1 or Counter())
    only_2 = words_2 - words_1 - (links_2 or Counter())
    return shared >= COPY_WORD_SHARE * (shared + max(sum(only_1.values()),
                                                     sum(only_2.values())))
