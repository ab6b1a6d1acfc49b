"""Measuring instruments for the solver tests, written without the solver's own math.

Everything here is plain numpy on the public state (positions, orientations, velocities), so
a test that measures with these helpers checks the solver against something it did not
compute itself: joint anchors are tracked from body poses, angles from quaternions, periods
from zero crossings.
"""

import math

import numpy as np

FRAME = 1.0 / 60.0
G = 9.81


# --- quaternions (w, x, y, z) ------------------------------------------------------------

def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qconj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def qmat(q):
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def qaxis_angle(axis, angle):
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * a])


def rotation_angle(q):
    """Angle (rad, in [0, pi]) of the rotation q."""
    q = np.asarray(q, dtype=float)
    return 2.0 * math.atan2(np.linalg.norm(q[1:]), abs(q[0]))


def twist_angle(q, axis):
    """Signed rotation of q about `axis` (swing-twist split), in (-pi, pi]."""
    q = np.asarray(q, dtype=float)
    if q[0] < 0:
        q = -q
    return 2.0 * math.atan2(float(np.dot(q[1:], axis)), q[0])


def angle_between(u, v):
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    return math.atan2(np.linalg.norm(np.cross(u, v)), float(np.dot(u, v)))


# --- anchors tracked from body poses ----------------------------------------------------

class Anchor:
    """A point glued to a body (or to the world for body None), tracked from its pose."""

    def __init__(self, world, body, point):
        self.world = world
        self.body = body
        p = np.asarray(point, dtype=float)
        if body is None:
            self.local = p
        else:
            x = world.positions[body]
            self.local = qmat(world.orientations[body]).T @ (p - x)

    def position(self):
        if self.body is None:
            return self.local.copy()
        w = self.world
        return w.positions[self.body] + qmat(w.orientations[self.body]) @ self.local


def separation(anchor_a, anchor_b):
    return float(np.linalg.norm(anchor_b.position() - anchor_a.position()))


def qmats(q):
    """qmat of each row of q (n x 4), as arrays: n x 3 x 3."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = (q / np.linalg.norm(q, axis=1)[:, None]).T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                     2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                     2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
                    axis=1).reshape(-1, 3, 3)


class Separations:
    """`separation` of many anchor pairs of one world at once: the same sums as
    Anchor.position, over arrays (a grid of thousands of joints measured every frame would
    spend more time in Python than the solver spends stepping it)."""

    def __init__(self, pairs):
        self.world = pairs[0][0].world
        self.sides = []
        for side in zip(*pairs):
            body = np.array([-1 if a.body is None else int(a.body) for a in side])
            local = np.array([a.local for a in side], dtype=float)
            self.sides.append((body, local))

    def __call__(self):
        w = self.world
        R = qmats(w.orientations)
        ends = []
        for body, local in self.sides:
            moving = body >= 0
            p = local.copy()
            b = body[moving]
            p[moving] = w.positions[b] + np.einsum("nij,nj->ni", R[b], local[moving])
            ends.append(p)
        return np.linalg.norm(ends[1] - ends[0], axis=1)


# --- signals ---------------------------------------------------------------------------

def zero_crossings(t, x):
    """Times where x changes sign, by linear interpolation between samples."""
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    out = []
    for i in range(len(x) - 1):
        if x[i] == 0.0:
            out.append(t[i])
        elif x[i] * x[i + 1] < 0.0:
            out.append(t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i]))
    return np.array(out)


def period_from_crossings(t, x, skip=0):
    """Mean period of an oscillation: zero crossings come every half period."""
    c = zero_crossings(t, x)[skip:]
    assert len(c) >= 3, f"only {len(c)} zero crossings: no oscillation to time"
    return 2.0 * (c[-1] - c[0]) / (len(c) - 1)


def decay_rate(t, x):
    """sigma of an envelope exp(-sigma t): a least-squares line through the logarithms of the
    oscillation's peaks (|x| at its local maxima, each refined by a parabola through the
    three samples around it)."""
    t = np.asarray(t, dtype=float)
    a = np.abs(np.asarray(x, dtype=float))
    times, logs = [], []
    for i in range(1, len(a) - 1):
        if a[i] >= a[i - 1] and a[i] > a[i + 1]:
            y0, y1, y2 = a[i - 1], a[i], a[i + 1]
            curve = y0 - 2 * y1 + y2
            shift = 0.5 * (y0 - y2) / curve if curve != 0 else 0.0
            times.append(t[i] + shift * (t[i + 1] - t[i]))
            logs.append(math.log(y1 - 0.25 * (y0 - y2) * shift))
    assert len(times) >= 3, f"only {len(times)} peaks: no oscillation to measure"
    return -float(np.polyfit(times, logs, 1)[0])


def relative(measured, expected):
    return abs(measured - expected) / abs(expected)


def note(label, measured, required):
    """Print a measured figure next to its requirement (shown by `pytest -rP`)."""
    print(f"{label}: measured {measured}, required {required}")
