"""Rack and pinion: couples a hinge (the pinion) and a prismatic (the rack) so that
slide = ratio x angle (Jolt's rack and pinion constraint; Nape's AngleJoint with a ratio,
with one angle replaced by a slide; docs/mechanisms.md, Coupled coordinates).

theta is the hinge's angle (unwrapped as in gear.py), s the prismatic's displacement
t . (pB - pA) along its axis t (carried by its A side), rho the ratio (a pinion of radius r
meshing with its rack has rho = r). The hinge's B body (the pinion) and the prismatic's B
body (the rack) are coupled:

    C  = s - rho theta - c0 = 0
    C* = t . (vR + wR x rR) - rho a . wP
    J  = [0, -rho a, t, rR x t]   over (pinion, rack)      (primitives/coupling.py)
    K  = rho^2 a . IP^-1 a + 1/mR + (rR x t) . IR^-1 (rR x t)

exact while the two joints' A sides stand still (the world or a frame at rest), as for the
gear. Row 0 only.
"""

from ..jit import helper

from ..mathx import cross, dot, qaxis, scale, sub
from ..primitives.coupling import coupling
from .frames import joint_pose
from .gear import hinge_state, linked, tracked_angle
from .layout import LINK_A, LINK_B, OFFSET, RATIO, TRACK_A


@helper
def prepare_rack_and_pinion(r0, j, jt, jf, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    hinge = int(jf[j, LINK_A])
    slider = int(jf[j, LINK_B])
    if not (linked(jt, hinge) and linked(jt, slider)):
        return
    pinion, axis, angle = hinge_state(hinge, jt, jf, B_s)
    pose = joint_pose(slider, jt, jf, B_s)
    t = qaxis(pose[8], 0)
    slide = dot(t, sub(pose[7], pose[6]))
    rho = jf[j, RATIO]
    c = slide - rho * tracked_angle(jf, j, TRACK_A, angle) - jf[j, OFFSET]
    coupling(r0, pinion, pose[1], (0.0, 0.0, 0.0), scale(axis, -rho), t, cross(pose[5], t), c, S,
             R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
