"""The geometry the viewport overlay draws (ui/overlay.py), as line segments: joint limits in
the joint's frame (swing cones and twist arcs, hinge arcs, slider and distance ranges), the
current angle's marker, collision shapes as wireframes, contact normals.

Pure numpy: no bpy, no gpu, so it is tested headless. Every function returns an (n, 2, 3)
float64 array of segments (start, end) in the frame it names; the overlay maps them to the
world with the joint empty's or the body's matrix.

Axes follow the joint settings (world/joints.py): a ragdoll twists about local Y and swings
about X (Swing 1) and Z (Swing 2); a hinge turns about Z, its angle 0 along X; a slider moves
along X.
"""

import math

import numpy as np

SEGMENTS = 32


def _polyline(points, closed=False):
    """Segments joining consecutive points ((n, 3))."""
    p = np.asarray(points, dtype=np.float64)
    ends = np.roll(p, -1, axis=0) if closed else p[1:]
    starts = p if closed else p[:-1]
    return np.stack((starts, ends), axis=1)


def _spokes(origin, points):
    p = np.asarray(points, dtype=np.float64)
    return np.stack((np.broadcast_to(origin, p.shape), p), axis=1)


def cone_half_angle(swing1, swing2, phi):
    """The elliptical cone's half-angle in the direction phi (0: swinging about X, pi/2:
    about Z): 1 / sqrt((cos phi / swing1)^2 + (sin phi / swing2)^2)."""
    return 1.0 / np.sqrt((np.cos(phi) / swing1) ** 2 + (np.sin(phi) / swing2) ** 2)


def cone_rim(swing1, swing2, length=1.0, n=SEGMENTS):
    """(n, 3) points of a ragdoll joint's swing cone rim at `length` from the apex: the twist
    axis Y turned by the cone's half-angle about the axis cos(phi) X + sin(phi) Z."""
    phi = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    theta = cone_half_angle(swing1, swing2, phi)
    y = np.array([0.0, 1.0, 0.0])
    axis = np.stack((np.cos(phi), np.zeros_like(phi), np.sin(phi)), axis=1)
    side = np.cross(axis, y)                 # axis x Y: where Y turns toward
    return length * (np.cos(theta)[:, None] * y + np.sin(theta)[:, None] * side)


