"""The physics check of keyed motion, on arrays: a character's bodies (masses, inertia,
contact sample points) posed by world matrices frame by frame, against static ground.

No bpy: numpy, and the solver's numpy-only `polygon` module (the support polygon's hull, the
one the balance assist takes), so it runs headless (tests/addon_logic) and the add-on feeds it
what it reads off a rig (`rig.py`).

Per frame (times t = frame * dt):

* centre of mass C = sum(m_i c_i) / M, its velocity V, linear momentum P = M V;
* angular momentum about C, L = sum(m_i (c_i - C) x (v_i - V) + R_i I_i R_i^T w_i), and the
  composite inertia about C, sum(R_i I_i R_i^T + m_i (|r_i|^2 E - r_i r_i^T)), r_i = c_i - C;
  velocities are central differences of the keyed poses (one-sided at the ends): v_i from
  the centres, w_i from R(t + dt) R(t - dt)^T, the rotation vector of which is 2 dt w_i
  exactly for a constant spin;
* contacts (Cascadeur's fulcrum points): a sample point of a body (a box's corners, a
  capsule's end centres with its radius, ...) is in contact when it is within
  `contact_distance` of a static body and slower than `contact_speed`;
* phases: flight (no contact) and stance (any), as runs of frames.

Per phase: in flight, the largest distance of C from the best parabola under gravity g (the
least-squares a + b t + g t^2 / 2, g fixed) and the largest change of L from its value at the
flight's first frame, in % of the largest |L| in the flight (or of a turn at 1 degree a
second, for a flight that does not turn); in stance, how far the centre of
mass projected along gravity falls outside the support polygon (the convex hull of the contact
points, projected the same way), how far a contact slides (the largest sideways distance
of a contact point from where its run of contact frames began), and how far the zero-moment
point falls outside (`zero_moment_point`).
"""

from dataclasses import dataclass, field

import numpy as np

from ..kernels import polygon


@dataclass
class Character:
    """The bodies of a character, in each body's frame: `masses` (B,), `centres` (B, 3) the
    centres of mass, `inertia` (B, 3, 3) about them; contact samples `sample_body` (N,)
    indices into the bodies, `sample_points` (N, 3) in the body's frame, `sample_radius`
    (N,) (a capsule's end is its centre plus its radius); `names` (B,)."""
    masses: np.ndarray
    centres: np.ndarray
    inertia: np.ndarray
    sample_body: np.ndarray
    sample_points: np.ndarray
    sample_radius: np.ndarray
    names: list = field(default_factory=list)


@dataclass
class Ground:
    """Static geometry in world space: `triangles` (T, 3, 3), `planes` (P, 4) as (normal,
    offset) with the solid below normal . x = offset, `capsules` (S, 2, 3) segments with
    `radii` (S,) (a sphere is a segment of length 0)."""
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    planes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    capsules: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))
    radii: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def distance(self, points):
        """Distance (m) of each of `points` (n, 3) from the nearest static surface (negative
        below a plane or inside a round shape); +inf with no ground."""
        points = np.asarray(points, dtype=np.float64)
        best = np.full(len(points), np.inf)
        for n_off in self.planes:
            best = np.minimum(best, points @ n_off[:3] - n_off[3])
        for (a, b), r in zip(self.capsules, self.radii):
            best = np.minimum(best, _segment_distance(points, a, b) - r)
        if len(self.triangles):
            best = np.minimum(best, _triangles_distance(points, self.triangles))
        return best


@dataclass
class Settings:
    """`contact_distance` and `contact_speed` are one value for every sample and frame, or
    (F, N) per frame and sample (a part's keyed contact switches)."""
    gravity: np.ndarray          # (3,) m/s^2
    dt: float                    # seconds per frame
    contact_distance: float = 0.06   # m
    contact_speed: float = 0.3       # m/s
    # A part this close touches whatever its speed (m): an impact, a sliding foot
    touch_distance: float = 0.01


@dataclass
class Phase:
    """A run of frames (indices `first`..`last`, inclusive) of one `kind`, 'FLIGHT' or
    'STANCE', and its figures: `parabola_cm` and `momentum_percent` in flight, `outside_cm`
    and `slide_cm` in stance (None where they do not apply)."""
    kind: str
    first: int
    last: int
    parabola_cm: float = None
    momentum_percent: float = None
    outside_cm: float = None
    slide_cm: float = None
    zmp_outside_cm: float = None


