"""Hinge angle limit: a one-sided bound on the relative angle about the hinge axis a.

theta comes from the joint frames (twist of fA^-1 fB about a). For theta >= theta_min:
    C = theta - theta_min >= 0,  C* = a . (wB - wA),  J = [0, -a, 0, a],  lambda >= 0.
The upper bound theta_max - theta >= 0 is the same row with a -> -a. Speculative while
C > 0, like every limit row.
"""

from ..jit import helper

from ..rows import row_angular, set_lower_limit


@helper
def hinge_limit(r, a, b, axis, c, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    row_angular(r, a, b, axis, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_lower_limit(r, c, (S[0], S[1], S[2]), S[4], R_p)
