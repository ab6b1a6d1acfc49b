"""Box against box: separating axis test over the 15 axes, then face clipping.

A face axis wins unless an edge-edge axis separates clearly more (a small tolerance keeps
resting stacks on faces, as Box2D and Bullet do). For a face contact the reference face is
the box face along the winning axis; the incident face is the other box's face most
anti-parallel to it; the incident quad is clipped (Sutherland-Hodgman) against the four
side planes of the reference face, and points within the speculative margin are kept.
Feature ids encode (reference box, reference face, incident face, incident vertex or
clipped incident edge and side plane), so a resting box keeps its ids frame to frame.
Edge-edge contacts give one point at the closest points of the two edges.
"""

from ..jit import helper

from ..mathx import add, cross, dot, length, qaxis, scale, sub
from .manifold import put_point

FACE_TOLERANCE = 0.002


@helper
def _axes(q):
    return qaxis(q, 0), qaxis(q, 1), qaxis(q, 2)


@helper
def _pick(t, i):
    if i == 0:
        return t[0]
    if i == 1:
        return t[1]
    return t[2]


@helper
def _extent(axes, he, n):
    return (he[0] * abs(dot(axes[0], n)) + he[1] * abs(dot(axes[1], n))
            + he[2] * abs(dot(axes[2], n)))


