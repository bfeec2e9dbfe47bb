"""``scrapy demo -o DIR`` as a newcomer runs it: a progress line before anything slow,
no ERROR line for the site's deliberate traps, its own output replaced, any other
non-empty folder refused with one line and left as it was."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.integration


def demo(out, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", "demo", "-o", str(out),
                           "--pairs", "20"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})


def test_demo_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("the user's")
    (tmp_path / "pairs.jsonl").write_text("{}\n")
    proc = demo(tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip() == (f"scrapy demo: error: -o {tmp_path} is not empty and not a "
                                   "demo's output (notes.txt): give a new or empty folder, "
                                   "or one a demo wrote")
    assert proc.stdout == ""
    assert (tmp_path / "notes.txt").read_text() == "the user's"
    assert (tmp_path / "pairs.jsonl").read_text() == "{}\n"


def test_demo_says_what_it_does_and_replaces_its_own_output(tmp_path):
    out = tmp_path / "demo"
    first = demo(out)
    assert first.returncode == 0, first.stderr[-3000:]
    assert first.stdout.splitlines()[0].startswith("Generating the demo site; the first run "
                                                   "also compiles the aligner")
    assert "deliberate traps" in first.stdout
    assert " ERROR: " not in first.stderr, [l for l in first.stderr.splitlines() if "ERROR" in l]
    warnings = [line for line in first.stderr.splitlines() if "] WARNING: " in line]
    assert len(warnings) == 1 and "larger than download max size" in warnings[0], warnings
    assert "Bitext: aligning the sentences of" in first.stderr   # said before the kernels
    assert (out / ".bitextcrawl-demo").exists() and (out / "pairs.jsonl").exists()
    (out / "mine.txt").write_text("kept")   # a marked demo folder: only its files replaced
    second = demo(out)
    assert second.returncode == 0, second.stderr[-3000:]
    assert (out / "mine.txt").read_text() == "kept"
    assert "Against the demo gold" in second.stdout


def test_demo_serve_serves_the_site_until_ctrl_c(tmp_path):
    """``scrapy demo --serve``: the site answers at the printed start URL, nothing is
    written, and Ctrl-C (SIGINT) ends the command with status 0."""
    import signal
    import urllib.request

    from bitextcrawl.demo.server import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "scrapy", "demo", "--serve", "--port",
                             str(port), "--pairs", "10"], cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    try:
        line = proc.stdout.readline()
        assert f"served at http://demo.localhost:{port}/" in line, line
        # the site's host names resolve to loopback in the crawl; here, ask 127.0.0.1
        path = line.split(f"demo.localhost:{port}", 1)[1].split()[0]
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                         headers={"Host": f"demo.localhost:{port}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200 and b"<html" in response.read().lower()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert list(tmp_path.iterdir()) == []
