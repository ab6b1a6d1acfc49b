"""What the physics check's tests (test_physics_check.py, test_physics_motion.py,
test_physics_rigify.py, test_physics_simulate.py) compute on their own from the bodies
Blender shows and their masses, to hold the check, the fix and the simulated pass to: the
centre of mass, the momenta, the distance from a parabola of gravity, the distance outside a
support polygon."""

import numpy as np

G = 9.81


def com(bodies, masses):
    """(F, 3) centre of mass of the bodies' origins (F, B, 4, 4) weighted by `masses`."""
    masses = np.asarray(masses)
    return np.einsum("b,fbi->fi", masses, np.asarray(bodies)[:, :, :3, 3]) / masses.sum()


def reference(bodies, masses, inertia, dt):
    """Centre of mass, linear and angular momentum about it per frame: central differences
    of positions, and of rotations through their axis and angle (one-sided at the ends)."""
    bodies, masses, inertia = np.asarray(bodies), np.asarray(masses), np.asarray(inertia)
    pos, rot = bodies[:, :, :3, 3], bodies[:, :, :3, :3]
    total = masses.sum()
    centre = np.einsum("b,fbi->fi", masses, pos) / total
    n = len(bodies)
    vel, omega = np.empty_like(pos), np.empty_like(pos)
    for i in range(n):
        a, b = max(i - 1, 0), min(i + 1, n - 1)
        vel[i] = (pos[b] - pos[a]) / ((b - a) * dt)
        for j in range(bodies.shape[1]):
            rel = rot[b, j] @ rot[a, j].T
            angle = np.arccos(np.clip((np.trace(rel) - 1) / 2, -1, 1))
            axis = np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
            sin = np.linalg.norm(axis) / 2
            omega[i, j] = axis / 2 * (angle / sin if sin > 1e-12 else 1.0) / ((b - a) * dt)
    v_com = np.einsum("b,fbi->fi", masses, vel) / total
    L = np.zeros((n, 3))
    for i in range(n):
        for j in range(bodies.shape[1]):
            r = pos[i, j] - centre[i]
            L[i] += masses[j] * np.cross(r, vel[i, j] - v_com[i])
            L[i] += rot[i, j] @ inertia[j] @ rot[i, j].T @ omega[i, j]
    return centre, total * v_com, L


def parabola_distance(t, points, g=G):
    """Largest distance of `points` from their least-squares parabola of curvature g (down
    Z): a line fitted to points + g t^2 / 2 with numpy's polyfit."""
    lifted = points + 0.5 * g * np.outer(t * t, [0, 0, 1])
    fitted = np.column_stack([np.polyval(np.polyfit(t, lifted[:, k], 1), t) for k in range(3)])
    return float(np.linalg.norm(lifted - fitted, axis=1).max())


def orthonormal(m):
    """The 4x4 `m` with its 3x3 part made the nearest rotation."""
    u, _, vt = np.linalg.svd(m[:3, :3])
    out = np.array(m, dtype=np.float64, copy=True)
    out[:3, :3] = u @ vt
    return out


def momentum_change(L, span, take_off):
    """The largest change of the angular momentum `L` over the frames `span` from its value
    at index `take_off`, as a share of that value."""
    return np.linalg.norm(L[span] - L[take_off], axis=1).max() / np.linalg.norm(L[take_off])


def hull_distance(point, pts, decimals=12):
    """Distance of 2D `point` outside the convex hull of `pts` (0 inside): the least distance
    to the hull's edges when it is outside an edge's inner half-plane. The hull by gift
    wrapping (not the check's monotone chain), of `pts` rounded to `decimals` first."""
    # gift wrapping: from the lowest-leftmost point, the next corner has every point on
    # its left
    pts = np.unique(np.round(pts, decimals), axis=0)
    start = min(range(len(pts)), key=lambda i: (pts[i][0], pts[i][1]))
    hull, current = [], start
    while True:
        hull.append(pts[current])
        candidate = (current + 1) % len(pts)
        for j in range(len(pts)):
            a, b = pts[candidate] - pts[current], pts[j] - pts[current]
            cross = a[0] * b[1] - a[1] * b[0]
            if cross < 0 or (cross == 0 and b @ b > a @ a):
                candidate = j
        current = candidate
        if current == start:
            break
    hull = np.array(hull)
    inside = True
    best = np.inf
    for a, b in zip(hull, np.roll(hull, -1, axis=0)):
        ab = b - a
        if ab[0] * (point[1] - a[1]) - ab[1] * (point[0] - a[0]) < 0:
            inside = False
        t = np.clip((point - a) @ ab / (ab @ ab), 0, 1)
        best = min(best, np.linalg.norm(point - (a + t * ab)))
    return 0.0 if inside else best
