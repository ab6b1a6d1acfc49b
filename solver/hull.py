"""Convex hull of a point cloud (Quickhull in a numba kernel), for hull shapes and their mass
properties.

Quickhull (Barber, Dobkin and Huhdanpaa 1996, "The Quickhull algorithm for convex hulls"):
start from a tetrahedron of extreme points, give every other point to a face it lies in
front of, then repeatedly take a face's farthest point (the eye), find the faces it sees by a
walk over face neighbours, and replace them with a fan from the eye to their horizon; the
points of the removed faces go to the new faces they lie in front of, or are dropped as
inside. Each point is tested against the faces near where it is, so the cost is about
n log n rather than the n^2 of testing every point against every face.

Robustness: a point within `tolerance` of a face's plane counts as on it (duplicates and
points on a face or an edge add no vertex); a face counts as seen by any eye in front of its
plane, so no dent forms where an eye is barely in front; a horizon that is not one simple
loop (an eye almost in the plane of a face it sees) leaves that eye out rather than build a
hull that does not close. A point found before the corners of its face is dropped at the end
(`_flat_vertices`). `max_vertices` stops once the hull has that many vertices, taking the
point farthest outside the current hull each time (the vertex limit of Jolt's and PhysX's
hull builders): the result lies inside the full hull.
"""

import numpy as np

from .jit import helper, kernel


def convex_hull(points, tolerance=None, max_vertices=None):
    """Return (vertices (V,3), triangles (F,3) int) of the convex hull, outward-facing (CCW).

    `max_vertices` (4 or more) keeps at most that many vertices (a simplified hull inside the
    full one, see the module's docstring). Raises ValueError when the points span no volume
    (all on a plane, a line or a point)."""
    if max_vertices is not None and (int(max_vertices) != max_vertices or max_vertices < 4):
        raise ValueError(f"convex hull max_vertices must be an integer of at least 4, got "
                         f"{max_vertices!r}")
    pts, eps, seeds = hull_seed(points, tolerance)
    tris = _quickhull(pts, seeds, float(eps), int(max_vertices or 0))
    used = np.unique(tris)
    remap = -np.ones(len(pts), dtype=np.int64)
    remap[used] = np.arange(len(used))
    vertices, triangles = pts[used].copy(), remap[tris]
    flat = _flat_vertices(vertices, triangles)
    if flat.any():      # a point in a face or on an edge: the hull of the others is the same
        return convex_hull(vertices[~flat], tolerance, max_vertices)
    return vertices, triangles


def hull_seed(points, tolerance=None):
    """What a hull of `points` starts from: the points as contiguous float64 (n, 3), the
    tolerance (a point this near a face's plane is on it; default from the points' extent)
    and a first tetrahedron of extreme points as four indices (a, b, c, d) with d behind
    the triangle a, b, c counter-clockwise seen from outside. Raises ValueError when the
    points span no volume (all on a plane, a line or a point)."""
    pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64).reshape(-1, 3))
    if len(pts) < 4:
        raise ValueError(f"a convex hull needs at least 4 points that span a volume, got {len(pts)}")
    extent = float(np.max(pts.max(axis=0) - pts.min(axis=0)))
    if not np.isfinite(extent) or extent <= 0.0:
        raise ValueError("convex hull points must be finite and not all the same")
    eps = tolerance if tolerance is not None else 1e-9 * max(extent, 1.0) + 1e-7 * extent
    i0 = int(np.argmin(pts[:, 0]))
    d = np.linalg.norm(pts - pts[i0], axis=1)
    i1 = int(np.argmax(d))
    line = pts[i1] - pts[i0]
    if np.linalg.norm(line) <= eps:
        raise ValueError("convex hull points span no volume (all at one place)")
    cr = np.linalg.norm(np.cross(pts - pts[i0], line), axis=1)
    i2 = int(np.argmax(cr))
    if cr[i2] <= eps * np.linalg.norm(line):
        raise ValueError("convex hull points span no volume (all on one line)")
    normal = np.cross(pts[i1] - pts[i0], pts[i2] - pts[i0])
    normal /= np.linalg.norm(normal)
    off = (pts - pts[i0]) @ normal
    i3 = int(np.argmax(np.abs(off)))
    if abs(off[i3]) <= eps:
        raise ValueError("convex hull points span no volume (all on one plane)")
    seeds = np.array([i0, i1, i2, i3] if off[i3] < 0 else [i0, i2, i1, i3], dtype=np.int64)
    return pts, eps, seeds


