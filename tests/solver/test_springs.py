"""Springs that mean their number: the frequency a rig swings at as hung (hinge, prismatic,
distance, orientation drive), the damping ratio's decay, the stiffness/damper mode, and the
hinge drive toward a target angle with its torque cap.

Each rig hangs its body off its centre of mass, where the spring row's own effective mass
(about the centre of mass) and the mass the rig really moves differ; each test says by how
much, so a spring sized from the row's own mass could not pass.
"""

import math

import numpy as np
import pytest

import solver as lg
from probes import (FRAME, G, decay_rate, note, period_from_crossings, qaxis_angle, qconj,
                    qmat, qmul, relative, twist_angle)


def _run(w, measure, seconds):
    times, values = [0.0], [measure()]
    for _ in range(int(round(seconds / FRAME))):
        w.step(FRAME)
        times.append(w.time)
        values.append(measure())
    return np.array(times), np.array(values)


def _hinge_angle(w, body, axis, q0):
    return lambda: twist_angle(qmul(w.orientations[body], qconj(q0)), axis)


def _door(spring_hz=0.0, spring_damping=0.0, **spring):
    """A 1 m wide, 2 m tall, 10 kg door hinged to the world along its edge (the z axis
    through the origin), no gravity, pushed open at 0.5 rad/s. Returns (world, door, I about
    the centre of mass, I about the hinge line)."""
    w = lg.World(gravity=(0, 0, 0))
    door = w.add_body(lg.Box((0.5, 0.02, 1.0)), (0.5, 0, 1), mass=10.0,
                      angular_velocity=(0, 0, 0.5), linear_velocity=(0, 0.25, 0))
    w.add_hinge(None, door, (0, 0, 1), (0, 0, 1), spring_hz=spring_hz,
                spring_damping=spring_damping, **spring)
    i_com = w.inertia(door)[2, 2]
    return w, door, i_com, i_com + 10.0 * 0.5 ** 2


def test_door_hung_at_its_edge_swings_at_its_hinge_spring_frequency():
    hz = 1.5
    w, door, i_com, i_edge = _door(hz)
    # About its edge the door is 4x as heavy as about its centre (m w^2 / 3 vs m w^2 / 12):
    # a spring sized from the centre's inertia swung it at half the frequency, 0.75 Hz.
    assert i_edge / i_com > 3.9
    t, angle = _run(w, _hinge_angle(w, door, (0, 0, 1), w.orientations[door].copy()), 4.0)
    freq = 1.0 / period_from_crossings(t, angle)
    note("door on a 1.5 Hz hinge spring (Hz)", freq, f"{hz} within 2 %")
    assert np.abs(angle).max() > 0.03
    assert relative(freq, hz) < 0.02


def test_hinge_spring_damping_ratio_gives_the_analytic_decay():
    hz, zeta = 1.5, 0.2
    w, door, _, _ = _door(hz, zeta)
    t, angle = _run(w, _hinge_angle(w, door, (0, 0, 1), w.orientations[door].copy()), 4.0)
    omega = 2 * math.pi * hz
    freq = 1.0 / period_from_crossings(t, angle)
    sigma = decay_rate(t, angle)
    note("damped door: frequency (Hz)", freq, f"{hz * math.sqrt(1 - zeta ** 2):.4f}")
    note("damped door: decay rate (1/s)", sigma, f"zeta omega = {zeta * omega:.4f}")
    assert relative(freq, hz * math.sqrt(1 - zeta ** 2)) < 0.02
    assert relative(sigma, zeta * omega) < 0.03


def test_hinge_spring_stiffness_swings_at_sqrt_k_over_the_inertia_about_the_hinge():
    k = 50.0                                                      # N m / rad
    w, door, _, i_edge = _door(spring_stiffness=k)
    t, angle = _run(w, _hinge_angle(w, door, (0, 0, 1), w.orientations[door].copy()), 4.0)
    expected = math.sqrt(k / i_edge) / (2 * math.pi)
    freq = 1.0 / period_from_crossings(t, angle)
    note("door on a 50 N m/rad spring (Hz)", freq, f"{expected:.4f} within 2 %")
    assert relative(freq, expected) < 0.02


