"""Small vector, quaternion and 3x3 matrix helpers on the Python side, used while bodies and
joints are created (mathx.py holds the njit ones the kernels use). Quaternions are (w, x, y,
z). The single-row helpers work on plain floats: numpy costs microseconds an operation on
three numbers, and a world of a few thousand bodies and joints makes tens of thousands of
these calls; the plural ones (`qmats`, `inverses3`, ...) do the same arithmetic row by row
on (n, ...) arrays for the batch calls (add_bodies, add_hinges, add_ragdolls)."""

import math
import operator

import numpy as np

SINGULAR = 1e-300       # a determinant below this (or not finite) is a singular matrix
PARALLEL = 1e-9         # a second axis closer than this to the first gives no frame


def floats(v):
    return v.tolist() if isinstance(v, np.ndarray) else v


def norm(v):
    values = v.tolist()
    return math.sqrt(sum(map(operator.mul, values, values)))


def inverse3(m):
    """Inverse of a 3x3 matrix by its adjugate: np.linalg.inv goes through LAPACK, whose
    thread pool costs milliseconds a call inside Blender."""
    (a, b, c), (d, e, f), (g, h, i) = floats(m)
    adj = ((e * i - f * h, c * h - b * i, b * f - c * e),
           (f * g - d * i, a * i - c * g, c * d - a * f),
           (d * h - e * g, b * g - a * h, a * e - b * d))
    det = a * adj[0][0] + b * adj[1][0] + c * adj[2][0]
    if not math.isfinite(det) or abs(det) < SINGULAR:
        raise ValueError("the body's inertia tensor is singular; give the shape a volume")
    return np.array(adj) / det


def inverses3(m):
    """(n, 3, 3) inverses by the adjugate, the arithmetic of `inverse3` row by row."""
    a, b, c = m[:, 0, 0], m[:, 0, 1], m[:, 0, 2]
    d, e, f = m[:, 1, 0], m[:, 1, 1], m[:, 1, 2]
    g, h, i = m[:, 2, 0], m[:, 2, 1], m[:, 2, 2]
    adj = np.stack([np.stack([e * i - f * h, c * h - b * i, b * f - c * e], axis=1),
                    np.stack([f * g - d * i, a * i - c * g, c * d - a * f], axis=1),
                    np.stack([d * h - e * g, b * g - a * h, a * e - b * d], axis=1)], axis=1)
    det = a * adj[:, 0, 0] + b * adj[:, 1, 0] + c * adj[:, 2, 0]
    bad = ~np.isfinite(det) | (np.abs(det) < SINGULAR)
    if bad.any():
        raise ValueError(f"the inertia tensor of row {int(np.argmax(bad))} is singular; give "
                         "the shape a volume")
    return adj / det[:, None, None]


def qmats(q):
    """(n, 3, 3) rotation matrices of (n, 4) unit quaternions, as `qmat` computes each."""
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)],
        axis=1)


def units(v):
    """Rows scaled to unit length, with the arithmetic of `unit3` (and `_direction`)."""
    return v / np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2])[:, None]


def crosses(a, b):
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], axis=1)


def qmuls(a, b):
    """Row-wise quaternion products, the arithmetic of `qmul`."""
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2],
                    axis=1)


def mats_to_quats(x, y, z):
    """Quaternions of the frames whose columns are x, y, z, row by row as `mat_to_quat`."""
    m00, m01, m02 = x[:, 0], y[:, 0], z[:, 0]
    m10, m11, m12 = x[:, 1], y[:, 1], z[:, 1]
    m20, m21, m22 = x[:, 2], y[:, 2], z[:, 2]
    t = m00 + m11 + m22
    with np.errstate(invalid="ignore", divide="ignore"):   # the branches not taken
        s = np.sqrt(t + 1.0) * 2
        q0 = np.stack([0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s], axis=1)
        s = np.sqrt(1.0 + m00 - m11 - m22) * 2
        q1 = np.stack([(m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s], axis=1)
        s = np.sqrt(1.0 + m11 - m00 - m22) * 2
        q2 = np.stack([(m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s], axis=1)
        s = np.sqrt(1.0 + m22 - m00 - m11) * 2
        q3 = np.stack([(m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s], axis=1)
    first = (t > 0)[:, None]
    second = (m00 > m11) & (m00 > m22)
    q = np.where(first, q0, np.where(second[:, None], q1,
                                     np.where((m11 > m22)[:, None], q2, q3)))
    n = np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])
    return q / n[:, None]


def frames_from_axes(name, axes, seconds=None, second_name="swing_axis"):
    """`frame_from_axis` row by row: X along `axes`, Y along `seconds` (or a helper)."""
    x = units(axes)
    if seconds is None:
        helper = np.where((np.abs(x[:, 2]) < 0.9)[:, None], (0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
        seconds = crosses(helper, x)
    d = seconds[:, 0] * x[:, 0] + seconds[:, 1] * x[:, 1] + seconds[:, 2] * x[:, 2]
    y = seconds - x * d[:, None]
    flat = np.sqrt(y[:, 0] * y[:, 0] + y[:, 1] * y[:, 1] + y[:, 2] * y[:, 2]) < PARALLEL
    if flat.any():
        raise ValueError(f"{second_name} of row {int(np.argmax(flat))} must not be parallel "
                         f"to {name}")
    y = units(y)
    return mats_to_quats(x, y, crosses(x, y))


def qmul(a, b):
    w1, x1, y1, z1 = floats(a)
    w2, x2, y2, z2 = floats(b)
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qconj(q):
    w, x, y, z = floats(q)
    return np.array([w, -x, -y, -z])


def qmat(q):
    return np.array(qmat_rows(q))


def qmat_rows(q):
    """`qmat` as three tuples of floats, for arithmetic on plain floats."""
    w, x, y, z = floats(q)
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def mat_to_quat(m):
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = floats(m)
    t = m00 + m11 + m22
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        q = (0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s)
    elif m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2
        q = ((m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s)
    elif m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2
        q = ((m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s)
    else:
        s = math.sqrt(1.0 + m22 - m00 - m11) * 2
        q = ((m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s)
    n = math.sqrt(sum(c * c for c in q))
    return np.array([c / n for c in q])


def unit3(v):
    a, b, c = v
    n = math.sqrt(a * a + b * b + c * c)
    return a / n, b / n, c / n


def cross3(a, b):
    """a x b of two 3-vectors as floats (np.cross spends ~40 us a call on its axis
    handling, numpy's small arrays a few us an operation: building a world of a few
    thousand bodies and joints makes tens of thousands of these)."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def frame_from_axis(axis, second=None):
    """Quaternion of a right-handed frame whose X is `axis` (and Y along `second` if given)."""
    x = unit3(floats(axis))
    if second is None:
        helper = (0.0, 0.0, 1.0) if abs(x[2]) < 0.9 else (1.0, 0.0, 0.0)
        second = cross3(helper, x)
    s = floats(second)
    d = s[0] * x[0] + s[1] * x[1] + s[2] * x[2]
    y = (s[0] - x[0] * d, s[1] - x[1] * d, s[2] - x[2] * d)
    if math.sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]) < PARALLEL:
        raise ValueError("swing_axis must not be parallel to twist_axis")
    y = unit3(y)
    z = cross3(x, y)
    return mat_to_quat(((x[0], y[0], z[0]), (x[1], y[1], z[1]), (x[2], y[2], z[2])))