COPLANAR = 1.0 - 1e-6     # normals this close are one plane (as the collider merges faces)


def _flat_vertices(vertices, triangles):
    """Hull vertices that are not corners: inside a face (one plane around them) or on an
    edge (two). A point found before the corners of its face stays a vertex of the
    triangulation (a cube with points on its faces), and the collider wants corners only."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    n = np.cross(b - a, c - a)
    n /= np.maximum(np.linalg.norm(n, axis=1), 1e-300)[:, None]
    vid = triangles.reshape(-1)
    normals = np.repeat(n, 3, axis=0)
    first = np.zeros((len(vertices), 3))
    first[vid[::-1]] = normals[::-1]                  # one incident normal per vertex
    da = np.einsum("ij,ij->i", normals, first[vid])
    other = np.zeros((len(vertices), 3))
    order = np.lexsort((-da, vid))                    # per vertex, the one least like it last
    other[vid[order]] = normals[order]
    db = np.einsum("ij,ij->i", normals, other[vid])
    corner = np.zeros(len(vertices), dtype=bool)
    np.logical_or.at(corner, vid, (da < COPLANAR) & (db < COPLANAR))
    return ~corner


@kernel
def _quickhull(pts, seeds, eps, max_vertices):
    """Triangles (F, 3) of the hull of pts (indices into pts), CCW seen from outside. seeds:
    a tetrahedron (a, b, c, d) with d below the plane of (a, b, c) taken counter-clockwise.
    max_vertices > 0 stops at that many hull vertices."""
    n = pts.shape[0]
    cap = 4 * n + 16                  # alive faces <= 2n - 4, plus one new fan at a time
    fv = np.zeros((cap, 3), dtype=np.int64)        # corners, CCW from outside
    fn = np.zeros((cap, 3), dtype=np.int64)        # neighbour across edge (fv[k], fv[k+1])
    fp = np.zeros((cap, 4))                        # plane: unit normal, offset
    alive = np.zeros(cap, dtype=np.bool_)
    head = -np.ones(cap, dtype=np.int64)           # first outside point (a linked list)
    far = -np.ones(cap, dtype=np.int64)            # the farthest outside point
    fard = np.zeros(cap)
    seen = np.zeros(cap, dtype=np.int64)           # stamp: visible (+) or not (-) this round
    nxt = -np.ones(n, dtype=np.int64)
    free = np.empty(cap, dtype=np.int64)
    nfree = 0
    used = 0
    a, b, c, d = seeds[0], seeds[1], seeds[2], seeds[3]
    tet = ((a, b, c), (a, d, b), (b, d, c), (c, d, a))
    for f in range(4):
        for k in range(3):
            fv[f, k] = tet[f][k]
        _plane(pts, fv, fp, f)
        alive[f] = True
    used = 4
    for f in range(4):                 # neighbours: the face holding the reversed edge
        for k in range(3):
            p, q = fv[f, k], fv[f, (k + 1) % 3]
            for g in range(4):
                for m in range(3):
                    if fv[g, m] == q and fv[g, (m + 1) % 3] == p:
                        fn[f, k] = g
    is_seed = np.zeros(n, dtype=np.bool_)
    for k in range(4):
        is_seed[seeds[k]] = True
    first = np.arange(4)
    for p in range(n):
        if not is_seed[p]:
            _assign(pts, p, fp, first, 4, eps, head, nxt, far, fard)

    stack = np.empty(cap, dtype=np.int64)
    top = 0
    for f in range(4):
        if head[f] >= 0:
            stack[top] = f
            top += 1
    vis = np.empty(cap, dtype=np.int64)
    hor = np.empty((cap, 3), dtype=np.int64)       # horizon edge: start, end, outer face
    new = np.empty(cap, dtype=np.int64)
    start_of = -np.ones(n, dtype=np.int64)
    end_of = -np.ones(n, dtype=np.int64)
    vertices = 4
    stamp = 0
    nvis = 0
    nh = 0
    while True:
        f = -1
        if max_vertices > 0:
            if vertices >= max_vertices:
                break
            best = eps
            for g in range(used):
                if alive[g] and head[g] >= 0 and fard[g] > best:
                    best = fard[g]
                    f = g
        else:
            while top > 0:
                top -= 1
                g = stack[top]
                if alive[g] and head[g] >= 0:
                    f = g
                    break
        if f < 0:
            break
        eye = far[f]
        # The faces the eye sees: a walk from f over neighbours; the edges between a seen
        # face and an unseen one are the horizon. A face counts as seen when the eye is in
        # front of its plane at all, not only beyond eps: one left standing with the eye
        # barely in front would meet the fan at a dent, and later points grow the dents
        # (a 30 000-point sphere then left points 2e-5 outside). The horizon must be one
        # simple loop, or the fan would not close: when it is not, the walk is tried again
        # taking the faces within eps of the eye's plane as seen.
        ok = False
        for attempt in range(2):
            threshold = 0.0 if attempt == 0 else -eps
            stamp += 1
            nvis, nh = _visible(pts, eye, f, threshold, fv, fn, fp, seen, stamp, vis, hor)
            ok = nh >= 3 and _one_loop(hor, nh, start_of)
            for h in range(nh):
                start_of[hor[h, 0]] = -1
            if ok:
                break
        if not ok:
            _drop_point(f, eye, head, nxt, far, fard, pts, fp)
            top = _push(stack, top, f, head, alive, used)
            continue
        # The fan from the eye to the horizon.
        for h in range(nh):
            if nfree > 0:
                nfree -= 1
                g = free[nfree]
            else:
                g = used
                used += 1
            new[h] = g
            fv[g, 0] = hor[h, 0]
            fv[g, 1] = hor[h, 1]
            fv[g, 2] = eye
            alive[g] = True
            head[g] = -1
            far[g] = -1
            fard[g] = 0.0
            _plane(pts, fv, fp, g)
            start_of[hor[h, 0]] = g
            end_of[hor[h, 1]] = g
        for h in range(nh):
            g = new[h]
            o = hor[h, 2]
            fn[g, 0] = o
            for m in range(3):
                if fv[o, m] == hor[h, 1] and fv[o, (m + 1) % 3] == hor[h, 0]:
                    fn[o, m] = g
            fn[g, 1] = start_of[hor[h, 1]]
            fn[g, 2] = end_of[hor[h, 0]]
        for h in range(nh):
            start_of[hor[h, 0]] = -1
            end_of[hor[h, 1]] = -1
        # The seen faces' points go to the new faces they lie in front of.
        for i in range(nvis):
            v = vis[i]
            p = head[v]
            while p >= 0:
                q = nxt[p]
                if p != eye:
                    _assign(pts, p, fp, new, nh, eps, head, nxt, far, fard)
                p = q
            alive[v] = False
            head[v] = -1
            free[nfree] = v
            nfree += 1
        for h in range(nh):
            top = _push(stack, top, new[h], head, alive, used)
        vertices += 1

    count = 0
    for g in range(used):
        if alive[g]:
            count += 1
    out = np.empty((count, 3), dtype=np.int64)
    count = 0
    for g in range(used):
        if alive[g]:
            for k in range(3):
                out[count, k] = fv[g, k]
            count += 1
    return out


@helper
def _visible(pts, eye, f, threshold, fv, fn, fp, seen, stamp, vis, hor):
    """The faces the eye sees (farther than threshold in front), walked from face f over
    neighbours, into vis; the edges from a seen face to an unseen one into hor (start, end,
    unseen face). Returns (seen faces, horizon edges)."""
    nvis = 1
    vis[0] = f
    seen[f] = stamp
    nh = 0
    i = 0
    while i < nvis:
        v = vis[i]
        i += 1
        for k in range(3):
            g = fn[v, k]
            if seen[g] == stamp:
                continue
            if seen[g] != -stamp:
                dist = (fp[g, 0] * pts[eye, 0] + fp[g, 1] * pts[eye, 1]
                        + fp[g, 2] * pts[eye, 2] - fp[g, 3])
                if dist > threshold:
                    seen[g] = stamp
                    vis[nvis] = g
                    nvis += 1
                    continue
                seen[g] = -stamp
            hor[nh, 0] = fv[v, k]
            hor[nh, 1] = fv[v, (k + 1) % 3]
            hor[nh, 2] = g
            nh += 1
    return nvis, nh


@helper
def _one_loop(hor, nh, start_of):
    """Whether the horizon edges hor[:nh] form one simple loop (start_of: -1 for every
    point on entry; left holding the edge starting at each horizon point)."""
    ok = True
    for h in range(nh):
        if start_of[hor[h, 0]] >= 0:
            ok = False
        start_of[hor[h, 0]] = h
    if not ok:
        return False
    p = hor[0, 1]
    steps = 1
    while p != hor[0, 0] and steps <= nh:
        h = start_of[p]
        if h < 0:
            return False
        p = hor[h, 1]
        steps += 1
    return p == hor[0, 0] and steps == nh


@helper
def _plane(pts, fv, fp, f):
    """fp[f] = face f's unit outward normal and offset."""
    a, b, c = fv[f, 0], fv[f, 1], fv[f, 2]
    ux, uy, uz = pts[b, 0] - pts[a, 0], pts[b, 1] - pts[a, 1], pts[b, 2] - pts[a, 2]
    vx, vy, vz = pts[c, 0] - pts[a, 0], pts[c, 1] - pts[a, 1], pts[c, 2] - pts[a, 2]
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    ln = (nx * nx + ny * ny + nz * nz) ** 0.5
    if ln > 0.0:
        nx, ny, nz = nx / ln, ny / ln, nz / ln
    fp[f, 0] = nx
    fp[f, 1] = ny
    fp[f, 2] = nz
    fp[f, 3] = nx * pts[a, 0] + ny * pts[a, 1] + nz * pts[a, 2]


