"""What a request carries in its meta: few keys of the package's own (issue 49: at most
eight), each typed where it holds more than one fact; the focus's marks frozen, so that a
copy of a request never changes the original's; and every mark survives the pickling a
request goes through in the scheduler's queues and the frontier journal."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

from scrapy import Request
from scrapy.utils.request import request_from_dict

from bitextcrawl.focus.marks import KEY, Marks, carrying, mark, marked, marks
from bitextcrawl.signals import SITE_MARK, SiteMark, event_site

PACKAGE = Path(__file__).resolve().parents[2] / "bitextcrawl"
NAME = re.compile(r"bitext_[a-z_]+")


def package_keys() -> set[str]:
    """Every ``bitext_*`` name the package writes as a string or passes as a keyword
    (``page_request(url, bitext_x=...)`` puts it in the meta)."""
    keys: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and NAME.fullmatch(node.value):
                keys.add(node.value)
            elif isinstance(node, ast.keyword) and node.arg and NAME.fullmatch(node.arg):
                keys.add(node.arg)
    return keys


def test_the_package_uses_at_most_eight_bitext_keys():
    keys = package_keys()
    assert len(keys) <= 8, sorted(keys)
    assert {KEY, SITE_MARK} <= keys


def test_a_copy_with_changed_marks_leaves_the_original_alone():
    request = Request("http://a.org/en/x.html", meta=carrying(chain="en"))
    copy = request.replace(dont_filter=True, meta=marked(request.meta, promoted=True))
    mark(copy.meta, released=True)
    assert marks(request.meta) == Marks(chain="en")
    assert marks(copy.meta) == Marks(chain="en", promoted=True, released=True)
    plain = request.replace(meta=dict(request.meta))
    mark(plain.meta, untranslated=True)
    assert not marks(request.meta).untranslated
    assert marks(Request("http://a.org/").meta) == Marks()


def test_the_marks_survive_a_queue_and_the_journal():
    meta = {**carrying(chain="en", lang_probe="fr", released=True),
            SITE_MARK: SiteMark("http://a.org", "held")}
    request = Request("http://a.org/en/x.html", meta=meta)
    back = request_from_dict(pickle.loads(pickle.dumps(request.to_dict(), protocol=4)))
    assert marks(back.meta) == Marks(chain="en", lang_probe="fr", released=True)
    assert back.meta[SITE_MARK] == SiteMark("http://a.org", "held")
    assert event_site({"request": back}) == "http://a.org"