def test_slider_with_its_centre_off_the_rail_oscillates_at_its_spring_frequency():
    # A 2 kg block sliding along x on a rail to the world that runs 0.5 m from its centre.
    # The rail locks its rotation, so the spring moves the block's mass; the spring row's own
    # effective mass 1 / (1/m + (r x t) . I^-1 (r x t)) is 39x smaller here.
    hz, mass = 2.0, 2.0
    w = lg.World(gravity=(0, 0, 0))
    block = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0.5, 1), mass=mass,
                       linear_velocity=(0.2, 0, 0))
    w.add_prismatic(None, block, (0, 0, 1), (1, 0, 0), spring_hz=hz)
    arm = np.array([0.0, -0.5, 0.0])                  # anchor from the centre of mass
    turn = np.cross(arm, (1, 0, 0))
    naive = 1.0 / (1.0 / mass + turn @ np.linalg.inv(w.inertia(block)) @ turn)
    assert mass / naive > 30
    t, x = _run(w, lambda: w.positions[block][0], 3.0)
    freq = 1.0 / period_from_crossings(t, x)
    note("off-rail slider spring (Hz)", freq, f"{hz} within 2 %")
    assert np.abs(x).max() > 0.01
    assert relative(freq, hz) < 0.02


def test_mass_on_a_slider_spring_of_stiffness_k_and_damper_c_is_the_textbook_oscillator():
    # m x'' + c x' + k x = 0: frequency sqrt(k/m) sqrt(1 - zeta^2) / 2 pi with
    # zeta = c / (2 sqrt(k m)), amplitude decaying as exp(-c t / 2m).
    m, k, c = 2.0, 200.0, 4.0
    w = lg.World(gravity=(0, 0, 0))
    block = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 1), mass=m,
                       linear_velocity=(0.3, 0, 0))
    w.add_prismatic(None, block, (0, 0, 1), (1, 0, 0), spring_stiffness=k, spring_damper=c)
    t, x = _run(w, lambda: w.positions[block][0], 3.0)
    zeta = c / (2 * math.sqrt(k * m))
    expected = math.sqrt(k / m) * math.sqrt(1 - zeta ** 2) / (2 * math.pi)
    freq = 1.0 / period_from_crossings(t, x)
    sigma = decay_rate(t, x)
    note("k = 200 N/m, m = 2 kg slider (Hz)", freq, f"{expected:.4f}")
    note("c = 4 N s/m: decay rate (1/s)", sigma, f"c / 2m = {c / (2 * m)}")
    assert relative(freq, expected) < 0.02
    assert relative(sigma, c / (2 * m)) < 0.03


def _slider_pair(**spring):
    """Two free bodies on a slider along x whose line misses both centres of mass, no
    gravity, started sliding apart with no angular momentum about their common centre.
    Returns (world, a, b, measure of the slide, the slide coordinate's mass from the
    Lagrangian, the spring row's own mass)."""
    w = lg.World(gravity=(0, 0, 0))
    ma, mb = 3.0, 1.0
    xa, xb = np.array([0.0, 0.0, 1.0]), np.array([0.6, 0.4, 1.0])
    a = w.add_body(lg.Box((0.2, 0.1, 0.1)), xa, mass=ma)
    b = w.add_body(lg.Box((0.1, 0.1, 0.1)), xb, mass=mb)
    t = np.array([1.0, 0.0, 0.0])
    w.add_prismatic(a, b, xb, t, **spring)
    # Rotation locked, the pair turns as one body of inertia I_tot about the common centre
    # and the slide s couples to it: T = 1/2 I_tot w^2 + mu s' w . (D x t) + 1/2 mu s'^2
    # (D = xB - xA, mu the reduced mass), so with no angular momentum the slide moves the
    # mass mu - mu^2 (D x t) . I_tot^-1 (D x t).
    mu = ma * mb / (ma + mb)
    d = xb - xa
    c = np.cross(d, t)
    i_tot = w.inertia(a) + w.inertia(b) + mu * (d @ d * np.eye(3) - np.outer(d, d))
    m_slide = mu - mu ** 2 * c @ np.linalg.solve(i_tot, c)
    arm_a = xb - xa                                   # the anchor from A's centre
    turn = np.cross(t, arm_a)
    m_row = 1.0 / (1.0 / ma + 1.0 / mb + turn @ np.linalg.solve(w.inertia(a), turn))
    speed = 0.1
    omega = -mu * speed * np.linalg.solve(i_tot, c)
    centre = (ma * xa + mb * xb) / (ma + mb)
    for body, x, share in ((a, xa, -mb / (ma + mb)), (b, xb, ma / (ma + mb))):
        w.angular_velocities[body] = omega
        w.linear_velocities[body] = np.cross(omega, x - centre) + share * speed * t
    qa0 = w.orientations[a].copy()

    def slide():
        axis = qmat(w.orientations[a]) @ qmat(qa0).T @ t
        return axis @ (w.positions[b] - w.positions[a]) - t @ d

    return w, slide, m_slide, m_row


