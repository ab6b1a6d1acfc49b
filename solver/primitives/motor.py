"""Linear motor: drive the slide speed t . (vB + wB x rB - vA - wA x sA) toward v_target.

Same J as plane; bias = -v_target and |lambda| <= F_max h per substep (plane.md, "Motor").
"""

from ..jit import helper

from ..rows import row_axis, set_motor


@helper(inline=True)
def motor(r, a, b, t, arm_a, arm_b, speed, max_force, S, R, B):
    row_axis(r, a, b, t, arm_a, arm_b, R, B)
    set_motor(r, speed, max_force * S[3], R[3])
