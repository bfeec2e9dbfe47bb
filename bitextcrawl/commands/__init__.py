"""bitextcrawl's Scrapy commands, one module per command: registered through the
``scrapy.commands`` entry point group (``pyproject.toml``), so they work after ``pip
install`` in any folder, and through ``COMMANDS_MODULE`` in a checkout's profiles."""

from __future__ import annotations

import sys
from typing import NoReturn

from scrapy.commands import ScrapyHelpFormatter

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


class HelpFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout (underlined, title-cased section headings) in which only the
    sections' headings are headings. Scrapy's formatter underlines every line of the help
    that ends in a colon, so an option's help wrapped just after "default:" would print as
    a title; here a line is a heading only where argparse puts a section's heading, right
    after the newline that opens the section."""

    def format_part_strings(self, part_strings: list[str]) -> list[str]:
        if part_strings and part_strings[0].startswith("usage: "):
            part_strings[0] = "Usage\n=====\n  " + part_strings[0].removeprefix("usage: ")
        headings = [i for i in range(1, len(part_strings))
                    if part_strings[i].endswith(":\n") and part_strings[i - 1] == "\n"]
        for index in reversed(headings):
            char = "-" if "Global Options" in part_strings[index].title() else "="
            part_strings[index] = part_strings[index].removesuffix(":\n").title()
            part_strings.insert(index + 1, "\n" + char * len(part_strings[index]) + "\n")
        return part_strings


def use_help_formatter(parser) -> None:
    """Lay out the command's ``-h`` with :class:`HelpFormatter` (from a command's
    ``add_options``: Scrapy makes the parser with its own formatter)."""
    parser.formatter_class = HelpFormatter
