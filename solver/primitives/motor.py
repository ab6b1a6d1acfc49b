"""Linear motor: drive the slide speed t . (vB + wB x rB - vA - wA x sA) toward v_target.

Same J as plane; bias = -v_target and |lambda| <= F_max h per substep
(docs/point-constraints.md, "Prismatic").
"""

from ..jit import helper

from ..rows import row_axis, set_motor


@helper(inline=True)
def motor(r, a, b, t, arm_a, arm_b, speed, max_force, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    row_axis(r, a, b, t, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_motor(r, speed, max_force * S[3], R_p)
