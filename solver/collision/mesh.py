"""A convex shape against a static triangle mesh: tree query, then one merged manifold.

The convex body's AABB (grown by the margin) is taken into the mesh frame and the mesh's
tree (geometry.py) yields the triangles it overlaps. Triangles are two-sided: a triangle
the body's centre is behind collides with its normal turned towards the body, so a body
meeting a thin sheet from behind, or resting on its back, is pushed out on the side it came
from (its centre crosses the plane only if it sinks half its size in, which the speculative
margin keeps a fast body from). Backs count only when no front face (one the centre is in
front of) touches the body: a box resting on a closed mesh and hanging over its edge is
behind the side face there, whose back would shove it sideways. A one-sided mesh (params[1]
= 1) has front faces only: a body whose centre is behind a triangle's plane ignores it.

Per triangle, the face region comes first: the body's supporting feature along -normal is
clipped by the triangle's edges and measured to its plane, so a body resting on or sliding
over a flat mesh sees only face normals and no internal-edge bumps (the same point set a
box floor would give). Only when no triangle has a face-region contact (the body hangs over
an outer edge or a ridge vertex) does the general convex pair (GJK/SAT, convex.py) run
against the triangles.

One manifold per body pair (contacts are matched per pair): the normal of the deepest
contact wins, candidates whose own normal disagrees with it by more than ~18 degrees are
dropped, the rest are re-measured along it and reduced to four (streaming, so a body over
many small triangles keeps its widest spread). Feature ids are (original triangle index,
clip id), stable while the body rests.
"""

import numpy as np
from ..jit import helper

from ..mathx import add, dot, qrotate, qrotate_inv, scale, sub
from .convex import (CLIP_MAX, ID_MOD, TRI, add_candidate, clip_to_reference, convex_convex,
                     feature, radius, stable_reduce, support, tri_normal)
from .manifold import put_point

AGREE = 0.95
BUFFER = 128