@helper
def _assign(pts, p, fp, faces, count, eps, head, nxt, far, fard):
    """Give point p to the face of faces[:count] it is farthest in front of (beyond eps);
    a point in front of none is inside and dropped."""
    best = eps
    g = -1
    for i in range(count):
        f = faces[i]
        dist = fp[f, 0] * pts[p, 0] + fp[f, 1] * pts[p, 1] + fp[f, 2] * pts[p, 2] - fp[f, 3]
        if dist > best:
            best = dist
            g = f
    if g < 0:
        return
    nxt[p] = head[g]
    head[g] = p
    if far[g] < 0 or best > fard[g]:
        far[g] = p
        fard[g] = best


@helper
def _drop_point(f, eye, head, nxt, far, fard, pts, fp):
    """Take eye out of face f's outside points; f's farthest point found again."""
    prev = -1
    p = head[f]
    while p >= 0:
        if p == eye:
            if prev < 0:
                head[f] = nxt[p]
            else:
                nxt[prev] = nxt[p]
            break
        prev = p
        p = nxt[p]
    far[f] = -1
    fard[f] = 0.0
    p = head[f]
    while p >= 0:
        dist = fp[f, 0] * pts[p, 0] + fp[f, 1] * pts[p, 1] + fp[f, 2] * pts[p, 2] - fp[f, 3]
        if far[f] < 0 or dist > fard[f]:
            far[f] = p
            fard[f] = dist
        p = nxt[p]


