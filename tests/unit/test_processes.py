"""The process pools' fork server (``bitextcrawl.processes``): workers end with their maker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from bitextcrawl.processes import ProcessPool

MAKER = """
import sys, time
from bitextcrawl.processes import ProcessPool
pool = ProcessPool(1)
pool.start()
print(pool.submit(__import__("os").getpid).result(), flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:   # a zombie is gone too
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_end_when_their_maker_is_killed():
    """SIGKILL tells a pool's workers nothing: without the pipe they would wait for tasks
    for ever, holding the maker's stderr (a crawl killed mid-way, then resumed)."""
    maker = subprocess.Popen([sys.executable, "-c", MAKER], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        worker = int(maker.stdout.readline())
        assert _alive(worker)
    finally:
        maker.send_signal(signal.SIGKILL)
        maker.wait(30)
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)
    # nothing holds the maker's pipes open any more
    assert maker.stderr.read() is not None


def test_a_pool_runs_tasks_and_shuts_down():
    with ProcessPool(1) as pool:
        pool.start()
        assert pool.submit(os.getpid).result() != os.getpid()
