"""Any dt: a step longer than `World.max_frame` is taken as that many ordinary frames, so
`step(1.0)` or `step(10.0)` (a script's dt from an fps of 1, a frame jump) gives what the
same time in short frames gives, not a blown-up state."""

import math

import numpy as np
import pytest

import solver as lg

G = 9.81


def _stack(**settings):
    """Four 0.5 m boxes stacked on a static floor."""
    w = lg.World(**settings)
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    boxes = [w.add_body(lg.Box((0.25, 0.25, 0.25)), (0, 0, 0.25 + 0.5 * i), mass=1.0)
             for i in range(4)]
    return w, boxes


def test_four_stacked_boxes_stepped_a_second_at_a_time_stand():
    w, boxes = _stack()
    for _ in range(10):
        w.step(1.0)
    assert w.time == pytest.approx(10.0)
    z = w.positions[boxes, 2]
    # each box on the one below (soft contacts sink under load by at most a few mm)
    assert np.allclose(z, [0.25, 0.75, 1.25, 1.75], atol=5e-3), z
    assert np.abs(w.positions[boxes, :2]).max() < 1e-3


def test_a_long_step_equals_the_same_time_in_frames_of_max_frame():
    long, a = _stack(sleeping=False)
    short, b = _stack(sleeping=False)
    long.positions[a[-1]] += (0.05, 0.0, 0.3)           # the top box dropped off-centre
    short.positions[b[-1]] += (0.05, 0.0, 0.3)
    long.step(0.5)
    for _ in range(10):
        short.step(0.05)
    assert np.array_equal(long.positions, short.positions)
    assert np.array_equal(long.orientations, short.orientations)


def test_free_fall_over_one_long_step_follows_g_t_squared():
    w = lg.World(substeps=8)
    ball = w.add_body(lg.Sphere(0.1), (0, 0, 100.0), mass=1.0)
    w.step(2.0)
    # semi-implicit Euler leads the exact fall by g t h / 2 at substep h
    h = w.max_frame / w.substeps
    drop = 0.5 * G * 2.0 * (2.0 + h)
    assert w.positions[ball, 2] == pytest.approx(100.0 - drop, abs=1e-9)
    assert w.linear_velocities[ball, 2] == pytest.approx(-G * 2.0, rel=1e-12)


def test_a_hinge_chain_stepped_ten_seconds_at_once_stays_together():
    w = lg.World()
    links, prev = [], None
    for i in range(5):
        link = w.add_body(lg.Box((0.2, 0.05, 0.05)), (0.4 * i + 0.2, 0, 5.0), mass=1.0)
        w.add_hinge(prev, link, (0.4 * i, 0, 5.0), (0, 1, 0))
        links.append(link)
        prev = link
    w.step(10.0)
    assert np.all(np.isfinite(w.positions))
    ends = w.positions[links] + np.array([lg_dir(w, b) for b in links])
    starts = w.positions[links] - np.array([lg_dir(w, b) for b in links])
    gaps = np.linalg.norm(starts[1:] - ends[:-1], axis=1)
    assert gaps.max() < 1e-3, gaps
    assert np.linalg.norm(starts[0] - (0, 0, 5.0)) < 1e-3
    # hanging down after 10 s of swinging (damped by the solver's softness only: it swings
    # below the pivot, never above it)
    assert w.positions[links, 2].max() < 5.0 + 1e-3


def lg_dir(w, b):
    """Half a link's length along its local X, in the world."""
    q = w.orientations[b]
    x = np.array([1 - 2 * (q[2] ** 2 + q[3] ** 2), 2 * (q[1] * q[2] + q[0] * q[3]),
                  2 * (q[1] * q[3] - q[0] * q[2])])
    return 0.2 * x


def test_a_kinematic_body_follows_a_straight_line_to_its_target_over_a_long_step():
    w = lg.World(gravity=(0, 0, 0), sleeping=False)
    pusher = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0), kind="kinematic")
    # a body in the path, 2 m along: a teleport to the target would pass it untouched
    ball = w.add_body(lg.Sphere(0.25), (2.0, 0, 0), mass=1.0)
    turn = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))    # 90 deg about Z
    w.set_kinematic_target(pusher, (4.0, 0, 0), turn)
    w.step(1.0)
    assert np.allclose(w.positions[pusher], (4.0, 0, 0), atol=1e-9)
    assert abs(np.dot(w.orientations[pusher], turn)) == pytest.approx(1.0, abs=1e-9)
    # pushed ahead of the box, which moved at 4 m/s
    assert w.positions[ball, 0] > 4.0 + 0.5, w.positions[ball]


def test_max_frame_is_checked():
    assert lg.World().max_frame == pytest.approx(1 / 20)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="max_frame"):
            lg.World(max_frame=bad)


@pytest.mark.parametrize("orientation", [(0, 0, 0, 0), (1e-200, 0, 0, 0),
                                         (float("nan"), 0, 0, 1)])
def test_an_orientation_that_is_no_rotation_is_refused_naming_the_body_and_nothing_moves(
        orientation):
    w, boxes = _stack()
    w.positions[boxes[0]] += (0, 0, 0.1)
    w.orientations[boxes[2]] = orientation
    before = w.save_state()
    with pytest.raises(ValueError, match=r"bodies \[3\]"):
        w.step(1 / 60)
    after = w.save_state()
    assert w.time == 0.0
    for key in before:
        if key != "contacts":
            np.testing.assert_array_equal(np.asarray(before[key]), np.asarray(after[key]))


def test_a_shape_too_large_for_its_mass_is_refused_with_its_size():
    for make, name in ((lambda: lg.Sphere(1e200), "Sphere radius"),
                       (lambda: lg.Box((1e200, 1, 1)), "Box half_extents"),
                       (lambda: lg.Capsule(1.0, 1e160), "Capsule half_height"),
                       (lambda: lg.ConvexHull([[0, 0, 0], [1e9, 0, 0], [0, 1, 0],
                                               [0, 0, 1]]), "ConvexHull points")):
        with pytest.raises(ValueError, match=name + ".*metres"):
            make()
    assert lg.Sphere(1e5).radius == 1e5          # a 100 km body is still a body


def test_a_custom_expression_undefined_where_the_bodies_start_is_refused_with_its_value():
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 2))
    before = w.joint_count
    with pytest.raises(ValueError, match=r"undefined where the bodies are now \(C = nan"):
        w.add_custom([a], "sqrt(pA.z - 100)")
    assert w.joint_count == before                 # nothing was added
    j = w.add_custom([a], "sqrt(pA.z + 100) - 10.1")   # defined there: accepted
    assert w.joint_count == before + 1 and j == before


def test_coupling_a_removed_or_broken_hinge_is_refused_naming_it():
    w = lg.World()
    g1 = w.add_body(lg.Cylinder(0.1, 0.02), (0, 0, 2))
    g2 = w.add_body(lg.Cylinder(0.05, 0.02), (0, 0.5, 2))
    h1 = w.add_hinge(None, g1, (0, 0, 2), (0, 0, 1))
    h2 = w.add_hinge(None, g2, (0, 0.5, 2), (0, 0, 1))
    w.remove_joint(h2)
    with pytest.raises(ValueError, match=f"hinge_b: joint {h2} was removed"):
        w.add_gear(h1, h2, 2.0)