@helper
def _push(stack, top, g, head, alive, used):
    """Push face g (when it has outside points) on the work stack; a full stack is rebuilt
    from the faces that still have points."""
    if head[g] < 0:
        return top
    if top == stack.shape[0]:
        top = 0
        for f in range(used):
            if alive[f] and head[f] >= 0 and top < stack.shape[0]:
                stack[top] = f
                top += 1
        return top
    stack[top] = g
    return top + 1


def polyhedron_mass_properties(vertices, triangles):
    """Volume, centre of mass and inertia tensor about it (unit density) of a closed mesh.

    Tetrahedral decomposition from the origin (Tonon 2004, "Explicit exact formulas for the
    3-D tetrahedron inertia tensor"): each outward triangle (a, b, c) with the origin forms a
    signed tetrahedron of volume det[a b c]/6; second moments of a tetrahedron with a vertex
    at the origin are det/120 * (sum of products over vertex pairs, squares counted twice).
    """
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    volume = det.sum() / 6.0
    if not volume > 0.0:
        raise ValueError("the shape encloses no volume")
    com = (det[:, None] * (a + b + c)).sum(axis=0) / (24.0 * volume)
    # Second moment matrix C = integral of x x^T dV about the origin.
    s = a + b + c
    cov = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            cov[i, j] = (det * (a[:, i] * a[:, j] + b[:, i] * b[:, j] + c[:, i] * c[:, j]
                                + s[:, i] * s[:, j])).sum() / 120.0
    cov -= volume * np.outer(com, com)          # parallel axis: move to the centre of mass
    inertia = np.trace(cov) * np.eye(3) - cov
    return float(volume), com, inertia