def test_slider_between_two_free_bodies_springs_at_sqrt_k_over_the_slide_mass():
    k = 60.0
    w, slide, m_slide, m_row = _slider_pair(spring_stiffness=k)
    assert relative(m_row, m_slide) > 0.15
    t, s = _run(w, slide, 4.0)
    expected = math.sqrt(k / m_slide) / (2 * math.pi)
    freq = 1.0 / period_from_crossings(t, s)
    note("two-body slider, k = 60 N/m (Hz)", freq, f"{expected:.4f} within 2 %")
    assert relative(freq, expected) < 0.02


def test_slider_between_two_free_bodies_oscillates_at_its_spring_frequency():
    hz = 1.5
    w, slide, _, _ = _slider_pair(spring_hz=hz)
    t, s = _run(w, slide, 4.0)
    freq = 1.0 / period_from_crossings(t, s)
    note("two-body slider spring (Hz)", freq, f"{hz} within 2 %")
    assert relative(freq, hz) < 0.02


def test_weight_hung_on_a_distance_spring_by_its_top_bobs_at_its_frequency():
    # A 3 kg box hung by the middle of its top face, 0.3 m above its centre, from a spring
    # to the world, under gravity: it bobs about where the spring carries its weight.
    hz = 2.0
    w = lg.World(gravity=(0, 0, -G))
    box = w.add_body(lg.Box((0.1, 0.1, 0.3)), (0, 0, 1), mass=3.0)
    w.add_distance(None, box, (0, 0, 2.3), (0, 0, 1.3), spring_hz=hz)
    t, z = _run(w, lambda: w.positions[box][2], 3.0)
    k = 3.0 * (2 * math.pi * hz) ** 2
    rest = 1.0 - 3.0 * G / k
    freq = 1.0 / period_from_crossings(t, z - rest)
    note("weight on a 2 Hz distance spring (Hz)", freq, f"{hz} within 2 %")
    assert relative(freq, hz) < 0.02


def test_distance_spring_stiffness_carries_the_weight_at_mg_over_k():
    k, m = 400.0, 2.0
    w = lg.World(gravity=(0, 0, -G))
    ball = w.add_body(lg.Sphere(0.1), (0, 0, 1), mass=m)
    w.add_distance(None, ball, (0, 0, 2), (0, 0, 1), spring_stiffness=k, spring_damper=40.0)
    for _ in range(180):
        w.step(FRAME)
    stretch = 1.0 - w.positions[ball][2]
    note("distance spring stretch under its weight (m)", stretch, f"m g / k = {m * G / k}")
    assert relative(stretch, m * G / k) < 0.01


def test_drive_on_a_body_hung_off_its_centre_swings_at_its_frequency_about_every_axis():
    # A box turned askew on a ball socket at a point off its centre: its inertia about the
    # anchor is a full tensor in world axes. The drive's stiffness is that tensor x omega^2,
    # so started turning about an oblique axis every component of its rotation swings at
    # the drive's frequency.
    hz = 2.0
    w = lg.World(gravity=(0, 0, 0))
    q = qmul(qaxis_angle((1, 2, 3), 0.7), qaxis_angle((0, 1, 0), 0.3))
    box = w.add_body(lg.Box((0.3, 0.1, 0.05)), (0, 0, 1), orientation=q, mass=2.0)
    anchor = w.positions[box] + qmat(q) @ np.array([0.3, 0.1, 0.0])
    j = w.add_ball_socket(None, box, anchor)
    w.set_drive(j, q, hz, damping_ratio=0.0)
    spin = 0.3 * np.array([0.3, -0.5, 0.8])
    w.angular_velocities[box] = spin
    w.linear_velocities[box] = np.cross(spin, w.positions[box] - anchor)

    def rotation():
        rel = qmul(w.orientations[box], qconj(q))
        rel = rel if rel[0] >= 0 else -rel
        n = np.linalg.norm(rel[1:])
        return rel[1:] * (2 * math.atan2(n, rel[0]) / n) if n > 0 else np.zeros(3)

    t, turned = _run(w, rotation, 3.0)
    for axis in range(3):
        freq = 1.0 / period_from_crossings(t, turned[:, axis])
        note(f"hung drive, rotation about world axis {axis} (Hz)", freq, f"{hz} within 2 %")
        assert relative(freq, hz) < 0.02


