"""Any convex pair: GJK distance, SAT penetration, and contact-plane clipping to a manifold.

Every convex shape is a core plus a rounding radius (sphere: centre + r, capsule: segment +
r; cylinder, box, hull and mesh triangle: themselves + 0), seen through its support mapping.

1. GJK (Gilbert-Johnson-Keerthi, closest points by Ericson's sub-simplex regions) gives the
   distance between the cores; when it is clearly positive the normal and witness points are
   exact (sphere on a hull vertex, capsule near an edge).
2. When the cores touch or overlap (every resting polyhedron), a separating axis test over
   the candidate axes gives the penetration axis: face normals of both, cross products of
   their edge directions (exact for polyhedra: hull-hull, box-hull, hull-triangle), plus the
   centre line and the perpendiculars from a capsule's or cylinder's axis (exact for the
   usual cylinder contacts: cap on face, side on face, crossed and parallel sides).
3. Manifold (Jolt's "manifold between two faces"): each shape's supporting feature along
   the normal (a face polygon, a capsule's or cylinder's side segment, a cylinder cap as an
   octagon on its rim, or a point); the incident feature is clipped (Sutherland-Hodgman) by
   the side planes of the reference feature, taken along the contact normal, and each
   clipped point is measured to the reference face's plane. Points within the margin are
   kept, plus the exact deepest (witness) point when it is deeper than all of them.

Feature ids hash (reference face, incident face, incident vertex or clip plane + edge), so a
resting contact keeps its ids frame to frame.
"""

import math

import numpy as np
from ..jit import helper

from ..mathx import add, cross, dot, length, qaxis, qrotate, qrotate_inv, scale, sub
from ..shapes import BOX, CAPSULE, CYLINDER, HULL, SPHERE
from .manifold import add_candidate

TRI = 7                   # a mesh triangle, given as a (3, 3) array of world vertices
FEATURE_MAX = 32
CLIP_MAX = 72
GJK_TOUCH = 1e-5          # m: below this core distance the GJK normal is noise; use SAT
ID_MOD = 1 << 30
EQUALLY_DEEP = 0.01       # m: a resting face's points differ by less than this in depth


# --- support mappings ----------------------------------------------------------------------

@helper
def radius(kind, p):
    return p[0] if kind == SPHERE or kind == CAPSULE else 0.0


@helper
def support(kind, x, q, p, G, tri, d):
    """Farthest point of the core along d (world)."""
    if kind == SPHERE:
        return x
    if kind == CAPSULE:
        ax = qaxis(q, 2)
        return add(x, scale(ax, p[1] if dot(ax, d) >= 0.0 else -p[1]))
    if kind == CYLINDER:
        ax = qaxis(q, 2)
        a = dot(ax, d)
        radial = sub(d, scale(ax, a))
        rl = length(radial)
        c = add(x, scale(ax, p[1] if a >= 0.0 else -p[1]))
        if rl > 1e-12:
            c = add(c, scale(radial, p[0] / rl))
        return c
    if kind == BOX:
        ld = qrotate_inv(q, d)
        return add(x, qrotate(q, (p[0] if ld[0] >= 0.0 else -p[0],
                                  p[1] if ld[1] >= 0.0 else -p[1],
                                  p[2] if ld[2] >= 0.0 else -p[2])))
    if kind == HULL:
        hv = G[0]
        ld = qrotate_inv(q, d)
        s = int(p[0])
        best = s
        bd = -1e300
        for i in range(s, s + int(p[1])):
            v = hv[i, 0] * ld[0] + hv[i, 1] * ld[1] + hv[i, 2] * ld[2]
            if v > bd:
                bd = v
                best = i
        return add(x, qrotate(q, (hv[best, 0], hv[best, 1], hv[best, 2])))
    best = 0
    bd = -1e300
    for i in range(3):
        v = tri[i, 0] * d[0] + tri[i, 1] * d[1] + tri[i, 2] * d[2]
        if v > bd:
            bd = v
            best = i
    return (tri[best, 0], tri[best, 1], tri[best, 2])


@helper
def centre(kind, x, tri):
    if kind == TRI:
        return ((tri[0, 0] + tri[1, 0] + tri[2, 0]) / 3.0,
                (tri[0, 1] + tri[1, 1] + tri[2, 1]) / 3.0,
                (tri[0, 2] + tri[1, 2] + tri[2, 2]) / 3.0)
    return x


