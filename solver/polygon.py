"""Convex polygons in the plane, numpy only: the support polygon of the balance assist
(`balance.py`) and of the add-on's physics check of keyed motion (addon/motion/check.py, which
loads this module alone)."""

import numpy as np


def convex_hull(points):
    """The corners (k, 2) of the convex hull of 2D `points` (n, 2), counter-clockwise
    (Andrew's monotone chain); fewer than 3 when the points are one point or on a line."""
    pts = np.unique(np.asarray(points, dtype=np.float64).reshape(-1, 2), axis=0)
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 1e-15:
            lower.pop()
        lower.append(p)
    for p in pts[::-1]:
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 1e-15:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])
