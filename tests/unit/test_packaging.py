"""The package's metadata: pyproject.toml's ranges and requirements.txt's pins agree, the
commands are entry points, only ``bitextcrawl`` is installed, with its data files."""

from __future__ import annotations

import pkgutil
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import bitextcrawl.commands
from tests.conftest import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins() -> dict[str, str]:
    """requirements.txt: canonical name -> exact version."""
    found = {}
    for line in (PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"not pinned with ==: {line}"
        found[canonicalize_name(req.name)] = specs[0].version
    return found


def ranges() -> list[Requirement]:
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in project["dependencies"] + sum(extras.values(), [])]


def test_every_range_has_a_pin_inside_it():
    pinned = pins()
    for req in ranges():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is in pyproject.toml, not in requirements.txt"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"requirements.txt pins {req.name}=={pinned[name]}, outside {req.specifier}"


def test_every_pin_is_a_dependency_or_an_extra():
    named = {canonicalize_name(req.name) for req in ranges()}
    assert set(pins()) - named == set(), "pinned in requirements.txt, not in pyproject.toml"


def test_extras():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"redis", "scrapyd", "docs"} <= set(extras)
    assert any(Requirement(r).name == "mkdocs" and "==" in r for r in extras["docs"])


def test_every_command_is_an_entry_point():
    modules = {m.name for m in pkgutil.iter_modules(bitextcrawl.commands.__path__)}
    entry_points = PYPROJECT["project"]["entry-points"]["scrapy.commands"]
    assert set(entry_points) == modules
    for name, target in entry_points.items():
        assert target == f"bitextcrawl.commands.{name}:Command"
    assert PYPROJECT["project"]["entry-points"]["scrapy"]["settings"] == \
        "bitextcrawl.settings.scrapyd"


def test_only_the_package_is_installed_with_its_data():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["include"] == ["bitextcrawl", "bitextcrawl.*"]
    patterns = setuptools["package-data"]["bitextcrawl.demo"]
    data = sorted((PROJECT_ROOT / "bitextcrawl" / "demo").glob(patterns[0]))
    assert [p.name for p in data] == ["lexicon.json", "site.json", "templates.json"]
