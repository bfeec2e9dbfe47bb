"""Modules the crawl's process needs only at its idle rounds and at its close (the pairing
models and the tree aligner: scipy; 0.5 s), imported in a background thread while
it crawls, instead of before its first request. (numba comes with the first decoding,
``trees.tree_decoder.kernels``, which the pools' workers do.)

The crawl's thread mostly waits on the network, and an import holds the interpreter lock
only while it runs Python. Where the modules are used they are imported as usual: done
already, or waited for (Python's import locks), or, if the thread failed, imported there,
the error raised where it belongs.
"""

from __future__ import annotations

import gc
import importlib
import logging
import threading

logger = logging.getLogger(__name__)


def _import(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:
            # said now, at the crawl's start, not only when the close needs the module
            # (its own import then raises the error again, where it is handled)
            logger.error("Cannot import %s, which the crawl's close needs: %s", name, exc)
            return
    if gc.get_freeze_count():
        # the crawl froze its start-up's objects (extensions.collector): the modules join them
        gc.freeze()


def import_in_background(*modules: str) -> threading.Thread:
    """Import ``modules``, in this order, in a daemon thread started now; the thread.
    Give them in the order the caller's thread would import them: two threads that
    import one circle of modules in opposite orders can each get the other's half-made."""
    thread = threading.Thread(target=_import, args=(modules,), name="bitext-preload",
                              daemon=True)
    thread.start()
    return thread
