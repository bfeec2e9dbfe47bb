"""Real Scrapyd servers on loopback for the tests and benches: start one in its own folder,
build the project's egg from a copy of the checkout, deploy it.

``scrapyd-deploy`` leaves ``build/`` and ``*.egg-info`` where it builds, so the egg is built
from a copy in a temporary folder, with a ``scrapy.cfg`` of its own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bitextcrawl.demo.server import free_port
from testkit.crawls import stop_process

PROJECT_ROOT = Path(__file__).resolve().parents[1]
MISSING = ("scrapyd / scrapyd-deploy not found on PATH (pip install scrapyd "
           "scrapyd-client)")


def api(base: str, endpoint: str, data: list[tuple[str, str]] | None = None) -> dict:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    with urllib.request.urlopen(f"{base}/{endpoint}", data=body, timeout=30) as resp:
        return json.loads(resp.read())


def scrapyd_available() -> bool:
    return bool(shutil.which("scrapyd") and shutil.which("scrapyd-deploy"))


def scrapyd_tools() -> tuple[str, str]:
    """``scrapyd`` and ``scrapyd-deploy`` (a test module skips without them:
    :func:`scrapyd_available`)."""
    exe, deploy = shutil.which("scrapyd"), shutil.which("scrapyd-deploy")
    if exe is None or deploy is None:
        raise RuntimeError(MISSING)
    return exe, deploy


@contextmanager
def running_scrapyd(home: Path, max_proc: int = 2, project: str = "bitextcrawl"):
    """A Scrapyd on a free loopback port, in ``home``; yields its base URL. Jobs still
    running at the end are cancelled, then the server is stopped (its pid only)."""
    exe, _ = scrapyd_tools()
    port = free_port()
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        "bind_address = 127.0.0.1\n"
        f"http_port = {port}\n"
        "poll_interval = 0.5\n"
        f"max_proc = {max_proc}\n"
        "eggs_dir = eggs\nlogs_dir = logs\ndbs_dir = dbs\nitems_dir =\njobs_dir =\n")
    log = (home / "scrapyd.out").open("w")
    proc = subprocess.Popen([exe], cwd=home, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                if api(base, "daemonstatus.json")["status"] == "ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("scrapyd did not start: "
                                   + (home / "scrapyd.out").read_text()[-3000:])
            time.sleep(0.2)
        yield base
    finally:
        try:  # a job still running when a test failed
            for job in api(base, f"listjobs.json?project={project}").get("running", []):
                api(base, "cancel.json", [("project", project), ("job", job["id"])])
        except (OSError, ValueError):
            pass
        stop_process(proc, timeout=15)
        log.close()


def build_egg(src: Path) -> Path:
    """The project's egg, built by ``scrapyd-deploy --build-egg`` from a copy in ``src``."""
    _, deploy = scrapyd_tools()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("bitextcrawl", "settings"):
        shutil.copytree(PROJECT_ROOT / name, src / name, ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(PROJECT_ROOT / name, src)
    (src / "scrapy.cfg").write_text("[settings]\ndefault = settings.local\n")
    egg = src / "bitextcrawl.egg"
    build = subprocess.run([deploy, "--build-egg", str(egg)], cwd=src,
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    return egg


def deploy_egg(egg: Path, base: str, version: str = "1") -> dict:
    """Upload the egg to one Scrapyd (``scrapyd-deploy --egg``, with a ``scrapy.cfg`` whose
    ``[deploy]`` URL is ``base``); its reply."""
    _, deploy = scrapyd_tools()
    (egg.parent / "scrapy.cfg").write_text(
        "[settings]\ndefault = settings.local\n\n"
        f"[deploy]\nurl = {base}/\nproject = bitextcrawl\n")
    out = subprocess.run([deploy, "--egg", str(egg), "--version", version], cwd=egg.parent,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout[out.stdout.index("{"):])
    assert reply["status"] == "ok", reply
    return reply
