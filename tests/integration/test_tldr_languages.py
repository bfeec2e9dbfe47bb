"""Every tldr language the issue names, plain and opaque, through the closing pipeline.

Records are built by the crawl's own code (fastText included) from the files of
``../shared/data/tldr`` (``demo/real_sites.py``); the crawls of en-fr and en-ja are in
``test_tldr.py``. The plain site pairs by URL patterns and switches; its opaque variant
(the other language under ``/p/<hash>.html``, no switch, no hreflang) by the template-free
structure, content, rare shared evidence and the link graph alone. Scored on judged pairs:
the golds list command pages, not the home pages and platform indexes.
"""

from __future__ import annotations

import pytest

from bitextcrawl.pairing.align import AlignConfig, align_site
from bitextcrawl.pairing.evaluate import evaluate_silver
from testkit import real_sites
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.integration

LANGS = ("fr", "de", "es", "ru", "zh", "ja", "ko")


def needs_tldr():
    if not (SHARED_DATA / "tldr" / "make_opaque.py").is_file():
        pytest.skip(f"real data not found at {SHARED_DATA / 'tldr'} (../shared/data beside the project)")


def score(site) -> dict:
    result = align_site(site.pages, AlignConfig(langs=site.langs), redirects=site.redirects)
    urls = [u for p in result.pairs for u in (p.url_1, p.url_2)]
    assert len(urls) == len(set(urls)), "a URL in two pairs"
    return evaluate_silver(site.gold, [(p.url_1, p.url_2) for p in result.pairs])


@pytest.mark.parametrize("lang", LANGS)
def test_plain(lang):
    needs_tldr()
    s = score(real_sites.tldr(SHARED_DATA, lang))
    print(f"tldr en-{lang}: {s}")
    assert s["f1"] >= 0.99


@pytest.mark.parametrize("lang", LANGS)
def test_opaque(lang, tmp_path):
    needs_tldr()
    s = score(real_sites.tldr_opaque(SHARED_DATA, lang, workdir=str(tmp_path)))
    print(f"tldr opaque en-{lang}: {s}")
    assert s["f1"] >= 0.97
    assert s["precision"] >= 0.98
