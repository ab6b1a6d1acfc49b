"""Hinge motor: drive a . (wB - wA) toward omega_target with |torque| <= T_max.

J = [0, -a, 0, a], bias = -omega_target, lambda in [-T_max h, T_max h]
(docs/angular-constraints.md). The standalone angular motor joint is this row alone.
"""

from ..jit import helper

from ..rows import row_angular, set_motor


@helper
def hinge_motor(r, a, b, axis, speed, max_torque, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    row_angular(r, a, b, axis, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_motor(r, speed, max_torque * S[3], R_p)
