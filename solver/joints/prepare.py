"""Fill one joint's block of rows for this substep."""

from ..jit import helper

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


@helper
def prepare_joint(j, jt, jf, S, R, B):
    """Fill joint j's rows. R = (rb, rj, rd, rp, rk) rows, B = (bs, binv, bI) bodies."""
    prepare_joint_rows(j, jt, jf, S, *R, *B)


@helper
def prepare_joint_rows(j, jt, jf, S, row_b, row_j, row_d, row_p, row_k, bs, binv, bI):
    """`prepare_joint` with the row and body arrays passed one by one: numba reads arrays
    held in a tuple argument several times slower than arrays passed on their own (tuples
    built here, inside the kernel, cost nothing)."""
    R = (row_b, row_j, row_d, row_p, row_k)
    B = (bs, binv, bI)
    r0 = j * MAX_ROWS
    for k in range(MAX_ROWS):
        row_p[r0 + k, ACTIVE] = 0.0
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
