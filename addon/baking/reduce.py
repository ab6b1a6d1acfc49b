"""Key reduction: which of the baked frames to key so that the F-curves, as Blender interpolates
them, stay within a tolerance of the simulated motion at every baked frame.

The reduced keys are Bezier keys with FREE handles a third of the way to the neighbouring keys,
along the simulated motion's slope at the key (`slopes`). Such a segment is the cubic Hermite
curve between its keys' values and slopes (its handles' frames are evenly spaced, so the frame
is linear in the Bezier parameter), so the error at every frame can be computed before anything
is written: the distance between the interpolated and the simulated location, and the angle
between the interpolated rotation (the channels interpolated, then read in the rotation mode as
Blender reads them: a quaternion normalised, an Euler in its order) and the simulated one. A
swinging body needs a key every few frames where straight lines would need one on nearly
every frame, and the curves stay smooth to edit. Keys are picked greedily from the first
frame: each segment is made as long as its error allows (found by doubling, then bisection;
every segment kept is checked at each of its frames). Location and rotation have key sets of
their own. The bake then reads the written curves back with `FCurve.evaluate` (Blender's own
interpolation, the float32 values it stores) and adds a key wherever that is off
(`off_frames`), so the bound holds for what Blender plays.
"""

import numpy as np

from ..kernels import vectors


# The segments are picked to this share of the tolerance: the keys are stored as float32.
MARGIN = 0.9


def slopes(frames, values):
    """d(values)/d(frame) of each channel at each frame (central differences; one-sided at
    the ends): the keys' handle directions."""
    if len(frames) < 2:
        return np.zeros_like(values)
    return np.gradient(values, frames, axis=0, edge_order=1)


def pick_keys(frames, values, error, tolerance):
    """Indices into `frames` of the keys to keep: the first and the last, and between them as
    few as the greedy pass needs for `error(frames, values, slopes, i, j)` (the error at the
    frames strictly between keys i and j as the keys interpolate) to stay within
    `tolerance`."""
    n = len(frames)
    if n <= 2:
        return list(range(n))
    limit = tolerance * MARGIN
    d = slopes(frames, values)

    def fits(i, j):
        return j - i < 2 or error(frames, values, d, i, j) <= limit

    keys = [0]
    i = 0
    while i < n - 1:
        good, step = i + 1, 1
        while good + step < n and fits(i, good + step):   # doubling
            good += step
            step *= 2
        bad = min(good + step, n)       # the first index known not to fit (or past the end)
        while bad - good > 1:           # bisection between a fitting and a failing end
            mid = (good + bad) // 2
            if fits(i, mid):
                good = mid
            else:
                bad = mid
        keys.append(good)
        i = good
    return keys


def _between(frames, values, d, i, j):
    """(the keys i and j's Hermite segment, values `values` and slopes `d`, at the frames
    between, the simulated values there)."""
    h = frames[j] - frames[i]
    t = ((frames[i + 1:j] - frames[i]) / h)[:, None]
    t2, t3 = t * t, t * t * t
    curve = (2 * t3 - 3 * t2 + 1) * values[i] + (t3 - 2 * t2 + t) * h * d[i] + \
        (3 * t2 - 2 * t3) * values[j] + (t3 - t2) * h * d[j]
    return curve, values[i + 1:j]


def location_error(frames, values, d, i, j):
    curve, exact = _between(frames, values, d, i, j)
    return float(np.sqrt(((curve - exact) ** 2).sum(axis=1)).max())


def rotation_error(mode):
    """error(frames, values, slopes, i, j) in radians for rotation channels in `mode`."""
    def error(frames, values, d, i, j):
        curve, exact = _between(frames, values, d, i, j)
        return float(angle_between(to_quaternions(mode, curve),
                                   to_quaternions(mode, exact)).max())
    return error


def handles(frames, values, keys):
    """(left, right) handle points (len(keys), 2, channels) of the keys `keys`: along the
    slope at each key, a third of the way to the previous and the next key."""
    f = frames[keys]
    v = values[keys]
    d = slopes(frames, values)[keys]
    gaps = np.diff(f) / 3.0
    before = np.concatenate((gaps[:1], gaps))[:, None] if len(gaps) else np.ones((1, 1))
    after = np.concatenate((gaps, gaps[-1:]))[:, None] if len(gaps) else np.ones((1, 1))
    left = np.stack((np.broadcast_to((f[:, None] - before), v.shape), v - d * before), axis=1)
    right = np.stack((np.broadcast_to((f[:, None] + after), v.shape), v + d * after), axis=1)
    return left, right


def angle_between(q1, q2):
    """Rotation angles (radians) between rows of unit quaternions."""
    dot = np.abs((q1 * q2).sum(axis=1)).clip(0.0, 1.0)
    return 2.0 * np.arccos(dot)


def to_quaternions(mode, values):
    """Rows of rotation channel values in `mode` ('QUATERNION', 'AXIS_ANGLE' or an Euler
    order) as unit quaternions (w, x, y, z), as Blender reads them."""
    values = np.asarray(values, dtype=np.float64)
    if mode == 'QUATERNION':
        q = values[:, :4]
        return q / np.linalg.norm(q, axis=1, keepdims=True).clip(1e-300)
    if mode == 'AXIS_ANGLE':
        angle, axis = values[:, 0], values[:, 1:4]
        norm = np.linalg.norm(axis, axis=1, keepdims=True)
        unit = np.where(norm > 1e-12, axis / norm.clip(1e-300), 0.0)
        half = 0.5 * np.where(norm[:, 0] > 1e-12, angle, 0.0)
        return np.column_stack((np.cos(half), unit * np.sin(half)[:, None]))
    # An Euler order XYZ applies X first, then Y, then Z: q = qZ qY qX.
    q = None
    for axis in mode:
        k = "XYZ".index(axis)
        half = 0.5 * values[:, k]
        r = np.zeros((len(values), 4))
        r[:, 0] = np.cos(half)
        r[:, 1 + k] = np.sin(half)
        q = r if q is None else vectors.qmuls(r, q)
    return q



def evaluated(fcurves, frames):
    """(frames, channels) values of `fcurves` at `frames`, as Blender evaluates them."""
    return np.array([[fc.evaluate(f) for fc in fcurves] for f in frames], dtype=np.float64)


def off_frames(frames, keys, played, simulated, error, tolerance):
    """Indices of frames where the `played` values (what the curves evaluate to) are further
    than `tolerance` from the `simulated` ones: in each segment between keys that has any,
    the worst one."""
    out = []
    for i, j in zip(keys[:-1], keys[1:]):
        if j - i < 2:
            continue
        errs = error(played[i + 1:j], simulated[i + 1:j])
        k = int(np.argmax(errs))
        if errs[k] > tolerance:
            out.append(i + 1 + k)
    return out


def location_errors(played, simulated):
    return np.sqrt(((played - simulated) ** 2).sum(axis=1))


def rotation_errors(mode):
    def errors(played, simulated):
        return angle_between(to_quaternions(mode, played), to_quaternions(mode, simulated))
    return errors
