"""How a finished crawl went, as the user reads it: warnings that say what was seen
instead of what was asked for, and the crawl's exit status. No Scrapy here: the
:class:`~bitextcrawl.extensions.outcome.CrawlOutcome` extension calls :func:`judge`
with the crawl's stats when the spider closes.

Exit statuses of ``scrapy crawl bitext`` (docs/report-and-errors.md):

- 0: the crawl finished and found page pairs;
- 1: the crawl failed (Scrapy could not start it, or an exception stopped it);
- 2: refused before crawling (a bad argument, an output dir that cannot be written or holds
  another crawl, a start URL that does not answer): one line on stderr, nothing written;
- 3: the crawl finished but a wanted language had no page, or no page pair was found;
- 4: the crawl finished but its outputs could not be written (a full disk): its pages are
  kept in the page store, from which ``scrapy align`` writes them later;
- 130: interrupted (Ctrl-C, SIGTERM); resumable with its JOBDIR.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_REFUSED, EXIT_NOTHING_FOUND, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_NOT_WRITTEN = 4

# The stat that says the closing step could not write the outputs (its OSError's text).
WRITE_ERROR = "bitext/closing/write_error"

# Names of the languages a user most often means; any other is shown by its code alone.
LANGUAGE_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan", "cs": "Czech",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French",
    "ga": "Irish", "gl": "Galician", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "is": "Icelandic",
    "it": "Italian", "ja": "Japanese", "ka": "Georgian", "kk": "Kazakh", "ko": "Korean",
    "lt": "Lithuanian", "lv": "Latvian", "mk": "Macedonian", "ms": "Malay", "mt": "Maltese",
    "nl": "Dutch", "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian",
    "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "th": "Thai", "tr": "Turkish",
    "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh": "Chinese",
}


def language(code: str) -> str:
    """``Russian (ru)``; the code alone for a language without a name here."""
    name = LANGUAGE_NAMES.get(code.split("-")[0])
    return f"{name} ({code})" if name else code


def _by_lang(stats: dict, prefix: str) -> dict[str, int]:
    return {k[len(prefix):]: v for k, v in stats.items()
            if k.startswith(prefix) and "/" not in k[len(prefix):] and v}


def seen_instead(stats: dict, langs) -> str:
    """What the crawl saw in languages not asked for: links dropped, pages stored."""
    parts = []
    links = _by_lang(stats, "bitext/links/other_lang/")
    for lang, n in sorted(links.items(), key=lambda x: (-x[1], x[0])):
        if lang not in langs:
            parts.append(f"{n} link{'s' if n != 1 else ''} led to {language(lang)}")
    pages = _by_lang(stats, "bitext/pages/stored/")
    for lang, n in sorted(pages.items(), key=lambda x: (-x[1], x[0])):
        parts.append(f"{n} page{'s' if n != 1 else ''} stored in {language(lang)}")
    return "; ".join(parts) if parts else "no page at all"


def judge(stats: dict, langs, aligned: bool, reason: str = "finished"
          ) -> tuple[list[str], int]:
    """The warnings of a crawl closed for ``reason`` with ``stats`` (the ``bitext/``
    counters), and its exit status. ``aligned``: the closing step ran (``bitext/pairs``
    is then the pairs found)."""
    if reason in ("shutdown", "cancelled"):
        return [], EXIT_INTERRUPTED
    if stats.get(WRITE_ERROR):
        return [], EXIT_NOT_WRITTEN   # (said in its own ERROR line: not_written_advice)
    if reason != "finished" and not reason.startswith("closespider_"):
        return [], EXIT_FAILED   # (a CLOSESPIDER_* limit reached is a finished crawl)
    warnings = []
    pages = _by_lang(stats, "bitext/pages/stored/")
    missing = [lang for lang in langs if not pages.get(lang)]
    if missing:
        warnings.append(
            f"no page in {', '.join(language(m) for m in missing)} was found "
            f"(langs={','.join(langs)}); the crawl saw instead: {seen_instead(stats, langs)}")
    if aligned and not stats.get("bitext/pairs"):
        stored = ", ".join(f"{n} in {language(lang)}" for lang, n in
                           sorted(pages.items(), key=lambda x: (-x[1], x[0]))) or "none"
        warnings.append(f"no page pair was found; pages stored: {stored}")
    return warnings, (EXIT_NOTHING_FOUND if warnings else EXIT_OK)


def not_written_advice(output_dir: str, error: OSError, store_path: str | None,
                       langs) -> str:
    """The one line that says the closing step could not write the outputs, and how to
    write them once there is room: ``scrapy align`` on the page store, which is intact."""
    what = error.strerror or str(error)
    name = f" ({error.filename})" if getattr(error, "filename", None) else ""
    said = [f"Closing step: the outputs could not be written to {output_dir}: {what}{name}."]
    if store_path:
        said.append(f"The crawl's pages are kept in {store_path}: make room, then write the "
                    f"outputs with: scrapy align {store_path} --langs {','.join(langs)} "
                    f"-o {output_dir}")
    else:
        said.append("The crawl's pages are kept in its page store.")
    return " ".join(said)


def interrupted_advice(output_dir: str, jobdir: str | None, langs) -> str:
    """What to do after an interrupted crawl, for the files it left in ``output_dir``:
    resume it (with ``jobdir``), and/or align the pages it stored, from ``pages.jsonl``
    or, without one, from the WARC of its responses."""
    import os

    said = ["Crawl interrupted: alignment skipped."]
    if jobdir:
        said.append(f"To resume it, run the same command again (JOBDIR={jobdir}): it "
                    "aligns when the crawl is done.")
    else:
        said.append("It cannot be resumed (no JOBDIR was set); a crawl into the same output "
                    "dir starts over with -s BITEXT_OVERWRITE_ENABLED=True.")
    source = next((os.path.join(output_dir, name) for name in ("pages.jsonl", "pages.warc.gz")
                   if os.path.exists(os.path.join(output_dir, name))
                   and os.path.getsize(os.path.join(output_dir, name))), None)
    if source is None:
        said.append("No page was stored.")
    else:
        said.append(f"To align the pages stored so far: scrapy align {source} "
                    f"--langs {','.join(langs)} -o {output_dir}")
    return " ".join(said)
