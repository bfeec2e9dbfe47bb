"""The documentation: the settings page is the code's, the README stays a first screen,
the papers are cited by author and year, and the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from bitextcrawl.defaults import DEFAULTS
from tests.conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"


def test_settings_page_is_generated_from_the_code():
    proc = subprocess.run([sys.executable, str(DOCS / "gen_reference.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_every_setting_is_documented():
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(BITEXT_\w+)` \| \w+ \| `[^|]*` \| (.*) \|$", page, re.M))
    assert set(rows) == set(DEFAULTS)
    assert all(meaning.strip() for meaning in rows.values()), \
        [name for name, meaning in rows.items() if not meaning.strip()]


def test_readme_is_a_first_screen():
    lines = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    commands = [line.strip() for line in lines[:12] if line.startswith("    ")]
    assert commands[:2] == ["pip install -r requirements.txt && scrapy demo",
                            "pip install -r requirements.txt && python -m pytest"]


def test_papers_cited_by_author_and_year():
    files = subprocess.run(["git", "ls-files"], cwd=PROJECT_ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    seed_number = re.compile(r"\bseeds? 00\d", re.I)
    found = [name for name in files if name.endswith((".py", ".md", ".txt", ".cfg", ".toml"))
             and (PROJECT_ROOT / name).is_file()
             and seed_number.search((PROJECT_ROOT / name).read_text(encoding="utf-8"))]
    assert found == []
    bibliography = (DOCS / "algorithms.md").read_text(encoding="utf-8")
    for key in ("Zhang 2013", "Assylbekov 2015", "Shi 2006", "Germann 2016", "Liu 2014"):
        assert f"**[{key}]**" in bibliography, key


def test_mkdocs_build_strict(tmp_path):
    if shutil.which("mkdocs") is None and subprocess.run(
            [sys.executable, "-c", "import mkdocs"], capture_output=True).returncode:
        pytest.skip("mkdocs is not installed (pip install -r requirements.txt)")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "settings" / "index.html").is_file()


def test_report_png_is_as_fresh_as_the_report_code():
    """docs/report.png is redrawn (``python bench/make_report_png.py``) in a commit at or
    after the last one that changed the report's code."""
    def last_commit(path: str) -> int | None:
        proc = subprocess.run(["git", "log", "-1", "--format=%ct", "--", path],
                              cwd=PROJECT_ROOT, capture_output=True, text=True)
        return int(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else None

    png, code = last_commit("docs/report.png"), last_commit("bitextcrawl/report")
    if png is None or code is None:
        pytest.skip("no git history here (a copy of the sources, or a shallow clone)")
    assert png >= code, ("bitextcrawl/report changed after docs/report.png was drawn: "
                         "python bench/make_report_png.py")


def _plot_benchmarks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("plot_benchmarks",
                                                  PROJECT_ROOT / "bench" / "plot_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_figures_are_what_their_data_draws():
    """docs/figures/*.svg are drawn from bench/results/*.csv by ``python
    bench/plot_benchmarks.py``: the same data gives the same bytes."""
    for path, svg in _plot_benchmarks().figures().items():
        assert path.read_text(encoding="utf-8") == svg, (
            f"{path.name} is not what its data draws: python bench/plot_benchmarks.py")


def test_benchmark_tables_are_their_data():
    """The tables of the figures' data are in the pages as ``--tables`` prints them."""
    pages = "".join((DOCS / name).read_text(encoding="utf-8")
                    for name in ("benchmarks.md", "deployment.md"))
    for name, table in _plot_benchmarks().tables().items():
        assert table in pages, (f"the {name} table differs from bench/results: "
                                "python bench/plot_benchmarks.py --tables")


def test_benchmark_figures_are_not_older_than_their_data():
    """Each figure is committed at or after the last commit of the data it is drawn from."""
    def last_commit(path: str) -> int | None:
        proc = subprocess.run(["git", "log", "-1", "--format=%ct", "--", path],
                              cwd=PROJECT_ROOT, capture_output=True, text=True)
        return int(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else None

    plot = _plot_benchmarks()
    for figure, data in ((plot.RESPONSES_SVG, plot.RESPONSES_CSV),
                         (plot.WORKERS_SVG, plot.WORKERS_CSV)):
        drawn = last_commit(str(figure.relative_to(PROJECT_ROOT)))
        measured = last_commit(str(data.relative_to(PROJECT_ROOT)))
        if drawn is None or measured is None:
            pytest.skip("no git history here (a copy of the sources, or a shallow clone)")
        assert drawn >= measured, (f"{data.name} changed after {figure.name} was drawn: "
                                   "python bench/plot_benchmarks.py")
