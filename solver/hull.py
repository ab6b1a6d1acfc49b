"""Convex hull of a point cloud (incremental, numpy), for hull shapes and their mass properties.

Runs once per shape at creation, so it favours clarity over speed: each new point removes the
faces it can see and stitches the horizon to itself (the classic incremental algorithm).
"""

import numpy as np


def convex_hull(points, tolerance=None):
    """Return (vertices (V,3), triangles (F,3) int) of the convex hull, outward-facing (CCW).

    Raises ValueError when the points span no volume (all on a plane, a line or a point).
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(pts) < 4:
        raise ValueError(f"a convex hull needs at least 4 points that span a volume, got {len(pts)}")
    extent = float(np.max(pts.max(axis=0) - pts.min(axis=0)))
    if not np.isfinite(extent) or extent <= 0.0:
        raise ValueError("convex hull points must be finite and not all the same")
    eps = tolerance if tolerance is not None else 1e-9 * max(extent, 1.0) + 1e-7 * extent

    # Initial tetrahedron from extreme points.
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

    faces = [(i0, i1, i2), (i0, i2, i3), (i0, i3, i1), (i1, i3, i2)]
    if off[i3] > 0:
        faces = [(a, c, b) for (a, b, c) in faces]
    faces = np.array(faces, dtype=np.int64)

    def planes(f):
        a, b, c = pts[f[:, 0]], pts[f[:, 1]], pts[f[:, 2]]
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n, axis=1)[:, None]
        return n, np.einsum("ij,ij->i", n, a)

    n, dd = planes(faces)
    centre = pts[[i0, i1, i2, i3]].mean(axis=0)
    # Visit far points first: fewer faces are created and destroyed.
    order = np.argsort(-np.linalg.norm(pts - centre, axis=1))
    for p in order:
        if p in (i0, i1, i2, i3):
            continue
        visible = (n @ pts[p] - dd) > eps
        if not visible.any():
            continue
        vis_faces = faces[visible]
        edges = np.concatenate([vis_faces[:, [0, 1]], vis_faces[:, [1, 2]], vis_faces[:, [2, 0]]])
        edge_set = {(int(a), int(b)) for a, b in edges}
        horizon = [(a, b) for (a, b) in edge_set if (b, a) not in edge_set]
        new = np.array([(a, b, p) for (a, b) in horizon], dtype=np.int64)
        faces = np.concatenate([faces[~visible], new])
        nn, nd = planes(new)
        n = np.concatenate([n[~visible], nn])
        dd = np.concatenate([dd[~visible], nd])

    used = np.unique(faces)
    remap = -np.ones(len(pts), dtype=np.int64)
    remap[used] = np.arange(len(used))
    return pts[used].copy(), remap[faces]


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
