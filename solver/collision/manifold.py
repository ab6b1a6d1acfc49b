"""Candidate contact points and their reduction to a manifold of at most four.

Narrowphase routines write candidates into a scratch table `pts` (one row each):
    pts[i, 0:3]  point on A's surface (world)     pts[i, 3:6]  point on B's surface (world)
    pts[i, 6]    feature id (an integer, unique within the pair)
    pts[i, 7]    separation (n . (pB - pA), negative when overlapping)
The normal n is shared and points from A into B.

Reduction keeps the deepest point, the point farthest from it, the point that makes the
largest triangle with those two, and the one farthest outside that triangle's corners
(the usual choice of Bullet and Box2D: deepest first, then the widest spread), so a resting
face keeps its four corners.
"""

import math

from ..jit import helper

PT_WIDTH = 8
MAX_CANDIDATES = 16


@helper
def put_point(pts, i, pa, pb, fid, sep):
    for k in range(3):
        pts[i, k] = pa[k]
        pts[i, 3 + k] = pb[k]
    pts[i, 6] = fid
    pts[i, 7] = sep


@helper
def _mid(pts, i):
    return (0.5 * (pts[i, 0] + pts[i, 3]), 0.5 * (pts[i, 1] + pts[i, 4]),
            0.5 * (pts[i, 2] + pts[i, 5]))


@helper
def _d2(a, b):
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


@helper
def _swap(pts, i, j):
    for k in range(PT_WIDTH):
        t = pts[i, k]
        pts[i, k] = pts[j, k]
        pts[j, k] = t


@helper
def reduce_points(pts, count, n):
    """Move the (at most) four kept candidates to rows 0..3 and return how many."""
    if count <= 4:
        return count
    best = 0
    for i in range(1, count):
        if pts[i, 7] < pts[best, 7]:
            best = i
    _swap(pts, 0, best)
    p0 = _mid(pts, 0)
    best = 1
    bd = -1.0
    for i in range(1, count):
        d = _d2(_mid(pts, i), p0)
        if d > bd:
            bd = d
            best = i
    _swap(pts, 1, best)
    p1 = _mid(pts, 1)
    best = 2
    bd = -1.0
    for i in range(2, count):
        p = _mid(pts, i)
        ax, ay, az = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
        bx, by, bz = p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]
        cx, cy, cz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
        d = cx * cx + cy * cy + cz * cz
        if d > bd:
            bd = d
            best = i
    _swap(pts, 2, best)
    p2 = _mid(pts, 2)
    best = 3
    bd = -1.0
    for i in range(3, count):
        p = _mid(pts, i)
        d = min(_d2(p, p0), min(_d2(p, p1), _d2(p, p2)))
        if d > bd:
            bd = d
            best = i
    _swap(pts, 3, best)
    return 4


@helper
def patch_area(pts, count, n, t1, t2):
    """Area of the convex polygon of the kept points, projected on the contact plane."""
    if count < 3:
        return 0.0
    cx = 0.0
    cy = 0.0
    us = [0.0] * 4
    vs = [0.0] * 4
    for i in range(count):
        p = _mid(pts, i)
        us[i] = p[0] * t1[0] + p[1] * t1[1] + p[2] * t1[2]
        vs[i] = p[0] * t2[0] + p[1] * t2[1] + p[2] * t2[2]
        cx += us[i]
        cy += vs[i]
    cx /= count
    cy /= count
    ang = [0.0] * 4
    for i in range(count):
        ang[i] = math.atan2(vs[i] - cy, us[i] - cx)
    order = [0, 1, 2, 3]
    for i in range(count):                  # insertion sort by angle around the centroid
        j = i
        while j > 0 and ang[order[j - 1]] > ang[order[j]]:
            t = order[j]
            order[j] = order[j - 1]
            order[j - 1] = t
            j -= 1
    area = 0.0
    for i in range(count):
        a = order[i]
        b = order[(i + 1) % count]
        area += (us[a] - cx) * (vs[b] - cy) - (us[b] - cx) * (vs[a] - cy)
    return 0.5 * abs(area)


@helper
def add_candidate(pts, count, pa, pb, fid, sep):
    """Add a candidate; when the table is full it replaces the shallowest if deeper."""
    if count < pts.shape[0]:
        put_point(pts, count, pa, pb, fid, sep)
        return count + 1
    worst = 0
    for i in range(1, count):
        if pts[i, 7] > pts[worst, 7]:
            worst = i
    if sep < pts[worst, 7]:
        put_point(pts, worst, pa, pb, fid, sep)
    return count