@helper
def tri_normal(tri):
    e1 = (tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2])
    e2 = (tri[2, 0] - tri[0, 0], tri[2, 1] - tri[0, 1], tri[2, 2] - tri[0, 2])
    c = cross(e1, e2)
    ln = length(c)
    return scale(c, 1.0 / ln) if ln > 1e-300 else (0.0, 0.0, 1.0)


# --- GJK ------------------------------------------------------------------------------------

@helper
def _closest_triangle(a, b, c):
    """Barycentric weights of the point of triangle abc nearest the origin (Ericson 5.1.5)."""
    ab = sub(b, a)
    ac = sub(c, a)
    ap = scale(a, -1.0)
    d1 = dot(ab, ap)
    d2 = dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    bp = scale(b, -1.0)
    d3 = dot(ab, bp)
    d4 = dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3) if d1 - d3 > 1e-300 else 0.0
        return 1.0 - v, v, 0.0
    cp = scale(c, -1.0)
    d5 = dot(ab, cp)
    d6 = dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6) if d2 - d6 > 1e-300 else 0.0
        return 1.0 - w, 0.0, w
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        den = (d4 - d3) + (d5 - d6)
        w = (d4 - d3) / den if den > 1e-300 else 0.0
        return 0.0, 1.0 - w, w
    den = va + vb + vc
    if den <= 1e-300:
        return 1.0, 0.0, 0.0
    v = vb / den
    w = vc / den
    return 1.0 - v - w, v, w


@helper
def _solve_simplex(W, lam, n):
    """Closest point of simplex W[:n] to the origin: fills lam, returns -1 when the origin
    lies inside a tetrahedron, else the simplex size."""
    if n == 1:
        lam[0] = 1.0
        return 1
    if n == 2:
        a = (W[0, 0], W[0, 1], W[0, 2])
        ab = sub((W[1, 0], W[1, 1], W[1, 2]), a)
        den = dot(ab, ab)
        t = -dot(a, ab) / den if den > 1e-300 else 0.0
        t = min(max(t, 0.0), 1.0)
        lam[0] = 1.0 - t
        lam[1] = t
        return 2
    if n == 3:
        l0, l1, l2 = _closest_triangle((W[0, 0], W[0, 1], W[0, 2]), (W[1, 0], W[1, 1], W[1, 2]),
                                       (W[2, 0], W[2, 1], W[2, 2]))
        lam[0] = l0
        lam[1] = l1
        lam[2] = l2
        return 3
    # tetrahedron: the origin is inside unless it lies beyond one of the faces
    best = 1e300
    inside = True
    for f in range(4):
        i0 = (f + 1) % 4
        i1 = (f + 2) % 4
        i2 = (f + 3) % 4
        a = (W[i0, 0], W[i0, 1], W[i0, 2])
        b = (W[i1, 0], W[i1, 1], W[i1, 2])
        c = (W[i2, 0], W[i2, 1], W[i2, 2])
        nrm = cross(sub(b, a), sub(c, a))
        so = -dot(nrm, a)
        sd = dot(nrm, sub((W[f, 0], W[f, 1], W[f, 2]), a))
        if so * sd > 0.0 and abs(sd) > 1e-14:
            continue
        inside = False
        l0, l1, l2 = _closest_triangle(a, b, c)
        p = add(add(scale(a, l0), scale(b, l1)), scale(c, l2))
        d = dot(p, p)
        if d < best:
            best = d
            for k in range(4):
                lam[k] = 0.0
            lam[i0] = l0
            lam[i1] = l1
            lam[i2] = l2
    if inside:
        return -1
    return 4


