"""Gear: couples two hinges so that angle_B = -ratio x angle_A (Nape's AngleJoint with a
ratio; Jolt's gear constraint; derived in docs/mechanisms.md, Coupled coordinates), or holds their weighted sum in a
range.

The coupled coordinate is c = theta_B + rho theta_A, with theta_A, theta_B the two hinges'
angles (twist of fA^-1 fB about the hinge axis, as the hinge's limit measures it) and rho the
ratio. The hinges' B bodies turn: with a_A, a_B the hinge axes (world, carried by each hinge's
frame on its A side)

    C  = c - c0 = 0            (or c - lower >= 0 and upper - c >= 0)
    C* = rho a_A . wB_A + a_B . wB_B
    J  = [0, rho a_A, 0, a_B]  over the two B bodies (primitives/coupling.py)
    K  = rho^2 a_A . I_A^-1 a_A + a_B . I_B^-1 a_B

C* is the rate of c when the hinges' A sides do not turn about their axes (the world, or a
frame at rest): a row has two bodies, so a spinning carrier's own rotation is not in J (its
drift is still removed through C). The hinge angles are unwrapped here (TRACK_A, TRACK_B
keep the running angle across turns), so C stays continuous over many revolutions and the
exact solve's position projection (direct.py) removes any drift of the coupled angles.

Rows: 0 the equality, or 0 lower and 1 upper.
"""

from ..jit import helper

from ..mathx import qaxis, scale, wrap_angle
from ..primitives.coupling import coupling_range
from .frames import joint_pose
from .hinge import hinge_angle
from .layout import (BROKEN, ENABLED, FLAGS, HAS_LOWER, HAS_UPPER, LINK_A, LINK_B, LOWER, OFFSET,
                     RATIO, TRACK_A, TRACK_B, UPPER)


@helper
def linked(jt, link):
    """Whether the coupled joint still acts (not removed, not broken)."""
    flags = jt[link, FLAGS]
    return (flags & ENABLED) != 0 and (flags & BROKEN) == 0


@helper
def tracked_angle(jf, j, col, angle):
    """The unwrapped angle: last value plus the wrapped change (turns of less than pi per
    prepare), written back for the next prepare."""
    u = jf[j, col]
    u += wrap_angle(angle - u)
    jf[j, col] = u
    return u


@helper
def hinge_state(link, jt, jf, B_s):
    """(B body, axis, angle) of hinge `link`."""
    pose = joint_pose(link, jt, jf, B_s)
    return pose[1], qaxis(pose[8], 0), hinge_angle(pose[8], pose[9])


@helper
def prepare_gear(r0, j, flags, jt, jf, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    la = int(jf[j, LINK_A])
    lb = int(jf[j, LINK_B])
    if not (linked(jt, la) and linked(jt, lb)):
        return
    ba, axis_a, angle_a = hinge_state(la, jt, jf, B_s)
    bb, axis_b, angle_b = hinge_state(lb, jt, jf, B_s)
    rho = jf[j, RATIO]
    c = tracked_angle(jf, j, TRACK_B, angle_b) + rho * tracked_angle(jf, j, TRACK_A, angle_a)
    z = (0.0, 0.0, 0.0)
    coupling_range(r0, ba, bb, z, scale(axis_a, rho), z, axis_b, c, jf[j, OFFSET],
                   (flags & HAS_LOWER) != 0, jf[j, LOWER], (flags & HAS_UPPER) != 0, jf[j, UPPER],
                   S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