# --- the hinge drive ----------------------------------------------------------------------

def _arm(gravity):
    """A 2 kg, 1 m rod lying along +x from a hinge about y at the origin (gravity turns it
    the positive way, down). Returns (world, rod, hinge, q0)."""
    w = lg.World(gravity=gravity)
    lying = qaxis_angle((0, 1, 0), math.pi / 2)
    rod = w.add_body(lg.Capsule(0.03, 0.47), (0.5, 0, 1), orientation=lying, mass=2.0)
    j = w.add_hinge(None, rod, (0, 0, 1), (0, 1, 0))
    return w, rod, j, lying


@pytest.mark.parametrize("target", [1.0, 1.0 - 2 * math.pi])
def test_hinge_drive_turns_the_arm_to_its_target_angle_the_short_way(target):
    w, rod, j, q0 = _arm((0, 0, 0))
    w.set_drive(j, target, 3.0, damping_ratio=1.0)
    t, angle = _run(w, _hinge_angle(w, rod, (0, 1, 0), q0), 2.0)
    note(f"hinge drive toward {target:.3f} rad: final angle", angle[-1], "1.0 +- 0.002")
    assert abs(angle[-1] - 1.0) < 2e-3
    assert angle.min() > -1e-3, "the drive went the long way round"
    assert angle.max() < 1.0 + 0.02, "a critically damped drive overshot"


def test_hinge_drive_torque_cap_below_the_gravity_torque_lets_the_arm_fall():
    # gravity's torque on the lying rod is m g L/2 = 9.81 N m
    w, rod, j, q0 = _arm((0, 0, -G))
    w.set_drive(j, 0.0, 10.0, max_torque=0.8 * 2.0 * G * 0.5)
    _, angle = _run(w, _hinge_angle(w, rod, (0, 1, 0), q0), 1.0)
    note("arm under a capped drive: angle after 1 s (rad)", angle[-1], "> 1")
    assert angle[-1] > 1.0


def test_hinge_drive_torque_cap_above_the_gravity_torque_holds_the_arm_with_the_spring_sag():
    w, rod, j, q0 = _arm((0, 0, -G))
    w.set_drive(j, 0.0, 10.0, max_torque=2.0 * 2.0 * G * 0.5)
    _, angle = _run(w, _hinge_angle(w, rod, (0, 1, 0), q0), 1.5)
    # stiffness I_hinge omega^2 against m g L/2 (the sag is small: cos ~ 1)
    i_hinge = w.inertia(rod)[1, 1] + 2.0 * 0.5 ** 2
    expected = 2.0 * G * 0.5 / (i_hinge * (2 * math.pi * 10.0) ** 2)
    note("arm held by a hinge drive: sag (rad)", angle[-1], f"{expected:.5f}")
    assert relative(angle[-1], expected) < 0.05


def test_hinge_drive_at_0_hz_is_off():
    w, rod, j, q0 = _arm((0, 0, 0))
    w.set_drive(j, 1.0, 3.0)
    for _ in range(30):
        w.step(FRAME)
    w.set_drive(j, 1.0, 0.0)
    w.angular_velocities[rod] = 0.0
    w.linear_velocities[rod] = 0.0
    angle = _hinge_angle(w, rod, (0, 1, 0), q0)
    before = angle()
    for _ in range(30):
        w.step(FRAME)
    assert abs(angle() - before) < 1e-6


def test_spring_modes_and_hinge_drive_reject_bad_input():
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 2))
    b = w.add_body(lg.Sphere(0.1), (0, 0, 3))
    with pytest.raises(ValueError, match="not both"):
        w.add_hinge(a, b, (0, 0, 2.5), (1, 0, 0), spring_hz=2.0, spring_stiffness=10.0)
    with pytest.raises(ValueError, match="not both"):
        w.add_prismatic(a, b, (0, 0, 2.5), (1, 0, 0), spring_damping=0.5, spring_damper=1.0)
    with pytest.raises(ValueError, match="spring_stiffness must be >= 0"):
        w.add_distance(a, b, (0, 0, 2), (0, 0, 3), spring_stiffness=-1.0)
    with pytest.raises(ValueError, match="spring_damper must be a number"):
        w.add_hinge(a, b, (0, 0, 2.5), (1, 0, 0), spring_damper="soft")
    j = w.add_hinge(a, b, (0, 0, 2.5), (1, 0, 0))
    with pytest.raises(ValueError, match="target must be finite"):
        w.set_drive(j, math.inf, 4.0)
