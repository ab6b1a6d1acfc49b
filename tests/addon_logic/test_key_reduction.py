"""Key reduction (addon/baking/reduce.py) without Blender: the keys it keeps, with the
handles it gives them, are evaluated here as Blender evaluates a Bezier F-curve segment (the
frame solved for the curve parameter, then the value at it), independently of the Hermite
form reduce.py measures its error with; the rotations are compared as rotation matrices built
here from the channels, not through reduce.py's quaternions."""

import math

import numpy as np
import pytest

from addon.baking import reduce


def bezier_at(frames, values, keys, left, right, frame):
    """The F-curve through keys `keys` (indices into frames/values) with handles `left`,
    `right` ((len(keys), 2, channels): (frame, value) points per channel) at `frame`, each
    channel on its own as Blender evaluates it: the segment's cubic Bezier in (frame, value),
    its parameter found by bisection on the (monotonic) frame coordinate."""
    kf = frames[keys]
    s = int(np.searchsorted(kf, frame, side="right")) - 1
    s = min(max(s, 0), len(keys) - 2)
    out = np.empty(values.shape[1])
    for c in range(values.shape[1]):
        p0 = np.array([kf[s], values[keys[s], c]])
        p1 = right[s, :, c]
        p2 = left[s + 1, :, c]
        p3 = np.array([kf[s + 1], values[keys[s + 1], c]])

        def point(t):
            u = 1 - t
            return u ** 3 * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t ** 3 * p3
        lo, hi = 0.0, 1.0
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            if point(mid)[0] < frame:
                lo = mid
            else:
                hi = mid
        out[c] = point(0.5 * (lo + hi))[1]
    return out


def played(frames, values, keys):
    left, right = reduce.handles(frames, values, keys)
    return np.array([bezier_at(frames, values, keys, left, right, f) for f in frames])


def swinging(n=240):
    """A damped pendulum bob's location over n frames, with a slow drift (every channel
    moves)."""
    t = np.arange(n) / 24.0
    angle = 0.9 * np.exp(-0.15 * t) * np.cos(2.6 * t)
    return np.column_stack((1.5 * np.sin(angle) + 0.05 * t, 0.3 * t,
                            2.0 - 1.5 * np.cos(angle)))


@pytest.mark.parametrize("tolerance", [0.01, 0.001, 0.0001])
def test_reduced_location_keys_stay_within_the_tolerance_at_every_frame(tolerance):
    frames = np.arange(1.0, 241.0)
    values = swinging(len(frames))
    keys = reduce.pick_keys(frames, values, reduce.location_error, tolerance)
    assert keys[0] == 0 and keys[-1] == len(frames) - 1
    assert keys == sorted(set(keys))
    curve = played(frames, values, keys)
    err = np.linalg.norm(curve - values, axis=1)
    assert err.max() <= tolerance, (err.max(), tolerance)
    assert np.allclose(curve[keys], values[keys], atol=1e-12)   # a key is where it was
    if tolerance >= 0.001:
        assert len(keys) < len(frames) / 4      # a smooth swing needs few keys


def test_a_tighter_tolerance_keeps_more_keys():
    frames = np.arange(1.0, 241.0)
    values = swinging(len(frames))
    counts = [len(reduce.pick_keys(frames, values, reduce.location_error, tol))
              for tol in (0.01, 0.001, 0.0001)]
    assert counts[0] < counts[1] < counts[2] <= len(frames)


def test_a_straight_line_needs_only_its_two_ends():
    frames = np.arange(1.0, 101.0)
    values = np.column_stack((0.5 * frames, -frames, np.full(len(frames), 3.0)))
    assert reduce.pick_keys(frames, values, reduce.location_error, 1e-9) == [0, 99]


