"""Spring rows: a soft equality that pulls C toward 0 at (frequency, damping ratio).

Used on the free coordinate of hinges (angle, J = [0, -a, 0, a]), prismatics and distance
joints (plane J along the axis). docs/rows.md: the implicit spring-damper becomes a
bias rate, a mass scale and an impulse scale; the row keeps them in both solve and relax.
"""

from ..jit import helper

from ..rows import row_angular, row_axis, set_spring


@helper(inline=True)
def angular_spring(r, a, b, axis, c, hertz, damping_ratio, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                   B_I):
    row_angular(r, a, b, axis, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_spring(r, c, hertz, damping_ratio, S[3], R_p)


@helper
def linear_spring(r, a, b, t, arm_a, arm_b, c, hertz, damping_ratio, S, R_b, R_j, R_d, R_p, R_k,
                  B_s, B_inv, B_I):
    row_axis(r, a, b, t, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_spring(r, c, hertz, damping_ratio, S[3], R_p)
