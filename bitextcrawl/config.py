"""Reading BITEXT_ settings one way everywhere.

- :func:`getbool`: an on/off setting (named ``*_ENABLED``), with the default of
  :mod:`bitextcrawl.defaults` where the settings have none.
- :func:`pattern_db_path`: where the pattern database shared by all runs is.
"""

from __future__ import annotations

import os

from bitextcrawl.defaults import DEFAULTS


def getbool(settings, name: str) -> bool:
    """``settings.getbool(name)``; without it, the default of :mod:`bitextcrawl.defaults`."""
    return settings.getbool(name, DEFAULTS.get(name, False))


def pattern_db_path(settings, output_dir: str = "output") -> str:
    """``BITEXT_PATTERN_DB``, or ``patterns-db.json`` in ``output_dir`` (by default the
    ``output/`` folder of the working directory, shared by all runs)."""
    return settings.get("BITEXT_PATTERN_DB") or os.path.join(output_dir, "patterns-db.json")