@helper
def gjk(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb):
    """Distance between the cores of A and B and their closest points (dist 0: overlap)."""
    W = np.empty((4, 3))
    SA = np.empty((4, 3))
    SB = np.empty((4, 3))
    lam = np.zeros(4)
    d = sub(centre(kb, xb, tb), centre(ka, xa, ta))
    if dot(d, d) < 1e-24:
        d = (1.0, 0.0, 0.0)
    sa = support(ka, xa, qa, pa, G, ta, scale(d, -1.0))
    sb = support(kb, xb, qb, pb, G, tb, d)
    n = 1
    for k in range(3):
        SA[0, k] = sa[k]
        SB[0, k] = sb[k]
        W[0, k] = sa[k] - sb[k]
    v = (W[0, 0], W[0, 1], W[0, 2])
    lam[0] = 1.0
    for _ in range(40):
        vv = dot(v, v)
        if vv < 1e-20:
            return 0.0, v, v
        sa = support(ka, xa, qa, pa, G, ta, scale(v, -1.0))
        sb = support(kb, xb, qb, pb, G, tb, v)
        w = sub(sa, sb)
        if vv - dot(v, w) <= 1e-10 * vv + 1e-16:
            break
        for k in range(3):
            SA[n, k] = sa[k]
            SB[n, k] = sb[k]
            W[n, k] = w[k]
        n += 1
        m = _solve_simplex(W, lam, n)
        if m < 0:
            return 0.0, v, v
        # keep the vertices with weight
        j = 0
        for i in range(n):
            if lam[i] > 0.0:
                for k in range(3):
                    W[j, k] = W[i, k]
                    SA[j, k] = SA[i, k]
                    SB[j, k] = SB[i, k]
                lam[j] = lam[i]
                j += 1
        n = j
        v = (0.0, 0.0, 0.0)
        for i in range(n):
            v = add(v, scale((W[i, 0], W[i, 1], W[i, 2]), lam[i]))
    pA = (0.0, 0.0, 0.0)
    pB = (0.0, 0.0, 0.0)
    for i in range(n):
        pA = add(pA, scale((SA[i, 0], SA[i, 1], SA[i, 2]), lam[i]))
        pB = add(pB, scale((SB[i, 0], SB[i, 1], SB[i, 2]), lam[i]))
    return length(v), pA, pB


# --- SAT --------------------------------------------------------------------------------------

@helper
def _axis_sep(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb, d, ra, rb):
    """Separation of A and B along the line d, in the better direction: (s, axis A -> B)."""
    ma = dot(support(ka, xa, qa, pa, G, ta, d), d) + ra
    na = dot(support(ka, xa, qa, pa, G, ta, scale(d, -1.0)), d) - ra
    mb = dot(support(kb, xb, qb, pb, G, tb, d), d) + rb
    nb = dot(support(kb, xb, qb, pb, G, tb, scale(d, -1.0)), d) - rb
    s1 = nb - ma
    s2 = na - mb
    if s1 >= s2:
        return s1, d
    return s2, scale(d, -1.0)


@helper
def _directions(kind, x, q, p, G, tri, faces, out):
    """Face normals (faces=True) or edge directions (False) of the shape, world, into out."""
    if kind == BOX:
        for k in range(3):
            a = qaxis(q, k)
            for m in range(3):
                out[k, m] = a[m]
        return 3
    if kind == CYLINDER or (kind == CAPSULE and not faces):
        a = qaxis(q, 2)
        for m in range(3):
            out[0, m] = a[m]
        return 1
    if kind == HULL:
        h = int(p[2])
        info = G[5]
        src = G[1] if faces else G[4]
        s = info[h, 0] if faces else info[h, 2]
        c = info[h, 1] if faces else info[h, 3]
        c = min(c, out.shape[0])
        for i in range(c):
            a = qrotate(q, (src[s + i, 0], src[s + i, 1], src[s + i, 2]))
            for m in range(3):
                out[i, m] = a[m]
        return c
    if kind == TRI:
        if faces:
            a = tri_normal(tri)
            for m in range(3):
                out[0, m] = a[m]
            return 1
        for i in range(3):
            j = (i + 1) % 3
            e = (tri[j, 0] - tri[i, 0], tri[j, 1] - tri[i, 1], tri[j, 2] - tri[i, 2])
            ln = length(e)
            for m in range(3):
                out[i, m] = e[m] / ln if ln > 1e-300 else 0.0
        return 3
    return 0


@helper
def _perp_axis(kind, x, q, c):
    """Perpendicular from a capsule's or cylinder's axis line to the point c."""
    if kind != CAPSULE and kind != CYLINDER:
        return (0.0, 0.0, 0.0)
    a = qaxis(q, 2)
    r = sub(c, x)
    return sub(r, scale(a, dot(a, r)))


