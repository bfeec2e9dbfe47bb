"""What pairing reads of a page's HTML, each made once per record: by a record worker as it
makes the record, or by a closing step that holds its records without HTML
(``pages.compact``). A light module: record workers import it without the pairing models."""

from __future__ import annotations

from bitextcrawl.pairing.anchors import page_code_anchors
from bitextcrawl.pairing.candidates import page_image_names
from bitextcrawl.sites.detect import page_switch_names

HTML_FEATURES = (page_image_names, page_code_anchors, page_switch_names)
