"""Fill one joint's block of rows for this substep."""

from numba import njit

from ..rows import ACTIVE
from .angular_motor import prepare_angular_motor
from .ball_socket import prepare_ball_socket
from .distance import prepare_distance
from .fixed import prepare_fixed
from .frames import joint_pose
from .hinge import prepare_hinge
from .layout import (ANGULAR_MOTOR, BALL, BROKEN, DISTANCE, ENABLED, FIXED, FLAGS, HINGE,
                     MAX_ROWS, PRISMATIC, RAGDOLL, ROPE, TYPE)
from .prismatic import prepare_prismatic
from .ragdoll import prepare_ragdoll
from .rope import prepare_rope


@njit(cache=True)
def prepare_joint(j, jt, jf, S, R, B):
    r0 = j * MAX_ROWS
    rp = R[3]
    for k in range(MAX_ROWS):
        rp[r0 + k, ACTIVE] = 0.0
    flags = jt[j, FLAGS]
    if not flags & ENABLED or flags & BROKEN:
        return
    a, b, xa, xb, ra, rb, pa, pb, fa, fb = joint_pose(j, jt, jf, B[0])
    kind = jt[j, TYPE]
    if kind == BALL:
        prepare_ball_socket(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R, B)
    elif kind == HINGE:
        prepare_hinge(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R, B)
    elif kind == PRISMATIC:
        prepare_prismatic(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, fb, S, R, B)
    elif kind == FIXED:
        prepare_fixed(r0, a, b, ra, rb, pa, pb, fa, fb, S, R, B)
    elif kind == DISTANCE:
        prepare_distance(r0, j, flags, jf, a, b, ra, rb, pa, pb, S, R, B)
    elif kind == ROPE:
        prepare_rope(r0, j, jf, a, b, ra, rb, pa, pb, S, R, B)
    elif kind == RAGDOLL:
        prepare_ragdoll(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R, B)
    elif kind == ANGULAR_MOTOR:
        prepare_angular_motor(r0, j, jf, a, b, fa, S, R, B)