@helper
def _clip_face(ref_c, ref_axes, ref_he, ref_i, n_ref, inc_c, inc_axes, inc_he, margin,
               flip, pts, id_base, poly, poly_id, tmp, tmp_id):
    """Clip the incident face against the reference face; write candidates; return count."""
    # incident face: the face of the incident box most anti-parallel to n_ref
    k = 0
    best = 1e30
    for i in range(3):
        d = dot(_pick(inc_axes, i), n_ref)
        if d < best:
            best = d
            k = i
        if -d < best:
            best = -d
            k = i + 3
    ax = k % 3
    s = -1.0 if k >= 3 else 1.0
    fn = scale(_pick(inc_axes, ax), s)
    fc = add(inc_c, scale(fn, _pick(inc_he, ax)))
    u = _pick(inc_axes, (ax + 1) % 3)
    v = _pick(inc_axes, (ax + 2) % 3)
    hu = _pick(inc_he, (ax + 1) % 3)
    hv = _pick(inc_he, (ax + 2) % 3)
    su = (1.0, -1.0, -1.0, 1.0)
    sv = (1.0, 1.0, -1.0, -1.0)
    for i in range(4):
        p = add(fc, add(scale(u, su[i] * hu), scale(v, sv[i] * hv)))
        for m in range(3):
            poly[i, m] = p[m]
        poly_id[i] = i
    count = 4
    # the four side planes of the reference face: +-ru . (p - ref_c) <= h
    for plane in range(4):
        ai = (ref_i + 1 + plane // 2) % 3
        sgn = 1.0 if plane % 2 == 0 else -1.0
        pn = scale(_pick(ref_axes, ai), sgn)
        off = dot(pn, ref_c) + _pick(ref_he, ai)
        out = 0
        for i in range(count):
            j = (i + 1) % count
            pi = (poly[i, 0], poly[i, 1], poly[i, 2])
            pj = (poly[j, 0], poly[j, 1], poly[j, 2])
            di = dot(pn, pi) - off
            dj = dot(pn, pj) - off
            if di <= 0.0:
                for m in range(3):
                    tmp[out, m] = pi[m]
                tmp_id[out] = poly_id[i]
                out += 1
            if (di <= 0.0) != (dj <= 0.0):
                t = di / (di - dj)
                q = add(pi, scale(sub(pj, pi), t))
                for m in range(3):
                    tmp[out, m] = q[m]
                # an edge cut by a side plane: (incident edge i, plane)
                tmp_id[out] = 4 + i * 4 + plane
                out += 1
        count = out
        for i in range(count):
            for m in range(3):
                poly[i, m] = tmp[i, m]
            poly_id[i] = tmp_id[i]
        if count == 0:
            return 0
    face_c = add(ref_c, scale(n_ref, _pick(ref_he, ref_i)))
    out = 0
    for i in range(count):
        p = (poly[i, 0], poly[i, 1], poly[i, 2])
        sep = dot(n_ref, sub(p, face_c))
        if sep > margin:
            continue
        pr = sub(p, scale(n_ref, sep))
        fid = id_base + k * 32 + poly_id[i]
        if flip:
            put_point(pts, out, p, pr, fid, sep)
        else:
            put_point(pts, out, pr, p, fid, sep)
        out += 1
    return out


@helper
def box_box(ca, qa, hea, cb, qb, heb, margin, pts, scratch, scratch_id, unit):
    """Returns (count, normal from A to B); `unit` (length units per metre) scales
    FACE_TOLERANCE."""
    axa = _axes(qa)
    axb = _axes(qb)
    d = sub(cb, ca)
    best_a = -1e30
    ia = 0
    for i in range(3):
        n = _pick(axa, i)
        s = abs(dot(d, n)) - _pick(hea, i) - _extent(axb, heb, n)
        if s > margin:
            return 0, (0.0, 0.0, 1.0)
        if s > best_a:
            best_a = s
            ia = i
    best_b = -1e30
    ib = 0
    for i in range(3):
        n = _pick(axb, i)
        s = abs(dot(d, n)) - _pick(heb, i) - _extent(axa, hea, n)
        if s > margin:
            return 0, (0.0, 0.0, 1.0)
        if s > best_b:
            best_b = s
            ib = i
    best_e = -1e30
    ie = 0
    je = 0
    ne = (0.0, 0.0, 1.0)
    for i in range(3):
        for j in range(3):
            c = cross(_pick(axa, i), _pick(axb, j))
            ln = length(c)
            if ln < 1e-6:
                continue
            n = scale(c, 1.0 / ln)
            if dot(n, d) < 0.0:
                n = scale(n, -1.0)
            s = dot(d, n) - _extent(axa, hea, n) - _extent(axb, heb, n)
            if s > margin:
                return 0, (0.0, 0.0, 1.0)
            if s > best_e:
                best_e = s
                ie = i
                je = j
                ne = n
    best_face = max(best_a, best_b)
    poly = scratch[0]
    tmp = scratch[1]
    poly_id = scratch_id[0]
    tmp_id = scratch_id[1]
    if best_e > best_face + FACE_TOLERANCE * unit + 0.05 * abs(best_face):
        # edge-edge: the edge of each box that is extreme along the normal
        ea = ca
        for k in range(3):
            if k != ie:
                ak = _pick(axa, k)
                ea = add(ea, scale(ak, _pick(hea, k) * (1.0 if dot(ak, ne) > 0.0 else -1.0)))
        eb = cb
        for k in range(3):
            if k != je:
                bk = _pick(axb, k)
                eb = add(eb, scale(bk, -_pick(heb, k) * (1.0 if dot(bk, ne) > 0.0 else -1.0)))
        da = _pick(axa, ie)
        db = _pick(axb, je)
        r = sub(ea, eb)
        a = dot(da, db)
        e = dot(db, r)
        f = dot(da, r)
        den = 1.0 - a * a
        ta = (a * e - f) / den if den > 1e-12 else 0.0
        ha = _pick(hea, ie)
        ta = min(max(ta, -ha), ha)
        tb = e + a * ta
        hb = _pick(heb, je)
        tb = min(max(tb, -hb), hb)
        ta = min(max(a * tb - f, -ha), ha)
        pa = add(ea, scale(da, ta))
        pb = add(eb, scale(db, tb))
        put_point(pts, 0, pa, pb, 4096 + ie * 3 + je, dot(sub(pb, pa), ne))
        return 1, ne
    if best_b > best_a + FACE_TOLERANCE * unit + 0.05 * abs(best_a):
        n_ref = _pick(axb, ib)
        if dot(n_ref, d) > 0.0:
            n_ref = scale(n_ref, -1.0)         # B's face pointing toward A
        n_ax = ib
        cnt = _clip_face(cb, axb, heb, ib, n_ref, ca, axa, hea, margin, True, pts,
                         2048 + (ib * 2 + (1 if dot(n_ref, _pick(axb, ib)) < 0 else 0)) * 256,
                         poly, poly_id, tmp, tmp_id)
        return cnt, scale(n_ref, -1.0)
    n_ref = _pick(axa, ia)
    if dot(n_ref, d) < 0.0:
        n_ref = scale(n_ref, -1.0)
    cnt = _clip_face(ca, axa, hea, ia, n_ref, cb, axb, heb, margin, False, pts,
                     (ia * 2 + (1 if dot(n_ref, _pick(axa, ia)) < 0 else 0)) * 256,
                     poly, poly_id, tmp, tmp_id)
    return cnt, n_ref
