"""World.ignore_collisions: a pair of bodies that never collide, each still colliding with
everything else (the add-on's bone chains and the ragdoll parts they start inside)."""

import pytest

import solver as lg

G = 9.81


def _stack(ignore):
    """A box dropped onto a box resting on the ground (the ground body 0): its height after
    a second, and the lower box's."""
    w = lg.World(gravity=(0, 0, -G))
    ground = w.add_body(lg.Box((5.0, 5.0, 0.5)), (0, 0, -0.5), kind="static")
    low = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5), mass=1.0)
    top = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 1.6), mass=1.0)
    if ignore:
        w.ignore_collisions(top, low)
    for _ in range(60):
        w.step(1 / 60)
    assert ground == 0
    return float(w.positions[top, 2]), float(w.positions[low, 2])


def test_an_ignored_pair_passes_through_each_other_and_still_meets_the_ground():
    top, low = _stack(False)
    assert abs(top - 1.5) < 0.01 and abs(low - 0.5) < 0.01      # stacked: half sizes 0.5
    top, low = _stack(True)
    # the top box falls through the lower one and rests on the ground beside it, inside it
    assert abs(top - 0.5) < 0.01 and abs(low - 0.5) < 0.01


def test_ignoring_a_body_with_itself_or_a_missing_body_is_refused():
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 0), mass=1.0)
    with pytest.raises(ValueError, match="two bodies"):
        w.ignore_collisions(a, a)
    with pytest.raises(ValueError):
        w.ignore_collisions(a, 7)
