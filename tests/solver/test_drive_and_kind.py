"""Orientation drives (pose matching) and switching bodies between kinematic and dynamic."""

import math

import numpy as np
import pytest

import solver as lg
from probes import FRAME, G, note, period_from_crossings, qaxis_angle, qconj, qmul, \
    relative, rotation_angle


def _relative_angle(w, a, b, target):
    """Angle (rad) between qA^-1 qB and target, measured from the public orientations."""
    qa = np.array([1.0, 0, 0, 0]) if a is None else w.orientations[a]
    rel = qmul(qconj(qa), w.orientations[b])
    return rotation_angle(qmul(qconj(np.asarray(target, dtype=float)), rel))


def test_drive_about_the_centre_oscillates_at_its_frequency():
    # A cube held at its centre by a ball socket: the drive is its only torque, so it is a
    # torsion pendulum of exactly `hertz` when undamped.
    hertz = 2.0
    w = lg.World(gravity=(0, 0, 0))
    cube = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, 0, 1), mass=4.0,
                      orientation=qaxis_angle((0, 0, 1), math.radians(10.0)))
    j = w.add_ball_socket(None, cube, (0, 0, 1))
    w.set_drive(j, (1, 0, 0, 0), hertz, damping_ratio=0.0)
    t, yaw = [], []
    for i in range(240):
        w.step(FRAME)
        q = w.orientations[cube]
        t.append((i + 1) * FRAME)
        yaw.append(2.0 * math.atan2(q[3], q[0]))
    period = period_from_crossings(np.array(t), np.array(yaw))
    note("drive torsion period (s)", period, f"1/{hertz} = {1 / hertz}")
    assert relative(period, 1.0 / hertz) < 0.02


def test_drive_holds_an_arm_against_gravity_with_the_spring_sag():
    # A horizontal rod on a ball socket at one end, driven to stay horizontal. The drive is a
    # spring of stiffness I_anchor omega^2 (the rod's inertia about the anchor, where it
    # swings), so gravity's torque m g L/2 sags it by m g L/2 / (I_anchor omega^2).
    half, radius, mass, hertz = 0.5, 0.05, 2.0, 8.0
    w = lg.World(gravity=(0, 0, -G))
    # the capsule lies along +x (its local z turned onto x)
    lying = qaxis_angle((0, 1, 0), math.pi / 2)
    rod = w.add_body(lg.Capsule(radius, half), (half, 0, 1), orientation=lying, mass=mass)
    j = w.add_ball_socket(None, rod, (0, 0, 1))
    w.set_drive(j, lying, hertz, damping_ratio=1.0)
    for _ in range(180):
        w.step(FRAME)
    arm = w.positions[rod][0]                   # COM distance from the anchor along x
    i_anchor = w.inertia(rod)[1, 1] + mass * arm ** 2
    expected = mass * G * arm / (i_anchor * (2 * math.pi * hertz) ** 2)
    sag = _relative_angle(w, None, rod, lying)
    note("driven arm sag (deg)", math.degrees(sag), f"{math.degrees(expected):.3f}")
    assert abs(float(np.linalg.norm(w.angular_velocities[rod]))) < 1e-3
    assert relative(sag, expected) < 0.05


def test_drive_turns_a_ragdoll_limb_to_its_target_inside_the_cone_and_stops_at_the_cone():
    w = lg.World(gravity=(0, 0, 0))
    torso = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, 0, 1), kind="static")
    limb = w.add_body(lg.Capsule(0.05, 0.2), (0, 0, 0.55), mass=2.0)
    j = w.add_ragdoll(torso, limb, (0, 0, 0.8), twist_axis=(0, 0, -1),
                      swing1=math.radians(40.0), swing2=math.radians(40.0))
    inside = qaxis_angle((1, 0, 0), math.radians(25.0))
    w.set_drive(j, inside, 6.0)
    for _ in range(120):
        w.step(FRAME)
    err = math.degrees(_relative_angle(w, torso, limb, inside))
    note("drive to 25 deg inside a 40 deg cone: error (deg)", err, "< 0.5")
    assert err < 0.5

    w.set_drive(j, inside, 0.0)                # off: the limb keeps still without gravity
    before = w.orientations[limb].copy()
    w.angular_velocities[limb] = 0.0
    w.linear_velocities[limb] = 0.0
    for _ in range(30):
        w.step(FRAME)
    assert rotation_angle(qmul(qconj(before), w.orientations[limb])) < 1e-4

    beyond = qaxis_angle((1, 0, 0), math.radians(70.0))
    w.set_drive(j, beyond, 6.0)
    for _ in range(120):
        w.step(FRAME)
    swing = math.degrees(rotation_angle(w.orientations[limb]))
    note("drive to 70 deg against a 40 deg cone: swing (deg)", swing, "40 +- 1")
    assert abs(swing - 40.0) < 1.0


