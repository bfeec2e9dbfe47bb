"""The crawl state learned together (``CrawlState.sync``, ``publish``, ``claim``) with an
in-memory backing of two workers: what one stores or publishes reaches the other's
consumers once; without a backing nothing moves and every claim is granted."""

from __future__ import annotations

from bitextcrawl.crawl_state import CrawlState
from bitextcrawl.pages.record import PageRecord


class Meeting:
    """What the workers share: stored records (with who stored them), facts, claims."""

    def __init__(self):
        self.records: list[tuple[str, PageRecord]] = []
        self.facts: list[tuple[str, str, object]] = []
        self.claims: set[tuple[str, str]] = set()


class MemoryBacking:
    def __init__(self, meeting: Meeting, name: str):
        self.meeting, self.name = meeting, name
        self.records_at = self.facts_at = 0

    def store(self, record: PageRecord) -> None:
        self.meeting.records.append((self.name, record))

    def new_records(self):
        new = self.meeting.records[self.records_at:]
        self.records_at += len(new)
        return [record for name, record in new if name != self.name]

    def publish(self, kind, value):
        self.meeting.facts.append((self.name, kind, value))

    def new_facts(self):
        new = self.meeting.facts[self.facts_at:]
        self.facts_at += len(new)
        return [(kind, value) for name, kind, value in new if name != self.name]

    def claim(self, kind, key):
        if (kind, key) in self.meeting.claims:
            return False
        self.meeting.claims.add((kind, key))
        return True


def page(url: str, lang: str = "en") -> PageRecord:
    return PageRecord(url=url, lang=lang)


def test_records_and_facts_of_the_other_worker_reach_this_one_once():
    meeting = Meeting()
    one, two = CrawlState(), CrawlState()
    one.backing, two.backing = MemoryBacking(meeting, "one"), MemoryBacking(meeting, "two")
    indexed, learned, rules = [], [], []
    two.on_stored_record(lambda r: indexed.append(r.url))
    two.on_remote_record(lambda r: learned.append(r.url))
    two.on_fact("redirect", rules.append)
    one.backing.store(page("http://a/en/1"))
    two.backing.store(page("http://a/en/2"))          # its own: not fed back
    one.publish("redirect", ("http://a/old/1", "http://a/en/1"))
    one.publish("other", 1)                            # nobody listens: skipped
    assert two.sync() == 3
    assert indexed == learned == ["http://a/en/1"]
    assert rules == [("http://a/old/1", "http://a/en/1")]
    assert two.sync() == 0                             # read once
    one.backing.store(page("http://a/en/3"))
    two.sync()
    assert learned == ["http://a/en/1", "http://a/en/3"]


def test_a_record_replayed_is_not_indexed_again_but_is_learned():
    """A worker joining a crawl in progress rebuilds its indexes from the store
    (``replay``); the first sync then gives those records to the learning only."""

    class Store(list):
        pass

    meeting = Meeting()
    one, two = CrawlState(), CrawlState()
    one.backing, two.backing = MemoryBacking(meeting, "one"), MemoryBacking(meeting, "two")
    indexed, learned = [], []
    two.on_stored_record(lambda r: indexed.append(r.url))
    two.on_remote_record(lambda r: learned.append(r.url))
    first = page("http://a/en/1")
    one.backing.store(first)
    two.replay(Store([first]))
    two.sync()
    assert indexed == ["http://a/en/1"] and learned == ["http://a/en/1"]


def test_claims_go_to_the_first_worker_and_everything_is_granted_alone():
    meeting = Meeting()
    one, two = CrawlState(), CrawlState()
    one.backing, two.backing = MemoryBacking(meeting, "one"), MemoryBacking(meeting, "two")
    assert two.claim("request", "http://a/x") is True
    assert one.claim("request", "http://a/x") is False
    alone = CrawlState()
    assert alone.claim("request", "http://a/x") and alone.claim("request", "http://a/x")
    alone.publish("redirect", ("a", "b"))              # no backing: nothing, no error
    assert alone.sync() == 0