@dataclass
class Report:
    """Per frame: `com`, `com_velocity`, `linear_momentum`, `angular_momentum` (F, 3),
    `inertia` (F, 3, 3) about the centre of mass, `contact` (F, N) which samples touch,
    `sample_world` (F, N, 3), `flight` (F,); `parabola` (F,) C's distance from its flight's
    parabola (0 in stance), `outside` (F,) the projected C's distance outside the support
    polygon and `zmp_outside` (F,) the zero-moment point's (0 in flight); `phases`."""
    com: np.ndarray
    com_velocity: np.ndarray
    linear_momentum: np.ndarray
    angular_momentum: np.ndarray
    inertia: np.ndarray
    contact: np.ndarray
    sample_world: np.ndarray
    flight: np.ndarray
    parabola: np.ndarray
    outside: np.ndarray
    phases: list
    zmp_outside: np.ndarray = None


# --------------------------------------------------------------------------------------------
# Geometry

def _segment_distance(points, a, b):
    ab = b - a
    denom = float(ab @ ab)
    t = np.zeros(len(points)) if denom < 1e-300 else np.clip((points - a) @ ab / denom, 0, 1)
    return np.linalg.norm(points - (a + t[:, None] * ab), axis=1)


def _triangles_distance(points, triangles, chunk=4096):
    """Unsigned distance of each point to the nearest triangle (Ericson's closest point on a
    triangle, by regions), over chunks of points."""
    out = np.empty(len(points))
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    for s in range(0, len(points), chunk):
        p = points[s:s + chunk, None, :]
        out[s:s + chunk] = np.sqrt(_closest_sq(p, a, b, c).min(axis=1))
    return out


def _closest_sq(p, a, b, c):
    """Squared distance from points p (n, 1, 3) to triangles (T, 3) corners a, b, c: the
    smallest of the distance to the face (where the projection falls inside) and to the three
    edges."""
    ab, ac = b - a, c - a
    normal = np.cross(ab, ac)
    nn = (normal * normal).sum(-1)
    safe = np.where(nn > 1e-300, nn, 1.0)
    ap = p - a
    # barycentric coordinates of the projection onto the triangle's plane
    d = (ap * normal).sum(-1)
    proj = ap - (d / safe)[..., None] * normal
    v = (np.cross(proj, ac) * normal).sum(-1) / safe
    w = (np.cross(ab, proj) * normal).sum(-1) / safe
    inside = (v >= 0) & (w >= 0) & (v + w <= 1) & (nn > 1e-300)
    face = np.where(inside, d * d / safe, np.inf)
    edges = [_edge_sq(p, a, b), _edge_sq(p, b, c), _edge_sq(p, c, a)]
    return np.minimum(face, np.minimum(edges[0], np.minimum(edges[1], edges[2])))


def _edge_sq(p, a, b):
    ab = b - a
    denom = np.maximum((ab * ab).sum(-1), 1e-300)
    t = np.clip(((p - a) * ab).sum(-1) / denom, 0.0, 1.0)
    q = a + t[..., None] * ab
    return ((p - q) ** 2).sum(-1)


def convex_hull_2d(points):
    """The convex hull of 2D `points` (n, 2), counter-clockwise (the solver's, which the
    balance assist uses); fewer than 3 points (or collinear ones) give their extreme points.
    The points are rounded to 12 decimals first: corners equal but for the rounding of the
    matrices they were posed from are one corner."""
    return polygon.convex_hull(np.round(np.asarray(points, dtype=np.float64), 12))


def distance_outside(point, hull):
    """How far the 2D `point` lies outside the convex polygon `hull` (counter-clockwise; a
    point or a segment when it has fewer than 3 corners): 0 inside."""
    return nearest_in_polygon(point, hull)[0]


