"""Redraw ``docs/report.png``, the screenshot of ``report.html`` the README and the docs
show, from a crawl of the demo site, with headless Chromium:

    python bench/make_report_png.py                       # scrapy demo, then the screenshot
    python bench/make_report_png.py --from output/demo    # the report of a finished crawl

Needs ``chromium`` (or ``chromium-browser``) on PATH. The demo crawl is ``scrapy demo``
into a temporary folder (about 15 s, or 35 s when the aligner is compiled first). The
screenshot is the top of the page, ``--width`` by ``--height`` CSS pixels.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def demo_report(folder: Path) -> Path:
    """``scrapy demo -o folder``; the path of its ``report.html``."""
    proc = subprocess.run([sys.executable, "-m", "scrapy", "demo", "-o", str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"scrapy demo failed (exit status {proc.returncode}):\n{proc.stderr[-3000:]}")
    return folder / "report.html"


def screenshot(report: Path, out: Path, width: int, height: int) -> None:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("chromium not found on PATH (apt-get install chromium)")
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([exe, "--headless", "--disable-gpu", "--no-sandbox",
                           "--hide-scrollbars", f"--window-size={width},{height}",
                           f"--screenshot={out.resolve()}", report.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not out.is_file():
        sys.exit(f"chromium failed (exit status {proc.returncode}):\n{proc.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", type=Path, default=None,
                        help="the output dir of a finished crawl (default: run scrapy demo)")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = (args.source / "report.html") if args.source else demo_report(Path(tmp) / "demo")
        if not report.is_file():
            sys.exit(f"no report.html in {report.parent}")
        screenshot(report, args.output, args.width, args.height)
    print(f"{args.output}: {args.output.stat().st_size} bytes, from {report}")


if __name__ == "__main__":
    main()
