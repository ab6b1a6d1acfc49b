"""Fill one joint's block of rows for this substep."""

from ..jit import helper

from ..rows import ACTIVE
from .angular_motor import prepare_angular_motor
from .ball_socket import prepare_ball_socket
from .distance import prepare_distance
from .fixed import prepare_fixed
from .frames import joint_pose
from .gear import prepare_gear
from .hinge import prepare_hinge
from .layout import (ANGULAR_MOTOR, BALL, BROKEN, DISTANCE, ENABLED, FIXED, FLAGS, GEAR, HINGE,
                     LINE, MAX_ROWS, PATH, PRISMATIC, PULLEY, RACK_AND_PINION, RAGDOLL, ROPE,
                     TYPE, WHEEL)
from .layout import CUSTOM, PIN
from .line import prepare_line
from .pin import prepare_pin
from .path import prepare_path
from .prismatic import prepare_prismatic
from .pulley import prepare_pulley
from .rack_and_pinion import prepare_rack_and_pinion
from .ragdoll import prepare_ragdoll
from .rope import prepare_rope
from .wheel import prepare_wheel


@helper
def prepare_joint(j, jt, jf, jpts, S, R, B):
    """Fill joint j's rows. R = (rb, rj, rd, rp, rk) rows, B = (bs, binv, bI) bodies, jpts
    the paths' points (path.py)."""
    prepare_joint_rows(j, jt, jf, jpts, S, *R, *B)


@helper
def prepare_joint_rows(j, jt, jf, jpts, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """`prepare_joint` with the row and body arrays passed one by one, as every joint,
    primitive and row function below takes them (R_b, R_j, R_d, R_p, R_k: the row tables of
    rows.py; B_s, B_inv, B_I: body state, inverse mass, world inverse inertia). An array
    taken out of a tuple is a new reference to numba: each R[3] cost an atomic increment and
    decrement of the array's reference count, 500 of them per joint prepare once the
    functions were no longer inlined at numba's IR level (20 ragdolls: 12.2 -> 14.1 ms a
    frame); arrays passed as arguments are borrowed and cost nothing."""
    r0 = j * MAX_ROWS
    for k in range(MAX_ROWS):
        R_p[r0 + k, ACTIVE] = 0.0
    flags = jt[j, FLAGS]
    if not flags & ENABLED or flags & BROKEN or jt[j, TYPE] == CUSTOM:   # custom: custom.py
        return
    a, b, xa, xb, ra, rb, pa, pb, fa, fb = joint_pose(j, jt, jf, B_s)
    kind = jt[j, TYPE]
    if kind == BALL:
        prepare_ball_socket(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p,
                            R_k, B_s, B_inv, B_I)
    elif kind == HINGE:
        prepare_hinge(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                      B_s, B_inv, B_I)
    elif kind == PRISMATIC:
        prepare_prismatic(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p,
                          R_k, B_s, B_inv, B_I)
    elif kind == FIXED:
        prepare_fixed(r0, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                      B_I)
    elif kind == DISTANCE:
        prepare_distance(r0, j, flags, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                         B_inv, B_I)
    elif kind == ROPE:
        prepare_rope(r0, j, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    elif kind == RAGDOLL:
        prepare_ragdoll(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                        B_s, B_inv, B_I)
    elif kind == ANGULAR_MOTOR:
        prepare_angular_motor(r0, j, jf, a, b, fa, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    elif kind == PIN:
        prepare_pin(r0, j, flags, jf, b, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                    B_inv, B_I)
    elif kind >= GEAR:
        prepare_mechanism(r0, j, kind, flags, jt, jf, jpts, a, b, xa, ra, rb, pa, pb, fa, fb, S,
                          R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)


@helper(outline=True)
def prepare_mechanism(r0, j, kind, flags, jt, jf, jpts, a, b, xa, ra, rb, pa, pb, fa, fb, S, R_b,
                      R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """The mechanism joints, out of line so the common joints' prepare stays as
    it was."""
    if kind == GEAR:
        prepare_gear(r0, j, flags, jt, jf, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    elif kind == RACK_AND_PINION:
        prepare_rack_and_pinion(r0, j, jt, jf, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    elif kind == PULLEY:
        prepare_pulley(r0, j, flags, jt, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k,
                       B_s, B_inv, B_I)
    elif kind == LINE:
        prepare_line(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s,
                     B_inv, B_I)
    elif kind == WHEEL:
        prepare_wheel(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                      B_s, B_inv, B_I)
    elif kind == PATH:
        prepare_path(r0, j, flags, jf, jpts, b, rb, pb, fb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                     B_inv, B_I)
