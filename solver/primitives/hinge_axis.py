"""Hinge axis: keep B's hinge axis aB parallel to A's (docs/angular-constraints.md).

With t0, t1 perpendicular to A's axis (attached to A): C_k = t_k . aB = 0 and
    C*_k = (t_k x aB) . (wA - wB),  J_k = [0, c, 0, -c],  c = t_k x aB,
    K_k = c . (IA^-1 + IB^-1) c.
J = [0, c, 0, -c] is the angular row of axis -c. The two rows are solved as a 2x2 block.
"""

from ..jit import helper

from ..mathx import cross, dot, neg
from ..rows import make_block, row_angular, set_equality


@helper
def hinge_axis(r0, a, b, t0, t1, axis_b, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    soft = (S[0], S[1], S[2])
    for k in range(2):
        t = t0 if k == 0 else t1
        row_angular(r0 + k, a, b, neg(cross(t, axis_b)), R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_equality(r0 + k, dot(t, axis_b), soft, R_p)
    make_block(r0, 2, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
