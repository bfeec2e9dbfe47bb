"""The closing step's CPU: ``scrapy align`` of this tree against another commit's, on the
real sites of ../shared/data, the two run in turn in one run.

    python bench/bench_closing_cpu.py                          # against main, 3 rounds
    python bench/bench_closing_cpu.py --against 5f1003e --repeat 5
    python bench/bench_closing_cpu.py --sites lett nginx --profile /tmp/prof

The other commit's files are taken out with ``git archive`` into a temp folder; each
``scrapy align`` runs in the folder of its tree (the tree's own ``bitextcrawl`` and
settings), one bitext worker, ``PYTHONHASHSEED=0``, every output into a fresh folder. A
round runs each site with both trees, in turn (this tree first in odd rounds, the other
first in even ones), so that the machine's drift weighs on both alike. The CPU of a run
is the user and system time of the ``scrapy align`` process and of every process it
waited for (``os.wait4``): start-up (Scrapy, fastText's model), reading the inputs (a
lett or WARC file's records built by the crawl's own code), pairing and the bitext.
Before the rounds, each tree runs the first site once, not counted (numba's kernels
compiled into the tree's cache).

Inputs: the lett file and tldr's WARC as they are; WET, nginx.org (en-ru, plain and
opaque) and tldr en-fr as ``pages.jsonl`` made once by this tree's ``testkit.real_sites``
(records built by the crawl's code, as ``bench_align.py`` makes them) and kept in
``--cache``. Printed per site: each tree's median CPU seconds, the median of the
rounds' ratios (this tree / the other) with their range, and whether ``pairs.jsonl`` and
``bitext.tsv`` are the same bytes in every run of both trees.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CACHE = Path(tempfile.gettempdir()) / "bitextcrawl-bench-closing-cpu"

# name -> (languages, input file under the data folder, or the testkit.real_sites loader
# whose records make it)
SITES = {
    "lett": ("en,de", "lett/v2.lett.gz", None),
    "wet": ("en,fr", None, "wet"),
    "nginx": ("en,ru", None, "nginx"),
    "nginx-opaque": ("en,ru", None, "nginx_opaque"),
    "tldr-fr": ("en,fr", None, "tldr"),
    "tldr-opaque-warc": ("en,fr", "tldr/crawls/opaque-en-fr.warc.gz", None),
}
COMPARED = ("pairs.jsonl", "bitext.tsv")


def site_input(name: str, data: Path, cache: Path) -> Path:
    """The input file of a site: as it is, or its ``pages.jsonl`` made once in ``cache``."""
    _, path, loader = SITES[name]
    if path is not None:
        return data / path
    out = cache / f"{name}.pages.jsonl"
    if not out.exists():
        cache.mkdir(parents=True, exist_ok=True)
        code = ("import sys; from pathlib import Path; from testkit import real_sites; "
                "from bitextcrawl.formats.jsonl import write_jsonl; "
                f"site = real_sites.{loader}(Path(sys.argv[1])); "
                "write_jsonl(Path(sys.argv[2]), (p.to_dict() for p in site.pages))")
        subprocess.run([sys.executable, "-c", code, str(data), str(out) + ".tmp"],
                       cwd=ROOT, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        os.replace(str(out) + ".tmp", out)
    return out


def export_tree(ref: str, into: Path, *paths: str) -> Path:
    """The files of commit ``ref`` in ``into`` (``git archive``), or only those under
    ``paths``."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref, *paths], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def align_cpu(tree: Path, name: str, src: Path, out: Path, profile: Path | None) -> float:
    """CPU seconds (user + system, the processes it waited for included) of one
    ``scrapy align`` of ``src`` run in ``tree``, its outputs into ``out`` (made afresh)."""
    langs = SITES[name][0]
    shutil.rmtree(out, ignore_errors=True)
    cmd = [shutil.which("scrapy") or "scrapy", "align", str(src), "--langs", langs,
           "-o", str(out), "--nolog", "-s", "BITEXT_WORKERS=1"]
    if profile is not None:
        cmd += ["--profile", str(profile)]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"scrapy align failed in {tree} on {name}:\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def same_outputs(a: Path, b: Path) -> bool:
    return all(filecmp.cmp(a / f, b / f, shallow=False) for f in COMPARED
               if (a / f).exists() or (b / f).exists())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="main", help="the other commit (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (default %(default)s)")
    ap.add_argument("--sites", nargs="+", choices=list(SITES), default=list(SITES))
    ap.add_argument("--data", type=Path, default=SHARED,
                    help="the real sites' folder (default %(default)s)")
    ap.add_argument("--cache", type=Path, default=CACHE,
                    help="where the pages.jsonl inputs are kept (default %(default)s)")
    ap.add_argument("--profile", type=Path,
                    help="a folder for each tree's cProfile of each site's last run")
    args = ap.parse_args()
    if not args.data.is_dir():
        raise SystemExit(f"{args.data} not found: the real sites are needed (--data)")
    with tempfile.TemporaryDirectory(prefix="bench-closing-cpu-") as tmp:
        other = export_tree(args.against, Path(tmp) / "other")
        trees = {"this": ROOT, args.against: other}
        inputs = {name: site_input(name, args.data, args.cache) for name in args.sites}
        cpu: dict = {(t, s): [] for t in trees for s in args.sites}
        # a first run per tree, not counted: numba compiles the sentence aligner's kernels
        # into the tree's cache (about 20 s), and the files are read into the page cache
        first_site = args.sites[0]
        for t in trees:
            align_cpu(trees[t], first_site, inputs[first_site], Path(tmp) / "warm-up", None)
        same = dict.fromkeys(args.sites, True)
        for round_ in range(args.repeat):
            order = list(trees) if round_ % 2 == 0 else list(trees)[::-1]
            for name in args.sites:
                outs = {}
                for t in order:
                    outs[t] = Path(tmp) / f"out-{t.replace('/', '_')}-{name}-{round_}"
                    profile = None
                    if args.profile is not None and round_ == args.repeat - 1:
                        args.profile.mkdir(parents=True, exist_ok=True)
                        profile = args.profile / f"{name}.{t.replace('/', '_')}.prof"
                    cpu[t, name].append(align_cpu(trees[t], name, inputs[name], outs[t], profile))
                first = Path(tmp) / f"out-this-{name}-0"
                same[name] &= all(same_outputs(first, o) for o in outs.values())
                for o in outs.values():
                    if o != first:
                        shutil.rmtree(o, ignore_errors=True)
                print(json.dumps({"round": round_ + 1, "site": name,
                                  **{t: round(cpu[t, name][-1], 2) for t in trees}}),
                      file=sys.stderr, flush=True)
    print(f"scrapy align CPU seconds (user + system), this tree against {args.against}; "
          f"medians of {args.repeat} rounds, the two run in turn")
    print(f"| site | this tree | {args.against} | this / {args.against} (range) "
          "| same pairs.jsonl and bitext.tsv |")
    print("|---|---:|---:|---:|---|")
    total = {t: [sum(cpu[t, s][r] for s in args.sites) for r in range(args.repeat)]
             for t in trees}
    for name, values in [*((s, {t: cpu[t, s] for t in trees}) for s in args.sites),
                         ("all sites", total)]:
        a, b = values["this"], values[args.against]
        ratios = [x / y for x, y in zip(a, b)]
        check = ("yes" if same[name] else "NO") if name in same else ""
        print(f"| {name} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | "
              f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) | {check} |")


if __name__ == "__main__":
    main()