def nearest_in_polygon(point, hull):
    """(distance, the nearest 2D point of the polygon `hull` to `point`): (0, point) inside;
    (inf, point) for an empty polygon."""
    point = np.asarray(point, dtype=np.float64)
    if len(hull) == 0:
        return np.inf, point
    if len(hull) == 1:
        return float(np.linalg.norm(point - hull[0])), np.array(hull[0], dtype=np.float64)
    edges = [(hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull))]
    if len(hull) >= 3:
        inside = all((b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0])
                     >= 0.0 for a, b in edges)
        if inside:
            return 0.0, point
    best, nearest = np.inf, point
    for a, b in edges:
        ab = b - a
        t = np.clip((point - a) @ ab / max(float(ab @ ab), 1e-300), 0.0, 1.0)
        q = a + t * ab
        d = float(np.linalg.norm(point - q))
        if d < best:
            best, nearest = d, q
    return best, nearest


def support_polygon(report, index, gravity):
    """The support polygon of frame `index` (2D, in `ground_axes`' u, w) and the projected
    centre of mass there."""
    _, u, w = ground_axes(gravity)
    pts = report.sample_world[index][report.contact[index]]
    com = report.com[index]
    return convex_hull_2d(np.column_stack((pts @ u, pts @ w))), np.array((com @ u, com @ w))


def ground_axes(gravity):
    """(up, u, w): the unit vector against gravity and two unit vectors across it."""
    g = np.asarray(gravity, dtype=np.float64)
    norm = float(np.linalg.norm(g))
    if norm < 1e-12:
        raise ValueError("the scene's gravity is off: flight and balance have no meaning "
                         "without it (Scene > Gravity)")
    up = -g / norm
    helper = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(up, helper)
    u /= np.linalg.norm(u)
    return up, u, np.cross(up, u)


# --------------------------------------------------------------------------------------------
# Rotations

def rotation_vectors(m):
    """The rotation vectors (axis * angle, (..., 3)) of rotation matrices m (..., 3, 3),
    through the quaternion so that small and large angles are both exact."""
    m = np.asarray(m, dtype=np.float64)
    tr = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    # The skew part gives 2 sin(angle) axis; the trace 1 + 2 cos(angle).
    s = np.stack((m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                  m[..., 1, 0] - m[..., 0, 1]), axis=-1)
    sin2 = np.linalg.norm(s, axis=-1)          # 2 sin(angle)
    angle = np.arctan2(sin2, tr - 1.0)
    small = sin2 < 1e-12
    scale = np.where(small, 0.5, angle / np.where(small, 1.0, sin2))
    out = s * scale[..., None]
    # Near pi the skew part vanishes: take the axis from the symmetric part.
    near_pi = (angle > np.pi - 1e-6)
    if np.any(near_pi):
        for idx in zip(*np.nonzero(near_pi)):
            r = m[idx]
            b = (r + np.eye(3)) / 2.0
            k = int(np.argmax(np.diag(b)))
            axis = b[:, k] / np.sqrt(max(b[k, k], 1e-300))
            out[idx] = axis * angle[idx]
    return out


def angular_velocities(rotations, dt):
    """Angular velocities (F, B, 3) of bodies with world rotations (F, B, 3, 3): central
    differences, w(t) = log(R(t + dt) R(t - dt)^T) / (2 dt); one-sided at the ends."""
    rot = np.asarray(rotations, dtype=np.float64)
    f = len(rot)
    out = np.zeros(rot.shape[:-1])
    if f < 2:
        return out
    nxt = np.concatenate((rot[1:], rot[-1:]))
    prv = np.concatenate((rot[:1], rot[:-1]))
    span = np.full(f, 2.0 * dt)
    span[0] = span[-1] = dt
    rel = nxt @ np.swapaxes(prv, -1, -2)
    return rotation_vectors(rel) / span[:, None, None]


# --------------------------------------------------------------------------------------------
# The check

def _velocities(x, dt):
    return np.gradient(x, dt, axis=0, edge_order=1) if len(x) > 1 else np.zeros_like(x)


