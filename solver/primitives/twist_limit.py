"""Twist limit: bounds on the signed rotation about the (moving) bone axis
(docs/angular-constraints.md).

twist_angle comes from q = swing * twist. The axis is the bisector of A's and B's twist axes,
so the row measures relative spin about the bone even when swung:
    C = twist - lower >= 0  (J = [0, -a, 0, a])  and  C = upper - twist >= 0  (a -> -a).
Both are hinge_limit rows.
"""

from ..jit import helper

from ..mathx import add, neg, normalize, length
from .hinge_limit import hinge_limit


@helper
def twist_axis(axis_a, axis_b):
    s = add(axis_a, axis_b)
    if length(s) < 1e-6:
        return axis_b
    return normalize(s)


@helper(inline=True)
def twist_limit(r_lower, r_upper, a, b, axis, twist, lower, upper, S, R_b, R_j, R_d, R_p, R_k, B_s,
                B_inv, B_I):
    hinge_limit(r_lower, a, b, axis, twist - lower, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    hinge_limit(r_upper, a, b, neg(axis), upper - twist, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                B_I)
