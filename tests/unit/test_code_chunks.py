"""Code is no bitext: chunks inside ``pre``, or all in ``code``/``kbd``/``samp``/``var``,
are aligned as structure but give no sentence pair (trees/dom.py ``is_code``,
extract.chunk_pairs)."""

from __future__ import annotations

from bitextcrawl import extract_bitext
from bitextcrawl.trees.dom import build_tree, is_code, preorder

EN = """<html><body><h1>chattr</h1>
<p>Change attributes of files or directories. See also: <code>lsattr</code>.</p>
<ul><li><p>Make a file or directory immutable to changes and deletion:</p>
<pre><code>sudo chattr +i <var>path/to/file_or_directory</var></code></pre></li>
<li><p>Make a file or directory mutable again for every user:</p>
<pre><code>sudo chattr -i <var>path/to/file_or_directory</var></code></pre></li></ul>
<table><tr><td>Syntax:</td><td><code><strong>proxy_cache_valid</strong> [code ...] time;</code></td></tr></table>
</body></html>"""
FR = """<html><body><h1>chattr</h1>
<p>Modifie les attributs des fichiers ou des répertoires. Voir aussi : <code>lsattr</code>.</p>
<ul><li><p>Rend un fichier ou un répertoire immuable aux modifications et à la suppression :</p>
<pre><code>sudo chattr +i <var>chemin/vers/fichier_ou_répertoire</var></code></pre></li>
<li><p>Rend un fichier ou un répertoire de nouveau modifiable pour tous :</p>
<pre><code>sudo chattr -i <var>chemin/vers/fichier_ou_répertoire</var></code></pre></li></ul>
<table><tr><td>Syntaxe :</td><td><code><strong>proxy_cache_valid</strong> [code ...] temps;</code></td></tr></table>
</body></html>"""


def test_chunks_in_pre_or_all_in_code_elements_are_code_prose_mentioning_code_is_not():
    chunks = {n.text: is_code(n) for n in preorder(build_tree(EN)) if n.is_chunk}
    assert chunks["sudo chattr +i path/to/file_or_directory"] is True
    assert chunks["proxy_cache_valid [code ...] time;"] is True
    assert chunks["Change attributes of files or directories. See also: lsattr."] is False
    assert chunks["Syntax:"] is False


def test_code_gives_no_sentence_pair_and_the_prose_around_it_is_aligned():
    rows = extract_bitext(EN, FR, ("en", "fr"), check_languages=False)
    pairs = {(r["sentence_1"], r["sentence_2"]) for r in rows}
    assert ("Make a file or directory mutable again for every user:",
            "Rend un fichier ou un répertoire de nouveau modifiable pour tous :") in pairs
    assert not any("chattr +i" in s1 or "proxy_cache_valid" in s1 for s1, _ in pairs)
