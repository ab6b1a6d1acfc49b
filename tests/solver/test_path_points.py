"""World.set_path_points: a path whose curve moves (a kinematic path: the add-on
follows animated Curve objects with it). 60 Hz, World defaults."""

import math

import numpy as np
import pytest

import solver as lg

FRAME = 1.0 / 60.0


def _wire(z=1.0, n=41, tilt=0.0):
    """A straight wire from x = -2 to 2 at height z, tilted by `tilt` about Y."""
    x = np.linspace(-2.0, 2.0, n)
    return np.column_stack([x * math.cos(tilt), np.zeros(n), z - x * math.sin(tilt)])


def _bead(points, at=(0.0, 0.0, 1.0)):
    w = lg.World()
    b = w.add_body(lg.Sphere(0.05), at, mass=0.2)
    j = w.add_path(b, at, points)
    return w, b, j


def test_a_wire_lifted_every_frame_carries_its_bead_up_with_it():
    """The wire rises at 0.5 m/s then stops: the bead stays on it, at the wire's height, and
    does not slide along the level wire (the lift is across it)."""
    pts = _wire()
    w, b, j = _bead(pts)
    heights, off = [], []
    for frame in range(1, 121):
        lift = 0.5 * min(frame, 60) * FRAME
        w.set_path_points(j, pts + (0.0, 0.0, lift))
        w.step(FRAME)
        heights.append(lift)
        off.append(abs(w.positions[b, 2] - (1.0 + lift)) + abs(w.positions[b, 1]))
    assert max(off) < 1e-3, f"the bead was off the moving wire by {1e3 * max(off):.3f} mm"
    assert abs(w.positions[b, 2] - 1.5) < 1e-3
    assert abs(w.positions[b, 0]) < 1e-6, "the bead slid along a level wire"


def test_a_tilted_wire_carried_sideways_keeps_the_slide_at_g_sin_slope():
    """Moving the wire along its own normal plane at a constant velocity does not change the
    slide along it: the bead's travel along the wire is g sin(slope) t^2 / 2 as on a wire
    at rest (a uniformly moving frame is inertial)."""
    slope = math.radians(20.0)
    pts = _wire(tilt=slope)
    w, b, j = _bead(pts)
    along = np.array([math.cos(slope), 0.0, -math.sin(slope)])
    shift = np.array([0.0, 0.3, 0.0])            # m/s across the wire, horizontal
    s = []
    for frame in range(1, 61):
        moved = pts + shift * frame * FRAME
        w.set_path_points(j, moved)
        w.step(FRAME)
        rel = w.positions[b] - shift * frame * FRAME - (0.0, 0.0, 1.0)
        assert np.linalg.norm(rel - (rel @ along) * along) < 1e-3
        s.append(rel @ along)
    t = np.arange(1, 61) * FRAME
    a = 2.0 * np.polyfit(t, s, 2)[0]
    assert abs(a - 9.81 * math.sin(slope)) < 0.01 * 9.81 * math.sin(slope), f"a = {a:.4f}"


def test_setting_the_same_points_every_frame_changes_nothing():
    pts = _wire(tilt=math.radians(30.0))
    still, b, _ = _bead(pts)
    reset, _, j = _bead(pts)
    for _ in range(60):
        reset.set_path_points(j, pts)
        still.step(FRAME)
        reset.step(FRAME)
    assert np.array_equal(still.positions, reset.positions)
    assert np.array_equal(still.linear_velocities, reset.linear_velocities)


def test_save_state_keeps_the_moved_points():
    pts = _wire()
    w, b, j = _bead(pts)
    state = w.save_state()
    w.set_path_points(j, pts + (0.0, 0.0, 0.5))
    w.step(FRAME)
    lifted = w.positions[b, 2]
    w.load_state(state)
    w.step(FRAME)
    assert lifted > 1.45 and abs(w.positions[b, 2] - 1.0) < 1e-3


def test_set_path_points_refuses_what_does_not_fit():
    pts = _wire()
    w, b, j = _bead(pts)
    other = w.add_body(lg.Sphere(0.05), (3, 0, 1))
    hinge = w.add_hinge(None, other, (3, 0, 1), (0, 1, 0))
    with pytest.raises(ValueError, match="keeps its point count"):
        w.set_path_points(j, pts[:-1])
    with pytest.raises(ValueError, match="same point"):
        w.set_path_points(j, np.vstack([pts[:1], pts[:-1]]))
    with pytest.raises(ValueError, match="set_path_points works on path joints"):
        w.set_path_points(hinge, pts)
    with pytest.raises(ValueError, match="finite"):
        w.set_path_points(j, pts * np.nan)
