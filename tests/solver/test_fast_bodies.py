"""Fast bodies do not tunnel: a 1 cm ball at 100 and 200 m/s against a 1 cm wall, static or
dynamic, and a thrown ball against a thin plank hung on a hinge. Contacts are found once a
frame with a speculative margin as wide as the bodies' motion over the frame, so a wall the
ball would cross within the frame is met. 60 Hz frames, World defaults.
"""

import numpy as np
import pytest

import solver as lg

FRAME = 1.0 / 60.0
BALL = 0.005            # m: the ball's radius (1 cm across)
WALL = 0.005            # m: the wall's half thickness (1 cm)


@pytest.mark.parametrize("kind", ["static", "dynamic"])
@pytest.mark.parametrize("speed", [100.0, 200.0])
def test_one_cm_ball_does_not_pass_a_one_cm_wall(speed, kind):
    # sleeping off: the hit wall drifts at 5 mm/s, below the sleep threshold
    w = lg.World(gravity=(0, 0, 0), sleeping=False)
    extra = {"mass": 10.0} if kind == "dynamic" else {}
    wall = w.add_body(lg.Box((WALL, 1.0, 1.0)), (0, 0, 0), kind=kind, **extra)
    ball = w.add_body(lg.Sphere(BALL), (-3.0, 0, 0), linear_velocity=(speed, 0, 0))
    p0 = w.masses[ball] * speed
    for _ in range(60):
        w.step(FRAME)
        # the ball's centre stays on its own side of the wall's near face
        gap = w.positions[wall, 0] - WALL - w.positions[ball, 0]
        assert gap > BALL - 0.002, (gap, w.positions[ball], w.positions[wall])
    assert w.linear_velocities[ball, 0] < 0.01 * speed
    if kind == "dynamic":
        # momentum goes into the wall: the pair's total is what the ball brought
        p = w.masses[ball] * w.linear_velocities[ball] + w.masses[wall] * w.linear_velocities[wall]
        assert abs(p[0] - p0) < 1e-3 * p0, (p, p0)


@pytest.mark.parametrize("speed", [30.0, 100.0])
def test_thrown_ball_does_not_pass_a_thin_plank_on_a_hinge(speed):
    # A 1 cm plank hangs from a hinge on a static beam; a 3 cm ball thrown at it level hits it
    # and stays on its side while the plank swings away.
    w = lg.World()
    beam = w.add_body(lg.Box((0.05, 0.5, 0.05)), (0, 0, 2.0), kind="static")
    plank = w.add_body(lg.Box((WALL, 0.4, 0.5)), (0, 0, 1.45), mass=2.0)
    w.add_hinge(beam, plank, (0, 0, 1.95), (0, 1, 0))
    ball = w.add_body(lg.Sphere(0.015), (-2.0, 0.1, 1.3), linear_velocity=(speed, 0, 0))
    m, arm = w.masses[ball], 1.95 - 1.3
    inertia = 2.0 / 3.0 * (WALL ** 2 + 0.5 ** 2) + 2.0 * 0.5 ** 2     # about the hinge
    spin = 0.0
    for _ in range(30):
        w.step(FRAME)
        spin = max(spin, abs(w.angular_velocities[plank, 1]))
        # the ball's centre measured in the plank's frame stays in front of its face
        q = w.orientations[plank]
        x_axis = _rotate(q, np.array([1.0, 0, 0]))
        d = (w.positions[ball] - w.positions[plank]) @ x_axis
        assert d < -WALL, (d, w.positions[ball], w.positions[plank])
    # the hit swung the plank: the ball's angular momentum about the hinge, shared in an
    # inelastic hit (restitution 0), within what a ball that bounces off would give
    shared = m * speed * arm / (inertia + m * arm * arm)
    assert 0.8 * shared < spin < 2.2 * shared, (spin, shared)


def _rotate(q, v):
    w0, x, y, z = q / np.linalg.norm(q)
    u = np.array([x, y, z])
    return v + 2.0 * np.cross(u, np.cross(u, v) + w0 * v)


def test_fast_ball_passing_beside_a_wall_keeps_its_speed():
    # The wide margin finds the wall but the ball does not close on it: no impulse.
    w = lg.World(gravity=(0, 0, 0))
    w.add_body(lg.Box((WALL, 1.0, 1.0)), (0, 0, 0), kind="static")
    ball = w.add_body(lg.Sphere(BALL), (-3.0, 0, 0.0), linear_velocity=(0, 0, 0))
    side = w.add_body(lg.Sphere(BALL), (-3.0, 0, 1.05), linear_velocity=(0, 150.0, 0))
    for _ in range(10):
        w.step(FRAME)
    assert np.allclose(w.linear_velocities[side], (0, 150.0, 0), atol=1e-9)
    assert np.allclose(w.positions[ball], (-3.0, 0, 0))
