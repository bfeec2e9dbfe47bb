"""What pairing reads of a page's HTML, and the per-page features of its text, each made
once per record: by a record worker as it makes the record (the page store keeps them),
or by a closing step that holds its records without HTML (``pages.compact``). A light
module: record workers import it without the pairing models."""

from __future__ import annotations

from bitextcrawl.pages.switches import page_switch_names
from bitextcrawl.pages.template import page_chunk_keys, page_link_chunks
from bitextcrawl.pairing.anchors import page_code_anchors, page_text_anchors
from bitextcrawl.pairing.page_features import page_image_names, page_numbers

# (the text's: 0.4 s of WET's closing step in the crawl's process, made in the record
# workers instead). A record read back from ``pages.jsonl`` carries none of them: its link
# chunks (where on the page each link is) are made here too, before the HTML is dropped.
HTML_FEATURES = (page_image_names, page_code_anchors, page_switch_names, page_text_anchors,
                 page_numbers, page_chunk_keys, page_link_chunks)
