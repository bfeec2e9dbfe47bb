"""Imported by the fork server of the process pools (:mod:`bitextcrawl.processes`).

Its import loads the tree aligner's compiled kernels in the fork server, once: each
worker forked from it starts with them instead of loading them itself (~0.7 s of CPU a
worker). What the fork server holds then is frozen out of the cyclic garbage collector's
sight (``gc.freeze``): the workers do not scan it in their full collections (nor touch,
and so copy, its memory pages).
"""

import gc

from bitextcrawl.trees.tree_decoder import load_kernels

load_kernels()
gc.freeze()
