"""The package's layers point one way (docs/architecture.md, "Layers"): a module imports
its own layer and the layers below it, never one above; and a module imports the
project's modules at its top, not inside a function to dodge an import cycle.

Read from the source with ``ast``: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bitextcrawl"

# Low to high. A module's layer is that of the longest prefix that names it (the root
# package, ``bitextcrawl``, only itself).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("bitextcrawl", "bitextcrawl.defaults", "bitextcrawl.config",
              "bitextcrawl.processes", "bitextcrawl.preload", "bitextcrawl.outcome",
              "bitextcrawl.preflight", "bitextcrawl.idle_rule")),
    ("pages", ("bitextcrawl.pages",)),
    ("formats", ("bitextcrawl.formats",)),
    ("trees", ("bitextcrawl.trees",)),
    ("pairing", ("bitextcrawl.pairing",)),
    ("bitext", ("bitextcrawl.bitext",)),
    ("outputs", ("bitextcrawl.store", "bitextcrawl.sites", "bitextcrawl.report",
                 "bitextcrawl.outputs", "bitextcrawl.record_workers", "bitextcrawl.api",
                 "bitextcrawl.demo", "bitextcrawl.focus", "bitextcrawl.crawl_state")),
    ("components", ("bitextcrawl.spiders", "bitextcrawl.middlewares", "bitextcrawl.pipelines",
                    "bitextcrawl.extensions", "bitextcrawl.scheduler", "bitextcrawl.commands",
                    "bitextcrawl.context", "bitextcrawl.signals", "bitextcrawl.addon",
                    "bitextcrawl.settings", "bitextcrawl.resolver")),
)
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}
# Layers below the Scrapy components import neither Scrapy nor Twisted at their top.
PURE_BELOW = RANK["components"]

# Imports of the project's modules inside a function, each with the reason it is there:
# a heavy third-party library behind the module, imported when first needed.
LAZY = {
    ("bitextcrawl", "bitextcrawl.addon"):
        "PEP 562 attribute: Scrapy imports the package to find the add-on; Scrapy itself "
        "is imported with the add-on",
    ("bitextcrawl", "bitextcrawl.api"):
        "PEP 562 attribute: the API's modules (SciPy, networkx) come with its first use",
    ("bitextcrawl.trees.tree_decoder", "bitextcrawl.trees.tree_kernels"):
        "numba compiles the kernels as they are imported: only a decoding process pays it",
    ("bitextcrawl.commands.align", "bitextcrawl.outputs"):
        "Scrapy imports every command at each start; the closing step brings SciPy, numba",
    ("bitextcrawl.commands.align", "bitextcrawl.pairing.align"):
        "Scrapy imports every command at each start; the pairing models bring SciPy",
    ("bitextcrawl.spiders.expand", "bitextcrawl.pairing.align"):
        "the crawl starts without the pairing models (tests/unit/test_preload.py)",
    ("bitextcrawl.sites.rounds", "bitextcrawl.outputs"):
        "the crawl starts without the pairing models (tests/unit/test_preload.py)",
    ("bitextcrawl.pipelines.closing", "bitextcrawl.outputs"):
        "the crawl starts without the pairing models (tests/unit/test_preload.py)",
    ("bitextcrawl.pipelines.closing", "bitextcrawl.pairing.align"):
        "the crawl starts without the pairing models (tests/unit/test_preload.py)",
    ("bitextcrawl.pairing.link_rounds", "bitextcrawl.trees.domtree"):
        "the crawl starts without the tree aligner (tests/unit/test_preload.py)",
    ("bitextcrawl.pairing.link_rounds", "bitextcrawl.pairing.parallel_links"):
        "the crawl starts without the tree aligner (tests/unit/test_preload.py)",
    ("bitextcrawl.pipelines.parallel_links", "bitextcrawl.pairing.parallel_links"):
        "the crawl starts without the tree aligner (tests/unit/test_preload.py)",
    ("bitextcrawl.pipelines.distributed", "bitextcrawl.bitext.extract"):
        "the crawl starts without the tree aligner (tests/unit/test_preload.py)",
}
# The root package's public names above every layer (PEP 562: imported when first used).
LAZY_ROOT = {("bitextcrawl", "bitextcrawl.addon"), ("bitextcrawl", "bitextcrawl.api")}
# Function-level imports in the Scrapy components that the crawl-glue work (issue 33: one
# crawl state, one owner of the frontier) removes as it rewrites these modules.
GLUE_PENDING = {
    ("bitextcrawl.extensions.collector", "bitextcrawl.spiders.bitext"),
    ("bitextcrawl.spiders.bitext", "bitextcrawl.preflight"),
    ("bitextcrawl.middlewares.langid", "bitextcrawl.extensions.collector"),
    ("bitextcrawl.middlewares.langid", "bitextcrawl.record_workers"),
    ("bitextcrawl.pipelines.closing", "bitextcrawl.outcome"),
    ("bitextcrawl.pipelines.closing", "bitextcrawl.extensions.timeline"),
}




def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str | None:
    best, found = -1, None
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            # the root package names itself only: a new module has a layer of its own
            inside = module.startswith(prefix + ".") and prefix != "bitextcrawl"
            if (module == prefix or inside) and len(prefix) > best:
                best, found = len(prefix), name
    return found


def _resolve(module: str, node: ast.ImportFrom | ast.Import, is_package: bool) -> list[str]:
    """The modules an import statement names (``from bitextcrawl import config`` names
    ``bitextcrawl.config``, a module; ``from bitextcrawl.pages import record`` too)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".")
        base = base[:len(base) - node.level + (1 if is_package else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append(sub if sub in MODULES else source)
    return out


def imports(module: str) -> list[tuple[str, int, bool]]:
    """``(imported module, line, at module level)`` of each import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []

    def visit(node, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for name in _resolve(module, child, path.name == "__init__.py"):
                    out.append((name, child.lineno, not nested))
            visit(child, nested or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))

    visit(tree, False)
    return out


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_no_module_imports_a_layer_above_its_own():
    wrong = []
    for module in MODULES:
        if layer_of(module) is None:
            continue   # (test_every_module_has_a_layer)
        rank = RANK[layer_of(module)]
        for name, line, _ in imports(module):
            if name.split(".")[0] != "bitextcrawl" or (module, name) in LAZY_ROOT:
                continue
            if RANK[layer_of(name)] > rank:
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} ({layer_of(module)}) "
                             f"imports {name} ({layer_of(name)})")
    assert wrong == []


def test_pure_layers_import_no_scrapy_at_their_top():
    wrong = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {name}"
             for m in MODULES if RANK.get(layer_of(m), PURE_BELOW) < PURE_BELOW
             for name, line, top in imports(m)
             if top and name.split(".")[0] in ("scrapy", "twisted")]
    assert wrong == []


def test_project_modules_are_imported_at_module_level():
    wrong = []
    for module in MODULES:
        for name, line, top in imports(module):
            if top or name.split(".")[0] != "bitextcrawl":
                continue
            target = next((t for m, t in {**LAZY, **dict.fromkeys(GLUE_PENDING)} if m == module
                           and (name == t or name.startswith(t + "."))), None)
            if target is None:
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {name} "
                             "inside a function")
    assert wrong == []


def test_the_exceptions_are_still_there():
    """An exception that is no longer needed is taken off the lists."""
    found = {(m, name) for m in MODULES for name, _, top in imports(m) if not top}
    stale = [pair for pair in [*LAZY, *GLUE_PENDING]
             if not any(m == pair[0] and (n == pair[1] or n.startswith(pair[1] + "."))
                        for m, n in found)]
    assert stale == []


@pytest.mark.parametrize("folder", ["bench", "testkit", "bitextcrawl"])
def test_tests_are_imported_by_nothing_outside_tests(folder):
    """``bench/`` and the package never import ``tests`` (nor does the package import
    ``bench`` or ``testkit``: they hold the scaffolding of tests and benchmarks)."""
    forbidden = ("tests",) if folder != "bitextcrawl" else ("tests", "bench", "testkit")
    wrong = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}"
                      for n in names if n.split(".")[0] in forbidden]
    assert wrong == []
