"""The support polygon the physics check measures balance against (addon/motion/check.py's
convex_hull_2d) is the solver's hull (solver/polygon.py, the balance assist's), the check's
points rounded first: checked headless against what makes a convex hull."""

import numpy as np

from motion_package import load

check = load("check")


def _inside_or_on(points, hull):
    """Whether every point is on the inner side of (or on) every counter-clockwise edge (the
    corners were rounded to 12 decimals: 1e-10 is on)."""
    a, b = hull, np.roll(hull, -1, axis=0)
    cross = ((b - a)[None, :, 0] * (points[:, None, 1] - a[None, :, 1])
             - (b - a)[None, :, 1] * (points[:, None, 0] - a[None, :, 0]))
    return bool((cross >= -1e-10).all())


def test_the_checks_hull_holds_every_point_with_corners_among_them_counter_clockwise():
    rng = np.random.default_rng(7)
    for n in (3, 5, 40, 400):
        pts = rng.normal(size=(n, 2))
        hull = check.convex_hull_2d(pts)
        assert len(hull) >= 3
        assert _inside_or_on(pts, hull)
        # each corner is one of the points, and a corner: without it a point falls outside
        for i, corner in enumerate(hull):
            assert np.isclose(pts, corner, atol=1e-12).all(axis=1).any()
            assert not _inside_or_on(pts, np.delete(hull, i, axis=0))
        x, y = hull[:, 0], hull[:, 1]
        area = 0.5 * (x * np.roll(y, -1) - np.roll(x, -1) * y).sum()
        assert area > 0.0                              # counter-clockwise


def test_corners_equal_but_for_rounding_are_one_and_a_line_gives_its_ends():
    square = np.array([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])
    noisy = np.concatenate([square, square + 1e-14, square - 1e-14])
    hull = check.convex_hull_2d(noisy)
    assert sorted(map(tuple, hull)) == sorted(map(tuple, square))
    line = np.array([(0.0, 0.0), (0.5, 0.5), (2.0, 2.0), (1.0, 1.0)])
    assert sorted(map(tuple, check.convex_hull_2d(line))) == [(0.0, 0.0), (2.0, 2.0)]
    assert check.convex_hull_2d([(0.3, 0.4)] * 3).tolist() == [[0.3, 0.4]]
