"""The pairs of bodies a joint keeps from colliding follow every change to the joint table
(World keeps them while the table's version is unchanged, tables.Table.version): a joint
removed, broken in a step, restored by load_state or taken back by a refused add."""

import numpy as np
import pytest

import solver as lg


def _touching(w, a, b):
    """Whether the world's contacts at the current poses hold a pair of bodies a, b."""
    w.collide(1 / 60)
    pairs = np.sort(w.contacts()["bodies"], axis=1)
    return bool(((pairs[:, 0] == min(a, b)) & (pairs[:, 1] == max(a, b))).any())


def _overlapping_pair(w, x=0.0):
    """Two unit-ish boxes a tenth of a metre into each other (a static one, a dynamic one
    under it): they collide unless a joint keeps them apart."""
    a = w.add_body(lg.Box((0.5, 0.5, 0.5)), (x, 0, 2.0), kind="static")
    b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (x, 0, 1.1), mass=1.0)
    return a, b


def test_a_removed_joint_lets_its_bodies_collide():
    w = lg.World(gravity=(0, 0, 0))
    a, b = _overlapping_pair(w)
    j = w.add_ball_socket(a, b, (0, 0, 1.55))
    w.step(1 / 60)
    assert not _touching(w, a, b)
    w.remove_joint(j)
    assert _touching(w, a, b)


def test_a_joint_broken_in_a_step_lets_its_bodies_collide_and_load_state_joins_them_again():
    w = lg.World(sleeping=False)
    a, b = _overlapping_pair(w)
    j = w.add_ball_socket(a, b, (0, 0, 1.55), break_force=1.0)   # holds 9.81 N: breaks
    saved = w.save_state()
    assert not _touching(w, a, b)
    for _ in range(3):
        w.step(1 / 60)
    assert w.joint_broken(j)
    assert _touching(w, a, b)
    w.load_state(saved)
    assert not w.joint_broken(j)
    assert not _touching(w, a, b)


def test_a_refused_joint_leaves_the_pairs_as_they_were():
    w = lg.World(gravity=(0, 0, 0))
    a, b = _overlapping_pair(w)
    c, d = _overlapping_pair(w, x=5.0)
    w.add_ball_socket(a, b, (0, 0, 1.55))
    assert _touching(w, c, d)
    with pytest.raises(ValueError, match="lower"):
        w.add_hinge(c, d, (5, 0, 1.55), (0, 1, 0), lower=0.5, upper=-0.5)
    assert _touching(w, c, d) and not _touching(w, a, b)
    w.add_ball_socket(c, d, (5, 0, 1.55))       # the same row count as the refused joint's
    assert not _touching(w, c, d)
