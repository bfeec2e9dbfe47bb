"""bitextcrawl's Scrapy commands (``COMMANDS_MODULE``): one module per command."""

from __future__ import annotations

import sys
from typing import NoReturn

#: Exit status of a command refused for its input (Scrapy's, and argparse's, for usage errors).
USAGE_EXIT = 2


def fail(command: str, message: str) -> NoReturn:
    """End a command refused for its input: one line, ``scrapy COMMAND: error: MESSAGE``,
    on stderr, and exit status 2, with no traceback and without Scrapy's usage text
    (``UsageError`` prints the usage block, which says nothing about the bad value)."""
    sys.stderr.write(f"scrapy {command}: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(USAGE_EXIT)
