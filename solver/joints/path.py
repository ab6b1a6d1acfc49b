"""Path: a point of B stays on a curve given as a dense polyline (the particle on a curve of
docs/mechanisms.md, A point on a curve, with the curve's normal plane as two plane rows;
docs/point-constraints.md).

The curve is the polyline P_0 .. P_{n-1} in the world (closed: P_{n-1} joins P_0). The point
q of the curve nearest to the anchor pB is found on segment k (tracked from the last prepare
in TRACK_A, walking to a neighbour while pB projects past the segment's end), at
u = (pB - P_k) . d / |d|^2 clamped to [0, 1], d = P_{k+1} - P_k. The tangent t at q blends the
vertex tangents (the mean of the two segment directions at a vertex) by u, so it turns
smoothly along the polyline instead of jumping at each vertex, which would take energy from a
bead at every kink. n1, n2 span the normal plane across t. With e = pB - q, A the world:

    C_k = n_k . e = 0,   J_k = [0, 0, n_k, rB x n_k],   K_k = 1/mB + (rB x n_k) . IB^-1 (rB x n_k)

(the plane rows of primitives/plane.py: while pB stays on the curve, q moves along t and
n_k . q* = 0, so C* = n_k . (vB + wB x rB)).

The curve bends: moving at v_t = t . (vB + wB x rB) along the tangent for a substep h, the
point leaves the curve by kappa v_t^2 h^2 / 2 toward the outside (kappa = dt/ds, the
curvature vector, here the change of the vertex tangents over the segment). Projecting that
velocity back onto the next substep's tangent takes (kappa v_t h)^2 / 2 of its kinetic
energy every substep (a bead looping a 1 m wire lost 7 % a lap). So the solve pass aims
C*_k = n_k . kappa v_t^2 h / 2 (a bias of -n_k . kappa v_t^2 h / 2): the point moves along
the chord to where the curve will be, its velocity turns by half the substep's bend before
the position update and by the other half in the relax pass, and its speed is kept. The
position projection's prepare (S = (1, 1, 0), BIAS = C) leaves it out.

Along the curve, with the same Jacobian on t:

    ends (open curves): on the first segment t0 . (pB - P_0) >= 0, on the last
                        t_last . (P_{n-1} - pB) >= 0 (limit rows, speculative while apart)
    motor:              t . (vB + wB x rB) -> speed, |lambda| <= F_max h
    friction:           the same row at speed 0, |lambda| <= friction h (without a motor)
    align:              B's frame X stays along t: n_k . xB = 0 (primitives/hinge_axis.py);
                        B turns freely about the tangent

Rows: 0-1 on the curve, 2 first end, 3 last end, 4 motor or friction, 5-6 align.
"""

from ..jit import helper

from ..mathx import (add, cross, dot, length, neg, normalize, perpendicular, qaxis, scale, sub,
                     vec3_at)
from ..primitives.hinge_axis import hinge_axis
from ..primitives.limit import limit
from ..primitives.motor import motor
from ..primitives.plane import plane
from ..rows import BIAS, body_velocity
from .layout import (ALIGN, CLOSED, FRICTION, HAS_MOTOR, MOTOR_MAX, MOTOR_SPEED, PATH_COUNT,
                     PATH_START, TRACK_A)


@helper
def _point(pts, start, count, i):
    """Polyline point i, wrapping around (closed curves)."""
    return vec3_at(pts, start + (i % count), 0)


@helper
def _direction(pts, start, count, k):
    return normalize(sub(_point(pts, start, count, k + 1), _point(pts, start, count, k)))


@helper
def _vertex_tangent(pts, start, count, segments, closed, i):
    """Mean of the directions of the segments meeting at vertex i (one at an open end)."""
    if not closed and i == 0:
        return _direction(pts, start, count, 0)
    if not closed and i == segments:
        return _direction(pts, start, count, segments - 1)
    return normalize(add(_direction(pts, start, count, i - 1 + count),
                         _direction(pts, start, count, i)))


@helper
def _projection(pts, start, count, k, p):
    q0 = _point(pts, start, count, k)
    d = sub(_point(pts, start, count, k + 1), q0)
    return q0, d, dot(sub(p, q0), d) / dot(d, d)


@helper
def nearest_segment(pts, start, count, segments, closed, k, p):
    """The segment whose span holds p's projection, walking from segment k one way only
    (at a corner whose two spans both miss p it stops on the first)."""
    way = 0
    for _ in range(segments):
        u = _projection(pts, start, count, k, p)[2]
        if u > 1.0 and way >= 0 and (closed or k < segments - 1):
            k = (k + 1) % segments
            way = 1
        elif u < 0.0 and way <= 0 and (closed or k > 0):
            k = (k - 1 + segments) % segments
            way = -1
        else:
            break
    return k


@helper
def prepare_path(r0, j, flags, jf, pts, b, rb, pb, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                 B_I):
    start = int(jf[j, PATH_START])
    count = int(jf[j, PATH_COUNT])
    closed = (flags & CLOSED) != 0
    segments = count if closed else count - 1
    k = nearest_segment(pts, start, count, segments, closed, int(jf[j, TRACK_A]), pb)
    jf[j, TRACK_A] = k
    q0, d, u = _projection(pts, start, count, k, pb)
    u = min(max(u, 0.0), 1.0)
    e = sub(pb, add(q0, scale(d, u)))
    t = normalize(add(scale(_vertex_tangent(pts, start, count, segments, closed, k), 1.0 - u),
                      scale(_vertex_tangent(pts, start, count, segments, closed, k + 1), u)))
    n1 = perpendicular(t)
    n2 = cross(t, n1)
    z = (0.0, 0.0, 0.0)
    plane(r0, -1, b, n1, z, rb, dot(n1, e), S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    plane(r0 + 1, -1, b, n2, z, rb, dot(n2, e), S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if not (S[0] == 1.0 and S[2] == 0.0):        # not the position projection's prepare
        kappa = scale(sub(_vertex_tangent(pts, start, count, segments, closed, k + 1),
                          _vertex_tangent(pts, start, count, segments, closed, k)),
                      1.0 / length(d))
        v, w = body_velocity(B_s, b)
        vt = dot(t, add(v, cross(w, rb)))
        bend = -0.5 * S[3] * vt * vt
        R_p[r0, BIAS] += bend * dot(n1, kappa)
        R_p[r0 + 1, BIAS] += bend * dot(n2, kappa)
    if not closed and k == 0:
        t0 = _direction(pts, start, count, 0)
        limit(r0 + 2, -1, b, t0, z, rb, dot(t0, sub(pb, _point(pts, start, count, 0))), S, R_b,
              R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if not closed and k == segments - 1:
        t1 = _direction(pts, start, count, k)
        limit(r0 + 3, -1, b, neg(t1), z, rb, dot(t1, sub(_point(pts, start, count, count - 1), pb)),
              S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if flags & HAS_MOTOR:
        motor(r0 + 4, -1, b, t, z, rb, jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b, R_j, R_d, R_p,
              R_k, B_s, B_inv, B_I)
    elif jf[j, FRICTION] > 0.0:
        motor(r0 + 4, -1, b, t, z, rb, 0.0, jf[j, FRICTION], S, R_b, R_j, R_d, R_p, R_k, B_s,
              B_inv, B_I)
    if flags & ALIGN:
        hinge_axis(r0 + 5, -1, b, n1, n2, qaxis(fb, 0), S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                   B_I)
