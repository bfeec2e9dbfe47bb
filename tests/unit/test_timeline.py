from bitextcrawl.extensions.timeline import add_point


def test_timeline_stays_bounded_and_keeps_first_and_last():
    points = []
    thinned = 0
    for i in range(1000):
        thinned += add_point(points, [i, i, i, 0], max_points=50)
    assert len(points) <= 50 and thinned
    assert points[0][0] == 0 and points[-1][0] == 999
    assert [p[0] for p in points] == sorted(p[0] for p in points)
    assert not add_point(points, [1000, 999, 999, 0]) and points[-1][0] == 999  # no change
