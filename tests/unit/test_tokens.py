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
