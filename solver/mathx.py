"""Small vector, quaternion and 3x3 matrix helpers for njit kernels.

Vectors are 3-tuples, quaternions 4-tuples (w, x, y, z) like Blender's `Quaternion`, and
3x3 matrices 9-tuples in row-major order. Tuples live in registers: kernels that use these
helpers allocate nothing in their inner loops.
"""

import math

from .jit import helper


@helper
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@helper
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@helper
def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@helper
def neg(a):
    return (-a[0], -a[1], -a[2])


@helper
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@helper
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@helper
def length(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@helper
def normalize(a):
    n = length(a)
    if n < 1e-300:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@helper
def perpendicular(a):
    """A unit vector perpendicular to the unit vector `a` (Duff et al., branchless basis)."""
    s = 1.0 if a[2] >= 0.0 else -1.0
    k = -1.0 / (s + a[2])
    b = a[0] * a[1] * k
    return (1.0 + s * a[0] * a[0] * k, s * b, -s * a[0])


@helper
def vec3(arr, i):
    return (arr[i, 0], arr[i, 1], arr[i, 2])


@helper
def vec3_at(arr, i, k):
    return (arr[i, k], arr[i, k + 1], arr[i, k + 2])


@helper
def quat_at(arr, i, k):
    return (arr[i, k], arr[i, k + 1], arr[i, k + 2], arr[i, k + 3])


@helper
def store3(arr, i, k, v):
    arr[i, k] = v[0]
    arr[i, k + 1] = v[1]
    arr[i, k + 2] = v[2]


@helper
def store4(arr, i, k, q):
    arr[i, k] = q[0]
    arr[i, k + 1] = q[1]
    arr[i, k + 2] = q[2]
    arr[i, k + 3] = q[3]


# --- quaternions (w, x, y, z) -------------------------------------------------------------

@helper
def qmul(a, b):
    return (
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    )


@helper
def qconj(q):
    return (q[0], -q[1], -q[2], -q[3])


@helper
def qnormalize(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


@helper
def qrotate(q, v):
    """Rotate vector v by unit quaternion q: v + 2w(u x v) + 2u x (u x v)."""
    u = (q[1], q[2], q[3])
    t = scale(cross(u, v), 2.0)
    return add(add(v, scale(t, q[0])), cross(u, t))


@helper
def qrotate_inv(q, v):
    return qrotate(qconj(q), v)


@helper
def qexp(v):
    """Unit quaternion of the rotation vector v (axis * angle)."""
    angle = length(v)
    if angle < 1e-12:
        return qnormalize((1.0, 0.5 * v[0], 0.5 * v[1], 0.5 * v[2]))
    s = math.sin(0.5 * angle) / angle
    return (math.cos(0.5 * angle), v[0] * s, v[1] * s, v[2] * s)


@helper
def qintegrate(q, w, h):
    """Orientation after rotating at world angular velocity w for time h (exact for constant w)."""
    return qnormalize(qmul(qexp(scale(w, h)), q))


@helper
def qrotation_vector(q):
    """2 * Im(q) scaled to the exact rotation vector, taking the short way round (w >= 0)."""
    if q[0] < 0.0:
        q = (-q[0], -q[1], -q[2], -q[3])
    s = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if s < 1e-12:
        return (2.0 * q[1], 2.0 * q[2], 2.0 * q[3])
    angle = 2.0 * math.atan2(s, q[0])
    k = angle / s
    return (q[1] * k, q[2] * k, q[3] * k)


@helper
def qaxis(q, k):
    """World direction of the quaternion frame's local axis k (0=X, 1=Y, 2=Z)."""
    w, x, y, z = q
    if k == 0:
        return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y))
    if k == 1:
        return (2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x))
    return (2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y))


@helper
def wrap_angle(a):
    while a > math.pi:
        a -= 2.0 * math.pi
    while a < -math.pi:
        a += 2.0 * math.pi
    return a


# --- 3x3 matrices (row-major 9-tuples) ----------------------------------------------------

@helper
def mat_at(arr, i, k):
    return (arr[i, k], arr[i, k + 1], arr[i, k + 2],
            arr[i, k + 3], arr[i, k + 4], arr[i, k + 5],
            arr[i, k + 6], arr[i, k + 7], arr[i, k + 8])


@helper
def mat_vec(m, v):
    return (m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
            m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2])


@helper
def quat_to_mat(q):
    c0 = qaxis(q, 0)
    c1 = qaxis(q, 1)
    c2 = qaxis(q, 2)
    return (c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2])


@helper
def mat_mul(a, b):
    return (
        a[0] * b[0] + a[1] * b[3] + a[2] * b[6], a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
        a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
        a[3] * b[0] + a[4] * b[3] + a[5] * b[6], a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
        a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
        a[6] * b[0] + a[7] * b[3] + a[8] * b[6], a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
        a[6] * b[2] + a[7] * b[5] + a[8] * b[8],
    )


@helper
def mat_transpose(m):
    return (m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8])


@helper
def rotate_tensor(q, m):
    """R m R^T: a body-frame inertia (or inverse inertia) tensor seen in the world frame."""
    r = quat_to_mat(q)
    return mat_mul(mat_mul(r, m), mat_transpose(r))


@helper
def swing_twist(q):
    """Split q = swing * twist, twist about local X. Returns (swing rotation vector, whose X
    component is 0, and the signed twist angle in (-pi, pi])."""
    if q[0] < 0.0:
        q = (-q[0], -q[1], -q[2], -q[3])
    n = math.sqrt(q[0] * q[0] + q[1] * q[1])
    if n < 1e-12:                         # swing of exactly 180 degrees: twist is undefined
        twist = (1.0, 0.0, 0.0, 0.0)
    else:
        twist = (q[0] / n, q[1] / n, 0.0, 0.0)
    swing = qmul(q, qconj(twist))
    return qrotation_vector(swing), 2.0 * math.atan2(twist[1], twist[0])
