"""The optional orientation drive a ball-socket or ragdoll joint carries in 3 slots, held by
the joint's anchor rows e0..e0+2 (primitives/orientation_drive.py)."""

from ..jit import helper

from ..mathx import quat_at
from ..primitives.orientation_drive import orientation_drive
from .layout import DRIVE_DAMPING, DRIVE_HZ, DRIVE_MAX, DRIVE_TARGET, HAS_DRIVE


@helper
def prepare_drive(r0, j, flags, jf, a, b, fa, fb, e0, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                  B_I):
    if flags & HAS_DRIVE:
        orientation_drive(r0, a, b, fa, fb, quat_at(jf, j, DRIVE_TARGET), jf[j, DRIVE_HZ],
                          jf[j, DRIVE_DAMPING], jf[j, DRIVE_MAX], e0, 3, S, R_b, R_j, R_d, R_p,
                          R_k, B_s, B_inv, B_I)
