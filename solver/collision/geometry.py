"""Shape tables for the collision kernels, built in numpy once per shape.

`geometry_tables(shapes)` returns (kinds (n,), params (n,4), G) where G is a tuple of flat
arrays every narrowphase kernel receives:

    G[0] hull vertices (local)          (Nv, 3)  float   params: (first row, count, hull, R)
    G[1] hull face planes (local)       (Nf, 4)  float   normal, offset (faces merged when coplanar)
    G[2] hull face vertex ranges        (Nf, 2)  int     into G[3]
    G[3] hull face vertex lists         (K,)     int     hull-local vertex index, CCW
    G[4] hull edge directions (local)   (Ne, 3)  float   one per direction (for SAT)
    G[5] hull table                     (H, 4)   int     first face, faces, first edge, edges
    G[6] mesh vertices (local)          (Mv, 3)  float   params: (mesh, one-sided, 0, R)
    G[7] mesh triangles                 (Mt, 3)  int     rows into G[6], in tree (Morton) order
    G[8] mesh tree node boxes (local)   (Nn, 6)  float   min xyz, max xyz
    G[9] mesh table                     (M, 5)   int     first triangle, count, first node,
                                                         leaves, 0
    G[10] mesh triangle original index  (Mt,)    int     for feature ids that survive re-sorting

The mesh tree is an implicit complete binary tree (heap layout: children of node i are
2i+1 and 2i+2) over leaves of LEAF consecutive triangles sorted along a Morton curve of their
centroids, so it is built with a sort and log2(leaves) vectorised min/max passes.
"""

import numpy as np

from ..shapes import HULL, MESH

LEAF = 4


