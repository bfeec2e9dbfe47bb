"""The tag part of a node's translation probability (§4.1, last paragraph) [Shi 2006]:
the prior Pr(tag_2 | tag_1) the tree aligner starts from (the same tag, tags of one
family, any other), before training re-estimates it."""

from __future__ import annotations

from bitextcrawl.trees.dom import TEXT_TAG

KNOWN_TAGS = (
    "a abbr acronym address area article aside audio b bdi bdo big blockquote body br "
    "button caption center cite code col colgroup dd del details dfn dialog dir div dl dt "
    "em embed fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header "
    "hgroup hr html i img input ins kbd label legend li main map mark menu meter nav nobr "
    "ol optgroup option output p picture pre progress q rp rt ruby s samp section select "
    "small source span strike strong sub summary sup table tbody td textarea tfoot th "
    "thead time title tr track tt u ul var video wbr #text"
).split()
# Tags that translators swap freely (same rendering): high initial mapping weight.
_EQUIVALENT = [
    {"b", "strong"}, {"i", "em", "cite", "dfn", "var"}, {"s", "strike", "del"},
    {"u", "ins"}, {"code", "tt", "kbd", "samp"}, {"ul", "ol"}, {"td", "th"},
    {"thead", "tbody", "tfoot"},
]
# Tags of the same family: lower initial weight.
_FAMILY = [
    {"h1", "h2", "h3", "h4", "h5", "h6", "hgroup"},
    {"div", "section", "article", "main", "aside", "nav", "header", "footer", "figure",
     "center", "form", "fieldset", "details", "address", "blockquote", "p", TEXT_TAG,
     "span", "font", "dialog"},
    {"span", "font", "small", "big", "mark", "label", "abbr", "acronym", "cite", "dfn",
     "var", "q", "sub", "sup", "b", "strong", "i", "em", "u", "time", "nobr", TEXT_TAG},
    {"ul", "ol", "dl", "menu", "dir"},
    {"li", "dt", "dd"},
    {"table", "tbody", "thead", "tfoot", "tr"},
    {"caption", "figcaption", "legend", "summary"},
]

W_SAME, W_EQUIVALENT, W_FAMILY, W_OTHER = 1.0, 0.3, 0.03, 0.002


def _prior_weight(t1: str, t2: str) -> float:
    if t1 == t2:
        return W_SAME
    for group in _EQUIVALENT:
        if t1 in group and t2 in group:
            return W_EQUIVALENT
    for group in _FAMILY:
        if t1 in group and t2 in group:
            return W_FAMILY
    return W_OTHER

_prior_norm: dict[str, float] = {}


def prior_tag_prob(t1: str, t2: str) -> float:
    """Initial tag-mapping probability P0(t2 | t1) before training (§4.2).

    Not from the paper (it starts EM from scratch): identity ≫ equivalent (``b``/``strong``)
    ≫ same family (``h1``/``h2``) ≫ other, normalised over the known HTML tags, so that the
    first Viterbi alignments are sensible and EM can learn a site's own mappings.
    """
    z = _prior_norm.get(t1)
    if z is None:
        z = sum(_prior_weight(t1, t) for t in KNOWN_TAGS)
        if t1 not in KNOWN_TAGS:
            z += W_SAME
        _prior_norm[t1] = z
    return _prior_weight(t1, t2) / z