def test_a_jump_is_keyed_on_both_sides():
    """A body stopped by a hit: position constant, then a step; the reduced curve may not
    overshoot the step by more than the tolerance."""
    frames = np.arange(1.0, 61.0)
    x = np.where(frames < 30, 0.0, 1.0)
    values = np.column_stack((x, np.zeros_like(x), np.zeros_like(x)))
    keys = reduce.pick_keys(frames, values, reduce.location_error, 0.001)
    err = np.linalg.norm(played(frames, values, keys) - values, axis=1)
    assert err.max() <= 0.001
    assert {28, 29} <= set(keys)


def matrix_xyz(euler, order):
    """Rotation matrix of Euler angles applied in `order` (Blender's 'XYZ': X first, so
    R = Rz Ry Rx), built from elementary rotations."""
    def elementary(axis, a):
        c, s = math.cos(a), math.sin(a)
        m = np.eye(3)
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
        return m
    r = np.eye(3)
    for axis in order:
        k = "XYZ".index(axis)
        r = elementary(k, euler[k]) @ r
    return r


def matrix_quaternion(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrix_angle(a, b):
    return math.acos(max(-1.0, min(1.0, (np.trace(a.T @ b) - 1) / 2)))


@pytest.mark.parametrize("order", ["XYZ", "ZXY", "YZX"])
def test_euler_channels_read_as_blender_composes_them(order):
    rng = np.random.default_rng(3)
    eulers = rng.uniform(-math.pi, math.pi, (20, 3))
    q = reduce.to_quaternions(order, eulers)
    for e, qi in zip(eulers, q):
        assert matrix_angle(matrix_xyz(e, order), matrix_quaternion(qi)) < 1e-7


def tumbling(n):
    """A body spinning about a wobbling axis: unit quaternions along the frames, and the same
    rotations as XYZ Euler angles (continuous: unwrapped)."""
    t = np.arange(n) / 24.0
    angle = 3.0 * t
    axis = np.column_stack((np.sin(0.7 * t), np.cos(0.7 * t), 0.5 + 0.0 * t))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    q = np.column_stack((np.cos(angle / 2), axis * np.sin(angle / 2)[:, None]))
    return q


@pytest.mark.parametrize("tolerance_deg", [1.0, 0.1])
def test_reduced_quaternion_keys_stay_within_the_angle_at_every_frame(tolerance_deg):
    frames = np.arange(1.0, 121.0)
    q = tumbling(len(frames))
    tol = math.radians(tolerance_deg)
    keys = reduce.pick_keys(frames, q, reduce.rotation_error('QUATERNION'), tol)
    curve = played(frames, q, keys)
    angles = [matrix_angle(matrix_quaternion(a), matrix_quaternion(b))
              for a, b in zip(curve, q)]
    assert max(angles) <= tol, (math.degrees(max(angles)), tolerance_deg)
    assert len(keys) < len(frames) / 3


def test_reduced_euler_keys_stay_within_the_angle_at_every_frame():
    frames = np.arange(1.0, 121.0)
    t = (frames - 1) / 24.0
    euler = np.column_stack((0.8 * np.sin(1.3 * t), 2.0 * t, 0.4 * np.cos(0.9 * t)))
    tol = math.radians(0.5)
    keys = reduce.pick_keys(frames, euler, reduce.rotation_error('XYZ'), tol)
    curve = played(frames, euler, keys)
    angles = [matrix_angle(matrix_xyz(a, "XYZ"), matrix_xyz(b, "XYZ"))
              for a, b in zip(curve, euler)]
    assert max(angles) <= tol
    assert len(keys) < len(frames) / 3


def test_off_frames_names_the_worst_frame_of_each_segment_past_the_tolerance():
    frames = np.arange(1.0, 21.0)
    simulated = np.zeros((20, 3))
    keys = [0, 10, 19]
    playback = simulated.copy()
    playback[4, 0] = 0.002          # segment 0..10: two frames off, the worse one is named
    playback[6, 1] = 0.003
    playback[15, 2] = 0.0005        # segment 10..19: within 0.001
    out = reduce.off_frames(frames, keys, playback, simulated, reduce.location_errors, 0.001)
    assert out == [6]
