"""Constraints over three or four bodies: Nape's 4-body pulley (add_pulley with
fixed_bodies) and custom constraints over pA..pD, at 60 Hz with World defaults, against
analytic mechanics, the dense reference solve (solver/reference.py) and each other."""

import math

import numpy as np
import pytest

import solver as lg
from solver import reference
from solver.bodies import update_world_inertia
from solver.joints.layout import MAX_ROWS
from solver.rows import ACTIVE, WIDE, new_rows
from solver.step import prepare_customs, prepare_joints, solve_rows
from probes import FRAME, G, note, period_from_crossings, qmat, relative


def _box(w, at, mass):
    return w.add_body(lg.Box((0.1, 0.1, 0.1)), at, mass=mass)


def _rope(w, body, anchor_local, carrier, point_local):
    """|anchor - point| now, both given in their bodies' frames (None: the world)."""
    def world(b, p):
        return np.asarray(p, float) if b is None else \
            w.positions[b] + qmat(w.orientations[b]) @ np.asarray(p, float)
    return float(np.linalg.norm(world(body, anchor_local) - world(carrier, point_local)))


# --- a pulley hung from a free body: the double Atwood machine -----------------------------

def _double_atwood(m3, M, m1, m2, break_force=None):
    """A block (mass M) hangs on a rope over two world points against a counterweight m3;
    a second rope runs over two wheels on the block (its fixed points on the block) and
    carries m1 and m2. Every rope is vertical and the block's wheels sit symmetrically, so
    nothing turns."""
    w = lg.World()
    b3, block = _box(w, (0, 0, 3), m3), _box(w, (1, 0, 3), M)
    b1, b2 = _box(w, (0.8, 0, 1.5), m1), _box(w, (1.2, 0, 1.5), m2)
    upper = w.add_pulley(b3, block, (0, 0, 3.1), (1, 0, 3.1), (0, 0, 5), (1, 0, 5))
    lower = w.add_pulley(b1, b2, (0.8, 0, 1.6), (1.2, 0, 1.6), (0.8, 0, 2.9), (1.2, 0, 2.9),
                         fixed_bodies=(block, block), break_force=break_force)
    ropes = lambda: (_rope(w, b3, (0, 0, 0.1), None, (0, 0, 5))
                     + _rope(w, block, (0, 0, 0.1), None, (1, 0, 5)),
                     _rope(w, b1, (0, 0, 0.1), block, (-0.2, 0, -0.1))
                     + _rope(w, b2, (0, 0, 0.1), block, (0.2, 0, -0.1)))
    return w, (b3, block, b1, b2), lower, ropes


def _double_atwood_analytic(m3, M, m1, m2):
    """Accelerations (a3, a_block, a1, a2, up) and tensions (T1, T2) by hand: Newton for each
    body along z, and the two rope lengths held (a3 + a_block = 0: the upper rope;
    2 a_block - a1 - a2 = 0: the lower rope over the moving block)."""
    A = np.array([[m3, 0, 0, 0, -1, 0],
                  [0, M, 0, 0, -1, 2],
                  [0, 0, m1, 0, 0, -1],
                  [0, 0, 0, m2, 0, -1],
                  [1, 1, 0, 0, 0, 0],
                  [0, 2, -1, -1, 0, 0]], float)
    x = np.linalg.solve(A, [-m3 * G, -M * G, -m1 * G, -m2 * G, 0.0, 0.0])
    return x[:4], x[4:]


@pytest.mark.parametrize("masses", [(4.0, 1.0, 1.0, 2.0), (2.0, 0.1, 3.0, 0.5)])
def test_pulley_hung_from_a_free_block_moves_as_the_double_atwood_machine(masses):
    w, bodies, lower, ropes = _double_atwood(*masses)
    accel, (_, t2) = _double_atwood_analytic(*masses)
    L0 = np.array(ropes())
    stretch = 0.0
    for _ in range(30):
        w.step(FRAME)
        stretch = max(stretch, float(np.abs(np.array(ropes()) - L0).max()))
    measured = w.linear_velocities[list(bodies), 2] / w.time
    tension = w.joint_impulse(lower)[0][2] / FRAME
    note(f"double Atwood {masses}: accelerations (m/s^2)", measured.round(5),
         f"{accel.round(5)} within 1 %")
    note("double Atwood: largest change of a rope length (mm)", 1e3 * stretch, "< 1")
    note("double Atwood: lower rope tension from joint_impulse (N)", tension, f"{t2:.4f}")
    assert np.all(np.abs(measured - accel) < 0.01 * np.abs(accel).max()), \
        f"accelerations {measured}, analytic {accel}"
    assert stretch < 1e-3, f"a rope's length changed by {1e3 * stretch:.3f} mm"
    assert relative(tension, t2) < 0.01, f"tension {tension:.4f} N, analytic {t2:.4f} N"
    assert np.abs(w.angular_velocities).max() < 1e-6, "a body of the symmetric rig turned"


