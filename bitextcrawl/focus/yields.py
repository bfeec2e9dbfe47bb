"""Which links pay: yield learning [not in the papers].

Every link of a wanted-language page that is no switch into another wanted language is
a *sample* of the language it leads to. A sample yields when its page is the first of a
pair (the URL-pairing pipeline's ``pages_paired``), carries a switch into another wanted
language, or is itself in another wanted language.
"""

from __future__ import annotations

from collections import Counter


class YieldLearning:
    def __init__(self):
        self.sample_of: dict[str, str] = {}      # URL -> the language it was a sample of
        self.samples: Counter = Counter()
        self.sample_yield: Counter = Counter()
        self.yielded: set[str] = set()

    def yielded_page(self, url: str) -> None:
        """``url``'s page yielded (a pair, or a switch into another wanted language)."""
        if url in self.yielded:
            return
        self.yielded.add(url)
        lang = self.sample_of.get(url)
        if lang is not None:
            self.sample_yield[lang] += 1

    def sample(self, url: str, lang: str, yielded: bool = False) -> bool:
        """Count ``url`` as a sample of ``lang``; False if it was one already."""
        if url in self.sample_of:
            return False
        self.sample_of[url] = lang
        self.samples[lang] += 1
        if yielded:
            self.yielded.add(url)
        if url in self.yielded:
            self.sample_yield[lang] += 1
        return True

    def rate(self, lang: str) -> float:
        n = self.samples[lang]
        return self.sample_yield[lang] / n if n else 1.0

    def low(self, lang: str, langs, min_pages: int, min_rate: float) -> bool:
        """Too few of ``lang``'s samples yielded, against another wanted language whose
        samples do (without that contrast — opaque URLs, no switches, pairs only at the
        close — a low yield says nothing)."""
        if self.samples[lang] < min_pages or self.rate(lang) >= min_rate:
            return False
        return any(self.samples[o] >= min_pages // 2 and self.rate(o) >= min_rate
                   for o in langs if o != lang)

    def to_state(self) -> dict:
        return {lang: [self.samples[lang], self.sample_yield[lang]] for lang in self.samples}

    def load(self, state: dict) -> None:
        for lang, (n, y) in state.items():
            self.samples[lang] += n
            self.sample_yield[lang] += y