def swing_cone(swing1, swing2, length=1.0, n=SEGMENTS):
    """The cone's rim and four lines from the apex to it (at Swing 1 and Swing 2, each
    side)."""
    rim = cone_rim(swing1, swing2, length, n)
    quarter = rim[:: max(n // 4, 1)]
    return np.concatenate((_polyline(rim, closed=True), _spokes(np.zeros(3), quarter)))


def arc(lower, upper, axis, zero, radius=1.0, n=SEGMENTS):
    """An arc of `radius` about `axis` from angle `lower` to `upper` (right-handed, 0 along
    `zero`), with the two radii at its ends."""
    axis, zero = np.asarray(axis, dtype=np.float64), np.asarray(zero, dtype=np.float64)
    third = np.cross(axis, zero)
    t = np.linspace(lower, upper, max(int(n * (upper - lower) / (2 * math.pi)) + 2, 3))
    points = radius * (np.cos(t)[:, None] * zero + np.sin(t)[:, None] * third)
    return np.concatenate((_polyline(points), _spokes(np.zeros(3), points[[0, -1]])))


def twist_arc(lower, upper, radius=1.0, n=SEGMENTS):
    """A ragdoll's twist range: about Y, 0 along Z."""
    return arc(lower, upper, (0, 1, 0), (0, 0, 1), radius, n)


def hinge_arc(lower, upper, radius=1.0, n=SEGMENTS):
    """A hinge's range: about Z, 0 along X."""
    return arc(lower, upper, (0, 0, 1), (1, 0, 0), radius, n)


def angle_marker(angle, axis, zero, radius=1.0):
    """One line from the centre to the current angle on an arc (see `arc`)."""
    axis, zero = np.asarray(axis, dtype=np.float64), np.asarray(zero, dtype=np.float64)
    tip = radius * (math.cos(angle) * zero + math.sin(angle) * np.cross(axis, zero))
    return np.array([[np.zeros(3), tip]])


def direction_marker(direction, length=1.0):
    """One line from the centre along `direction` (a swing's current bone direction)."""
    d = np.asarray(direction, dtype=np.float64)
    norm = np.linalg.norm(d)
    if norm < 1e-12:
        return np.zeros((0, 2, 3))
    return np.array([[np.zeros(3), d / norm * length]])


def linear_range(lower, upper, axis=(1, 0, 0), tick=0.05):
    """A slider's or distance's range along `axis`: the segment from `lower` to `upper`
    with a tick across each end (tick length `tick`)."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    across = np.cross(axis, (0.0, 0.0, 1.0) if abs(axis[2]) < 0.9 else (0.0, 1.0, 0.0))
    across = across / np.linalg.norm(across) * tick / 2
    a, b = lower * axis, upper * axis
    return np.array([[a, b], [a - across, a + across], [b - across, b + across]])


def circle(radius, axis, centre=(0, 0, 0), n=SEGMENTS):
    """A circle about `axis` ((3,), one of the frame's axes or any) through `centre`."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    u = np.cross(axis, (1.0, 0.0, 0.0) if abs(axis[0]) < 0.9 else (0.0, 1.0, 0.0))
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    points = np.asarray(centre, dtype=np.float64) + radius * (
        np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)
    return _polyline(points, closed=True)


def sphere_wire(radius, n=SEGMENTS):
    """Three great circles."""
    return np.concatenate([circle(radius, a, n=n) for a in np.eye(3)])


def box_wire(half):
    """The 12 edges of a box of half extents `half`."""
    hx, hy, hz = half
    corners = np.array([(x * hx, y * hy, z * hz) for x in (-1, 1) for y in (-1, 1)
                        for z in (-1, 1)], dtype=np.float64)
    edges = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5),
             (2, 6), (3, 7)]
    return np.array([[corners[i], corners[j]] for i, j in edges])


def capsule_wire(radius, half_height, n=SEGMENTS):
    """A capsule along Z: circles at the cylinder's ends, four lines along it, and the
    hemispheres' outlines in the XZ and YZ planes."""
    z = np.array([0.0, 0.0, 1.0])
    out = [circle(radius, z, (0, 0, half_height), n), circle(radius, z, (0, 0, -half_height), n)]
    for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)):
        d = radius * np.asarray(d, dtype=np.float64)
        out.append(np.array([[d - half_height * z, d + half_height * z]]))
    t = np.linspace(0.0, math.pi, n // 2 + 1)
    for u in (np.array([1.0, 0, 0]), np.array([0, 1.0, 0])):
        for sign in (1.0, -1.0):
            points = sign * half_height * z + radius * (
                np.cos(t)[:, None] * u + sign * np.sin(t)[:, None] * z)
            out.append(_polyline(points))
    return np.concatenate(out)


def cylinder_wire(radius, half_height, n=SEGMENTS):
    z = np.array([0.0, 0.0, 1.0])
    out = [circle(radius, z, (0, 0, half_height), n), circle(radius, z, (0, 0, -half_height), n)]
    for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)):
        d = radius * np.asarray(d, dtype=np.float64)
        out.append(np.array([[d - half_height * z, d + half_height * z]]))
    return np.concatenate(out)


def hull_wire(vertices, triangles):
    """The edges of a convex hull's triangles (each edge once)."""
    v = np.asarray(vertices, dtype=np.float64)
    edges = set()
    for tri in np.asarray(triangles, dtype=np.int64).reshape(-1, 3).tolist():
        for i in range(3):
            a, b = tri[i], tri[(i + 1) % 3]
            edges.add((min(a, b), max(a, b)))
    if not edges:
        return np.zeros((0, 2, 3))
    e = np.array(sorted(edges))
    return np.stack((v[e[:, 0]], v[e[:, 1]]), axis=1)


def contact_normals(points, normals, length=0.1):
    """A line from each contact point along its normal, `length` long ((k, 3) each)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    n = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    return np.stack((p, p + n * length), axis=1)


def transform(segments, matrix):
    """Segments mapped by a 4x4 matrix (nested sequences or an array), as (n, 2, 3)."""
    m = np.asarray(matrix, dtype=np.float64)
    s = np.asarray(segments, dtype=np.float64).reshape(-1, 3)
    return (s @ m[:3, :3].T + m[:3, 3]).reshape(-1, 2, 3)