def test_four_body_pulley_breaks_above_its_break_force():
    _, (_, t2) = _double_atwood_analytic(4.0, 1.0, 1.0, 2.0)
    holds, _, _, _ = _double_atwood(4.0, 1.0, 1.0, 2.0, break_force=1.1 * t2)
    breaks, (_, _, b1, b2), lower, _ = _double_atwood(4.0, 1.0, 1.0, 2.0,
                                                      break_force=0.9 * t2)
    holds.step(FRAME)
    breaks.step(FRAME)
    v1 = breaks.linear_velocities[[b1, b2], 2].copy()
    for _ in range(9):
        holds.step(FRAME)
        breaks.step(FRAME)
    assert not holds.joint_broken(lower), "the pulley broke below its break force"
    assert breaks.joint_broken(lower), "the pulley held above its break force"
    dv = breaks.linear_velocities[[b1, b2], 2] - v1
    assert np.all(np.abs(dv + G * 9 * FRAME) < 1e-9), \
        f"after breaking, the weights do not fall freely: dv = {dv}"


# --- fixed points on a held body behave as fixed in the world -------------------------------

def _held_atwood(on_block, hold, ratio, block_mass):
    """An Atwood machine (3 kg and 1 kg) whose rope runs over points of a block that `hold`
    (a fixed or a ball joint) keeps in place, or over the same points in the world."""
    w = lg.World()
    b1, b2 = _box(w, (0, 0, 4), 3.0), _box(w, (1, 0, 4), 1.0)
    f1, f2 = (0, 0, 6.0), (1, 0, 6.0)
    fixed_bodies = (None, None)
    if on_block:
        block = w.add_body(lg.Box((0.7, 0.1, 0.1)), (0.5, 0, 6.1), mass=block_mass)
        getattr(w, f"add_{hold}")(None, block, (0.5, 0, 6.1))
        fixed_bodies = (block, block)
    w.add_pulley(b1, b2, (0, 0, 4.1), (1, 0, 4.1), f1, f2, ratio=ratio,
                 fixed_bodies=fixed_bodies)
    return w, b1, b2


@pytest.mark.parametrize("hold, ratio, block_mass", [("fixed", 2.0, 0.2),
                                                     ("ball_socket", 1.0, 100.0)])
def test_pulley_on_a_held_block_moves_as_over_world_points(hold, ratio, block_mass):
    # l1 + ratio l2 = L: (m1 + m2 / ratio^2) a1 = (m1 - m2 / ratio) g (test_mechanisms.py)
    m1, m2 = 3.0, 1.0
    expected = G * (m1 - m2 / ratio) / (m1 + m2 / ratio ** 2)
    world_points, _, _ = _held_atwood(False, hold, ratio, block_mass)
    held, b1, _ = _held_atwood(True, hold, ratio, block_mass)
    apart = 0.0
    for _ in range(45):
        world_points.step(FRAME)
        held.step(FRAME)
        apart = max(apart, float(np.abs(world_points.positions[:2] - held.positions[:2]).max()))
    a1 = -held.linear_velocities[b1][2] / held.time
    note(f"pulley on a held block ({hold}, ratio {ratio}, {block_mass} kg): a1 (m/s^2)", a1,
         f"{expected:.4f} within 1 %")
    note("pulley on a held block vs over world points: largest difference (m)", apart, "< 1e-6")
    assert relative(a1, expected) < 0.01, f"a1 = {a1:.4f}, analytic {expected:.4f}"
    assert apart < 1e-6, f"the weights moved {apart:.2e} m away from the world-fixed pulley's"


