"""Page stores: where page records live during and after a crawl."""

from scrapy.utils.misc import load_object


def open_store(settings, output_dir: str):
    """The page store named by ``BITEXT_PAGE_STORE``, opened on ``output_dir``."""
    cls = load_object(settings.get("BITEXT_PAGE_STORE"))
    return cls.from_settings(settings, output_dir)