def _hull_faces(vertices, triangles):
    """Merge coplanar triangles into convex polygons: (planes (F,4), lists of vertex ids).

    Neighbouring triangles in one plane (normals within 1e-6, offsets within 1e-6 of the
    size) share a polygon, with the plane of its first triangle; on a convex hull the
    triangles of one plane are connected, so labels spread over shared edges find them."""
    v = vertices
    a, b, c = v[triangles[:, 0]], v[triangles[:, 1]], v[triangles[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    d = np.einsum("ij,ij->i", n, a)
    extent = float(np.max(v.max(axis=0) - v.min(axis=0)))
    count = len(triangles)
    # each edge's neighbour: the triangle holding the reversed edge
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    key = edges[:, 0] * len(v) + edges[:, 1]
    order = np.argsort(key)
    at = np.searchsorted(key[order], edges[:, 1] * len(v) + edges[:, 0])
    other = order[np.minimum(at, len(order) - 1)] % count
    mine = np.arange(3 * count) % count
    same = (np.einsum("ij,ij->i", n[mine], n[other]) > 1.0 - 1e-6) & \
        (np.abs(d[mine] - d[other]) < 1e-6 * extent)
    mine, other = mine[same], other[same]
    label = np.arange(count)
    while len(mine):                       # each triangle takes its polygon's first one
        low = label.copy()
        np.minimum.at(low, mine, label[other])
        if np.array_equal(low, label):
            break
        label = low[low]
    first = np.unique(label)
    group = np.searchsorted(first, label)
    # each polygon's vertices once, in angle order about its centre
    pairs = np.unique(group.repeat(3) * len(v) + triangles.reshape(-1))
    pg, ids = pairs // len(v), pairs % len(v)
    sizes = np.bincount(pg, minlength=len(first))
    cen = np.stack([np.bincount(pg, v[ids, k], len(first)) for k in range(3)], 1) / sizes[:, None]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    u = v[ids[starts]] - cen
    u /= np.linalg.norm(u, axis=1)[:, None]
    w = np.cross(n[first], u)
    r = v[ids] - cen[pg]
    ang = np.arctan2(np.einsum("ij,ij->i", r, w[pg]), np.einsum("ij,ij->i", r, u[pg]))
    ids = ids[np.lexsort((ang, pg))]
    planes = np.concatenate([n[first], d[first, None]], axis=1)
    return planes, np.split(ids, starts[1:])


def _hull_edges(vertices, polys):
    """One unit direction per set of parallel polygon edges (for the separating axis test),
    in the order the edges first appear."""
    sizes = np.fromiter(map(len, polys), dtype=np.int64, count=len(polys))
    starts = np.concatenate(polys)
    nxt = np.arange(1, len(starts) + 1)
    nxt[np.cumsum(sizes) - 1] -= sizes                # each polygon's last edge closes it
    ends = starts[nxt]
    key = np.minimum(starts, ends) * len(vertices) + np.maximum(starts, ends)
    once = np.sort(np.unique(key, return_index=True)[1])   # an edge is in two polygons
    e = vertices[ends[once]] - vertices[starts[once]]
    e /= np.linalg.norm(e, axis=1)[:, None]
    parallel = np.abs(e @ e.T) > 1.0 - 1e-6
    first = np.argmax(parallel, axis=1)           # the first edge parallel to each
    return e[first == np.arange(len(e))].reshape(-1, 3)


def hull_tables(shape):
    """(planes, polys, edges) of a ConvexHull, cached on the shape."""
    cached = getattr(shape, "_collision_tables", None)
    if cached is None:
        planes, polys = _hull_faces(shape.vertices, shape.triangles)
        cached = (planes, polys, _hull_edges(shape.vertices, polys))
        shape._collision_tables = cached
    return cached


def _morton(c):
    """30-bit Morton codes of points c (n,3) quantised to a 1024^3 grid of their bounds."""
    lo = c.min(axis=0)
    span = np.maximum(c.max(axis=0) - lo, 1e-12)
    q = np.minimum((c - lo) / span * 1023.0, 1023.0).astype(np.int64)
    code = np.zeros(len(c), dtype=np.int64)
    for bit in range(10):
        for k in range(3):
            code |= ((q[:, k] >> bit) & 1) << (3 * bit + k)
    return code


def mesh_tree(shape):
    """(sorted triangles (T,3), original index (T,), node boxes (2L-1, 6)), cached on the shape."""
    cached = getattr(shape, "_collision_tree", None)
    if cached is not None:
        return cached
    v, t = shape.vertices, shape.triangles
    tri = v[t]                                       # (T, 3, 3)
    order = np.argsort(_morton(tri.mean(axis=1)), kind="stable")
    t_sorted = t[order]
    tri = tri[order]
    count = len(t)
    leaves = 1
    while leaves * LEAF < count:
        leaves *= 2
    lo = np.full((leaves * LEAF, 3), np.inf)
    hi = np.full((leaves * LEAF, 3), -np.inf)
    lo[:count] = tri.min(axis=1)
    hi[:count] = tri.max(axis=1)
    levels = [np.concatenate((lo.reshape(leaves, LEAF, 3).min(axis=1),
                              hi.reshape(leaves, LEAF, 3).max(axis=1)), axis=1)]
    while len(levels[-1]) > 1:
        b = levels[-1]
        levels.append(np.concatenate((np.minimum(b[0::2, :3], b[1::2, :3]),
                                      np.maximum(b[0::2, 3:], b[1::2, 3:])), axis=1))
    nodes = np.ascontiguousarray(np.concatenate(levels[::-1]))   # heap order: root first
    cached = (np.ascontiguousarray(t_sorted), order.astype(np.int64), nodes)
    shape._collision_tree = cached
    return cached


def geometry_tables(shapes):
    kinds = np.array([s.kind for s in shapes], dtype=np.int64)
    params = np.array([s.params() for s in shapes], dtype=np.float64).reshape(-1, 4)
    hv, hf, hfr, hfv, he, hinfo = [np.zeros((0, 3))], [np.zeros((0, 4))], \
        [np.zeros((0, 2), np.int64)], [np.zeros(0, np.int64)], [np.zeros((0, 3))], \
        [np.zeros((0, 4), np.int64)]
    mv, mt, mn, minfo, morig = [np.zeros((0, 3))], [np.zeros((0, 3), np.int64)], \
        [np.zeros((0, 6))], [np.zeros((0, 5), np.int64)], [np.zeros(0, np.int64)]
    nv = nf = nk = ne = nh = 0
    mnv = mnt = mnn = nm = 0
    for i, s in enumerate(shapes):
        if s.kind == HULL:
            v = np.asarray(s.vertices, dtype=np.float64)
            planes, polys, edges = hull_tables(s)
            params[i] = (nv, len(v), nh, float(np.linalg.norm(v, axis=1).max()))
            hv.append(v)
            hf.append(planes)
            rng = np.zeros((len(polys), 2), dtype=np.int64)
            for f, poly in enumerate(polys):
                rng[f] = (nk, len(poly))
                nk += len(poly)
            hfr.append(rng)
            hfv.extend(np.asarray(p, dtype=np.int64) for p in polys)
            he.append(edges)
            hinfo.append(np.array([[nf, len(planes), ne, len(edges)]], dtype=np.int64))
            nv += len(v)
            nf += len(planes)
            ne += len(edges)
            nh += 1
        elif s.kind == MESH:
            t_sorted, order, nodes = mesh_tree(s)
            v = np.asarray(s.vertices, dtype=np.float64)
            params[i] = (nm, 1.0 if s.one_sided else 0.0, 0.0,
                         float(np.linalg.norm(v, axis=1).max()))
            mv.append(v)
            mt.append(t_sorted + mnv)
            mn.append(nodes)
            morig.append(order)
            minfo.append(np.array([[mnt, len(t_sorted), mnn, (len(nodes) + 1) // 2, 0]],
                                  dtype=np.int64))
            mnv += len(v)
            mnt += len(t_sorted)
            mnn += len(nodes)
            nm += 1
    c = np.ascontiguousarray
    G = (c(np.concatenate(hv)), c(np.concatenate(hf)), c(np.concatenate(hfr)),
         c(np.concatenate(hfv)), c(np.concatenate(he)), c(np.concatenate(hinfo)),
         c(np.concatenate(mv)), c(np.concatenate(mt)), c(np.concatenate(mn)),
         c(np.concatenate(minfo)), c(np.concatenate(morig)))
    return kinds, params, G
