"""The lean substep schedule's one joint preparation a substep (issue 44 item 2, step.py
`soften_joint`): an island of ball sockets, hinges and ragdoll joints that the position check
leaves unprojected keeps the rows prepared after the move (BIAS = C, S_error) for the next
substep's solve pass, with the soft coefficients applied and the masses refreshed for the
inertia renewed since. Those rows must be the rows a fresh preparation with the soft
coefficients gives at the same poses and that inertia, to the bit: then the schedule steps
exactly as preparing twice does (bench/frame_cpu.py: the same state hash as main). Rows kept
with the inertia they were made with (the first attempt, docs/performance.md "Joint rows kept
across substeps") are not, and left a crowd of ragdolls swinging."""

import math

import numpy as np

import solver as lg
from solver.bodies import update_world_inertia
from solver.joints.layout import MAX_ROWS
from solver.rows import (ACTIVE, BIAS, BLOCK, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE,
                         TARGET, new_rows, soft_coefficients)
from solver.step import prepare_joints, soften_joints

H = 1.0 / 240.0


def _articulated():
    """A tumbling chain of ball sockets, limited hinges and ragdoll joints, its bodies pushed
    off their joints and turned so that some limits are violated, some speculative."""
    rng = np.random.default_rng(11)
    w = lg.World(gravity=(0, 0, -9.81))
    bodies = [w.add_body(lg.Capsule(0.04, 0.12), (0.32 * k, 0, 1), mass=1.0 + 0.5 * k)
              for k in range(7)]
    w.add_ball_socket(None, bodies[0], (-0.16, 0, 1))
    for k in range(6):
        a, b, anchor = bodies[k], bodies[k + 1], (0.32 * k + 0.16, 0, 1)
        if k % 3 == 0:
            w.add_ball_socket(a, b, anchor)
        elif k % 3 == 1:
            w.add_hinge(a, b, anchor, (0, 1, 0), lower=-0.05, upper=0.05)
        else:
            w.add_ragdoll(a, b, anchor, (1, 0, 0), swing1=0.1, swing2=0.05,
                          twist_lower=-0.02, twist_upper=0.02)
    for i in bodies:
        w.positions[i] += rng.normal(size=3) * 0.01
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = 0.3 * rng.random()
        turn = np.array([math.cos(angle / 2), *(math.sin(angle / 2) * axis)])
        q = w.orientations[i]
        w.orientations[i] = (turn[0] * q[0] - turn[1:] @ q[1:],
                             *(turn[0] * q[1:] + q[0] * turn[1:] + np.cross(turn[1:], q[1:])))
    return w


def _inertias(w):
    """The world inverse inertia at the poses, and the same stiffened as the step's geometric
    stiffness does (I + h^2 kg E, a different kg per body)."""
    bI = np.zeros((w.body_count, 9))
    update_world_inertia(w._bs.view, w._bil.view, w._bkind.view, bI)
    stiff = bI.copy()
    for i in range(w.body_count):
        inertia = np.linalg.inv(bI[i].reshape(3, 3))
        stiff[i] = np.linalg.inv(inertia + H * H * 40.0 * (i + 1) * np.eye(3)).ravel()
    return bI, stiff


def _prepare(w, S, bI):
    R = new_rows(w.joint_count * MAX_ROWS)
    prepare_joints(w._jt.view, w._jf.view, w._jpts.view, w._bkind.view, S, R,
                   (w._bs.view, w._binv.view, bI))
    return R


def _same(fresh, kept):
    """Rows of fresh and kept equal to the bit, in everything the solve passes read (BLOCK:
    the direct solver owns these rows, `mark_direct` sets it after factoring)."""
    rb, rj, rd, rp = fresh[:4]
    active = rp[:, ACTIVE] != 0.0
    columns = [c for c in range(rp.shape[1]) if c != BLOCK]
    return (np.array_equal(active, kept[3][:, ACTIVE] != 0.0)
            and np.array_equal(rb[active], kept[0][active])
            and np.array_equal(rj[active], kept[1][active])
            and np.array_equal(rd[active], kept[2][active])
            and np.array_equal(rp[active][:, columns], kept[3][active][:, columns]))


def test_softened_rows_are_the_rows_a_fresh_preparation_gives():
    w = _articulated()
    soft = soft_coefficients(w.joint_hertz, w.joint_damping_ratio, H)
    S = (soft[0], soft[1], soft[2], H, 1.0 / H)
    S_error = (1.0, 1.0, 0.0, H, 1.0 / H)
    moved, renewed = _inertias(w)
    fresh = _prepare(w, S, renewed)
    rp = fresh[3]
    active = rp[:, ACTIVE] != 0.0
    # the scene has what the softening must tell apart: equality rows, violated limits
    # (driven like equalities) and speculative ones (TARGET = C / h), and errors to correct
    limit = active & (rp[:, LO] == 0.0) & (rp[:, HI] == math.inf)
    assert (limit & (rp[:, TARGET] > 0.0)).any()
    assert (limit & (rp[:, TARGET] == 0.0) & (rp[:, BIAS] < 0.0)).any()
    assert (np.abs(rp[active, BIAS]) > 1e-4).any()
    kept = _prepare(w, S_error, moved)
    soften_joints(np.arange(w.joint_count), S, kept, (w._bs.view, w._binv.view, renewed))
    assert _same(fresh, kept)
    assert (kept[3][active, MASS_SCALE] == soft[1]).any()
    assert (kept[3][active, IMPULSE_SCALE] == soft[2]).any()


def test_rows_kept_with_the_inertia_they_were_made_with_are_not():
    # what the first attempt kept: the soft coefficients right, the masses of the inertia
    # before the renewal; the renewal moves every row's effective mass
    w = _articulated()
    soft = soft_coefficients(w.joint_hertz, w.joint_damping_ratio, H)
    S = (soft[0], soft[1], soft[2], H, 1.0 / H)
    moved, renewed = _inertias(w)
    fresh = _prepare(w, S, renewed)
    stale = _prepare(w, S, moved)
    assert not _same(fresh, stale)
    active = fresh[3][:, ACTIVE] != 0.0
    change = np.abs(stale[3][active, EFF] / fresh[3][active, EFF] - 1.0)
    assert change.max() > 1e-3
