"""``scrapy expand RUN_DIR... --top-k K -o FILE``: rank the sites outside finished runs
([Zhang 2013 §2.3], one ranking, nothing crawled).

Each RUN_DIR is a ``bitext`` crawl's output dir or an ``expand`` crawl's. The crawled sites
that are bilingual (every site of a ``bitext`` run; those an ``expand`` run added) form the
set; their outlinks come from ``pages.jsonl``, their credibility C(w) from ``patterns.json``
(else the pattern database). Sites outside the set, never checked, are ranked by
ΣLinkEvidence (``--criterion``, default ``BITEXT_EXPAND_CRITERION``; or the paper's
ΣWeightedPageRank, ΣPageRank, ΣLinkout). The link evidence names the languages of ``--langs``
(default: those the runs' ``pairs.jsonl`` paired). Writes the
``expansion.jsonl`` fields for the top K (``-o FILE``; standard output without it) and prints
a table to standard error.

``scrapy expand --scrapyd URL[,URL...] --shared-root DIR --seeds FILE --langs en,fr``
runs the expansion rounds themselves on Scrapyd nodes, each site a job
(:mod:`bitextcrawl.sites.cluster`); started again with the same arguments, it resumes.
"""

from __future__ import annotations

import logging
import os
import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from bitextcrawl import config
from bitextcrawl.commands import command_settings, fail, use_help_formatter
from bitextcrawl.formats.jsonl import write_jsonl
from bitextcrawl.pages.language import parse_langs
from bitextcrawl.pairing.url_patterns import PatternDB
from bitextcrawl.sites.cluster import ClusterConfig, ClusterExpansion
from bitextcrawl.sites.expansion import load_runs
from bitextcrawl.sites.graph import CRITERION_NAMES
from bitextcrawl.sites.scrapyd import ScrapydError, ScrapydNode
from bitextcrawl.spiders.expand import seed_list

logger = logging.getLogger(__name__)


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = command_settings(LOG_LEVEL="INFO")

    def syntax(self) -> str:
        return ("RUN_DIR... [--top-k K] [-o FILE] [--langs en,fr] "
                "[--criterion link_evidence|weighted_pagerank|pagerank|linkout]\n"
                "       scrapy expand --scrapyd URL[,URL...] --shared-root DIR --seeds FILE "
                "--langs en,fr [--rounds R] [--top-k K] [--max-pages N]")

    def short_desc(self) -> str:
        return "Rank sites outside finished runs by ΣLinkout, ΣPageRank, ΣWeightedPageRank"

    def add_options(self, parser):
        super().add_options(parser)
        use_help_formatter(parser)
        parser.add_argument("--top-k", dest="top_k", type=int, default=None, metavar="K",
                            help="write the top K sites (0 = all; default BITEXT_EXPAND_TOP_K)")
        parser.add_argument("-o", "--output", default=None, metavar="FILE",
                            help="expansion.jsonl-style output (default standard output)")
        parser.add_argument("--criterion", default=None,
                            choices=CRITERION_NAMES,
                            help="ranking criterion (default BITEXT_EXPAND_CRITERION)")
        parser.add_argument("--pattern-db", dest="pattern_db", default=None, metavar="PATH",
                            help="pattern database for C(w) of sites without patterns.json "
                                 "(default BITEXT_PATTERN_DB)")
        parser.add_argument("--langs", default=None, metavar="LANGS",
                            help="languages the link evidence looks for (default those the "
                                 "runs paired)")
        group = parser.add_argument_group("expansion on Scrapyd nodes")
        group.add_argument("--scrapyd", default=None, metavar="URL[,URL...]",
                           help="run the rounds on these Scrapyd nodes, each site a job")
        group.add_argument("--shared-root", dest="shared_root", default=None, metavar="DIR",
                           help="the expansion's output dir, the same path on every node")
        group.add_argument("--seeds", default=None, metavar="FILE",
                           help="seed sites, one URL a line")
        group.add_argument("--rounds", type=int, default=None, metavar="R",
                           help="rounds after the seeds' (default BITEXT_EXPAND_ROUNDS)")
        group.add_argument("--max-pages", dest="max_pages", type=int, default=None,
                           metavar="N", help="pages per site (default BITEXT_EXPAND_MAX_PAGES)")
        group.add_argument("--project", default="bitextcrawl",
                           help="the Scrapyd project bitextcrawl is deployed as")
        group.add_argument("--poll", type=float, default=1.0, metavar="SECONDS",
                           help="how often the nodes are asked about their jobs")

    def run(self, args, opts):
        if opts.scrapyd is not None:
            if args:
                fail("expand", "--scrapyd takes no RUN_DIR: the runs are its jobs")
            return run_on_scrapyd(self.settings, opts)
        if not args:
            raise UsageError("give at least one RUN_DIR", print_help=True)
        configure_logging(self.settings)
        s = self.settings
        criterion = opts.criterion or s.get("BITEXT_EXPAND_CRITERION")
        top_k = opts.top_k if opts.top_k is not None else s.getint("BITEXT_EXPAND_TOP_K")
        if top_k < 0:
            raise UsageError(f"--top-k must be 0 or more, got {top_k}")
        db_path = opts.pattern_db or config.pattern_db_path(s)
        try:
            langs = parse_langs(opts.langs, s.get("BITEXT_LID_MODEL"), "--langs") \
                if opts.langs else None
            pattern_db = PatternDB(db_path) if os.path.exists(db_path) else None
            expansion = load_runs(args, criterion=criterion, top_k=top_k, pattern_db=pattern_db,
                                  langs=langs)
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc), print_help=False) from exc
        round_no = expansion.last_round + 1
        ranking = expansion.rank(round_no)
        rows = expansion.rows(round_no)[: top_k or None]
        logger.info("expand: %d sites in the set, %d outside sites ranked by %s",
                    len(expansion.members), len(ranking), criterion)
        if opts.output:
            write_jsonl(opts.output, rows)
        else:
            write_jsonl_to(sys.stdout, rows)
        print_table(rows, sys.stderr)