def test_slack_rope_over_a_held_block_does_not_pull():
    # 0.5 m of slack: both weights fall freely until the rope is taut (t = sqrt(0.5 / g)),
    # then move as an Atwood machine (the light one rises 2 m in the second after).
    w = lg.World()
    b1, b2 = _box(w, (0, 0, 1), 3.0), _box(w, (1, 0, 1), 1.0)
    block = w.add_body(lg.Box((0.7, 0.1, 0.1)), (0.5, 0, 6.1), mass=1.0)
    w.add_fixed(None, block, (0.5, 0, 6.1))
    length = lambda: (_rope(w, b1, (0, 0, 0.1), block, (-0.5, 0, -0.1))
                      + _rope(w, b2, (0, 0, 0.1), block, (0.5, 0, -0.1)))
    upper = length() + 0.5
    j = w.add_pulley(b1, b2, (0, 0, 1.1), (1, 0, 1.1), (0, 0, 6), (1, 0, 6), upper=upper,
                     fixed_bodies=(block, block))
    for _ in range(12):
        w.step(FRAME)
        lin, ang = w.joint_impulse(j)
        assert np.all(lin == 0.0) and np.all(ang == 0.0), "a slack rope pulled"
    for b in (b1, b2):
        assert abs(w.linear_velocities[b][2] + G * w.time) < 1e-9, "a slack side was pulled"
    longest = 0.0
    for _ in range(60):
        w.step(FRAME)
        longest = max(longest, length() - upper)
    note("slack rope over a held block: longest beyond its upper length (mm)", 1e3 * longest,
         "< 1")
    assert longest < 1e-3, f"the taut rope stretched {1e3 * longest:.2f} mm past upper"
    assert w.linear_velocities[b2][2] > 0.0, "the taut rope does not lift the light weight"


# --- a custom four-body pulley is add_pulley with fixed_bodies -----------------------------

def _swinging_pulley(use_custom):
    """Two wheel blocks C and D swing on rods from the world; a rope runs from A over a
    wheel on C and from a wheel on D down to B, the B side reeved twice (ratio 2). A and B
    nearly balance (m_B = 2 m_A), so the rig swings for seconds without running into a
    wheel."""
    w = lg.World()
    c = _box(w, (0, 0, 5), 4.0)
    d = _box(w, (1.5, 0, 5), 6.0)
    w.add_distance(None, c, (-0.4, 0, 6), (0, 0, 5.1))
    w.add_distance(None, d, (1.5, 0.3, 6), (1.5, 0, 5.1))
    a = _box(w, (0, 0, 3.5), 1.0)
    b = _box(w, (1.5, 0, 3.5), 2.1)
    fa, fb = (0.0, 0.0, 4.9), (1.5, 0.0, 4.9)
    pa, pb = (0.0, 0.0, 3.6), (1.5, 0.0, 3.6)
    if use_custom:
        length = 1.3 + 2.0 * 1.3
        w.add_custom([a, b, c, d], f"length(pA - pC) + 2 * length(pB - pD) - {length!r}",
                     anchors=[pa, pb, fa, fb])
    else:
        w.add_pulley(a, b, pa, pb, fa, fb, ratio=2.0, fixed_bodies=(c, d))
    return w


def test_custom_four_body_pulley_matches_add_pulley_with_fixed_bodies():
    built_in, written = _swinging_pulley(False), _swinging_pulley(True)
    worst, moved = 0.0, 0.0
    start = built_in.positions.copy()
    for _ in range(300):
        built_in.step(FRAME)
        written.step(FRAME)
        worst = max(worst, float(np.abs(built_in.positions - written.positions).max()))
        moved = max(moved, float(np.abs(built_in.positions - start).max()))
    note("custom 4-body pulley vs add_pulley(fixed_bodies=(c, d)), 5 s: largest position "
         "difference (m)", worst, "< 1e-6")
    assert moved > 0.3, f"the rig hardly moved ({moved:.3f} m): nothing was compared"
    assert worst < 1e-6, f"the custom pulley moved {worst:.2e} m away from add_pulley"


# --- three bodies: analytic, and the dense reference solve --------------------------------

def test_three_body_custom_constraint_accelerates_as_analytic():
    # zA + zB + zC held: one tension lam on all three, m_i a_i = lam - m_i g, sum a_i = 0, so
    # lam = 3 g / sum(1 / m_i) and a_i = lam / m_i - g.
    masses = np.array([1.0, 2.0, 3.0])
    w = lg.World()
    ids = [_box(w, (x, 0, 2), m) for x, m in zip((0, 1, 2), masses)]
    w.add_custom(ids, "pA.z + pB.z + pC.z - 6")
    for _ in range(30):
        w.step(FRAME)
    lam = 3 * G / np.sum(1 / masses)
    expected = lam / masses - G
    measured = w.linear_velocities[ids, 2] / w.time
    note("three bodies, heights summed: accelerations (m/s^2)", measured.round(6),
         f"{expected.round(6)} within 1e-6")
    assert np.abs(measured - expected).max() < 1e-6, f"{measured} vs analytic {expected}"
    assert abs(w.positions[ids, 2].sum() - 6.0) < 1e-6


