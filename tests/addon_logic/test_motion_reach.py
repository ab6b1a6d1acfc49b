"""The fix's leg reach (addon/motion/fix.py `reach_drop`, shared by the metarig's balance and
a generated Rigify rig's) and its rigid body matrices (`rigid64`), headless, against
Pythagoras and an orthonormality check."""

import math

import numpy as np
import pytest

from motion_package import load


def _fix():
    return load("fix")


UP = np.array([0.0, 0.0, 1.0])
# a leg standing straight: hip 90 cm above the ankle, the knee half-way
HIP, KNEE, ANKLE = np.array([[0.1, 0, 0.9]]), np.array([[0.1, 0, 0.45]]), np.array([[0.1, 0, 0]])


def test_a_straight_leg_shifted_sideways_drops_the_pelvis_to_keep_its_length():
    fix = _fix()
    shift = np.array([0.0, 0.3, 0.0])
    drop = fix.reach_drop(HIP, KNEE, ANKLE, shift, UP)
    reach = 0.999 * 0.9
    assert drop == pytest.approx(0.9 - math.sqrt(reach * reach - 0.3 * 0.3), abs=1e-12)
    hip = HIP[0] + shift - drop * UP
    assert np.linalg.norm(hip - ANKLE[0]) == pytest.approx(reach, abs=1e-12)


def test_a_bent_leg_that_still_reaches_needs_no_drop_and_one_too_far_is_refused():
    fix = _fix()
    knee = np.array([[0.1, -0.2, 0.45]])             # bent: 2 x 49 cm, hip 90 cm up
    assert fix.reach_drop(HIP, knee, ANKLE, np.array([0.0, 0.1, 0.0]), UP) == 0.0
    with pytest.raises(ValueError, match="too far outside the feet"):
        fix.reach_drop(HIP, KNEE, ANKLE, np.array([0.0, 0.95, 0.0]), UP)


def test_rigid64_keeps_the_translation_and_makes_the_rotation_orthonormal():
    fix = _fix()
    m = np.eye(4)
    c, s = math.cos(0.4), math.sin(0.4)
    m[:3, :3] = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.diag([1.2, 0.9, 1.0])
    m[:3, 3] = (1, 2, 3)
    r = fix.rigid64(m)
    assert np.abs(r[:3, :3] @ r[:3, :3].T - np.eye(3)).max() < 1e-12
    assert np.linalg.det(r[:3, :3]) == pytest.approx(1.0)
    assert np.array_equal(r[:3, 3], m[:3, 3]) and np.array_equal(r[3], [0, 0, 0, 1])
