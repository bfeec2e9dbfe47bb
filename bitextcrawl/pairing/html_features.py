"""What pairing reads of a page's HTML, and the per-page features of its text, each made
once per record: by a record worker as it makes the record (the page store keeps them),
or by a closing step that holds its records without HTML (``pages.compact``). A light
module: record workers import it without the pairing models."""

from __future__ import annotations

from bitextcrawl.pages.switches import page_switch_names
from bitextcrawl.pages.template import page_chunk_keys
from bitextcrawl.pairing.anchors import page_code_anchors, page_text_anchors
from bitextcrawl.pairing.page_features import page_image_names, page_numbers

# (the text's: 0.4 s of WET's closing step in the crawl's process, made in the record
# workers instead)
HTML_FEATURES = (page_image_names, page_code_anchors, page_switch_names, page_text_anchors,
                 page_numbers, page_chunk_keys)
