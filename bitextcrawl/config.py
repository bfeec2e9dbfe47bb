"""Reading BITEXT_ settings one way everywhere.

- Every on/off setting is named ``*_ENABLED``. The names it had before still work:
  :func:`getbool` (and the :class:`RenamedSettings` add-on, for the components that read a
  setting themselves) take an old name's value over the new one's, with a deprecation
  warning, where the old name is set at the same priority or a higher one.
- :func:`pattern_db_path`: where the pattern database shared by all runs is.

The defaults themselves are in :mod:`bitextcrawl.defaults`.
"""

from __future__ import annotations

import os
import warnings

from scrapy.exceptions import ScrapyDeprecationWarning

from bitextcrawl.defaults import DEFAULTS

# old name -> new name
RENAMED_SETTINGS = {
    "BITEXT_RESOLVE_LOCALHOST": "BITEXT_RESOLVE_LOCALHOST_ENABLED",
    "BITEXT_FOCUS_DROP_OTHER_LANG": "BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED",
    "BITEXT_FOCUS_YIELD": "BITEXT_FOCUS_YIELD_ENABLED",
    "BITEXT_FOCUS_ONE_WAY": "BITEXT_FOCUS_ONE_WAY_ENABLED",
    "BITEXT_FOCUS_HOLD_QUEUED": "BITEXT_FOCUS_HOLD_QUEUED_ENABLED",
    "BITEXT_FOCUS_PROMOTE": "BITEXT_FOCUS_PROMOTE_ENABLED",
    "BITEXT_FOCUS_SWITCH_ABSENCE": "BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED",
    "BITEXT_FOCUS_SKIP_DUPLICATE_LINKS": "BITEXT_FOCUS_SKIP_DUPLICATE_LINKS_ENABLED",
    "BITEXT_REDIRECT_LEARNING": "BITEXT_REDIRECT_LEARNING_ENABLED",
    "BITEXT_DEEP_RECOVERY": "BITEXT_DEEP_RECOVERY_ENABLED",
    "BITEXT_PARALLEL_LINKS": "BITEXT_PARALLEL_LINKS_ENABLED",
    "BITEXT_SENTENCE_LANG_CHECK": "BITEXT_SENTENCE_LANG_CHECK_ENABLED",
    "BITEXT_COMPRESS": "BITEXT_COMPRESS_ENABLED",
    "BITEXT_EXPAND_CHECK_SEEDS": "BITEXT_EXPAND_CHECK_SEEDS_ENABLED",
    "BITEXT_EXPAND_REPLACE_FAILED": "BITEXT_EXPAND_REPLACE_FAILED_ENABLED",
    "BITEXT_RESUME_JOURNAL": "BITEXT_RESUME_JOURNAL_ENABLED",
}
OLD_NAMES = {new: old for old, new in RENAMED_SETTINGS.items()}


def _old_name_in_effect(settings, old: str, new: str) -> bool:
    """The old name is set above the new one, or beside it with another value (a profile
    module that sets the old name, over the defaults it imports)."""
    if settings.get(old) is None:
        return False
    old_priority, new_priority = settings.getpriority(old), settings.getpriority(new)
    if new_priority is None or old_priority > new_priority:
        return True
    return old_priority == new_priority and settings.getbool(old) != settings.getbool(new)


def _warn(old: str, new: str) -> None:
    warnings.warn(f"The {old} setting is deprecated: use {new}", ScrapyDeprecationWarning,
                  stacklevel=3)


def getbool(settings, name: str) -> bool:
    """``settings.getbool(name)``, where ``name`` is a setting of :data:`RENAMED_SETTINGS`'
    new names: its old name, if set (as a profile module or ``-s`` sets it), wins with a
    deprecation warning. Without either, the default of :mod:`bitextcrawl.defaults`."""
    old = OLD_NAMES.get(name)
    if old is not None and _old_name_in_effect(settings, old, name):
        _warn(old, name)
        return settings.getbool(old)
    return settings.getbool(name, DEFAULTS.get(name, False))


def resolve_renamed_settings(settings) -> None:
    """Write every renamed setting's value under its new name: an old name set in a
    profile or with ``-s`` wins, with a deprecation warning."""
    for old, new in RENAMED_SETTINGS.items():
        if _old_name_in_effect(settings, old, new):
            _warn(old, new)
            settings.set(new, settings.getbool(old), priority=settings.getpriority(old))


class RenamedSettings:
    """Scrapy add-on (``ADDONS``): :func:`resolve_renamed_settings` once the settings of
    the profile, the spider and the command line are all in."""

    def update_settings(self, settings) -> None:
        resolve_renamed_settings(settings)


def pattern_db_path(settings, output_dir: str = "output") -> str:
    """``BITEXT_PATTERN_DB``, or ``patterns-db.json`` in ``output_dir`` (by default the
    ``output/`` folder of the working directory, shared by all runs)."""
    return settings.get("BITEXT_PATTERN_DB") or os.path.join(output_dir, "patterns-db.json")
