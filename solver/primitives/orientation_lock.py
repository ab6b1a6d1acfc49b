"""Orientation lock: all three relative rotations fixed (docs/angular-constraints.md).

With the joint frames fA (on A) and fB (on B) equal at creation, the error rotation is
q_err = fB fA^-1 and C = its rotation vector (≈ 2 Im(q_err)), one row per world axis e_i:
    C*_i = e_i . (wB - wA),  J_i = [0, -e_i, 0, e_i],  K_i = e_i . (IA^-1 + IB^-1) e_i;
the three rows are solved as one block with K = IA^-1 + IB^-1.
"""

from ..jit import helper

from ..mathx import qconj, qmul, qrotation_vector
from ..rows import make_block, row_angular, set_equality


@helper
def orientation_lock(r0, a, b, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    err = qrotation_vector(qmul(fb, qconj(fa)))
    soft = (S[0], S[1], S[2])
    for i in range(3):
        e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
        row_angular(r0 + i, a, b, e, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_equality(r0 + i, err[i], soft, R_p)
    make_block(r0, 3, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
