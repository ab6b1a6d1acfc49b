"""The iterative row solver converges to the dense direct solution of J M^-1 J^T lambda = -J u.

Rows are built the way the step builds them (rigid: no bias, no softness), from a state
with non-zero velocities; the iterative sweep then runs many iterations from zero impulses
and must land on the same impulses as solver.reference's dense solve, which takes masses
and inertias from the public World API and solves with numpy.
"""

import numpy as np

import solver as lg
from solver import reference
from solver.bodies import update_world_inertia
from solver.joints.layout import MAX_ROWS
from solver.rows import ACTIVE, HI, LO, new_rows, soft_coefficients
from solver.step import prepare_joints, solve_rows

H = 1.0 / 480.0


def _mechanism():
    """World - hinge - box - ball - capsule - fixed - box - prismatic - sphere, tumbling."""
    rng = np.random.default_rng(7)
    w = lg.World(gravity=(0, 0, -9.81))
    a = w.add_body(lg.Box((0.2, 0.1, 0.05)), (0.2, 0, 1), mass=1.0)
    b = w.add_body(lg.Capsule(0.05, 0.15), (0.6, 0.05, 1), mass=2.0,
                   orientation=(0.9, 0.1, 0.3, 0.2))
    c = w.add_body(lg.Box((0.1, 0.1, 0.1)), (1.0, 0, 1.1), mass=1.5)
    d = w.add_body(lg.Sphere(0.1), (1.4, 0, 1.1), mass=0.7)
    w.add_hinge(None, a, (0, 0, 1), (0, 1, 0))
    w.add_ball_socket(a, b, (0.4, 0, 1))
    w.add_fixed(b, c, (0.8, 0, 1.05))
    w.add_prismatic(c, d, (1.2, 0, 1.1), (1, 0, 0.3))
    for i in range(w.body_count):
        w.linear_velocities[i] = rng.normal(size=3)
        w.angular_velocities[i] = rng.normal(size=3) * 2.0
    return w


def _iterative_impulses(w, iterations):
    bs = w._bs.view.copy()
    binv = w._binv.view
    bI = np.zeros((w.body_count, 9))
    update_world_inertia(bs, w._bil.view, w._bkind.view, bI)
    R = new_rows(w.joint_count * MAX_ROWS)
    prepare_joints(w._jt.view, w._jf.view, w._jpts.view, w._bkind.view,
                   (0.0, 1.0, 0.0, H, 1.0 / H), R,
                   (bs, binv, bI))
    acc = np.zeros(w.joint_count * MAX_ROWS)
    solve_rows(R, acc, (bs, binv, bI), True, iterations)
    return acc, R, bs


def test_iterative_rows_converge_to_the_dense_direct_solution():
    w = _mechanism()
    iterative, R, _ = _iterative_impulses(w, 500)
    direct = reference.direct_impulses(w, h=H)
    active = R[3][:, ACTIVE] != 0.0
    assert active.sum() == 5 + 3 + 6 + 5
    scale = np.max(np.abs(direct))
    err = np.max(np.abs(iterative - direct)) / scale
    assert err < 1e-6, f"iterative vs direct impulses differ by {err:.3g} of the largest"


def test_direct_impulses_remove_every_constrained_velocity():
    w = _mechanism()
    lam = reference.direct_impulses(w, h=H)
    rows = reference.build_rows(w, H)
    R = rows[0]
    active = [r for r in range(w.joint_count * MAX_ROWS) if R[3][r, ACTIVE] != 0.0]
    u = reference.velocities_after(w, lam, rows=rows).reshape(-1)
    J = reference.global_jacobian(w, R, active)
    before = np.abs(J @ reference.body_velocities(w)).max()
    assert before > 0.1
    assert np.abs(J @ u).max() < 1e-9 * before


def test_iterative_solve_leaves_the_direct_solution_velocities():
    w = _mechanism()
    _, _, bs = _iterative_impulses(w, 500)
    lam = reference.direct_impulses(w, h=H)
    u = reference.velocities_after(w, lam, h=H)
    assert np.allclose(bs[:, 7:13], u, atol=1e-6)


