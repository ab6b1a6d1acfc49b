"""Narrowphase: one convex pair -> candidate points (see manifold.py) and a normal A -> B.

Shapes are given by kind, world pose of the shape origin (x, q) and params (shapes.py):
sphere (r), capsule and cylinder (r, half height, along local Z), box (half extents),
plane (local normal, offset). Pairs are ordered so that kind(A) <= kind(B); the caller swaps
bodies to match. Points further apart than `margin` are dropped: contacts within the margin
are speculative (solved with bias = separation / h), which is what stops fast bodies from
tunnelling.

Dedicated routines serve the common pairs (planes, sphere/capsule pairs, box-box, capsule-
and cylinder-box); every other convex pair goes through convex.py (GJK, SAT, clipping) and
anything against a static triangle mesh through mesh.py, so no pair goes unhandled.
"""


import numpy as np
from ..jit import helper

from ..mathx import add, cross, dot, length, perpendicular, qaxis, qrotate, scale, sub
from ..shapes import BOX, CAPSULE, CYLINDER, HULL, MESH, PLANE, SPHERE
from .box_box import box_box
from .convex import convex_convex, new_workspace, stable_reduce
from .mesh import convex_mesh
from .manifold import add_candidate, put_point


@helper
def _closest_on_segment(p, a, b):
    ab = sub(b, a)
    den = dot(ab, ab)
    t = dot(sub(p, a), ab) / den if den > 1e-300 else 0.0
    t = min(max(t, 0.0), 1.0)
    return add(a, scale(ab, t))


@helper
def _spheres(ca, ra, cb, rb, margin, pts, fid):
    d = sub(cb, ca)
    dist = length(d)
    n = scale(d, 1.0 / dist) if dist > 1e-12 else (0.0, 0.0, 1.0)
    sep = dist - ra - rb
    if sep > margin:
        return 0, n
    put_point(pts, 0, add(ca, scale(n, ra)), sub(cb, scale(n, rb)), fid, sep)
    return 1, n


@helper
def _segment(x, q, hh):
    ax = qaxis(q, 2)
    return sub(x, scale(ax, hh)), add(x, scale(ax, hh))


@helper
def _capsules(a0, a1, ra, b0, b1, rb, margin, pts):
    da = sub(a1, a0)
    db = sub(b1, b0)
    la = dot(da, da)
    lb = dot(db, db)
    c = cross(da, db)
    if dot(c, c) < 1e-6 * la * lb:
        # parallel: the overlap of B's projection on A gives a line contact (two points)
        ta0 = dot(sub(b0, a0), da) / la
        ta1 = dot(sub(b1, a0), da) / la
        lo = max(min(ta0, ta1), 0.0)
        hi = min(max(ta0, ta1), 1.0)
        if hi > lo:
            count = 0
            n = (0.0, 0.0, 1.0)
            for i in range(2):
                pa = add(a0, scale(da, lo if i == 0 else hi))
                pb = _closest_on_segment(pa, b0, b1)
                k, n = _spheres(pa, ra, pb, rb, margin, pts[count:], i)
                count += k
            return count, n
    # closest points of two segments (clamped)
    r = sub(a0, b0)
    e = dot(db, r)
    f = dot(da, r)
    b = dot(da, db)
    den = la * lb - b * b
    s = min(max((b * e - f * lb) / den, 0.0), 1.0) if den > 1e-12 else 0.0
    t = (b * s + e) / lb
    if t < 0.0:
        t = 0.0
        s = min(max(-f / la, 0.0), 1.0)
    elif t > 1.0:
        t = 1.0
        s = min(max((b - f) / la, 0.0), 1.0)
    return _spheres(add(a0, scale(da, s)), ra, add(b0, scale(db, t)), rb, margin, pts, 2)


@helper
def _sphere_box(c, r, xb, qb, he, margin, pts):
    lc = qrotate((qb[0], -qb[1], -qb[2], -qb[3]), sub(c, xb))
    inside = abs(lc[0]) <= he[0] and abs(lc[1]) <= he[1] and abs(lc[2]) <= he[2]
    if not inside:
        cl = (min(max(lc[0], -he[0]), he[0]), min(max(lc[1], -he[1]), he[1]),
              min(max(lc[2], -he[2]), he[2]))
        pb = add(xb, qrotate(qb, cl))
        d = sub(pb, c)
        dist = length(d)
        n = scale(d, 1.0 / dist)
        sep = dist - r
        if sep > margin:
            return 0, n
        put_point(pts, 0, add(c, scale(n, r)), pb, 0, sep)
        return 1, n
    # centre inside: leave through the nearest face
    best = 1e30
    k = 0
    for i in range(3):
        g = he[i] - abs(lc[i])
        if g < best:
            best = g
            k = i
    sgn = 1.0 if lc[k] >= 0.0 else -1.0
    face = (sgn * he[0] if k == 0 else lc[0], sgn * he[1] if k == 1 else lc[1],
            sgn * he[2] if k == 2 else lc[2])
    out = qaxis(qb, k)
    n = scale(out, -sgn)
    pb = add(xb, qrotate(qb, face))
    pa = add(c, scale(n, r))
    put_point(pts, 0, pa, pb, 1, dot(sub(pb, pa), n))
    return 1, n