def _string_world():
    """A and C on a string that runs through a bead B: |pA - pB| + |pB - pC| held; A hangs on
    a hinge from the world, everything tumbling with random velocities."""
    rng = np.random.default_rng(3)
    w = lg.World()
    a = w.add_body(lg.Box((0.2, 0.1, 0.05)), (0.2, 0, 1), mass=1.0)
    b = w.add_body(lg.Sphere(0.1), (0.7, 0.2, 0.6), mass=0.5,
                   orientation=(0.9, 0.1, 0.3, 0.2))
    c = w.add_body(lg.Capsule(0.05, 0.2), (1.3, -0.1, 1.2), mass=2.0)
    w.add_hinge(None, a, (0, 0, 1), (0, 1, 0))
    anchors = [(0.35, 0, 1), (0.7, 0.2, 0.7), (1.3, -0.1, 1.0)]
    w.add_custom([a, b, c], "length(pA - pB) + length(pB - pC) - 1.6", anchors=anchors)
    for i in range(w.body_count):
        w.linear_velocities[i] = rng.normal(size=3)
        w.angular_velocities[i] = rng.normal(size=3) * 2.0
    local = [qmat(w.orientations[i]).T @ (np.array(p) - w.positions[i])
             for i, p in zip((a, b, c), anchors)]
    return w, (a, b, c), local


def _string_rate(w, bodies, local, u, eps=1e-6):
    """dC/dt of the string for body velocities u (n, 6), by central differences of C over
    the poses moved by +-eps u: independent of the Jacobian the solver derived."""
    def c_at(sign):
        pts = []
        for body, p in zip(bodies, local):
            v, om = u[body, :3], u[body, 3:]
            angle = np.linalg.norm(om) * eps
            axis = om / np.linalg.norm(om) if angle > 0 else np.zeros(3)
            k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]],
                          [-axis[1], axis[0], 0]])
            turn = np.eye(3) + math.sin(sign * angle) * k + (1 - math.cos(angle)) * k @ k
            pts.append(w.positions[body] + sign * eps * v
                       + turn @ qmat(w.orientations[body]) @ p)
        return np.linalg.norm(pts[0] - pts[1]) + np.linalg.norm(pts[1] - pts[2])
    return (c_at(1.0) - c_at(-1.0)) / (2 * eps)


@pytest.mark.slow
def test_three_body_custom_row_solves_as_the_dense_reference():
    h = 1.0 / 480.0
    w, bodies, local = _string_world()
    u0 = np.concatenate([w.linear_velocities, w.angular_velocities], axis=1)
    rate_before = _string_rate(w, bodies, local, u0)
    direct = reference.direct_impulses(w, h=h)
    bs = w._bs.view.copy()
    bI = np.zeros((w.body_count, 9))
    update_world_inertia(bs, w._bil.view, w._bkind.view, bI)
    R = new_rows(w.joint_count * MAX_ROWS)
    S, B = (0.0, 1.0, 0.0, h, 1.0 / h), (bs, w._binv.view, bI)
    prepare_joints(w._jt.view, w._jf.view, w._jpts.view, w._bkind.view, S, R, B)
    prepare_customs(w._custom_args(), w._jt.view, w._jf.view, w._bkind.view, S, R, B)
    custom_row = MAX_ROWS * 1
    assert R[3][custom_row, ACTIVE] == WIDE, "the three-body constraint is not a wide row"
    acc = np.zeros(w.joint_count * MAX_ROWS)
    solve_rows(R, acc, B, True, 400)
    u = reference.velocities_after(w, direct, h=h)
    rate_after = _string_rate(w, bodies, local, u)
    scale = np.abs(direct).max()
    note("three-body string: iterative impulses vs the dense reference (relative)",
         np.abs(acc - direct).max() / scale, "< 1e-6")
    note("three-body string: dC/dt by finite differences before / after the solve",
         f"{rate_before:.3f} / {rate_after:.2e}", "after < 1e-6")
    assert abs(rate_before) > 0.1, "the random velocities did not move the string"
    assert np.abs(acc - direct).max() < 1e-6 * scale, f"{acc[:12]} vs {direct[:12]}"
    assert abs(rate_after) < 1e-6, f"the string still changes at {rate_after:.3e} m/s"
    assert np.abs(bs[:, 7:13] - u).max() < 1e-6 * np.abs(u).max(), \
        "the iterative solve left other velocities than the dense solve's"


# --- softness, sleeping, state ---------------------------------------------------------------

