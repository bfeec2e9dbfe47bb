"""bitextcrawl's Scrapy commands, one module per command: registered through the
``scrapy.commands`` entry point group (``pyproject.toml``), so they work after ``pip
install`` in any folder, and through ``COMMANDS_MODULE`` in a checkout's profiles."""

from __future__ import annotations

import sys
from typing import NoReturn

from bitextcrawl.defaults import DEFAULTS

#: Exit status of a command refused for its input (Scrapy's, and argparse's, for usage errors).
USAGE_EXIT = 2


def fail(command: str, message: str) -> NoReturn:
    """End a command refused for its input: one line, ``scrapy COMMAND: error: MESSAGE``,
    on stderr, and exit status 2, with no traceback and without Scrapy's usage text
    (``UsageError`` prints the usage block, which says nothing about the bad value)."""
    sys.stderr.write(f"scrapy {command}: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(USAGE_EXIT)


def command_settings(**settings) -> dict:
    """A command's ``default_settings``: every ``BITEXT_`` default and ``settings``. Scrapy
    sets them at the "command" priority, below a project's own: outside a bitextcrawl
    project (the command found through its entry point) the defaults are still there."""
    return {**DEFAULTS, **settings}
