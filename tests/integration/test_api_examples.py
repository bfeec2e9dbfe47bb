"""The Python code blocks of docs/api.md run, in order, in an empty folder where
``scrapy demo`` ran (they read its ``output/demo/pages.jsonl``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.integration


def test_api_examples_run(tmp_path, monkeypatch):
    demo = subprocess.run([sys.executable, "-m", "scrapy", "demo", "--pairs", "20",
                           "-o", str(tmp_path / "output" / "demo")], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert demo.returncode == 0, demo.stderr[-3000:]
    page = (PROJECT_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/api.md", "exec"), namespace)  # noqa: S102
    assert (tmp_path / "aligned" / "pairs.jsonl").stat().st_size > 0