@helper
def _capsule_box(xa, qa, pa, xb, qb, he, margin, pts):
    """Capsule A against box B: sphere-box at both segment ends and at the segment point
    nearest the box (a few alternating projections, enough for a segment and a box), all
    sharing the deepest point's normal; points whose own normal disagrees are dropped."""
    e0, e1 = _segment(xa, qa, pa[1])
    r = pa[0]
    qi = (qb[0], -qb[1], -qb[2], -qb[3])
    c = add(scale(add(e0, e1), 0.5), (0.0, 0.0, 0.0))
    for _ in range(8):
        lc = qrotate(qi, sub(c, xb))
        cl = (min(max(lc[0], -he[0]), he[0]), min(max(lc[1], -he[1]), he[1]),
              min(max(lc[2], -he[2]), he[2]))
        c = _closest_on_segment(add(xb, qrotate(qb, cl)), e0, e1)
    count = 0
    best = 0
    normals = [(0.0, 0.0, 1.0)] * 3
    for i in range(3):
        centre = e0 if i == 0 else (e1 if i == 1 else c)
        k, n = _sphere_box(centre, r, xb, qb, he, margin, pts[count:])
        if k == 1:
            pts[count, 6] = i
            normals[count] = n
            if pts[count, 7] < pts[best, 7]:
                best = count
            count += 1
    if count == 0:
        return 0, (0.0, 0.0, 1.0)
    n = normals[best]
    out = 0
    for i in range(count):
        if dot(normals[i], n) < 0.95:
            continue
        for m in range(8):
            pts[out, m] = pts[i, m]
        pa_ = (pts[out, 0], pts[out, 1], pts[out, 2])
        pb_ = (pts[out, 3], pts[out, 4], pts[out, 5])
        pts[out, 7] = dot(sub(pb_, pa_), n)
        out += 1
    return out, n


@helper
def _convex_plane(ka, xa, qa, pa, pn, p0, margin, pts):
    """Any convex shape A against the half-space below the plane (pn, p0); n = -pn."""
    n = scale(pn, -1.0)
    count = 0
    if ka == SPHERE:
        sep = dot(pn, sub(xa, p0)) - pa[0]
        if sep <= margin:
            pA = sub(xa, scale(pn, pa[0]))
            put_point(pts, 0, pA, sub(pA, scale(pn, sep)), 0, sep)
            count = 1
    elif ka == CAPSULE:
        e0, e1 = _segment(xa, qa, pa[1])
        for i in range(2):
            c = e0 if i == 0 else e1
            sep = dot(pn, sub(c, p0)) - pa[0]
            if sep <= margin:
                pA = sub(c, scale(pn, pa[0]))
                put_point(pts, count, pA, sub(pA, scale(pn, sep)), i, sep)
                count += 1
    elif ka == BOX:
        ax0 = qaxis(qa, 0)
        ax1 = qaxis(qa, 1)
        ax2 = qaxis(qa, 2)
        for i in range(8):
            sx = 1.0 if i & 1 else -1.0
            sy = 1.0 if i & 2 else -1.0
            sz = 1.0 if i & 4 else -1.0
            v = add(xa, add(scale(ax0, sx * pa[0]), add(scale(ax1, sy * pa[1]),
                                                         scale(ax2, sz * pa[2]))))
            sep = dot(pn, sub(v, p0))
            if sep <= margin:
                put_point(pts, count, v, sub(v, scale(pn, sep)), i, sep)
                count += 1
    elif ka == CYLINDER:
        ax = qaxis(qa, 2)
        radial = sub(n, scale(ax, dot(n, ax)))       # deepest rim direction
        rl = length(radial)
        u = scale(radial, 1.0 / rl) if rl > 1e-9 else perpendicular(ax)
        v = cross(ax, u)
        for cap in range(2):
            cc = add(xa, scale(ax, pa[1] if cap == 0 else -pa[1]))
            for i in range(4):
                d = u if i == 0 else (v if i == 1 else (scale(u, -1.0) if i == 2
                                                         else scale(v, -1.0)))
                p = add(cc, scale(d, pa[0]))
                sep = dot(pn, sub(p, p0))
                if sep <= margin:
                    put_point(pts, count, p, sub(p, scale(pn, sep)), cap * 4 + i, sep)
                    count += 1
    return count, n


@helper
def _cylinder_support(x, q, r, hh, d):
    ax = qaxis(q, 2)
    a = dot(ax, d)
    radial = sub(d, scale(ax, a))
    rl = length(radial)
    p = add(x, scale(ax, hh if a >= 0.0 else -hh))
    if rl > 1e-9:
        p = add(p, scale(radial, r / rl))
    return p