def write_jsonl_to(fh, rows) -> None:
    import json

    for row in rows:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    fh.flush()


def print_table(rows, fh) -> None:
    fh.write(f"{'rank':>4}  {'ΣLinkEvidence':>13}  {'ΣWeightedPR':>12}  {'ΣPageRank':>10}  "
             f"{'ΣLinkout':>8}  {'from':>4}  site\n")
    for row in rows:
        fh.write(f"{row['rank']:>4}  {row['sum_link_evidence']:>13.6f}  "
                 f"{row['sum_weighted_pagerank']:>12.6f}  "
                 f"{row['sum_pagerank']:>10.6f}  {row['sum_linkout']:>8}  "
                 f"{len(row['linked_from']):>4}  {row['site']}\n")
    fh.flush()


#: settings a site's job gets from the expansion itself, never from ``-s``
_JOB_OWN = {"BITEXT_OUTPUT_DIR", "BITEXT_PATTERN_DB", "BITEXT_EXPAND_CHECK_SEEDS_ENABLED"}


def cmdline_settings(settings) -> dict[str, str]:
    """The settings given with ``-s NAME=VALUE``: every job gets them."""
    from scrapy.settings import SETTINGS_PRIORITIES

    return {name: str(settings[name]) for name in sorted(settings.attributes)
            if settings.getpriority(name) == SETTINGS_PRIORITIES["cmdline"]
            and name not in _JOB_OWN}


def run_on_scrapyd(settings, opts) -> None:
    """``scrapy expand --scrapyd ...``: bad input is one line and exit status 2."""
    configure_logging(settings)
    s = settings
    try:
        if not opts.shared_root:
            raise ValueError("--scrapyd needs --shared-root DIR (the expansion's output dir, "
                             "the same path on every node)")
        if not opts.langs:
            raise ValueError("--scrapyd needs --langs, e.g. --langs en,fr")
        nodes = [ScrapydNode(url, project=opts.project)
                 for url in opts.scrapyd.split(",") if url.strip()]
        if not nodes:
            raise ValueError("--scrapyd needs at least one URL, e.g. http://127.0.0.1:6800")
        langs = parse_langs(opts.langs, s.get("BITEXT_LID_MODEL"), "--langs")
        seeds = seed_list(opts.seeds)
        rounds = opts.rounds if opts.rounds is not None else s.getint("BITEXT_EXPAND_ROUNDS")
        top_k = opts.top_k if opts.top_k is not None else s.getint("BITEXT_EXPAND_TOP_K")
        max_pages = opts.max_pages if opts.max_pages is not None \
            else s.getint("BITEXT_EXPAND_MAX_PAGES")
        for name, value in (("--rounds", rounds), ("--top-k", top_k),
                            ("--max-pages", max_pages)):
            if value < 0:
                raise ValueError(f"{name} must be 0 or more, got {value}")
        if opts.poll <= 0:
            raise ValueError(f"--poll must be above 0, got {opts.poll}")
        config_ = ClusterConfig(
            seeds=seeds, langs=list(langs), rounds=rounds, top_k=top_k,
            criterion=opts.criterion or s.get("BITEXT_EXPAND_CRITERION"), max_pages=max_pages,
            check_seeds=config.getbool(s, "BITEXT_EXPAND_CHECK_SEEDS_ENABLED"),
            replace_failed=config.getbool(s, "BITEXT_EXPAND_REPLACE_FAILED_ENABLED"),
            settings=cmdline_settings(s))
        run = ClusterExpansion(opts.shared_root, config_, nodes, poll=opts.poll,
                               pattern_db=s.get("BITEXT_PATTERN_DB") or None)
        run.load_state()   # arguments that differ from the state's: refused before any call
        run.run()
    except (OSError, ValueError, ScrapydError) as exc:
        fail("expand", str(exc))
    summary = run.summary()
    logger.info("expand: %d rounds, %d jobs (%s), %d sites in the set; %s",
                summary["rounds"], summary["jobs"],
                ", ".join(f"{n}: {k}" for n, k in sorted(summary["jobs_per_node"].items())),
                len(summary["members"]), os.path.join(run.root, "expansion.jsonl"))