@helper
def sat(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb):
    """Largest separation over the candidate axes: (s, unit axis A -> B)."""
    ra = radius(ka, pa)
    rb = radius(kb, pb)
    best = -1e300
    n = (0.0, 0.0, 1.0)
    ca = centre(ka, xa, ta)
    cb = centre(kb, xb, tb)
    size = 3
    for side in range(2):
        if (ka if side == 0 else kb) == HULL:
            h = int(pa[2] if side == 0 else pb[2])
            size = max(size, max(G[5][h, 1], G[5][h, 3]))
    buf_a = np.empty((size, 3))
    buf_b = np.empty((size, 3))
    for side in range(2):
        k = ka if side == 0 else kb
        c = _directions(k, xa if side == 0 else xb, qa if side == 0 else qb,
                        pa if side == 0 else pb, G, ta if side == 0 else tb, True, buf_a)
        for i in range(c):
            d = (buf_a[i, 0], buf_a[i, 1], buf_a[i, 2])
            s, ax = _axis_sep(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb, d, ra, rb)
            if s > best:
                best = s
                n = ax
    ea = _directions(ka, xa, qa, pa, G, ta, False, buf_a)
    eb = _directions(kb, xb, qb, pb, G, tb, False, buf_b)
    for i in range(ea):
        u = (buf_a[i, 0], buf_a[i, 1], buf_a[i, 2])
        for j in range(eb):
            c = cross(u, (buf_b[j, 0], buf_b[j, 1], buf_b[j, 2]))
            ln = length(c)
            if ln < 1e-6:
                continue
            # edge axes must beat a face clearly, so resting faces stay face contacts
            s, ax = _axis_sep(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb, scale(c, 1.0 / ln),
                              ra, rb)
            if s > best + 1e-4:
                best = s
                n = ax
    for i in range(3):
        if i == 0:
            d = sub(cb, ca)
        elif i == 1:
            d = _perp_axis(ka, xa, qa, cb)
        else:
            d = _perp_axis(kb, xb, qb, ca)
        ln = length(d)
        if ln < 1e-9:
            continue
        s, ax = _axis_sep(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb, scale(d, 1.0 / ln), ra, rb)
        if s > best + 1e-4:
            best = s
            n = ax
    return best, n


# --- features and clipping ------------------------------------------------------------------

@helper
def _put(out, oid, i, p, fid):
    out[i, 0] = p[0]
    out[i, 1] = p[1]
    out[i, 2] = p[2]
    oid[i] = fid


