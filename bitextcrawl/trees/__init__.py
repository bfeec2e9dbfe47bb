"""The document tree model shared by pairing and bitext [Shi 2006 §4]: a page's tree
(:mod:`.dom`), the tree alignment model and its Viterbi EM (:mod:`.domtree`), its text
translation cost (:mod:`.textcost`), the decoder (:mod:`.tree_decoder`) and its compiled
loops (:mod:`.tree_kernels`). Pure: no Scrapy, nothing of pairing or bitext."""