@helper
def _query(ka, xa, qa, pa, xb, qb, pb, G, margin):
    """Rows of G[7] (mesh triangles) whose boxes overlap A's box grown by margin."""
    m = int(pb[0])
    info = G[9]
    t0 = info[m, 0]
    tc = info[m, 1]
    n0 = info[m, 2]
    leaves = info[m, 3]
    nodes = G[8]
    dummy = np.empty((3, 3))
    grow = radius(ka, pa) + margin
    c = [0.0, 0.0, 0.0]
    h = [0.0, 0.0, 0.0]
    for k in range(3):
        e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
        hi = dot(support(ka, xa, qa, pa, G, dummy, e), e) + grow
        lo = -dot(support(ka, xa, qa, pa, G, dummy, scale(e, -1.0)), scale(e, -1.0)) - grow
        c[k] = 0.5 * (hi + lo)
        h[k] = 0.5 * (hi - lo)
    cl = qrotate_inv(qb, sub((c[0], c[1], c[2]), xb))
    hl = [0.0, 0.0, 0.0]
    for k in range(3):
        e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
        r = qrotate_inv(qb, e)
        for j in range(3):
            hl[j] += abs(r[j]) * h[k]
    out = np.empty(64, dtype=np.int64)
    count = 0
    stack = np.empty(128, dtype=np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        g = n0 + node
        if nodes[g, 0] > cl[0] + hl[0] or nodes[g, 3] < cl[0] - hl[0] or \
                nodes[g, 1] > cl[1] + hl[1] or nodes[g, 4] < cl[1] - hl[1] or \
                nodes[g, 2] > cl[2] + hl[2] or nodes[g, 5] < cl[2] - hl[2]:
            continue
        if node >= leaves - 1:
            j = node - (leaves - 1)
            for t in range(4 * j, min(4 * j + 4, tc)):
                if count == out.shape[0]:
                    grown = np.empty(2 * count, dtype=np.int64)
                    for s in range(count):     # a loop: slice assignment compiles an
                        grown[s] = out[s]      # error path that formats shapes (~0.5 s)
                    out = grown
                out[count] = t0 + t
                count += 1
        else:
            stack[sp] = 2 * node + 2
            stack[sp + 1] = 2 * node + 1
            sp += 2
    return out[:count]


@helper
def _triangle(G, row, xb, qb, tri):
    mv = G[6]
    mt = G[7]
    for i in range(3):
        v = mt[row, i]
        w = add(xb, qrotate(qb, (mv[v, 0], mv[v, 1], mv[v, 2])))
        for k in range(3):
            tri[i, k] = w[k]


@helper
def _face_region(tri, nt, deep, fa, ida, cA, fidA, margin, ws, out, unit):
    """A's feature along -nt (fa, already found) clipped by the triangle: candidates into
    out (A's point, B's point, id, separation along nt); returns their count."""
    v0 = (tri[0, 0], tri[0, 1], tri[0, 2])
    n = scale(nt, -1.0)
    sdeep = dot(sub(deep, v0), nt)
    if sdeep > margin:
        return 0
    bufs, bid = ws[4], ws[5]
    k = clip_to_reference(tri, 3, fa, ida, cA, n, bufs, bid)
    count = 0
    best = 1e300
    for i in range(k):
        p = (bufs[0, i, 0], bufs[0, i, 1], bufs[0, i, 2])
        sep = dot(sub(p, v0), nt)
        if sep <= margin:
            count = add_candidate(out, count, p, sub(p, scale(nt, sep)),
                                  (fidA * 65537 + bid[0, i]) % ID_MOD, sep)
            best = min(best, sep)
    if count > 0 and sdeep < best - 1e-3 * unit:   # the exact deepest point, if inside
        wp, wid = ws[2], ws[3]
        wp[0, 0] = deep[0]
        wp[0, 1] = deep[1]
        wp[0, 2] = deep[2]
        wid[0] = 99991
        if clip_to_reference(tri, 3, wp, wid, 1, n, bufs, bid) == 1:
            count = add_candidate(out, count, deep, sub(deep, scale(nt, sdeep)), 99991, sdeep)
    return count


@helper
def _store(cand, nc, small, k, n, id_base):
    """Append k candidates with their normal (columns 8:11) to cand, growing it."""
    if nc + k > cand.shape[0]:
        grown = np.empty((2 * (nc + k), 11))
        for i in range(nc):           # loops, not a slice copy: see broadphase._grown
            for m in range(11):
                grown[i, m] = cand[i, m]
        cand = grown
    for i in range(k):
        for m in range(8):
            cand[nc, m] = small[i, m]
        cand[nc, 6] = id_base + small[i, 6]
        for m in range(3):
            cand[nc, 8 + m] = n[m]
        nc += 1
    return cand, nc


@helper
def convex_mesh(ka, xa, qa, pa, xb, qb, pb, G, margin, pts, ws, unit):
    """Convex A against mesh B: (count, normal A -> B), at most four points in pts (`unit`:
    length units per metre, scaling the tolerances in metres)."""
    rows = _query(ka, xa, qa, pa, xb, qb, pb, G, margin)
    if rows.shape[0] == 0:
        return 0, (0.0, 0.0, 1.0)
    orig = G[10]
    tri = np.empty((3, 3))
    small = np.empty((CLIP_MAX + 1, 8))
    ta = np.empty((3, 3))
    cand = np.empty((32, 11))
    nc = 0
    ra = radius(ka, pa)
    fa, ida = ws[0], ws[1]
    # face regions; A's feature is found again only when the triangle normal changes. The
    # faces A's centre is in front of come first; the backs of the others only if none of
    # those touched A (see the module's docstring)
    sides = 1 if pb[1] != 0.0 else 2
    for side in range(sides):
        last = (0.0, 0.0, 0.0)
        deep = (0.0, 0.0, 0.0)
        cA = 0
        fidA = 0
        for r in rows:
            _triangle(G, r, xb, qb, tri)
            nt = tri_normal(tri)
            if (dot(sub(xa, (tri[0, 0], tri[0, 1], tri[0, 2])), nt) < 0.0) != (side == 1):
                continue
            if side == 1:
                nt = scale(nt, -1.0)
            n = scale(nt, -1.0)
            if dot(nt, last) < 1.0 - 1e-12:
                last = nt
                deep = add(support(ka, xa, qa, pa, G, tri, n), scale(n, ra))
                cA, fidA, _ = feature(ka, xa, qa, pa, G, tri, n, fa, ida)
            k = _face_region(tri, nt, deep, fa, ida, cA, fidA, margin, ws, small, unit)
            cand, nc = _store(cand, nc, small, k, n, orig[r] * ID_MOD)
        if nc > 0:
            break
    if nc == 0:                  # no face region: edges and vertices, by the general pair
        for side in range(sides):
            for r in rows:
                _triangle(G, r, xb, qb, tri)
                if (dot(sub(xa, (tri[0, 0], tri[0, 1], tri[0, 2])), tri_normal(tri)) < 0.0) \
                        != (side == 1):
                    continue
                k, n = convex_convex(ka, xa, qa, pa, TRI, xb, qb, pb, G, ta, tri, margin,
                                     small, ws, unit)
                cand, nc = _store(cand, nc, small, k, n, orig[r] * ID_MOD)
            if nc > 0:
                break
        if nc == 0:
            return 0, (0.0, 0.0, 1.0)
    best = 0
    for i in range(1, nc):
        if cand[i, 7] < cand[best, 7]:
            best = i
    nstar = (cand[best, 8], cand[best, 9], cand[best, 10])
    big = np.empty((BUFFER, 8))
    count = 0
    for i in range(nc):
        if cand[i, 8] * nstar[0] + cand[i, 9] * nstar[1] + cand[i, 10] * nstar[2] < AGREE:
            continue
        if count == BUFFER:
            count = stable_reduce(big, count, nstar, unit)
        pa_ = (cand[i, 0], cand[i, 1], cand[i, 2])
        pb_ = (cand[i, 3], cand[i, 4], cand[i, 5])
        put_point(big, count, pa_, pb_, cand[i, 6], dot(sub(pb_, pa_), nstar))
        count += 1
    count = stable_reduce(big, count, nstar, unit)
    for i in range(count):
        for m in range(8):
            pts[i, m] = big[i, m]
    return count, nstar