def test_soft_rows_converge_to_the_dense_solution_with_their_compliance():
    # With the world's joint softness the sweep's fixed point is (A + D) lambda = -(J u + bias),
    # D the rows' compliance; a position error gives the rows a non-zero bias.
    w = _mechanism()
    w.positions[2] += (0.01, -0.02, 0.005)
    soft = soft_coefficients(w.joint_hertz, w.joint_damping_ratio, H)
    bs = w._bs.view.copy()
    bI = np.zeros((w.body_count, 9))
    update_world_inertia(bs, w._bil.view, w._bkind.view, bI)
    R = new_rows(w.joint_count * MAX_ROWS)
    prepare_joints(w._jt.view, w._jf.view, w._jpts.view, w._bkind.view, (*soft, H, 1.0 / H),
                   R,
                   (bs, w._binv.view, bI))
    acc = np.zeros(w.joint_count * MAX_ROWS)
    solve_rows(R, acc, (bs, w._binv.view, bI), True, 3000)
    direct = reference.direct_impulses(w, h=H, softness=soft)
    err = np.max(np.abs(acc - direct)) / np.max(np.abs(direct))
    assert err < 1e-9, f"soft iterative vs direct impulses differ by {err:.3g}"


def test_limits_and_motors_converge_to_the_dense_boxed_solution():
    # Limits (lambda >= 0, speculative targets) and capped motors make a boxed LCP; projected
    # sweeps and the reference's active-set solve must agree on it.
    rng = np.random.default_rng(5)
    w = lg.World()
    a = w.add_body(lg.Box((0.2, 0.1, 0.05)), (0.2, 0, 1), mass=1.0)
    b = w.add_body(lg.Capsule(0.05, 0.15), (0.6, 0.05, 1), mass=2.0)
    c = w.add_body(lg.Sphere(0.1), (1.0, 0, 1.0), mass=1.5)
    w.add_hinge(None, a, (0, 0, 1), (0, 1, 0), lower=-0.001, upper=0.001, motor_speed=1.0,
                max_motor_torque=5.0)
    w.add_prismatic(a, b, (0.4, 0, 1), (1, 0, 0), lower=-0.001, upper=0.3, motor_speed=-2.0,
                    max_motor_force=3.0)
    w.add_ragdoll(b, c, (0.8, 0, 1), (1, 0, 0), swing1=0.01, swing2=0.01, twist_lower=-0.001,
                  twist_upper=0.001)
    w.add_rope(None, c, (1.0, 0, 2.0), (1.0, 0, 1.0), 1.0)
    for i in range(w.body_count):
        w.linear_velocities[i] = rng.normal(size=3)
        w.angular_velocities[i] = rng.normal(size=3) * 2.0
    bs = w._bs.view.copy()
    bI = np.zeros((w.body_count, 9))
    update_world_inertia(bs, w._bil.view, w._bkind.view, bI)
    R = new_rows(w.joint_count * MAX_ROWS)
    prepare_joints(w._jt.view, w._jf.view, w._jpts.view, w._bkind.view,
                   (0.0, 1.0, 0.0, H, 1.0 / H), R,
                   (bs, w._binv.view, bI))
    acc = np.zeros(w.joint_count * MAX_ROWS)
    solve_rows(R, acc, (bs, w._binv.view, bI), True, 5000)
    direct = reference.direct_impulses(w, h=H)
    active = R[3][:, ACTIVE] != 0.0
    at_bound = active & ((direct == R[3][:, LO]) | (direct == R[3][:, HI]))
    assert at_bound.any(), "no row is at a bound: the scene does not exercise the clamp"
    err = np.max(np.abs(acc - direct)) / np.max(np.abs(direct))
    assert err < 1e-9, f"iterative vs boxed direct impulses differ by {err:.3g}"
