"""Limit: a one-sided bound on a displacement along an axis (docs/point-constraints.md, "Limits").

The bound C = t . p - s_min >= 0 has the plane Jacobian J = [-t, t x sA, t, rB x t] and
lambda >= 0. An upper bound s_max - t . p >= 0 is the same row with t -> -t, so callers pass
(-t, s_max - t.p). While C > 0 the row is speculative: it lets the bodies close the gap C in
this substep but no further.
"""

from ..jit import helper

from ..rows import row_axis, set_lower_limit


@helper
def limit(r, a, b, t, arm_a, arm_b, c, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    row_axis(r, a, b, t, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_lower_limit(r, c, (S[0], S[1], S[2]), S[4], R_p)
