"""Orientation drive: a soft spring pulling B's frame toward a target orientation relative to A.

The target is a fixed rotation T of B's frame in A's frame, so the goal orientation of B's
frame in the world is fA T and the error rotation is q_err = fB (fA T)^-1. As in the
orientation lock, C = its rotation vector (world), one row per world axis e_i:
    C_i = rotvec(q_err)_i,  J_i = [0, -e_i, 0, e_i];
but each row is a spring-damper at (hertz, damping ratio) (docs/rows.md), not a rigid
equality, and its impulse per substep is clamped to max_torque * h about each world axis.

Held by the joint's anchor rows e0..e0+n-1 (`rows.hold`, docs/rows.md "Springs as hung"),
the three rows' K is the Schur complement S = K_dd - K_de K_ee^-1 K_ed: for a body on a
ball-socket to the world, S^-1 is its inertia tensor about the anchor (parallel axis
theorem). The rows are solved as one soft block with that K, so the drive's stiffness is the
tensor I_anchor omega^2 and every direction of the hung body swings at `hertz`; the block's
impulses are then clamped axis by axis.
"""

from ..jit import helper

from ..mathx import qconj, qmul, qrotation_vector
from ..rows import clamp, hold, make_block, row_angular, set_spring


@helper
def orientation_drive(r0, a, b, fa, fb, target, hertz, damping_ratio, max_torque, e0, n, S, R_b,
                      R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    err = qrotation_vector(qmul(fb, qconj(qmul(fa, target))))
    cap = max_torque * S[3]
    for i in range(3):
        e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
        row_angular(r0 + i, a, b, e, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    hold(r0, 3, e0, n, R_b, R_j, R_d, R_p, B_inv)
    for i in range(3):
        set_spring(r0 + i, err[i], hertz, damping_ratio, False, S[3], R_p)
        clamp(r0 + i, cap, R_p)
    make_block(r0, 3, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
