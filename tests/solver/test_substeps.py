"""Islands step at their own substep counts (islands.py): a small jointed island at
`World(jointed_substeps=...)`, stacks, piles, lone bodies and springs at `substeps`."""

import numpy as np
import pytest

import solver as lg
from probes import FRAME


def _pendulum_and_box(**settings):
    """A 1 kg ball on a hinge to the world, swinging, and a box dropped on the floor far
    from it: two islands, one jointed."""
    w = lg.World(sleeping=False, threads=1, **settings)
    w.add_body(lg.Box((10, 10, 0.5)), (0, 0, -0.5), kind="static")
    ball = w.add_body(lg.Sphere(0.1), (0.0, 1.0, 3.0), mass=1.0)
    w.add_hinge(None, ball, (0.0, 0.0, 3.0), (1, 0, 0))
    box = w.add_body(lg.Box((0.2, 0.2, 0.2)), (5.0, 5.0, 0.6), mass=2.0,
                     angular_velocity=(1.0, 2.0, 0.5))
    for _ in range(90):
        w.step(FRAME)
    return w.positions[ball].copy(), w.positions[box].copy()


def test_a_jointed_island_steps_at_jointed_substeps_and_a_lone_body_at_substeps():
    ball, box = _pendulum_and_box(jointed_substeps=4)     # 8, jointed 4
    ball4, _ = _pendulum_and_box(substeps=4)              # every island at 4
    ball8, box8 = _pendulum_and_box()                     # every island at 8
    assert np.array_equal(ball, ball4), "the pendulum did not step at 4 substeps"
    assert np.array_equal(box, box8), "the box did not step at 8 substeps"
    assert not np.array_equal(ball, ball8)
    assert box[2] < 0.21, "the box did not land"


def test_jointed_substeps_default_and_validation():
    assert lg.World().jointed_substeps == 8
    assert lg.World(substeps=16).jointed_substeps == 16
    assert lg.World(jointed_substeps=4).jointed_substeps == 4
    for bad in (0, -2, float("nan")):
        with pytest.raises(ValueError, match="jointed_substeps"):
            lg.World(jointed_substeps=bad)


@pytest.mark.parametrize("levels", [3, 4, 8])
def test_a_pile_of_hinged_planks_at_4_jointed_substeps_stays_still(levels):
    # Hinged plank pairs (20 kg) piled on each other: the contacts between them are swept,
    # not solved exactly, so a pile of more than three steps at the full substeps. At 4
    # substeps with the world's contact stiffness, four levels jitter at 0.14 m/s and eight
    # at 0.3 m/s; three keep still.
    w = lg.World(sleeping=False, threads=1, jointed_substeps=4)
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    planks = []
    for k in range(levels):
        z = 0.1 + 0.2 * k
        a = w.add_body(lg.Box((0.3, 0.15, 0.1)), (-0.3, 0, z), mass=10.0)
        b = w.add_body(lg.Box((0.3, 0.15, 0.1)), (0.3, 0, z), mass=10.0)
        w.add_hinge(a, b, (0, 0, z), (0, 1, 0), lower=-0.1, upper=0.1)
        planks += [a, b]
    for _ in range(180):
        w.step(FRAME)
    start = w.positions[planks].copy()
    fastest = 0.0
    for _ in range(300):
        w.step(FRAME)
        fastest = max(fastest, float(np.abs(w.linear_velocities[planks]).max()))
    moved = np.linalg.norm(w.positions[planks] - start, axis=1).max()
    assert fastest < 0.02, f"the pile jitters at {fastest:.3f} m/s"
    assert moved < 1e-3, f"a plank moved {moved * 1e3:.2f} mm in 5 s"


def test_a_spring_keeps_its_island_at_the_full_substeps():
    # A 2 kg ball on an undamped 400 N/m custom spring: its island steps at `substeps`
    # whatever jointed_substeps says (the implicit step's numerical damping grows with the
    # substep: at 4 its swing fell to 6 % of its sag in 4 s, at 8 to 25 %).
    def swing(**settings):
        w = lg.World(sleeping=False, threads=1, **settings)
        ball = w.add_body(lg.Sphere(0.05), (0, 0, 4), mass=2.0)
        w.add_custom([None, ball], "length(pA - pB) - 1", stiffness=400.0,
                     anchors=[(0, 0, 5), None])
        for _ in range(120):
            w.step(FRAME)
        return w.positions[ball].copy()
    assert np.array_equal(swing(jointed_substeps=4), swing())
    assert not np.array_equal(swing(substeps=4), swing())


def test_a_drive_keeps_its_island_at_the_full_substeps():
    # A rod on a ball-socket driven toward a turned pose (pose matching): at 4 substeps a
    # metarig's drives missed their pose by 40 degrees, so a driven island steps at `substeps`.
    def turn(**settings):
        w = lg.World(sleeping=False, threads=1, **settings)
        rod = w.add_body(lg.Capsule(0.05, 0.3), (0, 0, 2.6), mass=1.0)
        j = w.add_ball_socket(None, rod, (0, 0, 3))
        w.set_drive(j, (0.9239, 0.3827, 0.0, 0.0), hertz=4.0, damping_ratio=1.0)
        for _ in range(60):
            w.step(FRAME)
        return w.orientations[rod].copy()
    assert np.array_equal(turn(jointed_substeps=4), turn())
    assert not np.array_equal(turn(substeps=4), turn())
