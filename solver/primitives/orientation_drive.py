"""Orientation drive: a soft spring pulling B's frame toward a target orientation relative to A.

The target is a fixed rotation T of B's frame in A's frame, so the goal orientation of B's
frame in the world is fA T and the error rotation is q_err = fB (fA T)^-1. As in the
orientation lock, C = its rotation vector (world), one row per world axis e_i:
    C_i = rotvec(q_err)_i,  J_i = [0, -e_i, 0, e_i],  K_i = e_i . (IA^-1 + IB^-1) e_i;
but each row is a spring-damper at (hertz, damping ratio) (docs/rows.md), not a rigid
equality, and its impulse per substep is clamped to max_torque * h about each world axis.
Rows stay scalar (no block) so the clamps act on each axis on its own.
"""

from ..jit import helper

from ..mathx import qconj, qmul, qrotation_vector
from ..rows import HI, LO, row_angular, set_spring


@helper
def orientation_drive(r0, a, b, fa, fb, target, hertz, damping_ratio, max_torque, S, R_b, R_j, R_d,
                      R_p, R_k, B_s, B_inv, B_I):
    err = qrotation_vector(qmul(fb, qconj(qmul(fa, target))))
    cap = max_torque * S[3]
    for i in range(3):
        e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
        row_angular(r0 + i, a, b, e, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_spring(r0 + i, err[i], hertz, damping_ratio, S[3], R_p)
        R_p[r0 + i, LO] = -cap
        R_p[r0 + i, HI] = cap
