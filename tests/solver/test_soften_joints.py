"""What a schedule preparing an articulation island's joint rows once a substep (issue 44
item 2) can rely on, and what it cannot (docs/performance.md, "Joint rows kept across
substeps: the difference found").

The step prepares the joint rows twice a substep: at its start with the soft coefficients S
(the solve pass's), after the move with BIAS = C (S_error: the position check, the projection,
the relax pass). An island the position check leaves unprojected does not move in between,
so the second preparation's rows could serve the next solve pass. They are a fresh
preparation's rows once (1) the soft coefficients are put on the rows `set_equality` drives
(TARGET = 0: equalities and violated limits; a speculative limit's TARGET = C / h is the same
under both) and (2) their masses (rd, EFF) are refreshed for the inertia the bodies have by
then: the step renews it each substep with the geometric stiffness of the joints' latest
loads. Rows kept with the inertia they were made with (the first attempt, branch lean44)
differ by that renewal, 0.05 to 1 % of a row's effective mass a substep for 20 ragdolls at
rest and up to 60 % in the landing, and left one ragdoll's arm swinging."""

import math

import numpy as np

import solver as lg
from solver.bodies import update_world_inertia
from solver.joints.layout import MAX_ROWS
from solver.rows import (ACTIVE, BIAS, BLOCK, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE, SPRING,
                         TARGET, new_rows, soft_coefficients)
from solver.step import prepare_joints

H = 1.0 / 240.0


def _articulated():
    """A chain of ball sockets, limited hinges and ragdoll joints, its bodies pushed off their
    joints and turned so that some limits are violated, some speculative."""
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


def _soften(R, S):
    """Rows prepared with S_error given the soft coefficients S where `set_equality` drives
    them, as `set_equality` would (BIAS = S[0] C)."""
    rp = R[3]
    driven = (rp[:, ACTIVE] != 0.0) & (rp[:, TARGET] == 0.0) & (rp[:, SPRING] == 0.0)
    rp[driven, BIAS] = S[0] * rp[driven, BIAS]
    rp[driven, MASS_SCALE] = S[1]
    rp[driven, IMPULSE_SCALE] = S[2]


def _masses(R, w, bI):
    """(rd, EFF) of the rows' stored Jacobians for the inverse inertia bI."""
    rb, rj = R[0], R[1]
    binv = w._binv.view
    rd = np.zeros((rb.shape[0], 6))
    eff = np.zeros(rb.shape[0])
    for r in range(rb.shape[0]):
        k = 0.0
        for side in range(2):
            body = rb[r, side]
            if body < 0:
                continue
            jv, jw = rj[r, 6 * side:6 * side + 3], rj[r, 6 * side + 3:6 * side + 6]
            rd[r, 3 * side:3 * side + 3] = bI[body].reshape(3, 3) @ jw
            k += binv[body] * jv @ jv + jw @ rd[r, 3 * side:3 * side + 3]
        eff[r] = 1.0 / k if k > 0.0 else 0.0
    return rd, eff


def test_rows_prepared_for_the_position_check_softened_are_the_solve_pass_rows():
    w = _articulated()
    soft = soft_coefficients(w.joint_hertz, w.joint_damping_ratio, H)
    S = (soft[0], soft[1], soft[2], H, 1.0 / H)
    S_error = (1.0, 1.0, 0.0, H, 1.0 / H)
    moved, renewed = _inertias(w)
    fresh = _prepare(w, S, renewed)
    rp = fresh[3]
    active = rp[:, ACTIVE] != 0.0
    # the scene has what the softening must tell apart: equality rows, violated limits
    # (driven like equalities) and speculative ones, and errors to correct
    limit = active & (rp[:, LO] == 0.0) & (rp[:, HI] == math.inf)
    assert (limit & (rp[:, TARGET] > 0.0)).any()
    assert (limit & (rp[:, TARGET] == 0.0) & (rp[:, BIAS] < 0.0)).any()
    assert (np.abs(rp[active, BIAS]) > 1e-4).any()
    kept = _prepare(w, S_error, moved)
    _soften(kept, S)
    # everything but the masses and blocks is the fresh rows' to the bit
    assert np.array_equal(active, kept[3][:, ACTIVE] != 0.0)
    assert np.array_equal(fresh[0][active], kept[0][active])
    assert np.array_equal(fresh[1][active], kept[1][active])
    columns = [c for c in range(rp.shape[1]) if c not in (EFF, BLOCK)]
    assert np.array_equal(rp[active][:, columns], kept[3][active][:, columns])
    # the masses: those of the inertia the rows were made with, until refreshed
    rd, eff = _masses(kept, w, renewed)
    assert np.allclose(rd[active], fresh[2][active], rtol=1e-12, atol=0.0)
    assert np.allclose(eff[active], rp[active, EFF], rtol=1e-12, atol=0.0)
    change = np.abs(kept[3][active, EFF] / rp[active, EFF] - 1.0)
    assert change.max() > 1e-3
