"""On real sites, no stage throws away what the earlier stages proved.

Stages are added one at a time in pipeline order (url_pattern, hreflang, parallel_link,
structure, content, ets); each may lower F1 by 0.005 at most. Records are built from the
files by the crawl's own code (fastText included), without a network.
"""

from __future__ import annotations

import pytest

from testkit import real_sites
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("load, final", [(real_sites.wet, 0.99), (real_sites.nginx, 0.99),
                                         (real_sites.nginx_opaque, 0.97)],
                         ids=["wet", "nginx", "nginx-opaque"])
def test_adding_a_stage_never_costs_more_than_half_a_point(load, final):
    if not (SHARED_DATA / "nginx").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the project)")
    site = load(SHARED_DATA)
    rows = real_sites.cumulative_ablation(site)
    print(site.name, [(stage, round(f1, 4)) for stage, f1 in rows])
    for (prev_stage, prev), (stage, f1) in zip(rows, rows[1:]):
        assert f1 >= prev - 0.005, f"{site.name}: adding {stage} lowers F1 {prev:.4f} -> {f1:.4f}"
    assert rows[-1][1] >= final
