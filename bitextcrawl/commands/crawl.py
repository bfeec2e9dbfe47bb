"""``scrapy crawl SPIDER -a ...``: Scrapy's own crawl command, with the spider's arguments
checked before the crawl starts.

Scrapy builds a spider inside the running crawl: an exception raised by its ``__init__`` or
``from_crawler`` comes out as a logged Python traceback after the Scrapy banner. This
override (found through ``COMMANDS_MODULE`` and the ``scrapy.commands`` entry point) asks
the spider class first: a class with a ``check_arguments(settings, **spargs)`` classmethod
that raises ValueError gets its message printed as one line, ``scrapy crawl: error: ...``,
and the command exits with status 2 before any crawler, log or request exists. Spiders without the method crawl as before; a
spider name the project does not have is the same kind of one-line error.

A spider class with a ``preflight(settings, **spargs)`` classmethod is then asked whether
the crawl can run at all (its output dir, its start URLs: ``bitextcrawl.preflight``); a
RuntimeError is the same one-line error, before anything is written. With the checks off
(``BITEXT_PREFLIGHT_ENABLED=False``), the Redis of the distributed profile is still asked
(a wrong password is the same one-line error). After the crawl the
command exits with the status the crawl kept in ``bitext/exit_status``
(:mod:`bitextcrawl.outcome`).
"""

from __future__ import annotations

import sys

from scrapy.addons import AddonManager
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.spiderloader import get_spider_loader
from scrapy.utils.project import inside_project

from bitextcrawl.commands import fail, use_help_formatter
from bitextcrawl.config import getbool
from bitextcrawl.preflight import check_redis_of

BITEXTCRAWL_SPIDERS = ("bitext", "expand")


def unknown_spider(name: str, spiders, in_project: bool) -> str:
    """The one-line error for a spider name the project does not have: the spiders it
    has, and for bitextcrawl's own spiders how to get them: the add-on in a project, a
    project at all outside one (the installed package's ``crawl`` runs in any folder,
    where Scrapy's own would refuse to)."""
    how = ('switch it on in the project\'s settings: ADDONS = {"bitextcrawl.Addon": 0}'
           if in_project else
           "crawl from a Scrapy project (scrapy startproject NAME, then ADDONS = "
           '{"bitextcrawl.Addon": 0} in NAME/settings.py) or from bitextcrawl\'s checkout')
    hint = f"; to crawl with bitextcrawl, {how}" if name in BITEXTCRAWL_SPIDERS else ""
    if not in_project:
        return f"no spider named {name!r}: this folder is in no Scrapy project (no scrapy.cfg){hint}"
    if not spiders:
        return f"no spider named {name!r}: this project has no spider{hint}"
    return (f"no spider named {name!r} in this project: run one of "
            + ", ".join(sorted(spiders)) + f" (scrapy list){hint}")


class Command(ScrapyCrawlCommand):

    def long_desc(self) -> str:
        """The description ``scrapy crawl -h`` prints: Scrapy's, and the arguments of
        bitextcrawl's spiders, which Scrapy's ``-a NAME=VALUE`` does not name."""
        return (
            "Run a spider of the current project, by name. bitextcrawl's spiders: "
            "'scrapy crawl bitext -a start_url=URL -a langs=en,fr[,de...] "
            "[-a start_urls=URL,URL|FILE] [-a max_pages=N]' crawls one site and pairs its "
            "translated pages, the first language with each of the others; "
            "'scrapy crawl expand -a seeds=FILE -a langs=en,fr [-a rounds=R] "
            "[-a top_k=K]' crawls seed sites and the sites they link to. Name yourself "
            "before crawling a site that is not yours (-s USER_AGENT='name "
            "(+mailto:you@example.org)'); -s BITEXT_OUTPUT_DIR=DIR sets where the "
            "outputs go (default output/SITE). Exit status: 0 pairs in every language, "
            "1 failed, 2 refused before crawling, 3 a language without a page or a pair (the "
            "WARNING says what the crawl saw), 4 outputs not written, 130 interrupted. "
            "See docs/first-crawl.md.")

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)

    def process_options(self, args, opts):
        super().process_options(args, opts)  # -s settings, -a spider arguments into spargs
        if len(args) != 1:
            return  # Scrapy's own usage errors
        settings = self.settings.copy()
        AddonManager.load_pre_crawler_settings(settings)  # the spider modules add-ons add
        loader = get_spider_loader(settings)
        try:
            spidercls = loader.load(args[0])
        except KeyError:
            fail("crawl", unknown_spider(args[0], loader.list(), inside_project()))
        check = getattr(spidercls, "check_arguments", None)
        if check is None:
            return
        spidercls.update_settings(settings)  # the spider's defaults, as its crawler sees them
        try:
            check(settings, **opts.spargs)
        except ValueError as exc:
            fail("crawl", str(exc))
        preflight = getattr(spidercls, "preflight", None)
        if preflight is None:
            return
        if not getbool(settings, "BITEXT_PREFLIGHT_ENABLED"):
            # Redis is asked all the same (one PING): a crawl cannot start without it, and
            # a refused password would come out of the scheduler as Scrapy's traceback
            message = check_redis_of(settings)
            if message:
                fail("crawl", message)
            return
        try:
            removed = preflight(settings, **opts.spargs)
        except (RuntimeError, ValueError) as exc:
            fail("crawl", str(exc))
        except KeyboardInterrupt:
            raise SystemExit(130) from None   # Ctrl-C while checking: nothing to stop
        if removed:
            sys.stderr.write(f"scrapy crawl: replacing the crawl in the output dir "
                             f"(BITEXT_OVERWRITE_ENABLED): deleted {', '.join(removed)}\n")

    def run(self, args, opts):
        """Scrapy's crawl, then the exit status the crawl set (``bitext/exit_status``:
        :mod:`bitextcrawl.outcome`)."""
        if len(args) != 1:
            return super().run(args, opts)
        crawler = self.crawler_process.create_crawler(args[0])
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        status = crawler.stats.get_value("bitext/exit_status") if crawler.stats else None
        if status:
            self.exitcode = status
