"""Imported by the fork server of the bitext process pool (:func:`~bitextcrawl.bitext.extract.worker_pool`).

Its import loads the tree aligner's compiled kernels in the fork server, once: each
worker forked from it starts with them instead of loading them itself (~0.7 s of CPU a
worker).
"""

from bitextcrawl.bitext.tree_decoder import load_kernels

load_kernels()