def test_drive_torque_cap_lets_gravity_win():
    w = lg.World(gravity=(0, 0, -G))
    rod = w.add_body(lg.Capsule(0.05, 0.5), (0.5, 0, 1), mass=2.0,
                     orientation=qaxis_angle((0, 1, 0), math.pi / 2))
    j = w.add_ball_socket(None, rod, (0, 0, 1))
    # gravity's torque is 2 * 9.81 * 0.5 = 9.8 N m; a 5 N m cap cannot hold it
    w.set_drive(j, w.orientations[rod].copy(), 20.0, max_torque=5.0)
    for _ in range(60):
        w.step(FRAME)
    assert w.positions[rod][2] < 0.75


def test_kinematic_body_turned_dynamic_keeps_the_animated_velocity():
    w = lg.World(gravity=(0, 0, -G))
    box = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 5), kind="kinematic", mass=3.0)
    speed = 2.0
    for i in range(30):                        # animated along +x at 2 m/s
        w.set_kinematic_target(box, ((i + 1) * speed * FRAME, 0, 5))
        w.step(FRAME)
    assert w.kind(box) == "kinematic"
    x0 = w.positions[box].copy()
    w.set_kind(box, "dynamic")
    assert w.masses[box] == pytest.approx(3.0)
    t = 0.5
    for _ in range(30):
        w.step(FRAME)
    expected = x0 + np.array([speed * t, 0, -0.5 * G * t * t])
    err = float(np.linalg.norm(w.positions[box] - expected))
    note("kinematic -> dynamic ballistic error (m)", err, "< 0.01")
    assert err < 0.01

    w.set_kind(box, "kinematic")               # and back: it stops being pushed by gravity
    assert w.masses[box] == math.inf


def test_set_kind_replays_exactly_through_save_and_load():
    def build():
        w = lg.World(gravity=(0, 0, -G))
        w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
        b = w.add_body(lg.Sphere(0.2), (0, 0, 1), kind="kinematic", density=500.0)
        return w, b

    w, b = build()
    state = w.save_state()
    for i in range(20):
        if i == 5:
            w.set_kind(b, "dynamic")
        w.step(FRAME)
    first = w.positions.copy()
    w.load_state(state)
    assert w.kind(b) == "kinematic"
    for i in range(20):
        if i == 5:
            w.set_kind(b, "dynamic")
        w.step(FRAME)
    assert np.array_equal(first, w.positions)


def test_drive_and_kind_reject_bad_input():
    w = lg.World()
    ground = w.add_body(lg.Box((1, 1, 1)), (0, 0, 0), kind="static")
    a = w.add_body(lg.Sphere(0.1), (0, 0, 2))
    b = w.add_body(lg.Sphere(0.1), (0, 0, 3))
    hinge = w.add_hinge(a, b, (0, 0, 2.5), (1, 0, 0))
    slider = w.add_prismatic(a, b, (0, 0, 2.5), (1, 0, 0))
    ball = w.add_ball_socket(a, b, (0, 0, 2.5))
    with pytest.raises(ValueError, match="prismatic.*ball_socket, ragdoll and hinge"):
        w.set_drive(slider, (1, 0, 0, 0), 5.0)
    with pytest.raises(ValueError, match="hinge drive must be an angle in radians"):
        w.set_drive(hinge, (1, 0, 0, 0), 5.0)
    with pytest.raises(ValueError, match="max_torque"):
        w.set_drive(hinge, 0.5, 5.0, max_torque=-1.0)
    with pytest.raises(ValueError, match="hertz"):
        w.set_drive(ball, (1, 0, 0, 0), -1.0)
    with pytest.raises(ValueError, match="target"):
        w.set_drive(ball, (0, 0, 0, 0), 5.0)
    with pytest.raises(ValueError, match="static and stays static"):
        w.set_kind(ground, "dynamic")
    with pytest.raises(ValueError, match="kind must be"):
        w.set_kind(a, "static")
