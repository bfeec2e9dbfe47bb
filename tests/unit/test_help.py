"""Each command's ``-h``: its headings are the sections' titles only, never an option's help.

Scrapy's help formatter underlines any help line that ends in a colon, so an option's help
that wraps after "default:" would print as an underlined title. bitextcrawl's commands lay
out their help with :class:`bitextcrawl.commands.HelpFormatter`; these tests read the help
as printed, at several terminal widths (argparse wraps at the terminal's width).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from importlib import import_module

import pytest
from scrapy.commands import ScrapyHelpFormatter
from scrapy.settings import Settings

from bitextcrawl.commands import HelpFormatter
from tests.conftest import PROJECT_ROOT

COMMANDS = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "project"]["entry-points"]["scrapy.commands"]
WIDTHS = (40, 52, 64, 80, 100, 140)


def headings(text: str) -> list[str]:
    """The lines of ``text`` followed by a line of ``=`` or ``-`` only."""
    lines = text.splitlines()
    return [line.strip() for line, under in zip(lines, lines[1:])
            if len(under.strip()) >= 3 and set(under.strip()) <= {"=", "-"}]


def section_titles(parser: argparse.ArgumentParser) -> set[str]:
    return {"Usage"} | {group.title.title() for group in parser._action_groups if group.title}


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser Scrapy's ``cmdline`` builds for command ``name``, options added."""
    module, _, cls = COMMANDS[name].partition(":")
    command = getattr(import_module(module), cls)()
    command.settings = Settings()  # as cmdline sets it before add_options
    parser = argparse.ArgumentParser(formatter_class=ScrapyHelpFormatter,
                                     conflict_handler="resolve", prog=f"scrapy {name}")
    command.add_options(parser)
    return parser


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_help_has_only_section_headings(name, monkeypatch):
    parser = command_parser(name)
    allowed = section_titles(parser)
    assert {"Options", "Global Options"} <= allowed
    for width in WIDTHS:
        monkeypatch.setenv("COLUMNS", str(width))
        text = parser.format_help()
        found = headings(text)
        assert set(found) <= allowed, (width, found, text)
        assert "Options" in found and "Global Options" in found, (width, text)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_scrapy_command_h(name):
    """``scrapy NAME -h`` as a user runs it, from the project's folder."""
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "scrapy", name, "-h"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = headings(proc.stdout)
    allowed = section_titles(command_parser(name))
    assert found[0] == "Usage" and set(found) <= allowed, (found, proc.stdout)


def test_a_help_line_ending_in_a_colon_is_not_a_heading(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    parser = argparse.ArgumentParser(formatter_class=HelpFormatter, prog="scrapy x")
    parser.add_argument("--langs", help="the two languages, the first one is url_1 (default:"
                                        " BITEXT_LANGS, else en,fr)")
    parser.add_argument_group("more options").add_argument("--y", help="why:")
    text = parser.format_help()
    assert headings(text) == ["Usage", "Options", "More Options"], text
    assert "  --y Y          why:\n" in text


def test_scrapy_crawl_h_names_the_bitext_spider_arguments():
    """Scrapy's ``-a NAME=VALUE`` names no argument: the description says which ones
    bitextcrawl's spiders take, and the exit statuses of a crawl."""
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "-h"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = " ".join(proc.stdout.split())
    for needed in ("scrapy crawl bitext -a start_url=URL -a langs=en,fr", "-a max_pages=N",
                   "scrapy crawl expand -a seeds=FILE", "USER_AGENT", "3 a language"):
        assert needed in text, (needed, proc.stdout)