@helper
def feature(kind, x, q, p, G, tri, d, out, oid):
    """The shape's surface feature farthest along unit d: (count, face id, face normal).
    Round shapes' points are already moved out to their surface along d."""
    if kind == SPHERE:
        _put(out, oid, 0, add(x, scale(d, p[0])), 0)
        return 1, 0, d
    if kind == CAPSULE:
        ax = qaxis(q, 2)
        s = dot(ax, d)
        e0 = add(add(x, scale(ax, -p[1])), scale(d, p[0]))
        e1 = add(add(x, scale(ax, p[1])), scale(d, p[0]))
        if abs(s) < 0.2:
            _put(out, oid, 0, e0, 0)
            _put(out, oid, 1, e1, 1)
            return 2, 0, d
        _put(out, oid, 0, e1 if s > 0.0 else e0, 1 if s > 0.0 else 0)
        return 1, 1 if s > 0.0 else 2, d
    if kind == CYLINDER:
        ax = qaxis(q, 2)
        s = dot(ax, d)
        if abs(s) > 0.5:                 # cap: an octagon on the rim
            sg = 1.0 if s > 0.0 else -1.0
            cc = add(x, scale(ax, sg * p[1]))
            u = qaxis(q, 0)
            v = qaxis(q, 1)
            for i in range(8):
                a = i * (math.pi / 4.0)
                r = add(scale(u, p[0] * math.cos(a)), scale(v, p[0] * math.sin(a)))
                _put(out, oid, i, add(cc, r), i + (0 if s > 0.0 else 8))
            return 8, 0 if s > 0.0 else 1, scale(ax, sg)
        radial = sub(d, scale(ax, s))
        rl = length(radial)
        rad = scale(radial, p[0] / rl) if rl > 1e-12 else (0.0, 0.0, 0.0)
        if abs(s) < 0.2:                 # side: a line
            _put(out, oid, 0, add(add(x, scale(ax, -p[1])), rad), 16)
            _put(out, oid, 1, add(add(x, scale(ax, p[1])), rad), 17)
            return 2, 2, d
        _put(out, oid, 0, support(kind, x, q, p, G, tri, d), 18)
        return 1, 3, d
    if kind == BOX:
        ld = qrotate_inv(q, d)
        k = 0
        for i in range(1, 3):
            if abs(ld[i]) > abs(ld[k]):
                k = i
        sg = 1.0 if ld[k] >= 0.0 else -1.0
        i1 = (k + 1) % 3
        i2 = (k + 2) % 3
        fc = add(x, scale(qaxis(q, k), sg * p[k]))
        u = scale(qaxis(q, i1), p[i1])
        v = scale(qaxis(q, i2), p[i2])
        for c in range(4):
            a = 1.0 if (c == 1 or c == 2) else -1.0
            b = 1.0 if c >= 2 else -1.0
            _put(out, oid, c, add(fc, add(scale(u, a), scale(v, b))),
                 (k + (3 if sg < 0.0 else 0)) * 4 + c)
        return 4, k + (3 if sg < 0.0 else 0), scale(qaxis(q, k), sg)
    if kind == HULL:
        h = int(p[2])
        info = G[5]
        hf = G[1]
        ld = qrotate_inv(q, d)
        fs = info[h, 0]
        best = fs
        bd = -1e300
        for f in range(fs, fs + info[h, 1]):
            v = hf[f, 0] * ld[0] + hf[f, 1] * ld[1] + hf[f, 2] * ld[2]
            if v > bd:
                bd = v
                best = f
        hv = G[0]
        s0 = int(p[0])
        st = G[2][best, 0]
        total = G[2][best, 1]
        stride = (total + FEATURE_MAX - 1) // FEATURE_MAX    # big faces: every k-th corner
        cnt = (total + stride - 1) // stride
        for i in range(cnt):
            vi = G[3][st + i * stride]
            _put(out, oid, i, add(x, qrotate(q, (hv[s0 + vi, 0], hv[s0 + vi, 1], hv[s0 + vi, 2]))),
                 vi)
        return cnt, best - fs, qrotate(q, (hf[best, 0], hf[best, 1], hf[best, 2]))
    nt = tri_normal(tri)
    for i in range(3):
        _put(out, oid, i, (tri[i, 0], tri[i, 1], tri[i, 2]), i)
    return 3, 0, nt if dot(nt, d) >= 0.0 else scale(nt, -1.0)


@helper
def _clip_plane(src, sid, cnt, pn, pd, tag, dst, did):
    """Keep the part of polygon src (a segment when cnt == 2) with pn . p <= pd."""
    edges = cnt if cnt > 2 else cnt - 1
    k = 0
    for i in range(cnt):
        a = (src[i, 0], src[i, 1], src[i, 2])
        da = dot(pn, a) - pd
        if da <= 0.0 and k < dst.shape[0]:
            _put(dst, did, k, a, sid[i])
            k += 1
        if i < edges:
            j = (i + 1) % cnt
            b = (src[j, 0], src[j, 1], src[j, 2])
            db = dot(pn, b) - pd
            if (da <= 0.0) != (db <= 0.0) and k < dst.shape[0]:
                t = da / (da - db)
                h = ((tag + 1) * 1000003 + sid[i] * 7919 + sid[j] * 31) % ID_MOD
                _put(dst, did, k, add(a, scale(sub(b, a), t)), h)
                k += 1
    return k


