"""The overlay's limits, shapes and contacts on real scene data (background Blender draws
nothing, so the segment functions the draw callback calls are run directly). The scenario:
tests/addon/scenarios/overlay.py."""

import numpy as np


def test_overlay_segments_follow_the_joint_frame_limits_shapes_and_contacts(blender):
    out = blender.call("overlay.segments")
    arc = np.array(out["limits"][0]).reshape(-1, 3) - (0, 0, 2)
    ring = arc[np.linalg.norm(arc, axis=1) > 1e-6]
    assert np.allclose(np.linalg.norm(ring, axis=1), 1.0, atol=1e-6)   # display size x 2
    assert np.allclose(ring[:, 2], 0, atol=1e-6)                      # about the hinge (Z)
    # the joint's X axis is the world's Y (turned 90 degrees): angles count from +Y
    angles = np.degrees(np.arctan2(-ring[:, 0], ring[:, 1]))
    assert angles.min() == pytest_approx(-30) and angles.max() == pytest_approx(60)
    angles2 = np.degrees(np.arctan2(-np.array(out["limits2"][0]).reshape(-1, 3)[:, 0],
                                    np.array(out["limits2"][0]).reshape(-1, 3)[:, 1]))
    assert max(angles2) == pytest_approx(90)
    # B sits along world +X from the joint: -90 degrees in the joint's frame
    tip = np.array(out["marks"][0])[0, 1] - (0, 0, 2)
    assert np.allclose(tip, (1.0, 0, 0), atol=1e-6)
    # B's box wireframe: half extents 0.25 x 0.1 x 0.15 about its centre
    pts = np.array(out["shape"]).reshape(-1, 3) - (1, 0, 2)
    assert np.allclose(np.abs(pts), (0.25, 0.1, 0.15), atol=1e-6)
    # the dropped box rests on the ground: its contacts on the ground's top, normals vertical
    c = np.array(out["contacts"])
    # with every toggle on, the draw callback gets the limits, markers, 4 wireframes, contacts
    limit, mark, shape, contact = (out["drawn"][k] for k in out["colors"])
    assert limit == len(out["limits2"][0]) and mark == 1 and shape == 4 * 12
    assert contact == len(c)
    assert len(c) >= 4
    assert np.allclose(c[:, 0, 2], 0.0, atol=0.01)
    assert np.allclose(np.abs(c[:, 1, 2] - c[:, 0, 2]), 0.1, atol=1e-6)


def pytest_approx(value, tol=1e-4):
    import pytest
    return pytest.approx(value, abs=tol)
