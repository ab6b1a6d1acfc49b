"""Breaking, removing, reaction impulses, and kinematic bodies driving joints."""

import math

import numpy as np

import solver as lg
from probes import FRAME, G, Anchor, note, qaxis_angle, separation


def _hanging(mass, break_force=None):
    w = lg.World(gravity=(0, 0, -G))
    body = w.add_body(lg.Sphere(0.1), (0, 0, 1.5), mass=mass)
    j = w.add_ball_socket(None, body, (0, 0, 2), break_force=break_force)
    return w, body, j


def test_breakable_joint_breaks_under_196_newtons():
    w, body, j = _hanging(20.0, break_force=100.0)        # 20 kg * 9.81 = 196 N
    for _ in range(30):
        w.step(FRAME)
    assert w.joint_broken(j)
    # Once broken the body falls freely.
    v0 = w.linear_velocities[body, 2]
    w.step(FRAME)
    assert abs(w.linear_velocities[body, 2] - (v0 - G * FRAME)) < 1e-9


def test_breakable_joint_holds_under_49_newtons():
    w, body, j = _hanging(5.0, break_force=100.0)         # 5 kg * 9.81 = 49 N
    pivot = Anchor(w, None, (0, 0, 2))
    held = Anchor(w, body, (0, 0, 2))
    for _ in range(120):
        w.step(FRAME)
    assert not w.joint_broken(j)
    assert separation(pivot, held) < 1e-3


def test_joint_impulse_of_a_hanging_body_equals_its_weight():
    w, body, j = _hanging(5.0)
    for _ in range(60):
        w.step(FRAME)
    linear, angular = w.joint_impulse(j)
    expected = np.array([0.0, 0.0, 5.0 * G * FRAME])      # the joint holds B up
    note("joint impulse (N s)", linear, f"{expected}")
    assert np.allclose(linear, expected, rtol=0.01, atol=1e-6), f"{linear} vs {expected}"
    assert np.linalg.norm(angular) < 1e-6


def test_removed_joint_stops_acting():
    w, body, j = _hanging(2.0)
    for _ in range(30):
        w.step(FRAME)
    w.remove_joint(j)
    z0 = w.positions[body, 2]
    vz0 = w.linear_velocities[body, 2]
    t0 = w.time
    for _ in range(30):
        w.step(FRAME)
    t = w.time - t0
    expected = z0 + vz0 * t - 0.5 * G * t * t
    assert abs(w.positions[body, 2] - expected) < 0.01
    assert np.allclose(w.joint_impulse(j)[0], 0.0)


def test_kinematic_body_follows_its_targets_and_drags_a_jointed_body():
    w = lg.World(gravity=(0, 0, -G))
    carrier = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0.5, 0, 2), kind="kinematic")
    bob = w.add_body(lg.Sphere(0.1), (0.5, 0, 1.5), mass=1.0)
    w.add_ball_socket(carrier, bob, (0.5, 0, 1.9))
    ends = (Anchor(w, carrier, (0.5, 0, 1.9)), Anchor(w, bob, (0.5, 0, 1.9)))
    worst_pose = worst_sep = 0.0
    for i in range(1, 91):
        t = i * FRAME
        target = np.array([0.5 * math.cos(t), 0.5 * math.sin(t), 2.0])
        q = qaxis_angle((0, 0, 1), t)
        w.set_kinematic_target(carrier, target, q)
        w.step(FRAME)
        worst_pose = max(worst_pose, float(np.linalg.norm(w.positions[carrier] - target)),
                         float(min(np.linalg.norm(w.orientations[carrier] - q),
                                   np.linalg.norm(w.orientations[carrier] + q))))
        worst_sep = max(worst_sep, separation(*ends))
    assert worst_pose < 1e-9, f"kinematic body {worst_pose:.3g} off its targets"
    assert worst_sep < 0.01, f"dragged joint separated by {100 * worst_sep:.3f} cm"
    assert w.masses[carrier] == np.inf


def test_joined_bodies_collide_once_the_joint_is_gone():
    """A joint keeps its bodies from colliding; removed, or broken inside a step, it no
    longer does from the next step on (World works the excluded pairs out again whenever
    the joints change)."""
    w = lg.World(gravity=(0, 0, 0))
    a = w.add_body(lg.Sphere(0.1), (0, 0, 1))
    b = w.add_body(lg.Sphere(0.1), (0.15, 0, 1))          # 5 cm into each other
    j = w.add_ball_socket(a, b, (0.075, 0, 1))
    for _ in range(3):
        w.step(FRAME)
    assert w.contact_count() == 0
    w.remove_joint(j)
    w.step(FRAME)
    assert w.contact_count() > 0

    w = lg.World(gravity=(0, 0, -G))
    a = w.add_body(lg.Sphere(0.1), (0, 0, 1))
    b = w.add_body(lg.Sphere(0.1), (0, 0, 0.85))         # 5 cm into a, hanging from it
    w.add_ball_socket(None, a, (0, 0, 1))
    j = w.add_ball_socket(a, b, (0, 0, 0.925), break_force=1.0)   # b weighs 41 N
    w.step(FRAME)
    assert w.joint_broken(j) and w.contact_count() == 0
    w.step(FRAME)
    assert w.contact_count() > 0
