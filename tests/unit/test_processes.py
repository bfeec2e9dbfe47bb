"""The process pools' fork server (``bitextcrawl.processes``): workers end with their maker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

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


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_a_pool_that_breaks_does_its_work_here_when_asked_to():
    """A worker killed mid-task (out of memory, a signal): with ``inline_if_broken`` every
    task still gets its result, the ones left made in this process; without, the caller
    gets BrokenProcessPool."""
    for inline in (True, False):
        with ProcessPool(2, inline_if_broken=inline) as pool:
            pool.start()
            results = pool.map(_pid_after, [0.5] * 6)
            time.sleep(0.2)
            os.kill(next(iter(pool._processes)), signal.SIGKILL)
            if not inline:
                with pytest.raises(BrokenProcessPool):
                    list(results)
                continue
            pids = list(results)
            assert len(pids) == 6 and pids.count(os.getpid()) == pool.tasks_inline > 0
            # and the tasks given after it broke
            assert pool.submit(os.getpid).result() == os.getpid()


BLAS_THREADS = """
import os
import bitextcrawl
import numpy
print(os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS"))
"""


@pytest.mark.parametrize("given, expected", [(None, "1 1"), ("2", "2 1")])
def test_one_blas_thread_per_process_unless_the_user_says(given, expected):
    """Importing bitextcrawl (which Scrapy does before anything loads numpy) leaves one
    BLAS thread per process; a number the user set is kept."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", BLAS_THREADS], env=env, capture_output=True,
                         text=True, check=True).stdout.split("\n")[0]
    assert out == expected