def test_shared_sections_are_rebuilt_not_read_back_where_the_state_has_a_backing():
    class Store:
        def get_meta(self, key, default=None):
            return {"focus": {"n": 3}, "parallel_links": {"m": 1}}

    state = CrawlState()
    state.add_section("focus", dict, shared=True)
    state.add_section("parallel_links", dict)
    assert state.section(Store(), "focus") == {"n": 3}     # no backing: read back
    state.backing = MemoryBacking(Meeting(), "one")
    assert state.section(Store(), "focus", {}) == {}       # rebuilt by sync instead
    assert state.section(Store(), "parallel_links") == {"m": 1}


def test_a_worker_that_stored_one_language_only_is_judged_on_the_whole_crawl(tmp_path):
    """The exit status of a distributed worker: the pages per language of every worker
    (the shared store), not of this one alone (all its pages English: no status 3)."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from bitextcrawl.context import CrawlContext
    from bitextcrawl.extensions.outcome import CrawlOutcome
    from bitextcrawl.spiders.bitext import BitextSpider

    class SharedStore:
        def urls_by_lang(self):
            return {"en": ["http://a/en/1", "http://a/en/2"], "zh": ["http://a/cn/1"]}

        def close(self):
            pass

    crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / "out"),
                                         "BITEXT_ALIGN_ENABLED": "False"})
    crawler.stats = MemoryStatsCollector(crawler)
    crawler.spider = BitextSpider.from_crawler(crawler, start_url="http://a/cn/",
                                               langs="en,zh")
    crawler.stats.set_value("bitext/pages/stored/en", 2)
    outcome = CrawlOutcome(crawler)
    outcome.spider_closed(reason="finished")
    assert crawler.stats.get_value("bitext/exit_status") == 3      # alone: no Chinese page
    context = CrawlContext.from_crawler(crawler)
    context.state.backing = MemoryBacking(Meeting(), "one")
    context._store = SharedStore()
    outcome.spider_closed(reason="finished")
    assert crawler.stats.get_value("bitext/exit_status") == 0


def test_guesses_of_another_worker_count_in_the_recovery_budgets():
    """A direction's budget is the crawl's: four guesses into a folder answered by another
    worker (one found) leave this worker the two more a single crawl would have had
    after them, not the first batch of a fresh direction."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from bitextcrawl.pairing.recovery import RecoveryGuesses

    stats = MemoryStatsCollector(get_crawler())
    key = ("en:en|zh:cn", "en", "zh", "h/en/docs/")
    here = RecoveryGuesses(stats, 500, 4, 0.2)
    for i in range(4):
        here.remote_outcome(f"h/cn/docs/p{i}.html", key, ok=i == 0)
    assert here.directions[key].tried == 4
    assert here.family_allowance()[key[:3]] == 8 + 2 - 4
    assert here.batch(key, scarce=False, target_dir_known=True) == 2


def test_a_family_of_links_found_by_one_worker_lets_the_others_links_of_it_go(tmp_path):
    """The focus's families of links (focus/families.py) through the crawl state: a
    page of a family found by one worker releases the family's links another holds."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from bitextcrawl.context import CrawlContext
    from bitextcrawl.middlewares.focus import FocusMiddleware
    from bitextcrawl.spiders.bitext import BitextSpider

    meeting, workers, scheduled = Meeting(), [], []
    for name in ("one", "two"):
        crawler = get_crawler(BitextSpider, {"BITEXT_OUTPUT_DIR": str(tmp_path / name)})
        crawler.stats = MemoryStatsCollector(crawler)
        crawler.spider = BitextSpider.from_crawler(crawler, start_url="http://a/it/",
                                                   langs="en,it")
        context = CrawlContext.from_crawler(crawler)
        context.state.backing = MemoryBacking(meeting, name)
        focus = FocusMiddleware(crawler)
        focus._schedule = scheduled.append
        focus.sharing.schedule = scheduled.append
        workers.append((context.state, focus.queue.families))
    (state_one, one), (state_two, two) = workers
    urls = [f"http://a/it/docs/ngx_m{i}.html" for i in range(3)]
    assert two.admit(urls[0], "r0") and not two.admit(urls[1], "r1")
    assert one.admit(urls[2], "r2")
    assert one.answered(urls[2], found=True) == []
    state_two.sync()
    assert scheduled == ["r1"]
