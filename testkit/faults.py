"""Faults as an operator meets them, made for real in tests and in ``bench/bench_chaos.py``:
a ``redis-server`` with persistence that can be restarted on its port, distributed
workers started and watched one by one (one of them to be killed), a small ``tmpfs`` that
fills up. Each stops what it started, by its process id, and its waits are bounded.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from testkit.crawls import crawl_command, stop_process

ROOT = Path(__file__).resolve().parents[1]


# The outputs a crawl writes, compared byte for byte between two crawls.
OUTPUTS = ("pairs.jsonl", "bitext.tsv", "bitext.tmx")


def comparable_outputs(out: Path) -> dict:
    """:data:`OUTPUTS` of an output dir as bytes, the TMX header's time of writing left out."""
    found = {}
    for name in OUTPUTS:
        data = (Path(out) / name).read_bytes()
        if name.endswith(".tmx"):
            data = re.sub(rb'creationdate="[0-9TZ]+"', b"", data)
        found[name] = data
    return found


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RestartableRedis:
    """A real ``redis-server`` on a free loopback port with its persistence on (the
    append-only file, ``appendfsync everysec``, written out when it stops), its files in ``directory``; ``restart()``
    stops it as an operator's restart does (SIGTERM: it writes what it has and exits),
    waits, and starts it again on the same port, from its files."""

    def __init__(self, directory: Path):
        self.exe = shutil.which("redis-server")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> "RestartableRedis":
        if self.exe is None:
            raise RuntimeError("redis-server not found on PATH")
        args = [self.exe, "--bind", "127.0.0.1", "--port", str(self.port),
                "--dir", str(self.directory), "--appendonly", "yes",
                "--appendfsync", "everysec", "--save", ""]
        log = (self.directory / "redis-server.log").open("a")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 20
        while not _ping(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                text = (self.directory / "redis-server.log").read_text()[-2000:]
                raise RuntimeError(f"redis-server did not start on {self.port}: {text}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_process(self.proc, timeout=20)
        self.proc = None

    def restart(self, down: float = 3.0) -> float:
        """Stop the server, leave it down ``down`` seconds, start it again; the seconds
        it did not answer."""
        start = time.monotonic()
        self.stop()
        time.sleep(down)
        self.start()
        self.restarts += 1
        return time.monotonic() - start

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class Workers:
    """Distributed workers (``SCRAPY_PROJECT=distributed``) of one crawl, started one by
    one, each logging to ``log_dir/worker-N.log`` (a file, never a pipe)."""

    def __init__(self, start_url: str, output_dir: Path, redis_url: str, log_dir: Path,
                 settings: dict | None = None, langs: str = "en,fr"):
        self.cmd = crawl_command(start_url, output_dir, langs=langs, settings=settings)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "SCRAPY_PROJECT": "distributed",
                    "REDIS_URL": redis_url}
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []

    def start(self, n: int = 1) -> None:
        for _ in range(n):
            path = self.log_dir / f"worker-{len(self.procs)}.log"
            with path.open("w") as log:
                self.procs.append(subprocess.Popen(self.cmd, cwd=ROOT, env=self.env,
                                                   stdout=subprocess.DEVNULL, stderr=log))
            self.logs.append(path)

    def log(self, i: int) -> str:
        return self.logs[i].read_text(errors="replace")

    def wait_for_line(self, i: int, text: str, timeout: float) -> bool:
        """Wait until worker ``i``'s log has ``text`` (False: it exited or time ran out)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log(i):
                return True
            if self.procs[i].poll() is not None:
                return text in self.log(i)
            time.sleep(0.05)
        return False

    def kill(self, i: int) -> None:
        """``kill -9`` worker ``i`` (a process this object started)."""
        proc = self.procs[i]
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()

    def wait(self, timeout: float) -> list[int | None]:
        """Wait for every worker (bounded); a worker still running then is killed."""
        deadline = time.monotonic() + timeout
        for proc in self.procs:
            try:
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        codes = []
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                codes.append(None)
            else:
                codes.append(proc.returncode)
        return codes


class SmallDisk:
    """A ``tmpfs`` of ``size`` bytes mounted on ``path`` (root only: ``mount(8)``), unmounted
    on exit; ``fill(leave)`` takes all of its free space but ``leave`` bytes with one file,
    ``free()`` gives it back. ``available()`` says whether this machine lets us mount one."""

    def __init__(self, path: Path, size: int):
        self.path, self.size = Path(path), size
        self.filler = self.path / ".filler"
        self.mounted = False

    @staticmethod
    def available(scratch: Path) -> str | None:
        """None if a tmpfs can be mounted here; else why not."""
        if shutil.which("mount") is None or shutil.which("umount") is None:
            return "mount(8) not found"
        probe = Path(scratch) / "tmpfs-probe"
        probe.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                              capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            return f"cannot mount a tmpfs: {done.stderr.strip() or done.returncode}"
        subprocess.run(["umount", str(probe)], capture_output=True, timeout=30)
        return None

    def __enter__(self):
        self.path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs",
                        str(self.path)], check=True, capture_output=True, timeout=30)
        self.mounted = True
        return self

    def __exit__(self, *exc):
        if not self.mounted:
            return
        # a process of the crawl may hold a file there a moment longer (its fork server)
        deadline = time.monotonic() + 20
        while subprocess.run(["umount", str(self.path)], capture_output=True,
                             timeout=60).returncode != 0:
            if time.monotonic() > deadline:
                subprocess.run(["umount", "-l", str(self.path)], capture_output=True,
                               timeout=60)   # detached now, gone once it is let go
                break
            time.sleep(0.2)
        self.mounted = False

    def free_bytes(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave: int = 0) -> int:
        """Write one file that leaves ``leave`` bytes free; its size."""
        size = max(0, self.free_bytes() - leave)
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        chunk = b"\0" * (1 << 20)
        written = 0
        try:
            while written < size:
                try:
                    written += os.write(fd, chunk[: min(len(chunk), size - written)])
                except OSError:
                    break
        finally:
            os.close(fd)
        return written

    def free(self) -> None:
        if self.filler.exists():
            self.filler.unlink()
