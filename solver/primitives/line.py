"""Line: two plane rows that keep B's anchor on A's line through pA along the frame's X axis
t (the frame rides on A).

With p = pB - pA, sA = pB - xA and t0, t1 the frame's Y and Z (docs/point-constraints.md):

    C_k = t_k . p = 0      J_k = [-t_k, t_k x sA, t_k, rB x t_k]      (k = 0, 1)

each a plane row (primitives/plane.py). Returns (t, sA, d = t . p), what the rows along the
line (limits, motor, spring) of a prismatic, line or wheel joint are built from.
"""

from ..jit import helper

from ..mathx import dot, qaxis, sub
from .plane import plane


@helper
def line_rows(r, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    p = sub(pb, pa)
    sa = sub(pb, xa)
    axis = qaxis(fa, 0)
    t0 = qaxis(fa, 1)
    t1 = qaxis(fa, 2)
    plane(r, a, b, t0, sa, rb, dot(t0, p), S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    plane(r + 1, a, b, t1, sa, rb, dot(t1, p), S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    return axis, sa, dot(axis, p)
