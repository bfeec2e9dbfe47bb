"""Language codes given by users, checked against the LID model's labels."""

from __future__ import annotations

import pytest

from bitextcrawl.pages.language import (
    LANG_ALIASES,
    lang_code,
    load_model,
    model_labels,
    parse_langs,
)
from bitextcrawl.spiders.bitext import BitextSpider
from bitextcrawl.spiders.expand import ExpandSpider


def test_model_labels_are_lid176():
    labels = model_labels()
    assert len(labels) == 176 and labels == tuple(sorted(labels))
    assert {"en", "fr", "ru", "zh", "ja", "he", "no", "nn", "sh", "yue", "als"} <= set(labels)
    assert not any(x.startswith("__label__") for x in labels)


def test_model_labels_agree_with_predictions():
    """Every label fastText gives on some texts is in the list read from the file."""
    model = load_model()
    labels = set(model_labels())
    predicted, _ = model.predict("The quick brown fox jumps over the lazy dog", k=-1)
    assert predicted and {x.replace("__label__", "") for x in predicted} <= labels


def test_model_labels_rejects_a_non_model(tmp_path):
    junk = tmp_path / "junk.ftz"
    junk.write_bytes(b"not a fastText model at all" * 10)
    with pytest.raises(ValueError, match="not a fastText model"):
        model_labels(str(junk))


@pytest.mark.parametrize("given, code", [
    ("en", "en"), ("EN", "en"), ("fr-CA", "fr"), ("fr_CA", "fr"), ("zh-CN", "zh"),
    ("zh_Hant_TW", "zh"), ("pt-BR", "pt"), ("sr-Latn", "sr"), ("cn", "zh"), ("jp", "ja"),
    ("iw", "he"), ("nb", "no"), ("no", "no"), ("eng", "en"), ("fra", "fr"), ("deu", "de"),
    ("yue", "yue"), ("__label__ru", "ru"), (" de ", "de"),
    ("xx", None), ("english", None), ("", None), (None, None), ("123", None),
])
def test_lang_code(given, code):
    assert lang_code(given) == code


def test_aliases_point_at_labels_and_never_shadow_one():
    labels = set(model_labels())
    assert set(LANG_ALIASES.values()) <= labels
    assert not set(LANG_ALIASES) & labels


def test_parse_langs_normalises_and_dedupes():
    assert parse_langs("en,fr") == ("en", "fr")
    assert parse_langs("EN, cn ,zh,chi") == ("en", "zh")
    # a region or script subtag names a variant (pages/variants.py)
    assert parse_langs("EN, zh-CN ,zh_cn") == ("en", "zh-cn")
    assert parse_langs(["en", "pt_BR", "ru"]) == ("en", "pt-br", "ru")


def test_parse_langs_names_bad_codes_and_what_is_accepted():
    with pytest.raises(ValueError) as err:
        parse_langs("en,xx")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("unknown language code 'xx' in langs=en,xx: the language-ID model "
                          "(lid.176.ftz) cannot label a page with it. Accepted: af als am ")
    assert "pt-BR -> pt-br" in msg
    with pytest.raises(ValueError, match=r"codes 'xx', 'yy' in --langs=en,xx,yy"):
        parse_langs("en,xx,yy", name="--langs")


@pytest.mark.parametrize("value", ["en", "en,en", "zh-tw,zh_TW", "zh-Hant-TW,zh-tw", "", ","])
def test_parse_langs_needs_two_languages(value):
    with pytest.raises(ValueError, match="needs two different languages or more"):
        parse_langs(value)


def test_bitext_check_arguments():
    settings = {"BITEXT_LANGS": "en,fr", "BITEXT_LID_MODEL": ""}
    BitextSpider.check_arguments(settings, start_url="http://x/", langs="en,zh-CN",
                                 max_pages="5", _job="abc")  # scrapyd's extra arguments
    with pytest.raises(ValueError, match="pass -a start_url=URL"):
        BitextSpider.check_arguments(settings, langs="en,fr")
    with pytest.raises(ValueError, match="'xx' in langs=en,xx"):
        BitextSpider.check_arguments(settings, start_url="http://x/", langs="en,xx")
    with pytest.raises(ValueError, match="'qq' in BITEXT_LANGS=en,qq"):
        BitextSpider.check_arguments({"BITEXT_LANGS": "en,qq"}, start_url="http://x/")
    with pytest.raises(ValueError, match="max_pages must be a whole number"):
        BitextSpider.check_arguments(settings, start_url="http://x/", max_pages="-1")


def test_spider_langs_normalised():
    from scrapy.utils.test import get_crawler

    spider = BitextSpider.from_crawler(get_crawler(BitextSpider), start_url="http://x/",
                                       langs="EN,zh-CN")
    assert spider.langs == ("en", "zh-cn")


def test_expand_check_arguments(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.example/\n", encoding="utf-8")
    ExpandSpider.check_arguments({}, seeds=str(seeds), langs="en,fr", rounds="2", top_k="5")
    with pytest.raises(ValueError, match="needs a seed list"):
        ExpandSpider.check_arguments({}, langs="en,fr")
    with pytest.raises(ValueError, match="top_k must be a whole number.*-a top_k=10"):
        ExpandSpider.check_arguments({}, seeds=str(seeds), top_k="many")
    with pytest.raises(ValueError, match="unknown criterion 'best'"):
        ExpandSpider.check_arguments({}, seeds=str(seeds), criterion="best")
