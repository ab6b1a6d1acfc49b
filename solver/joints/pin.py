"""Pin: a body's point (and, optionally, its orientation) pulled to a target that moves.

A pin is a ball-socket (plus an orientation lock) to the static world whose world side
moves. Side A is the world: its anchor ANCHOR_A is the target point T and its frame FRAME_A
the target orientation fT, both moved by the step every substep (`move_pins`: on the
straight line, and the shortest arc, from where the target was at the frame's start to where
`World.set_pin_target` put it for the frame's end). With v_T and w_T the target's velocity
and spin over the frame, and the same plane and angular rows as the ball-socket and the
orientation lock (docs/point-constraints.md, docs/angular-constraints.md):

    C   = pB - T,                 C*   = vB + wB x rB - v_T,   J_i = [0, 0, e_i, rB x e_i]
    C_i = rotvec(fB fT^-1)_i,     C*_i = e_i . (wB - w_T),     J_i = [0, 0, 0, e_i]

(rows 0-2 the point, rows 3-5 the orientation, each three solved as one block). A rigid
pin's rows aim at the target's own motion, TARGET = -e_i . v_T (and -e_i . w_T), so it
carries the body along at the target's speed (the relax pass leaves the point moving with
the target, not at rest). A soft pin's rows aim at rest (the v_T terms dropped): its damper
acts on the body's own velocity, as in the textbook spring-damper m x'' + c x' + k x = k X(t)
whose step response the pin follows (Box2D's mouse joint is the same); a damper on the
velocity relative to the target would also kick the body by c times the target's jump.

    hertz 0      rigid, with the joints' softness: without a force limit an equality the
                 direct solver holds exactly (direct.py), its position error projected away
                 every substep
    hertz > 0    a spring-damper of (hertz, damping ratio) over each block's effective mass
                 (rows.set_spring): a body pinned at its centre of mass follows a step of the
                 target as a mass on a spring of that frequency and ratio
    max_force    > 0: the point's three impulses are capped as one vector at max_force h per
                 substep (rows.ROUND), so the force never exceeds it in any direction; the
                 orientation's torque likewise at max_torque

A rigid pin with a cap is a spring too, as stiff as the substep allows (STIFF times the
substep rate, critically damped, its rows aiming at the target's motion): a rigid row's
position correction is a velocity the relax pass takes away again, so a capped rigid row far
from its target would pull the body there without ever letting it gain speed, where the cap
should accelerate it at max_force / mass (Newton's second law, tests/solver/test_pins.py). A
spring keeps its pull in both passes; at a quarter of the substep rate it sags by
load / (mass (2 pi 0.25 / h)^2), 1.8e-5 m for 10 N on 1 kg at 480 substeps a second.
"""

from ..jit import helper

from ..mathx import add, qconj, qintegrate, qmul, qrotation_vector, quat_at, scale, store4, \
    sub, vec3_at
from ..rows import TARGET, clamp_round, make_block, row_angular, set_spring
from .ball_socket import point_rows
from ..primitives.orientation_lock import orientation_lock
from ..primitives.plane import plane
from .layout import (ANCHOR_A, PIN, PIN_DAMPING, PIN_END, PIN_HZ, PIN_MAX_FORCE,
                     PIN_MAX_TORQUE, PIN_ORIENTATION, PIN_START, PIN_VELOCITY, TYPE)

STIFF = 0.25        # a capped rigid pin's spring, in substep rates (the header)


@helper(outline=True)
def move_pins(joints, jt, jf, t, dt):
    """Each pin's target (its world side's anchor and frame) at fraction t of the frame of
    length dt, and the target's velocity and spin over the frame."""
    for j in joints:
        if jt[j, TYPE] != PIN:
            continue
        p0 = vec3_at(jf, j, PIN_START)
        p1 = vec3_at(jf, j, PIN_END)
        q0 = quat_at(jf, j, PIN_START + 3)
        v = scale(sub(p1, p0), 1.0 / dt)
        w = scale(qrotation_vector(qmul(quat_at(jf, j, PIN_END + 3), qconj(q0))), 1.0 / dt)
        p = add(p0, scale(sub(p1, p0), t))
        for k in range(3):
            jf[j, ANCHOR_A + k] = p[k]
            jf[j, PIN_VELOCITY + k] = v[k]
            jf[j, PIN_VELOCITY + 3 + k] = w[k]
        store4(jf, j, ANCHOR_A + 3, qintegrate(q0, w, t * dt))


@helper
def _follow(r0, velocity, rp):
    """Rigid rows r0..r0+2 along the world axes aim at the target's velocity (the header)."""
    for i in range(3):
        rp[r0 + i, TARGET] = -velocity[i]


@helper(outline=True)
def prepare_pin(r0, j, flags, jf, b, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                B_inv, B_I):
    hz = jf[j, PIN_HZ]
    zeta = jf[j, PIN_DAMPING]
    h = S[3]
    stiff = STIFF * S[4]
    # the point
    capped = jf[j, PIN_MAX_FORCE] > 0.0
    if hz > 0.0 or capped:
        f, z = (hz, zeta) if hz > 0.0 else (stiff, 1.0)
        p = sub(pb, pa)
        for i in range(3):
            e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
            plane(r0 + i, -1, b, e, pa, rb, p[i], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
            set_spring(r0 + i, p[i], f, z, False, h, R_p)
        make_block(r0, 3, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    else:
        point_rows(r0, -1, b, pa, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if hz == 0.0:
        _follow(r0, vec3_at(jf, j, PIN_VELOCITY), R_p)
    if capped:
        clamp_round(r0, 3, jf[j, PIN_MAX_FORCE] * h, R_p)
    if not flags & PIN_ORIENTATION:
        return
    # the orientation
    capped = jf[j, PIN_MAX_TORQUE] > 0.0
    if hz > 0.0 or capped:
        f, z = (hz, zeta) if hz > 0.0 else (stiff, 1.0)
        err = qrotation_vector(qmul(fb, qconj(fa)))
        for i in range(3):
            e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
            row_angular(r0 + 3 + i, -1, b, e, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
            set_spring(r0 + 3 + i, err[i], f, z, False, h, R_p)
        make_block(r0 + 3, 3, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    else:
        orientation_lock(r0 + 3, -1, b, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if hz == 0.0:
        _follow(r0 + 3, vec3_at(jf, j, PIN_VELOCITY + 3), R_p)
    if capped:
        clamp_round(r0 + 3, 3, jf[j, PIN_MAX_TORQUE] * h, R_p)
