"""What each fault an operator meets costs a crawl of a real site: pairs lost, pages
fetched twice, time to finish, against the same crawl undisturbed.

    python bench/bench_chaos.py [--site nginx|wet] [--keep DIR]

The site is a copy of ``../shared/data`` served on loopback (``serve_directory``):
nginx.org crawled from ``/en/`` (``langs=en,ru``), or the WET toolkit from
``/index-en.html`` (``langs=en,fr``). Needs ``redis-server`` on PATH; the full disk needs
root (a ``tmpfs`` is mounted) and is left out, said so, where ``mount`` is refused.

Runs, each from scratch (a flushed Redis, a new output dir), with the loopback settings of
the tests (``testkit.crawls.FAST_CRAWL``) and ``BITEXT_WORKER_TIMEOUT=4``:

* ``2 workers``: two distributed workers, undisturbed (Redis with its append-only file on);
* ``redis restart``: the same, Redis stopped (SIGTERM) once the site has served a third of
  the undisturbed crawl's requests, started again 3 s later from its files;
* ``drainer kill -9``: a worker taking page pairs of the closer's bitext stage killed while
  it holds one; the closer puts it back after the timeout;
* ``closer kill -9``: the closer killed while its bitext stage is shared; the other worker
  leaves; the same command started again (the resume) writes the outputs;
* ``local``: one local crawl (SQLite), undisturbed;
* ``full disk``: the local crawl into a 256 MB ``tmpfs`` filled as the spider closes
  (exit status 4, one ERROR line); then, with room again, ``scrapy align`` on its
  ``pages.sqlite``.

Printed per fault: the pairs of the undisturbed run (distributed or local), pairs lost and
pairs gained against it (goal 0 and 0), pages the site served more than once (robots.txt
aside) against the undisturbed run's, and the seconds to the outputs written (processes
started -> the last one exited, the resume or ``scrapy align`` included) against its.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitextcrawl.demo.server import serve_directory  # noqa: E402
from bitextcrawl.store.redis import crawl_key  # noqa: E402
from bitextcrawl.store.redis_pool import ClosingKeys  # noqa: E402
from testkit.crawls import crawl_command  # noqa: E402
from testkit.faults import RestartableRedis, SmallDisk, Workers  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
SITES = {"nginx": ("nginx/site", "/en/", "en,ru"), "wet": ("wet", "/index-en.html", "en,fr")}
SETTINGS = {"BITEXT_WORKER_TIMEOUT": "4", "LOGSTATS_INTERVAL": "60"}
CRAWL_TIMEOUT = 1200
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def pairs_of(out: Path) -> set:
    with (out / "pairs.jsonl").open(encoding="utf-8") as fh:
        return {(p["url_1"], p["url_2"]) for p in map(json.loads, fh) if p}


def twice(server) -> int:
    return sum(1 for (_, path), n in server.hits.items() if n > 1 and path != "/robots.txt")


def wait_until(condition, workers: Workers, timeout: float = CRAWL_TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(p.poll() is None for p in workers.procs):
        value = condition()
        if value is not None:
            return value
        time.sleep(0.005)
    return None


class Bench:
    def __init__(self, site: str, work: Path):
        folder, self.start_path, self.langs = SITES[site]
        self.folder = SHARED / folder
        self.work = work
        self.redis = RestartableRedis(work / "redis").start()
        import redis

        self.client = redis.Redis.from_url(self.redis.url)

    def fresh(self, name: str, server) -> Path:
        self.client.flushall()
        with server.httpd.hits_lock:
            server.hits.clear()
        out = self.work / name
        shutil.rmtree(out, ignore_errors=True)
        return out

    def workers(self, server, out: Path) -> Workers:
        return Workers(server.url + self.start_path, out, self.redis.url, out / "logs",
                       settings=SETTINGS, langs=self.langs)

    def finish(self, workers: Workers, out: Path, start: float, server, note: str = "") -> dict:
        codes = workers.wait(CRAWL_TIMEOUT)
        return {"pairs": pairs_of(out), "seconds": time.monotonic() - start,
                "twice": twice(server), "codes": codes, "note": note}

    # ---- the runs ------------------------------------------------------------------
    def undisturbed(self, server) -> dict:
        out = self.fresh("two_workers", server)
        workers = self.workers(server, out)
        start = time.monotonic()
        workers.start(2)
        run = self.finish(workers, out, start, server)
        run["hits"] = sum(server.hits.values())
        return run

    def redis_restart(self, server, hits: int) -> dict:
        out = self.fresh("redis_restart", server)
        workers = self.workers(server, out)
        start = time.monotonic()
        workers.start(2)
        wait_until(lambda: True if sum(server.hits.values()) >= hits // 3 else None, workers)
        down = self.redis.restart(down=3)
        return self.finish(workers, out, start, server, f"Redis away {down:.1f} s")

    def drainer_kill(self, server) -> dict:
        out = self.fresh("drainer_kill", server)
        keys = ClosingKeys(crawl_key(None, str(out)))
        workers = self.workers(server, out)
        start = time.monotonic()
        workers.start(2)
        host = os.uname().nodename

        def drainer_holding_a_task():
            closer = self.client.get(keys.closer)
            for i, proc in enumerate(workers.procs):
                name = f"{host}-{proc.pid}"
                if closer not in (None, name.encode()) and self.client.llen(
                        keys.processing(name)):
                    return i
            return None

        victim = wait_until(drainer_holding_a_task, workers)
        if victim is not None:
            workers.kill(victim)
        note = "killed holding a task" if victim is not None else "no drainer took a task"
        return self.finish(workers, out, start, server, note)

    def closer_kill(self, server) -> dict:
        out = self.fresh("closer_kill", server)
        keys = ClosingKeys(crawl_key(None, str(out)))
        workers = self.workers(server, out)
        start = time.monotonic()
        workers.start(2)

        def closer_sharing():
            if self.client.get(keys.state) == b"open" and self.client.hlen(keys.results):
                return self.client.get(keys.closer).decode()
            return None

        name = wait_until(closer_sharing, workers)
        note = "the closer never shared its stage"
        if name is not None:
            pid = int(name.rpartition("-")[2])
            workers.kill(next(i for i, p in enumerate(workers.procs) if p.pid == pid))
            note = "killed sharing; resumed"
        workers.wait(CRAWL_TIMEOUT)
        workers.start(1)   # the resume: the same command again
        return self.finish(workers, out, start, server, note)

    def local(self, server, out: Path) -> tuple[subprocess.Popen, float, Path]:
        log = self.work / f"{out.name}.log"
        with log.open("w") as fh:
            proc = subprocess.Popen(crawl_command(server.url + self.start_path, out,
                                                  langs=self.langs, settings=SETTINGS),
                                    cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=fh)
        return proc, time.monotonic(), log

    def local_undisturbed(self, server) -> dict:
        out = self.fresh("local", server)
        proc, start, _ = self.local(server, out)
        proc.wait(timeout=CRAWL_TIMEOUT)
        return {"pairs": pairs_of(out), "seconds": time.monotonic() - start,
                "twice": twice(server), "codes": [proc.returncode], "note": ""}

    def full_disk(self, server) -> dict:
        why = SmallDisk.available(self.work)
        if why:
            return {"skipped": why}
        self.fresh("full_disk", server)
        with SmallDisk(self.work / "disk", 256 << 20) as disk:
            out = disk.path / "out"
            proc, start, log = self.local(server, out)
            deadline = start + CRAWL_TIMEOUT
            while "Closing spider (finished)" not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.01)
            disk.fill()
            proc.wait(timeout=CRAWL_TIMEOUT)
            text = log.read_text(errors="replace")
            errors = [line for line in text.splitlines() if "] ERROR: " in line]
            disk.free()
            later = self.work / "full_disk_aligned"
            subprocess.run(["scrapy", "align", str(out / "pages.sqlite"), "--langs",
                            self.langs, "-o", str(later),
                            "-s", f"BITEXT_PATTERN_DB={later}/patterns-db.json"],
                           cwd=ROOT, env=ENV, capture_output=True, timeout=CRAWL_TIMEOUT,
                           check=True)
        note = f"exit {proc.returncode}, {len(errors)} ERROR line(s); aligned later"
        return {"pairs": pairs_of(later), "seconds": time.monotonic() - start,
                "twice": twice(server), "codes": [proc.returncode], "note": note}


def row(name: str, run: dict, base: dict) -> str:
    if "skipped" in run:
        return f"{name:<17} skipped: {run['skipped']}"
    lost = len(base["pairs"] - run["pairs"])
    gained = len(run["pairs"] - base["pairs"])
    return (f"{name:<17} {len(base['pairs']):>5} {lost:>5} {gained:>6} "
            f"{run['twice']:>5}/{base['twice']:<3} {run['seconds']:>7.1f} "
            f"{base['seconds']:>7.1f} {run['seconds'] / base['seconds']:>5.2f}  {run['note']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", choices=sorted(SITES), default="nginx")
    ap.add_argument("--keep", default=None, help="keep every run's output here")
    args = ap.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server not found on PATH")
    folder = SHARED / SITES[args.site][0]
    if not folder.is_dir():
        raise SystemExit(f"real data not found at {folder}")
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-chaos-"))
    work.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.site, work)
    print(f"site: {args.site} ({SITES[args.site][1]}, langs={SITES[args.site][2]}), "
          f"work dir {work}", flush=True)
    header = (f"{'fault':<17} {'pairs':>5} {'lost':>5} {'gained':>6} {'twice':>9} "
              f"{'seconds':>7} {'undist.':>7} {'ratio':>5}  note")
    lines = []
    try:
        with serve_directory(str(folder)) as server:
            base = bench.undisturbed(server)
            print(f"2 workers undisturbed: {len(base['pairs'])} pairs, "
                  f"{base['seconds']:.1f} s, {base['hits']} requests", flush=True)
            for name, run in (("redis restart", lambda: bench.redis_restart(server,
                                                                             base["hits"])),
                              ("drainer kill -9", lambda: bench.drainer_kill(server)),
                              ("closer kill -9", lambda: bench.closer_kill(server))):
                lines.append(row(name, run(), base))
                print(lines[-1], flush=True)
            local = bench.local_undisturbed(server)
            print(f"local undisturbed: {len(local['pairs'])} pairs, "
                  f"{local['seconds']:.1f} s", flush=True)
            lines.append(row("full disk", bench.full_disk(server), local))
            print(lines[-1], flush=True)
    finally:
        bench.redis.stop()
        if args.keep is None:
            threading.Thread(target=shutil.rmtree, args=(work, True)).start()
    print()
    print(header)
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
