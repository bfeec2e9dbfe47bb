"""CITATION.cff is valid Citation File Format 1.2.0 and names the release the package and
the release notes name.

With ``cffconvert`` installed (``pip install cffconvert``), the file is validated against
the format's schema; without it, its required keys and their types are checked here.
"""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml

from tests.conftest import PROJECT_ROOT

TEXT = (PROJECT_ROOT / "CITATION.cff").read_text(encoding="utf-8")
CFF = yaml.safe_load(TEXT)


def test_required_keys_and_types():
    assert CFF["cff-version"] == "1.2.0"
    assert isinstance(CFF["message"], str) and CFF["message"]
    assert isinstance(CFF["title"], str) and CFF["title"]
    authors = CFF["authors"]
    assert isinstance(authors, list) and authors
    for author in authors:  # a person (family-names / given-names) or an entity (name)
        assert isinstance(author, dict) and (
            author.get("name") or author.get("family-names") or author.get("given-names"))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(CFF["date-released"]))


def test_version_and_date_are_the_release_notes():
    version = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["version"]
    assert str(CFF["version"]) == version
    notes = (PROJECT_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    latest = re.search(r"^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$", notes, re.M)
    assert latest, "CHANGELOG.md has no '## VERSION — DATE' release heading"
    assert latest.groups() == (version, str(CFF["date-released"]))


def test_valid_against_the_cff_schema():
    cffconvert = pytest.importorskip("cffconvert", reason="cffconvert is not installed "
                                     "(pip install cffconvert)")
    cffconvert.Citation(TEXT).validate()
