"""The checks around a frame: a state written from outside that no step can take is refused
before anything moves, and a step that makes the state non-finite raises (whether the world
sleeps or not: the check after the step is one native call with falling asleep)."""

import math

import numpy as np
import pytest

import solver as lg


@pytest.mark.parametrize("sleeping", [True, False])
def test_a_step_that_blows_up_raises_naming_the_bodies(sleeping):
    w = lg.World(sleeping=sleeping, gravity=(0, 0, 0))
    w.add_body(lg.Sphere(0.5), (500, 0, 0))     # beyond the spinning box's margin: untouched
    b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 3))
    w.angular_velocities[b] = (1e300, 1e300, 0.0)    # finite, but its turn in a substep is not
    with pytest.raises(FloatingPointError, match=r"bodies \[1\] have non-finite state"):
        w.step(1 / 60)


@pytest.mark.parametrize("sleeping", [True, False])
def test_a_non_finite_state_written_from_outside_is_refused_before_the_step(sleeping):
    w = lg.World(sleeping=sleeping)
    a = w.add_body(lg.Sphere(0.5), (5, 0, 0))
    b = w.add_body(lg.Sphere(0.5), (0, 0, 3))
    w.linear_velocities[b] = (math.nan, 0.0, 0.0)
    before = w.positions[a].copy()
    with pytest.raises(ValueError, match=r"bodies \[1\] have non-finite"):
        w.step(1 / 60)
    assert np.array_equal(w.positions[a], before) and w.time == 0.0