def dynamics(character, matrices, dt):
    """(com, com velocity, linear momentum, angular momentum about the centre of mass,
    composite inertia about it) per frame, for bodies posed by `matrices` (F, B, 4, 4)."""
    mats = np.asarray(matrices, dtype=np.float64)
    m = np.asarray(character.masses, dtype=np.float64)
    total = float(m.sum())
    rot = mats[..., :3, :3]
    centres = np.einsum("fbij,bj->fbi", rot, character.centres) + mats[..., :3, 3]
    com = (m[None, :, None] * centres).sum(axis=1) / total
    v = _velocities(centres, dt)
    vc = (m[None, :, None] * v).sum(axis=1) / total
    w = angular_velocities(rot, dt)
    r = centres - com[:, None, :]
    world_i = rot @ character.inertia[None] @ np.swapaxes(rot, -1, -2)
    spin = np.einsum("fbij,fbj->fbi", world_i, w)
    orbit = m[None, :, None] * np.cross(r, v - vc[:, None, :])
    L = (orbit + spin).sum(axis=1)
    rr = (r * r).sum(-1)
    parallel = m[None, :, None, None] * (rr[..., None, None] * np.eye(3)
                                         - r[..., :, None] * r[..., None, :])
    inertia = (world_i + parallel).sum(axis=1)
    return com, vc, total * vc, L, inertia


def contacts(character, ground, settings, matrices):
    """(in contact (F, N), the samples' world positions (F, N, 3))."""
    mats = np.asarray(matrices, dtype=np.float64)
    local = np.asarray(character.sample_points, dtype=np.float64)
    body = np.asarray(character.sample_body, dtype=np.int64)
    placed = mats[:, body]
    world = np.einsum("fnij,nj->fni", placed[..., :3, :3], local) + placed[..., :3, 3]
    f, n = world.shape[:2]
    gap = ground.distance(world.reshape(-1, 3)).reshape(f, n) - character.sample_radius[None]
    slow = _slower_side(world, settings.dt) <= settings.contact_speed
    near = gap <= settings.contact_distance
    return (near & slow) | (gap <= np.minimum(settings.touch_distance,
                                              settings.contact_distance)), \
        world


def _slower_side(x, dt):
    """Per frame and point, the slower of the speeds over the frame before and the frame
    after: a foot planted until take-off is in contact at the take-off frame (it leaves
    after it), and one that lands is in contact at the landing frame."""
    if len(x) < 2:
        return np.zeros(x.shape[:-1])
    step = np.linalg.norm(np.diff(x, axis=0), axis=-1) / dt
    before = np.concatenate((step[:1], step))
    after = np.concatenate((step, step[-1:]))
    return np.minimum(before, after)


def runs(mask):
    """[(value, first, last)] of the runs of equal values in the boolean `mask`."""
    out = []
    start = 0
    for i in range(1, len(mask) + 1):
        if i == len(mask) or mask[i] != mask[start]:
            out.append((bool(mask[start]), start, i - 1))
            start = i
    return out


def fit_parabola(times, points, gravity):
    """The least-squares a + b t + g t^2 / 2 through `points` (n, 3) at `times` (n,) with
    g fixed: (a, b), the fitted points, and each point's distance from them."""
    t = np.asarray(times, dtype=np.float64)
    rest = points - 0.5 * np.outer(t * t, gravity)
    if len(t) == 1:
        a, b = rest[0], np.zeros(3)
    else:
        design = np.column_stack((np.ones_like(t), t))
        (a, b), *_ = np.linalg.lstsq(design, rest, rcond=None)
    fitted = a + np.outer(t, b) + 0.5 * np.outer(t * t, gravity)
    return (a, b), fitted, np.linalg.norm(points - fitted, axis=1)


# A change of angular momentum is measured against the largest |L| of the flight, or at least
# the momentum of the character turning at 1 degree a second (rad/s) about its largest
# principal axis: slower, it does not turn, and the round-off of float32 pose matrices must
# not read as a change of 100 %.
SLOW_TURN = np.radians(1.0)
L_FLOOR = 1e-9


