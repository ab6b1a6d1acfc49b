"""The frame's contact impulse on a body (`World.contact_impulses`), checked against the
momentum the other body gained, and springs changed between steps (`World.set_spring`)."""

import math

import numpy as np
import pytest

import solver as lg

G = -9.81
DT = 1 / 60


def _ball_hits_kinematic_box(restitution=0.0, substeps=8):
    """A 50 kg frictionless ball flying at 4 m/s into a kinematic box sliding at 1 m/s
    toward it; returns (world, box, ball)."""
    w = lg.World(gravity=(0, 0, G), substeps=substeps, sleeping=False)
    box = w.add_body(lg.Box((0.25, 0.25, 0.25)), position=(0, 0, 1), kind="kinematic",
                     friction=0.0)
    ball = w.add_body(lg.Sphere(0.2), position=(1.0, 0, 1), mass=50.0, friction=0.0,
                      restitution=restitution, linear_velocity=(-4.0, 0, 0))
    return w, box, ball


@pytest.mark.parametrize("restitution", [0.0, 0.5])
def test_contact_impulse_on_a_kinematic_body_is_the_momentum_the_ball_gained(restitution):
    w, box, ball = _ball_hits_kinematic_box(restitution)
    touched = 0
    for f in range(1, 40):
        w.set_kinematic_target(box, (f * DT * 1.0, 0, 1))
        v0 = w.linear_velocities[ball].copy()
        w.step(DT)
        gained = 50.0 * (w.linear_velocities[ball] - v0 - np.array([0, 0, G * DT]))
        others, impulses = w.contact_impulses(box)
        on_box = impulses[others == ball].sum(axis=0) if len(others) else np.zeros(3)
        # only the box touches the ball: what it gained, the box took back
        assert np.allclose(on_box, -gained, atol=1e-9 * max(1.0, np.abs(gained).max()))
        touched += np.abs(gained).max() > 1.0
    assert touched >= 1


def test_contact_impulse_sums_every_substep():
    """A ball resting on a kinematic floor: the floor takes its weight over the frame, not a
    substep's share."""
    w = lg.World(gravity=(0, 0, G), substeps=4, sleeping=False)
    floor = w.add_body(lg.Box((2, 2, 0.1)), position=(0, 0, -0.1), kind="kinematic")
    ball = w.add_body(lg.Sphere(0.2), position=(0, 0, 0.2), mass=3.0)
    for _ in range(120):
        w.step(DT)
    others, impulses = w.contact_impulses(floor)
    assert others.tolist() == [ball]
    assert impulses[0] == pytest.approx((0, 0, -3.0 * 9.81 * DT), rel=1e-3, abs=1e-9)
    assert w.contact_impulses(ball)[1][0] == pytest.approx(-impulses[0])


def test_set_spring_changes_the_frequency_of_a_distance_spring():
    """A 1 kg body on a vertical distance spring to the world, no gravity: after set_spring
    it swings at the new frequency."""
    def period(hertz_after):
        w = lg.World(gravity=(0, 0, 0), substeps=16)
        b = w.add_body(lg.Sphere(0.05), position=(0, 0, 0.1), mass=1.0)
        j = w.add_distance(None, b, (0, 0, 1), (0, 0, 0.1), rest_length=1.0, spring_hz=0.5,
                           spring_damping=0.0)
        w.set_spring(j, hertz_after, 0.0)
        z, crossings = [], []
        for f in range(600):
            w.step(1 / 240)
            z.append(w.positions[b, 2])
            if f and z[-2] * z[-1] < 0:
                crossings.append(f)
        return (crossings[2] - crossings[0]) / 240     # two zero crossings a period
    assert period(4.0) == pytest.approx(0.25, rel=0.05)


def test_set_spring_refuses_a_joint_without_one():
    w = lg.World()
    b = w.add_body(lg.Sphere(0.1), position=(0, 0, 1))
    j = w.add_ball_socket(None, b, (0, 0, 1))
    with pytest.raises(ValueError, match="no spring"):
        w.set_spring(j, 2.0)
