"""``scrapy crawl``'s one-line error for a spider name it cannot find
(``bitextcrawl.commands.crawl.unknown_spider``)."""

from __future__ import annotations

from bitextcrawl.commands.crawl import unknown_spider


def test_outside_a_project_says_so_and_how_to_crawl():
    # the installed package's crawl command runs in any folder: no project, no spider
    line = unknown_spider("bitext", [], in_project=False)
    assert "in no Scrapy project" in line and "scrapy startproject" in line
    assert "run one of" not in line and "this project" not in line


def test_a_project_without_spiders_names_the_addon():
    line = unknown_spider("bitext", [], in_project=True)
    assert line.startswith("no spider named 'bitext': this project has no spider")
    assert 'ADDONS = {"bitextcrawl.Addon": 0}' in line and "run one of" not in line


def test_a_typo_lists_the_spiders():
    assert unknown_spider("bitxet", ["expand", "bitext"], in_project=True) == (
        "no spider named 'bitxet' in this project: run one of bitext, expand (scrapy list)")
