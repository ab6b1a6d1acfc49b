"""World-space anchors and frames of a joint's two sides (the static world for id -1)."""

from ..jit import helper

from ..bodies import POS, ROT
from ..mathx import add, qmul, qrotate, quat_at, vec3_at
from .layout import ANCHOR_A, ANCHOR_B, BODY_A, BODY_B, FRAME_A, FRAME_B


@helper
def body_pose(bs, i):
    if i < 0:
        return (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
    return vec3_at(bs, i, POS), quat_at(bs, i, ROT)


@helper
def joint_pose(j, jt, jf, bs):
    """(a, b, xA, xB, rA, rB, pA, pB, fA, fB): bodies, centres, anchor arms, anchors, frames."""
    a = jt[j, BODY_A]
    b = jt[j, BODY_B]
    xa, qa = body_pose(bs, a)
    xb, qb = body_pose(bs, b)
    ra = qrotate(qa, vec3_at(jf, j, ANCHOR_A))
    rb = qrotate(qb, vec3_at(jf, j, ANCHOR_B))
    fa = qmul(qa, quat_at(jf, j, FRAME_A))
    fb = qmul(qb, quat_at(jf, j, FRAME_B))
    return a, b, xa, xb, ra, rb, add(xa, ra), add(xb, rb), fa, fb
