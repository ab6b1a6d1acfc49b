"""The overlay's geometry (addon/scene/limit_shapes.py), without Blender: it imports neither
bpy nor gpu."""

import math
import os

import numpy as np
import pytest

from addon.scene import limit_shapes as ls

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _angle(u, v):
    u, v = np.asarray(u, float), np.asarray(v, float)
    return math.degrees(math.acos(np.clip(u @ v / np.linalg.norm(u) / np.linalg.norm(v), -1, 1)))


def test_a_30_degree_cone_rim_is_30_degrees_from_the_twist_axis():
    rim = ls.cone_rim(math.radians(30), math.radians(30), length=2.0, n=64)
    angles = [_angle(p, (0, 1, 0)) for p in rim]
    assert np.allclose(angles, 30.0, atol=1e-9)
    assert np.allclose(np.linalg.norm(rim, axis=1), 2.0)


def test_an_elliptical_cone_reaches_swing1_about_x_and_swing2_about_z():
    s1, s2 = math.radians(20), math.radians(50)
    rim = ls.cone_rim(s1, s2, n=64)
    # swinging about X moves the axis in the YZ plane, about Z in the XY plane
    in_yz = [p for p in rim if abs(p[0]) < 1e-9]
    in_xy = [p for p in rim if abs(p[2]) < 1e-9]
    assert in_yz and in_xy
    assert all(abs(_angle(p, (0, 1, 0)) - 20) < 1e-9 for p in in_yz)
    assert all(abs(_angle(p, (0, 1, 0)) - 50) < 1e-9 for p in in_xy)
    # every rim point: the rotation that takes Y there, split into its X and Z parts, lies
    # on the ellipse (about_x / s1)^2 + (about_z / s2)^2 = 1 (the test's own check of the
    # joint's limit in tests/addon/test_ragdoll.py)
    for p in rim:
        axis = np.cross((0, 1, 0), p)
        angle = math.atan2(np.linalg.norm(axis), p[1])
        axis = axis / np.linalg.norm(axis) * angle
        assert abs((axis[0] / s1) ** 2 + (axis[2] / s2) ** 2 - 1) < 1e-9


def test_a_hinge_arc_runs_from_lower_to_upper_about_z():
    seg = ls.hinge_arc(math.radians(-45), math.radians(90), radius=0.5)
    points = seg.reshape(-1, 3)
    assert np.allclose(points[:, 2], 0)
    ring = points[np.linalg.norm(points, axis=1) > 1e-9]
    assert np.allclose(np.linalg.norm(ring, axis=1), 0.5)
    angles = np.degrees(np.arctan2(ring[:, 1], ring[:, 0]))
    assert angles.min() == pytest.approx(-45) and angles.max() == pytest.approx(90)
    # the arc's first point is at lower, its last at upper
    assert np.allclose(seg[0, 0], 0.5 * np.array([math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0]))


def test_twist_arc_turns_about_y_and_marker_sits_at_the_angle():
    seg = ls.twist_arc(math.radians(-10), math.radians(10))
    pts = seg.reshape(-1, 3)
    assert np.allclose(pts[:, 1], 0)
    tip = ls.angle_marker(math.radians(10), (0, 1, 0), (0, 0, 1))[0, 1]
    assert np.allclose(tip, seg[-3, 1]) or any(np.allclose(tip, p) for p in pts)
    assert _angle(tip, (0, 0, 1)) == pytest.approx(10)


def test_slider_range_ends_at_its_limits():
    seg = ls.linear_range(-0.2, 0.7, axis=(1, 0, 0), tick=0.1)
    assert np.allclose(seg[0], [[-0.2, 0, 0], [0.7, 0, 0]])
    assert np.allclose(np.linalg.norm(seg[1, 1] - seg[1, 0]), 0.1)
    assert np.allclose(seg[1].mean(axis=0), [-0.2, 0, 0])


def test_wireframes_have_the_shapes_size():
    box = ls.box_wire((0.5, 1.0, 2.0)).reshape(-1, 3)
    assert np.allclose(np.abs(box), [0.5, 1.0, 2.0])
    assert len(ls.box_wire((1, 1, 1))) == 12
    sphere = ls.sphere_wire(0.3).reshape(-1, 3)
    assert np.allclose(np.linalg.norm(sphere, axis=1), 0.3)
    cap = ls.capsule_wire(0.1, 0.4).reshape(-1, 3)
    # every point is on the capsule's surface: at `radius` from the segment z in [-0.4, 0.4]
    nearest = np.stack((np.zeros(len(cap)), np.zeros(len(cap)), np.clip(cap[:, 2], -0.4, 0.4)), 1)
    assert np.allclose(np.linalg.norm(cap - nearest, axis=1), 0.1)
    assert cap[:, 2].max() == pytest.approx(0.5) and cap[:, 2].min() == pytest.approx(-0.5)


def test_contact_normals_start_at_the_points_and_point_along_the_normals():
    seg = ls.contact_normals([[0, 0, 0], [1, 2, 3]], [[0, 0, 1], [1, 0, 0]], length=0.25)
    assert np.allclose(seg[:, 0], [[0, 0, 0], [1, 2, 3]])
    assert np.allclose(seg[:, 1] - seg[:, 0], [[0, 0, 0.25], [0.25, 0, 0]])


def test_transform_maps_segments_by_the_matrix():
    m = np.eye(4)
    m[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    m[:3, 3] = (1, 2, 3)
    seg = ls.transform(ls.linear_range(0, 1, tick=0.0)[:1], m)
    assert np.allclose(seg[0], [[1, 2, 3], [1, 3, 3]])


def test_the_module_imports_no_blender():
    text = open(os.path.join(ROOT, "addon", "scene", "limit_shapes.py")).read()
    assert "import bpy" not in text and "import gpu" not in text