@helper
def _cylinder_box(xa, qa, pa, xb, qb, he, margin, pts):
    """Cylinder A against box B through the box face that separates them most: the
    cylinder's rim candidates against that face's plane, kept where they land on the face.
    Resting and sliding on a box is exact; a box edge against the curved side is not
    modelled yet."""
    best = -1e30
    pn = (0.0, 0.0, 1.0)
    fk = 0
    for k in range(6):
        ax = qaxis(qb, k % 3)
        n = ax if k < 3 else scale(ax, -1.0)
        face = add(xb, scale(n, he[k % 3]))
        sp = _cylinder_support(xa, qa, pa[0], pa[1], scale(n, -1.0))
        sep = dot(n, sub(sp, face))
        if sep > best:
            best = sep
            pn = n
            fk = k
    if best > margin:
        return 0, (0.0, 0.0, 1.0)
    p0 = add(xb, scale(pn, he[fk % 3]))
    count, n = _convex_plane(CYLINDER, xa, qa, pa, pn, p0, margin, pts)
    u = qaxis(qb, (fk + 1) % 3)
    v = qaxis(qb, (fk + 2) % 3)
    hu = he[(fk + 1) % 3] + 1e-6
    hv = he[(fk + 2) % 3] + 1e-6
    out = 0
    for i in range(count):
        d = sub((pts[i, 3], pts[i, 4], pts[i, 5]), xb)
        if abs(dot(d, u)) <= hu and abs(dot(d, v)) <= hv:
            for m in range(8):
                pts[out, m] = pts[i, m]
            pts[out, 6] = fk * 16 + pts[i, 6]
            out += 1
    return out, n


@helper
def _hull_plane(xa, qa, pa, hv, pn, p0, margin, pts, u, v, hu, hv_):
    """Hull A's vertices against the plane (pn, p0); with hu > 0 only those landing inside
    the rectangle |u . d| <= hu, |v . d| <= hv_ about p0 (a box face). n = -pn."""
    start = int(pa[0])
    count = 0
    for i in range(int(pa[1])):
        w = add(xa, qrotate(qa, (hv[start + i, 0], hv[start + i, 1], hv[start + i, 2])))
        sep = dot(pn, sub(w, p0))
        if sep > margin:
            continue
        pb = sub(w, scale(pn, sep))
        if hu > 0.0:
            d = sub(pb, p0)
            if abs(dot(d, u)) > hu or abs(dot(d, v)) > hv_:
                continue
        count = add_candidate(pts, count, w, pb, i, sep)
    return count, scale(pn, -1.0)


@helper(inline=True)
def collide_convex(ka, xa, qa, pa, kb, xb, qb, pb, margin, pts, scratch, scratch_id, G, unit):
    """Candidates for the pair (kind A <= kind B). Returns (count, normal A -> B). G is the
    geometry tuple of collision/geometry.py. Pairs without a dedicated routine go through
    the general convex pair (convex.py); a static triangle mesh through mesh.py. `unit`:
    length units per metre, which the tolerances in metres scale by."""
    hv = G[0]
    if kb == MESH:
        return convex_mesh(ka, xa, qa, pa, xb, qb, pb, G, margin, pts, new_workspace(), unit)
    if kb == PLANE:
        pn_local = (pb[0], pb[1], pb[2])
        pn = qrotate(qb, pn_local)
        p0 = add(xb, scale(pn, pb[3]))
        if ka == HULL:
            z = (0.0, 0.0, 0.0)
            count, n = _hull_plane(xa, qa, pa, hv, pn, p0, margin, pts, z, z, 0.0, 0.0)
            return stable_reduce(pts, count, n, unit), n
        return _convex_plane(ka, xa, qa, pa, pn, p0, margin, pts)
    if ka == SPHERE:
        if kb == SPHERE:
            return _spheres(xa, pa[0], xb, pb[0], margin, pts, 0)
        if kb == CAPSULE:
            b0, b1 = _segment(xb, qb, pb[1])
            return _spheres(xa, pa[0], _closest_on_segment(xa, b0, b1), pb[0], margin, pts, 0)
        if kb == BOX:
            return _sphere_box(xa, pa[0], xb, qb, (pb[0], pb[1], pb[2]), margin, pts)
    elif ka == CAPSULE:
        if kb == BOX:
            return _capsule_box(xa, qa, pa, xb, qb, (pb[0], pb[1], pb[2]), margin, pts)
        if kb == CAPSULE:
            a0, a1 = _segment(xa, qa, pa[1])
            b0, b1 = _segment(xb, qb, pb[1])
            return _capsules(a0, a1, pa[0], b0, b1, pb[0], margin, pts)
    elif ka == CYLINDER and kb == BOX:
        return _cylinder_box(xa, qa, pa, xb, qb, (pb[0], pb[1], pb[2]), margin, pts)
    elif ka == BOX and kb == BOX:
        return box_box(xa, qa, (pa[0], pa[1], pa[2]), xb, qb, (pb[0], pb[1], pb[2]), margin,
                       pts, scratch, scratch_id, unit)
    dummy = np.empty((3, 3))
    return convex_convex(ka, xa, qa, pa, kb, xb, qb, pb, G, dummy, dummy, margin, pts,
                         new_workspace(), unit)