def test_soft_four_body_custom_oscillates_at_sqrt_k_sum_of_inverse_masses():
    # C = zA + zB + zC + zD - c0 as a spring k: each body feels -k C along z, so
    # C'' = -k C sum(1 / m_i): omega^2 = k sum(1 / m_i).
    masses, k = np.array([1.0, 2.0, 3.0, 4.0]), 50.0
    w = lg.World(gravity=(0, 0, 0))
    ids = [_box(w, (x, 0, 2), m) for x, m in zip((0, 1, 2, 3), masses)]
    w.add_custom(ids, "pA.z + pB.z + pC.z + pD.z - 7.9", stiffness=k)
    t, x = [], []
    while w.time < 4.0:
        w.step(FRAME)
        t.append(w.time)
        x.append(w.positions[ids, 2].sum() - 7.9)
    period = period_from_crossings(np.array(t), np.array(x))
    expected = 2 * math.pi / math.sqrt(k * np.sum(1 / masses))
    note("soft four-body custom: period (s)", period, f"{expected:.4f} within 2 %")
    assert relative(period, expected) < 0.02, f"period {period:.4f} s, expected {expected:.4f}"


def _still_pulley():
    """A balanced pulley (2 kg each side) over wheels on two blocks, each block welded to
    the world: at rest from the start."""
    w = lg.World()
    c = _box(w, (0, 0, 5), 1.0)
    d = _box(w, (1, 0, 5), 1.0)
    w.add_fixed(None, c, (0, 0, 5))
    w.add_fixed(None, d, (1, 0, 5))
    a = _box(w, (0, 0, 3.5), 2.0)
    b = _box(w, (1, 0, 3.5), 2.0)
    j = w.add_pulley(a, b, (0, 0, 3.6), (1, 0, 3.6), (0, 0, 4.9), (1, 0, 4.9),
                     fixed_bodies=(c, d))
    return w, (a, b, c, d), j


def test_four_body_pulley_bodies_sleep_and_wake_as_one_island():
    w, bodies, _ = _still_pulley()
    w.linear_velocities[bodies[0]] = (0.3, 0.0, 0.0)   # A swings on its rope; C is still
    for _ in range(120):
        w.step(FRAME)
        assert not any(w.is_sleeping(x) for x in bodies), \
            "a body of the pulley fell asleep while A swings"
    w, bodies, _ = _still_pulley()
    asleep = []
    for _ in range(120):
        w.step(FRAME)
        asleep.append([w.is_sleeping(x) for x in bodies])
    asleep = np.array(asleep)
    assert asleep[-1].all(), "the pulley at rest did not fall asleep"
    assert np.all(asleep.all(axis=1) == asleep.any(axis=1)), \
        "the pulley's bodies did not fall asleep together"
    w.linear_velocities[bodies[3]] = (0.0, 0.5, 0.0)  # nudge block D only
    w.step(FRAME)
    assert not any(w.is_sleeping(x) for x in bodies), "nudging D did not wake the others"


def test_save_and_load_state_replays_a_four_body_pulley_exactly():
    w = _swinging_pulley(False)
    for _ in range(20):
        w.step(FRAME)
    state = w.save_state()
    first = []
    for _ in range(30):
        w.step(FRAME)
        first.append(w.positions.copy())
    w.load_state(state)
    for k in range(30):
        w.step(FRAME)
        assert np.array_equal(w.positions, first[k]), f"frame {k} differs after load_state"


# --- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda w, i: w.add_pulley(i[0], i[1], (0, 0, 1), (1, 0, 1), (0, 0, 2), (1, 0, 2),
                               fixed_bodies=(i[0], None)),
     ["fixed_bodies", "body 0 carries both ends of rope a"]),
    (lambda w, i: w.add_pulley(i[0], i[1], (0, 0, 1), (1, 0, 1), (0, 0, 2), (1, 0, 2),
                               fixed_bodies=(i[2], i[1])),
     ["body 1 carries both ends of rope b"]),
    (lambda w, i: w.add_pulley(i[0], i[1], (0, 0, 1), (1, 0, 1), (0, 0, 2), (1, 0, 2),
                               fixed_bodies=(i[2],)),
     ["fixed_bodies must be a pair"]),
    (lambda w, i: w.add_pulley(i[0], i[1], (0, 0, 1), (1, 0, 1), (0, 0, 2), (1, 0, 2),
                               fixed_bodies=(i[2], 17)),
     ["fixed_bodies[1]"]),
    (lambda w, i: w.add_custom(i + [i[0]], "pA.z + pE.z"), ["1 to 4 entries", "5"]),
])
def test_bad_multibody_input_is_refused(call, words):
    w = lg.World()
    ids = [w.add_body(lg.Sphere(0.1), (i, 0, 1)) for i in range(4)]
    with pytest.raises(ValueError) as err:
        call(w, ids)
    for word in words:
        assert word in str(err.value), f"{word!r} is not in: {err.value}"
    assert w.joint_count == 0
