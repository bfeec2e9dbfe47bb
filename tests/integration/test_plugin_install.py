"""bitextcrawl as a plugin, installed as a user installs it: in a new virtual environment
and a folder outside the repository, ``pip install`` the package, run ``scrapy demo``,
then make a project with ``scrapy startproject``, add one ``ADDONS`` line and crawl the
real nginx.org (../shared/data/nginx) served on loopback.

The new virtual environment sees the site-packages of the interpreter running the tests
(where requirements.txt was installed: the machine's Python, or a virtual environment of
the user's) through a ``.pth`` file, and the package is installed with ``--no-deps``:
nothing but bitextcrawl itself is downloaded. ``venv --system-site-packages`` would not do:
made from a virtual environment's interpreter, it sees the base interpreter's packages,
not the ones installed in that environment. Nothing top-level beside ``bitextcrawl`` gets
installed (no ``settings``).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from bitextcrawl.demo.server import serve_directory
from bitextcrawl.pairing.evaluate import evaluate, read_gold, read_pairs_jsonl
from tests.conftest import FAST_CRAWL, PROJECT_ROOT, SHARED_DATA

pytestmark = pytest.mark.integration

NGINX = SHARED_DATA / "nginx"
SOURCE = ("bitextcrawl", "pyproject.toml", "setup.py", "README.md")


def run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """``cmd`` as a user outside the repository runs it: no PYTHONPATH, no Scrapy project."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT")}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def running_site_packages() -> list[str]:
    """The site-packages folders the interpreter running the tests imports from: a
    virtual environment's own (and its base's, with ``--system-site-packages``), or the
    machine's; the user's site-packages where it is on."""
    folders = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [f for f in dict.fromkeys(folders) if os.path.isdir(f)]


def see_running_site_packages(python: str, cwd: Path) -> None:
    """A ``.pth`` file in the site-packages of the venv of ``python`` that adds the running
    interpreter's site-packages after the venv's own, each with its own ``.pth`` files
    (``site.addsitedir``): the venv imports the installed requirements, and its own
    packages (bitextcrawl) first."""
    proc = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
               cwd, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = [f"import site; site.addsitedir({folder!r})\n" for folder in running_site_packages()]
    (Path(proc.stdout.strip()) / "zz_running_site_packages.pth").write_text(
        "".join(lines), encoding="utf-8")


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("plugin")
    src = root / "src"  # a copy: pip's build leaves build/ and *.egg-info beside the sources
    src.mkdir()
    for name in SOURCE:
        if (PROJECT_ROOT / name).is_dir():
            shutil.copytree(PROJECT_ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(PROJECT_ROOT / name, src / name)
    made = run([sys.executable, "-m", "venv", str(root / "venv")], root, timeout=120)
    assert made.returncode == 0, made.stderr
    python = str(root / "venv" / "bin" / "python")
    see_running_site_packages(python, root)
    installed = run([python, "-m", "pip", "install", "--no-deps", "-q", str(src)], root,
                    timeout=600)
    assert installed.returncode == 0, installed.stderr[-3000:]
    work = root / "work"  # outside the repository, no scrapy.cfg above it
    work.mkdir()
    return {"python": python, "work": work}


def test_only_the_package_is_installed(venv):
    proc = run([venv["python"], "-c", "import settings"], venv["work"], timeout=60)
    assert proc.returncode != 0 and "No module named 'settings'" in proc.stderr
    proc = run([venv["python"], "-c", "import bitextcrawl, bitextcrawl.demo.generator as g; "
                "print(bitextcrawl.__file__); print(g.__file__)"], venv["work"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert all("site-packages" in line for line in proc.stdout.split()), proc.stdout


def test_demo_outside_a_project(venv):
    proc = run([venv["python"], "-m", "scrapy", "demo", "--pairs", "30", "-o", "demo"],
               venv["work"], timeout=300)
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert "no active project" not in proc.stdout + proc.stderr
    out = proc.stdout
    scores = json.loads(out[out.index("{", out.index("Against the demo gold")):
                            out.index("}", out.index("Against the demo gold")) + 1])
    print(f"scrapy demo --pairs 30 (installed, outside a project): {scores}")
    assert scores["gold"] > 30 and scores["f1"] >= 0.9, scores
    assert (venv["work"] / "demo" / "pairs.jsonl").stat().st_size > 0


def test_addon_in_a_new_project_crawls_nginx(venv):
    if not (NGINX / "site").is_dir():
        pytest.skip(f"real data not found at {NGINX} (../shared/data beside the project)")
    made = run([venv["python"], "-m", "scrapy", "startproject", "x"], venv["work"], timeout=120)
    assert made.returncode == 0, made.stderr
    project = venv["work"] / "x"
    with (project / "x" / "settings.py").open("a", encoding="utf-8") as fh:
        fh.write('\nADDONS = {"bitextcrawl.Addon": 0}\n')
    out = project / "out"
    with serve_directory(str(NGINX / "site")) as server:
        cmd = [venv["python"], "-m", "scrapy", "crawl", "bitext", "-a",
               f"start_url={server.url}/en/", "-a", "langs=en,ru",
               "-s", f"BITEXT_OUTPUT_DIR={out}"]
        for key, value in FAST_CRAWL.items():  # over startproject's DOWNLOAD_DELAY = 1
            cmd += ["-s", f"{key}={value}"]
        proc = run(cmd, project, timeout=600)
        assert proc.returncode == 0, proc.stderr[-5000:]
        assert "bitextcrawl.addon.Addon" in proc.stderr
        gold = read_gold(NGINX / "gold" / "en-ru.tsv", base=server.url + "/")
        scores = evaluate(gold, read_pairs_jsonl(out / "pairs.jsonl"),
                          directory_index="index.html")
    print(f"nginx en-ru crawled from a startproject project with the add-on: {scores}")
    assert scores["f1"] == 1.0, scores
    assert (out / "bitext.tsv").stat().st_size > 0
