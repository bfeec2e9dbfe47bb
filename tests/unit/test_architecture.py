"""docs/architecture.md against the code: every path its module map ("Where things are")
names exists where the map puts it, and every module of the package is in the map; the
paths the rest of the page names exist too."""

from __future__ import annotations

import re

from tests.conftest import PROJECT_ROOT

PAGE = PROJECT_ROOT / "docs" / "architecture.md"
PACKAGE = PROJECT_ROOT / "bitextcrawl"
MODULE = re.compile(r"(?<![\w/.*])((?:[\w]+/)*[\w]+\.py)\b")
FOLDER = re.compile(r"^(\s*)([\w]+)/(?=\s|$)")


def module_map() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Where things are"):]
    return section[section.index("```\n") + 4:section.index("\n```", section.index("```\n"))
                   ].splitlines()


def mapped_paths() -> set[str]:
    """The files the map names, as paths from the project root. A line at indent 0 that
    starts with ``name/`` is a top-level folder; under ``bitextcrawl/``, a line at indent 2
    that starts with ``name/`` is its subpackage, and ``name.py`` a top-level module. A
    name in a line is in the folder of the line's block; ``a/b.py`` is from the top-level
    folder."""
    root, folder, paths = "", "", set()
    for line in module_map():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        start = FOLDER.match(line)
        if indent == 0:
            root = start.group(2) if start else ""
            folder = root
            line = line[start.end():] if start else line
        elif indent == 2 and root == "bitextcrawl":
            if start:
                folder = f"{root}/{start.group(2)}"
                line = line[start.end():]
            else:
                folder = root
        for name in MODULE.findall(line):
            paths.add(f"{root}/{name}" if "/" in name else f"{folder}/{name}")
    return paths


def test_every_path_in_the_module_map_exists():
    paths = mapped_paths()
    assert len(paths) > 100
    missing = sorted(p for p in paths if not (PROJECT_ROOT / p).is_file())
    assert missing == [], missing


def test_every_module_of_the_package_is_in_the_map():
    paths = mapped_paths()
    modules = sorted(str(p.relative_to(PROJECT_ROOT)) for p in PACKAGE.rglob("*.py")
                     if p.name != "__init__.py" and "__pycache__" not in p.parts)
    left_out = [m for m in modules if m not in paths]
    assert left_out == [], left_out


def test_every_folder_of_the_package_is_in_the_map():
    folders = {f"bitextcrawl/{m.group(2)}" for line in module_map()
               if (m := FOLDER.match(line)) and len(m.group(1)) == 2}
    packages = {str(p.parent.relative_to(PROJECT_ROOT)) for p in PACKAGE.glob("*/__init__.py")}
    assert packages <= folders, sorted(packages - folders)


def test_paths_named_elsewhere_on_the_page_exist():
    text = PAGE.read_text(encoding="utf-8")
    text = text.replace("\n".join(module_map()), "")
    named = set(re.findall(r"`((?:[\w.]+/)+[\w.]+\.py|[\w]+\.py)`", text))
    missing = [n for n in sorted(named) if not any(
        (base / n).is_file() for base in (PROJECT_ROOT, PACKAGE))
        and not list(PACKAGE.rglob(n))]
    assert missing == [], missing
