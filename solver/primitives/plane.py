"""Plane: t . p = 0 removes translation along t (docs/point-constraints.md).

    C  = t . p,  p = pB - pA = (xB + rB) - (xA + rA)
    C* = -t . vA + wA . (t x sA) + t . vB + wB . (rB x t)
    J  = [-t, t x sA, t, rB x t]
    K  = 1/mA + 1/mB + (t x sA) . IA^-1 (t x sA) + (rB x t) . IB^-1 (rB x t)

sA = pB - xA when t is attached to A (its rotation with A is part of C*); for an axis fixed
in the world (ball-socket's x, y, z) t* = 0 and the arm is rA itself.
"""

from ..jit import helper

from ..rows import row_axis, set_equality


@helper
def plane(r, a, b, t, arm_a, arm_b, c, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    row_axis(r, a, b, t, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_equality(r, c, (S[0], S[1], S[2]), R_p)