@helper
def clip_to_reference(ref, rcnt, inc, iid, icnt, n, bufs, bid):
    """Clip the incident feature by the reference feature's side planes (along n).
    Result in bufs[0] / bid[0]; returns its count."""
    src = 0
    for k in range(icnt):
        for m in range(3):
            bufs[0, k, m] = inc[k, m]
        bid[0, k] = iid[k]
    cnt = icnt
    if rcnt == 2:
        d = sub((ref[1, 0], ref[1, 1], ref[1, 2]), (ref[0, 0], ref[0, 1], ref[0, 2]))
        d = sub(d, scale(n, dot(d, n)))
        ln = length(d)
        if ln < 1e-12:
            return cnt
        d = scale(d, 1.0 / ln)
        for side in range(2):
            pn = d if side == 0 else scale(d, -1.0)
            r = side ^ 1
            pd = dot(pn, (ref[r, 0], ref[r, 1], ref[r, 2]))
            cnt = _clip_plane(bufs[src], bid[src], cnt, pn, pd, side, bufs[1 - src], bid[1 - src])
            src = 1 - src
    elif rcnt >= 3:
        c = (0.0, 0.0, 0.0)
        for i in range(rcnt):
            c = add(c, (ref[i, 0], ref[i, 1], ref[i, 2]))
        c = scale(c, 1.0 / rcnt)
        for i in range(rcnt):
            if cnt == 0:
                break
            a = (ref[i, 0], ref[i, 1], ref[i, 2])
            j = (i + 1) % rcnt
            e = sub((ref[j, 0], ref[j, 1], ref[j, 2]), a)
            pn = cross(e, n)
            ln = length(pn)
            if ln < 1e-12:
                continue
            pn = scale(pn, 1.0 / ln)
            if dot(pn, sub(c, a)) > 0.0:
                pn = scale(pn, -1.0)
            cnt = _clip_plane(bufs[src], bid[src], cnt, pn, dot(pn, a), i, bufs[1 - src],
                              bid[1 - src])
            src = 1 - src
    if src == 1:
        for k in range(cnt):
            for m in range(3):
                bufs[0, k, m] = bufs[1, k, m]
            bid[0, k] = bid[1, k]
    return cnt


@helper
def new_workspace():
    """Scratch arrays for one thread: features of A and B, clip buffers."""
    return (np.empty((FEATURE_MAX, 3)), np.empty(FEATURE_MAX, dtype=np.int64),
            np.empty((FEATURE_MAX, 3)), np.empty(FEATURE_MAX, dtype=np.int64),
            np.empty((2, CLIP_MAX, 3)), np.empty((2, CLIP_MAX), dtype=np.int64))


@helper
def face_manifold(n, fa, ca, fida, nfa, fb, cb, fidb, nfb, margin, pts, count, ws, id_base):
    """Clip feature A (along n) against feature B (along -n) or the other way round, and add
    the points within the margin to pts. Returns the new count."""
    bufs, bid = ws[4], ws[5]
    if ca < 2 or cb < 2:
        return count
    if ca == 2 and cb == 2:
        da = sub((fa[1, 0], fa[1, 1], fa[1, 2]), (fa[0, 0], fa[0, 1], fa[0, 2]))
        db = sub((fb[1, 0], fb[1, 1], fb[1, 2]), (fb[0, 0], fb[0, 1], fb[0, 2]))
        if abs(dot(da, db)) < 0.995 * length(da) * length(db):
            return count                 # crossed segments touch at one point
        ref_is_a = True
    elif ca >= 3 and cb >= 3:
        # B's face only when clearly better aligned, so parallel faces never swap roles
        ref_is_a = abs(dot(nfa, n)) >= abs(dot(nfb, n)) - 0.02
    else:
        ref_is_a = ca >= 3
    if ref_is_a:
        ref, rc, inc, iid, ic, nf = fa, ca, fb, ws[3], cb, nfa
        if rc == 2:
            nf = n
    else:
        ref, rc, inc, iid, ic, nf = fb, cb, fa, ws[1], ca, nfb
        if rc == 2:
            nf = scale(n, -1.0)
    dn = dot(n, nf)
    if abs(dn) < 0.1:
        return count
    k = clip_to_reference(ref, rc, inc, iid, ic, n, bufs, bid)
    r0 = (ref[0, 0], ref[0, 1], ref[0, 2])
    code = ((fida if ref_is_a else fidb) * 2 + (0 if ref_is_a else 1)) * 4099 + \
        (fidb if ref_is_a else fida)
    for i in range(k):
        p = (bufs[0, i, 0], bufs[0, i, 1], bufs[0, i, 2])
        t = dot(sub(p, r0), nf) / dn
        fid = id_base + (code * 65537 + bid[0, i]) % ID_MOD
        if ref_is_a:                      # p on B, its partner on A's face
            sep = t
            if sep <= margin:
                count = add_candidate(pts, count, sub(p, scale(n, t)), p, fid, sep)
        else:                             # p on A, its partner on B's face
            sep = -t
            if sep <= margin:
                count = add_candidate(pts, count, p, add(p, scale(n, sep)), fid, sep)
    return count


@helper
def _mid(pts, i):
    return (0.5 * (pts[i, 0] + pts[i, 3]), 0.5 * (pts[i, 1] + pts[i, 4]),
            0.5 * (pts[i, 2] + pts[i, 5]))


