"""A site's navigation template is taken out of the document trees before the bitext
alignment (trees.dom.strip_navigation, pages.template.TemplateBlocks, bitext.chunks.PageTrees)."""

from __future__ import annotations

from collections import Counter

from bitextcrawl.api import page_from_html
from bitextcrawl.bitext.chunks import PageTrees
from bitextcrawl.bitext.extract import bitext_rows
from bitextcrawl.pages.template import SiteTemplate, text_key
from bitextcrawl.pairing.evidence import Pair
from bitextcrawl.trees.dom import build_tree, preorder, strip_navigation

COMMANDS = ["tar", "grep", "sed", "awk", "curl", "wget", "ssh", "scp", "rsync", "find",
            "xargs", "sort", "uniq", "head", "tail", "less", "cut", "paste", "join", "tr",
            "chmod", "chown", "ln", "cp", "mv", "rm", "mkdir", "touch", "df", "du"]
TEXT = {
    "en": ["Archive files and folders into a single file.",
           "Create an archive from the files of a folder and compress it with gzip.",
           "List the contents of an archive without extracting it first."],
    "fr": ["Archive des fichiers et des dossiers dans un seul fichier.",
           "Crée une archive à partir des fichiers d'un dossier et la compresse avec gzip.",
           "Liste le contenu d'une archive sans l'extraire auparavant."],
}
HOME = {"en": "Home", "fr": "Accueil"}


def page(lang: str, name: str, listed: list[str]) -> str:
    # the sidebar lists every page of the language: the French one lists fewer
    items = "".join(f'<li><a href="/{lang}/{c}.html">{c}</a></li>' for c in listed)
    body = "".join(f"<p>{s.replace('archive', 'archive ' + name)}</p>" for s in TEXT[lang])
    return (f"<html><head><title>{name}</title></head><body>"
            f'<nav><a href="/{lang}/">{HOME[lang]}</a></nav>'
            f"<aside><ul>{items}</ul></aside>"
            f"<main><h1>{name}</h1>{body}</main></body></html>")


def site():
    listed = {"en": COMMANDS, "fr": COMMANDS[::3]}
    pages = {}
    for lang in ("en", "fr"):
        for name in COMMANDS[::3]:
            url = f"http://s.test/{lang}/{name}.html"
            pages[url] = page_from_html(url, page(lang, name, listed[lang]), lang=lang)
    return pages


def test_the_sidebar_goes_and_the_page_stays():
    pages = site()
    blocks = SiteTemplate().fit(pages.values()).blocks()
    url = "http://s.test/en/tar.html"
    tree = build_tree(pages[url].html, url)
    marks = blocks.marks("en", [text_key(n.text) for n in preorder(tree) if n.is_chunk])
    assert strip_navigation(tree, marks) >= 1
    chunks = [n.text for n in preorder(tree) if n.is_chunk]
    assert "grep" not in chunks and "tar" in chunks          # the sidebar's, the title
    assert any("archive tar" in c for c in chunks)           # the main text
    assert "Home" not in chunks                              # the menu: links only


def test_every_paragraph_of_short_pages_in_a_heavy_template_is_aligned():
    pages = site()
    trees = PageTrees({"http://s.test": SiteTemplate().fit(pages.values()).blocks()})
    pairs = [Pair(f"http://s.test/en/{n}.html", f"http://s.test/fr/{n}.html", "en", "fr",
                  1.0, [], {}) for n in COMMANDS[::3]]
    results, _ = bitext_rows(pairs, pages, Counter(), page_trees=trees)
    rows = {(r["sentence_1"], r["sentence_2"]) for r in results[("en", "fr")][0]}
    for name in COMMANDS[::3]:
        for s1, s2 in zip(TEXT["en"], TEXT["fr"]):
            assert (s1.replace("archive", "archive " + name),
                    s2.replace("archive", "archive " + name)) in rows


def test_only_a_site_heavy_with_its_template_loses_its_navigation():
    def navigation(pages):
        return SiteTemplate().fit(pages.values()).navigation(pages.values())

    assert navigation(site()) is not None
    # the same pages with a short menu and no sidebar: the template is a small part
    light = {}
    for lang in ("en", "fr"):
        for name in COMMANDS[::3]:
            url = f"http://s.test/{lang}/{name}.html"
            light[url] = page_from_html(url, page(lang, name, []), lang=lang)
    assert navigation(light) is None
