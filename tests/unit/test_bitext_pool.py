"""When the bitext stage starts a process pool, and its fork server ahead of time."""

from __future__ import annotations

from bitextcrawl.bitext.pool import MIN_PAIRS_PER_WORKER, ordered_map, pool_size, warm_pool


def test_pool_size_needs_enough_pairs_per_worker():
    assert pool_size(2, 2 * MIN_PAIRS_PER_WORKER) == 2
    assert pool_size(2, 2 * MIN_PAIRS_PER_WORKER - 1) == 1
    assert pool_size(1, 10_000) == 1


def test_no_fork_server_where_no_pool_can_run():
    # one worker asked, or a site too small for two workers' pairs (n_pages // 2 pairs)
    assert warm_pool(1, 10_000) is False
    assert warm_pool(2, 4 * MIN_PAIRS_PER_WORKER - 2) is False


def test_ordered_map_keeps_order_and_submits_when_called():
    from concurrent.futures import ThreadPoolExecutor


    read = []

    def tasks():
        for k in range(23):
            read.append(k)
            yield k

    with ThreadPoolExecutor(2) as pool:
        results = ordered_map(pool, lambda x: x * x, tasks(), chunk=4, ahead=3)
        assert read == list(range(12))   # three chunks in flight before any result is asked
        assert list(results) == [k * k for k in range(23)]