def check(character, ground, settings, matrices, frames):
    """The Report of a motion: the bodies posed by `matrices` (F, B, 4, 4, world) at
    `frames` (F,)."""
    frames = np.asarray(frames, dtype=np.float64)
    if len(frames) < 2:
        raise ValueError("the check needs at least two frames")
    g = np.asarray(settings.gravity, dtype=np.float64)
    up, u, w = ground_axes(g)
    com, vc, p, L, inertia = dynamics(character, matrices, settings.dt)
    touching, world = contacts(character, ground, settings, matrices)
    flight = ~touching.any(axis=1)
    parabola = np.zeros(len(frames))
    outside = np.zeros(len(frames))
    zmp_outside = np.zeros(len(frames))
    accel = _velocities(vc, settings.dt)
    Ldot = _velocities(L, settings.dt)
    mass = float(np.sum(character.masses))
    times = frames * settings.dt
    phases = []
    for is_flight, first, last in runs(flight):
        span = slice(first, last + 1)
        if is_flight:
            _, _, dist = fit_parabola(times[span], com[span], g)
            parabola[span] = dist
            # the change of spin over the frames between the first and the last: their
            # central differences reach only frames in the air, where the first's and the
            # last's reach the take-off's push and the landing's stop
            inner = L[first + 1:last] if last - first >= 2 else L[first:first + 1]
            change = np.linalg.norm(inner - inner[0], axis=1).max()
            scale = max(float(np.linalg.norm(inner, axis=1).max()),
                        float(np.linalg.eigvalsh(inertia[first]).max()) * SLOW_TURN, L_FLOOR)
            phases.append(Phase('FLIGHT', first, last, parabola_cm=100.0 * float(dist.max()),
                                momentum_percent=100.0 * float(change) / scale))
            continue
        for i in range(first, last + 1):
            pts = world[i][touching[i]]
            hull = convex_hull_2d(np.column_stack((pts @ u, pts @ w)))
            outside[i] = distance_outside((com[i] @ u, com[i] @ w), hull)
            zmp = zero_moment_point(com[i], accel[i], Ldot[i], mass, g, float((pts @ up).mean()))
            zmp_outside[i] = distance_outside((zmp @ u, zmp @ w), hull)
        phases.append(Phase('STANCE', first, last,
                            outside_cm=100.0 * float(outside[span].max()),
                            slide_cm=100.0 * _slide(touching[span], world[span], up),
                            zmp_outside_cm=100.0 * float(zmp_outside[span].max())))
    return Report(com, vc, p, L, inertia, touching, world, flight, parabola, outside, phases,
                  zmp_outside)


def zero_moment_point(com, accel, Ldot, mass, gravity, ground):
    """The zero-moment point (3,) on the ground plane at height `ground` (along -gravity):
    where the ground's reaction F = M (a - g) has no moment across gravity, given the rate of
    angular momentum about the centre of mass, dL/dt = (p - C) x F. In the ground's axes
    (u, w, up): p_u = C_u - (h F_u + dL_w) / F_up, p_w = C_w + (dL_u - h F_w) / F_up, h the
    centre of mass's height above the ground. With no acceleration and no change of L it is
    the projected centre of mass."""
    up, u, w = ground_axes(gravity)
    force = mass * (np.asarray(accel) - np.asarray(gravity))
    f_up = float(force @ up)
    h = float(com @ up) - ground
    if f_up <= 1e-9:          # nothing presses on the ground: no point holds the moment
        return com - h * up
    pu = com @ u - (h * (force @ u) + Ldot @ w) / f_up
    pw = com @ w + (Ldot @ u - h * (force @ w)) / f_up
    return pu * u + pw * w + ground * up


def _slide(touching, world, up):
    """The largest sideways distance (m) a contact point moves from where its run of contact
    frames began."""
    worst = 0.0
    flat = world - (world @ up)[..., None] * up
    for n in range(touching.shape[1]):
        for on, first, last in runs(touching[:, n]):
            if on and last > first:
                d = np.linalg.norm(flat[first:last + 1, n] - flat[first, n], axis=1).max()
                worst = max(worst, float(d))
    return worst


def failures(phase, tolerance, momentum_tolerance):
    """The names of the figures of `phase` (a Phase or its `summary` dict) beyond the
    tolerances: `tolerance` in metres for the distances, `momentum_tolerance` in %."""
    get = phase.get if isinstance(phase, dict) else lambda k: getattr(phase, k)
    out = [k for k in ("parabola_cm", "outside_cm", "slide_cm")
           if get(k) is not None and get(k) > 100.0 * tolerance]
    if get("momentum_percent") is not None and get("momentum_percent") > momentum_tolerance:
        out.append("momentum_percent")
    return out


def summary(report):
    """The report's figures per phase as plain data (for the panel and for scripts)."""
    return [{k: v for k, v in vars(ph).items() if v is not None} for ph in report.phases]
