"""Language-independent tokens (``pages/tokens.py``)."""

from __future__ import annotations

import re

from bitextcrawl.pages import tokens


def test_word_letters_are_word_characters_but_digits_underscore_and_no_space_scripts():
    """The one-class pattern of a word's letters matches what the lookahead form did, over
    every code point (tokenize and anchor_tokens read words with it)."""
    lookahead = re.compile(rf"(?:(?![{tokens._NOSPACE}])[^\W\d_])+")
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    for text in (every, every[::-1], " ".join(every[::7])):
        assert tokens._WORD_RE.findall(text) == lookahead.findall(text)


def test_a_word_keeps_its_combining_marks():
    """Brahmic scripts write most vowels as combining marks, which Python's ``\\w`` leaves
    out: a word is read whole, not as the letters between its vowel signs."""
    assert tokens.tokenize("हिन्दी भारत की राजभाषा है") == ["हिन्दी", "भारत", "की", "राजभाषा", "है"]
    assert tokens.tokenize("বাংলা ভাষা একটি ইন্দো-আর্য ভাষা।") == [
        "বাংলা", "ভাষা", "একটি", "ইন্দো", "আর্য", "ভাষা"]
    # a zero-width non-joiner inside a word (Persian, Bengali) keeps it whole
    assert tokens.tokenize("می\u200cخواهم") == ["می\u200cخواهم"]
    # texts without marks read as they did: the mark-free pattern
    assert tokens.tokenize("Le café, 1,5 kg; 東京都") == ["le", "café", "1", "5", "kg", "東京", "京都"]


def test_every_word_pattern_reads_a_brahmic_word_whole():
    """The other modules' word patterns share the marks: title words, row words, the tree
    aligner's words, the language check's word count and URL shapes."""
    from bitextcrawl.bitext.calibration import row_words
    from bitextcrawl.bitext.langcheck import _WORD as langcheck_word
    from bitextcrawl.pages.prose import title_words
    from bitextcrawl.pairing.url_tokens import _SHAPE
    from bitextcrawl.trees.textcost import _WORD as tree_word

    text = "वर्चुअल होस्ट"
    assert row_words(text) == ("वर्चुअल", "होस्ट")
    assert langcheck_word.findall(text) == ["वर्चुअल", "होस्ट"]
    assert tree_word.findall(text) == ["वर्चुअल", "होस्ट"]
    assert title_words(text) == frozenset({"वर्चुअल", "होस्ट"})
    assert _SHAPE.sub("a", "वर्चुअल-होस्ट-2") == "a-a-a"