@helper
def _swap_rows(pts, i, j):
    for k in range(pts.shape[1]):
        t = pts[i, k]
        pts[i, k] = pts[j, k]
        pts[j, k] = t


@helper
def stable_reduce(pts, count, n, unit):
    """Keep four points as manifold.reduce_points does (deepest, farthest, widest triangle,
    farthest from those), but with ties settled by candidate order and feature id: points
    within EQUALLY_DEEP (x unit, length units per metre) of the deepest count as equally deep, and a later candidate replaces the
    current choice only when clearly better. A resting face on a symmetric face (octagon on
    octagon) otherwise flips between mirror-image choices as the normal wobbles, and its
    contacts lose their warm start."""
    if count <= 4:
        return count
    low = 1e300
    for i in range(count):
        low = min(low, pts[i, 7])
    pick = -1
    for i in range(count):
        if pts[i, 7] <= low + EQUALLY_DEEP * unit and (pick < 0 or pts[i, 6] < pts[pick, 6]):
            pick = i
    _swap_rows(pts, 0, pick)
    p0 = _mid(pts, 0)
    for slot in range(1, 4):
        best = slot
        bd = -1.0
        for i in range(slot, count):
            p = _mid(pts, i)
            if slot == 1:
                d = dot(sub(p, p0), sub(p, p0))
            elif slot == 2:
                c = cross(sub(_mid(pts, 1), p0), sub(p, p0))
                d = dot(c, c)
            else:
                d = min(dot(sub(p, p0), sub(p, p0)),
                        min(dot(sub(p, _mid(pts, 1)), sub(p, _mid(pts, 1))),
                            dot(sub(p, _mid(pts, 2)), sub(p, _mid(pts, 2)))))
            if d > bd * 1.01 + 1e-14:
                bd = d
                best = i
        _swap_rows(pts, slot, best)
    return 4


@helper
def convex_convex(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb, margin, pts, ws, unit):
    """Manifold candidates for any convex pair: (count, normal A -> B); `unit` (length units
    per metre) scales the tolerances in metres."""
    dist, ca_, cb_ = gjk(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb)
    ra = radius(ka, pa)
    rb = radius(kb, pb)
    if dist > GJK_TOUCH * unit:
        n = scale(sub(cb_, ca_), 1.0 / dist)
        sep = dist - ra - rb
        if sep > margin:
            return 0, n
        wa = add(ca_, scale(n, ra))
        wb = sub(cb_, scale(n, rb))
    else:
        sep, n = sat(ka, xa, qa, pa, kb, xb, qb, pb, G, ta, tb)
        if sep > margin:
            return 0, n
        wb = sub(support(kb, xb, qb, pb, G, tb, scale(n, -1.0)), scale(n, rb))
        wa = sub(wb, scale(n, sep))
    fa, ida, fb, idb = ws[0], ws[1], ws[2], ws[3]
    cA, fidA, nfA = feature(ka, xa, qa, pa, G, ta, n, fa, ida)
    cB, fidB, nfB = feature(kb, xb, qb, pb, G, tb, scale(n, -1.0), fb, idb)
    if dist <= GJK_TOUCH * unit:
        if cA == 1:
            wa = (fa[0, 0], fa[0, 1], fa[0, 2])
            wb = add(wa, scale(n, sep))
        elif cB == 1:
            wb = (fb[0, 0], fb[0, 1], fb[0, 2])
            wa = sub(wb, scale(n, sep))
    # all clipped points first (a table as small as pts would keep the deepest, which
    # changes with every wobble of a resting face), then the four
    cand = np.empty((CLIP_MAX + 1, pts.shape[1]))
    count = face_manifold(n, fa, cA, fidA, nfA, fb, cB, fidB, nfB, margin, cand, 0, ws, 0)
    deepest = 1e300
    for i in range(count):
        deepest = min(deepest, cand[i, 7])
    if count == 0 or sep < deepest - 1e-3 * unit:
        count = add_candidate(cand, count, wa, wb, (fidA * 4099 + fidB) * 2 + ID_MOD // 2, sep)
    count = stable_reduce(cand, count, n, unit)
    for i in range(count):
        for m in range(pts.shape[1]):
            pts[i, m] = cand[i, m]
    return count, n
