"""The physics fix of keyed motion, on arrays (numpy only, like check.py): displacements of
the character's root that make the checked motion physical.

Flight follows gravity, timing kept: in each flight, the centre of mass is moved onto the
parabola of curvature g through where it was keyed at take-off and at landing (the last
stance frame before the flight and the first after it), p(t) = C_a + (C_b - C_a) (t - t_a) /
(t_b - t_a) + g (t - t_a)(t - t_b) / 2. Every body moves by the same displacement p(t) - C(t)
(the root carries them), so the centre of mass lands on p exactly; the displacement is 0 at
take-off and landing, where it meets the keyed motion, and 0 in stance (the contacts stay
where they were keyed). A flight at the start or the end of the frames has no take-off (or
landing) frame: its first (or last) frame is kept instead.

Flight follows gravity, height kept: the flight lasts as long as a parabola of g takes to rise
from the take-off's centre of mass to the flight's keyed apex and fall to the landing's
(`height_kept_spans`); the keys are re-timed (`retime`: stretched inside the flight, shifted
after it) and the re-timed flight is then put on the parabola through take-off and landing
as above, whose apex is then the keyed one.
"""

import numpy as np

from . import check


def flight_displacements(com, flight, frames, settings):
    """(F, 3) world displacements of the root, per frame: the parabola's minus the centre of
    mass `com` (F, 3) in the frames of `flight` (F,), 0 in the others."""
    frames = np.asarray(frames, dtype=np.float64)
    t = frames * settings.dt
    g = np.asarray(settings.gravity, dtype=np.float64)
    out = np.zeros_like(com)
    last_index = len(frames) - 1
    for is_flight, first, last in check.runs(flight):
        if not is_flight:
            continue
        a = first - 1 if first > 0 else first
        b = last + 1 if last < last_index else last
        if b == a:
            continue
        span = slice(first, last + 1)
        out[span] = parabola(t[span], t[a], t[b], com[a], com[b], g) - com[span]
    return out


def parabola(t, ta, tb, ca, cb, gravity):
    """(n, 3) points at times `t` (n,) of the parabola of `gravity` through `ca` at `ta` and
    `cb` at `tb`."""
    t = np.asarray(t, dtype=np.float64)
    s = ((t - ta) / (tb - ta))[:, None]
    return ca + (cb - ca) * s + 0.5 * np.outer((t - ta) * (t - tb), gravity)


def flight_seconds(take_off, landing, apex, g):
    """How long a ballistic flight lasts that rises from height `take_off` to `apex` and
    falls to `landing` under gravity of magnitude `g` (an apex below either end is taken at
    that end: the flight only falls or only rises)."""
    apex = max(apex, take_off, landing)
    return np.sqrt(2.0 * (apex - take_off) / g) + np.sqrt(2.0 * (apex - landing) / g)


def height_kept_spans(com, flight, frames, settings):
    """[(take-off frame, landing frame, fixed length in frames)] of the flights of `flight`
    (F,) that have a take-off and a landing frame (the stance frames around them): the length
    of the parabola of g that rises from the centre of mass `com` (F, 3) at take-off to the
    flight's highest keyed centre of mass and falls to it at landing, so that the fixed
    flight keeps the keyed height and its length follows. A flight whose parabola would last
    less than a frame (it never rises above its ends) is left out: its timing is kept."""
    frames = np.asarray(frames, dtype=np.float64)
    up = check.ground_axes(settings.gravity)[0]
    g = float(np.linalg.norm(settings.gravity))
    height = np.asarray(com) @ up
    out = []
    for is_flight, first, last in check.runs(flight):
        if not is_flight or first == 0 or last == len(frames) - 1:
            continue
        a, b = first - 1, last + 1
        apex = float(height[first:last + 1].max())
        length = float(flight_seconds(height[a], height[b], apex, g) / settings.dt)
        if length < 1.0:      # no height to keep (a hop level with both ends): timing kept
            continue
        out.append((float(frames[a]), float(frames[b]), length))
    return out


def retime(times, spans):
    """The frames the keys at `times` move to when each flight of `spans` (take-off, landing,
    new length) is stretched to its new length: as keyed before the first take-off, scaled
    inside a flight, shifted by the change of the flights before them after it."""
    times = np.asarray(times, dtype=np.float64)
    if not spans:
        return times.copy()
    x_in, x_out, shift = [], [], 0.0
    for ta, tb, length in sorted(spans):
        x_in += [ta, tb]
        x_out += [ta + shift, ta + shift + length]
        shift += length - (tb - ta)
    out = np.interp(times, x_in, x_out)
    out = np.where(times < x_in[0], times, out)
    return np.where(times > x_in[-1], times + shift, out)


# A run of stance frames whose centre of mass is outside the support and accelerates by more
# than this share of gravity on average is a fall (toppling, landing, collapsing): physical
# as it is, balance leaves it to the simulation
FALLING = 0.25


def falling_runs(report, settings, threshold=FALLING):
    """(F,) the stance frames of the runs where the centre of mass is outside the support
    polygon and its acceleration (second differences of the centre of mass) averages more
    than `threshold` times gravity: the motion falls there; a centre of mass held outside
    the feet (a lean) accelerates little."""
    g = float(np.linalg.norm(settings.gravity))
    accel = check._velocities(check._velocities(report.com, settings.dt), settings.dt)
    size = np.linalg.norm(accel, axis=1)
    out = np.zeros(len(report.com), dtype=bool)
    for outside, first, last in check.runs(~report.flight & (report.outside > 0.0)):
        if outside and size[first:last + 1].mean() > threshold * g:
            out[first:last + 1] = True
    return out


def balance_shifts(report, settings, margin=0.005, standing=None, falls=True):
    """(F, 3) world shifts across gravity, per frame: in stance, the least that moves the
    projected centre of mass into the support polygon (`margin` inside its edge, so that
    round-off leaves it in), 0 where it is inside already and in flight. `standing`: (N,)
    which contact samples a character stands on (its feet'); a frame where any other
    touches (a hand, a knee, lying) is left alone. With `falls`, so are the runs of
    `falling_runs` (a fall needs no balance)."""
    _, u, w = check.ground_axes(settings.gravity)
    out = np.zeros_like(report.com)
    frames = ~report.flight & (report.outside > 0.0)
    if falls:
        frames &= ~falling_runs(report, settings)
    if standing is not None:
        frames &= ~(report.contact & ~np.asarray(standing, dtype=bool)[None]).any(axis=1)
    for i in np.nonzero(frames)[0]:
        hull, com = check.support_polygon(report, i, settings.gravity)
        dist, nearest = check.nearest_in_polygon(com, hull)
        if not np.isfinite(dist) or dist <= 0.0:
            continue
        step = nearest - com
        if len(hull) >= 3:     # into the polygon by `margin`, toward its centroid
            inward = hull.mean(axis=0) - nearest
            norm = float(np.linalg.norm(inward))
            if norm > 1e-12:
                step = step + inward / norm * min(margin, norm)
        out[i] = step[0] * u + step[1] * w
    return out


def knee(hip, ankle, thigh, shin, pole):
    """The knee of a two-bone leg from `hip` to `ankle` with bones of lengths `thigh` and
    `shin`, in the plane of hip, ankle and `pole` on its side (3-vectors); the ankle is
    brought within reach along the hip-ankle line when it is too far."""
    hip, ankle, pole = (np.asarray(v, dtype=np.float64) for v in (hip, ankle, pole))
    axis = ankle - hip
    d = float(np.linalg.norm(axis))
    d = min(max(d, abs(thigh - shin) + 1e-9), thigh + shin - 1e-9)
    axis = axis / max(float(np.linalg.norm(axis)), 1e-12)
    side = (pole - hip) - ((pole - hip) @ axis) * axis
    side = side / max(float(np.linalg.norm(side)), 1e-12)
    along = (thigh * thigh - shin * shin + d * d) / (2.0 * d)
    return hip + along * axis + np.sqrt(max(thigh * thigh - along * along, 0.0)) * side


def rotation_between(a, b):
    """The least rotation (3, 3) that turns direction `a` onto direction `b`."""
    a = np.asarray(a, dtype=np.float64) / np.linalg.norm(a)
    b = np.asarray(b, dtype=np.float64) / np.linalg.norm(b)
    v, c = np.cross(a, b), float(a @ b)
    if c < -1.0 + 1e-12:
        perp = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
        perp /= np.linalg.norm(perp)
        return 2.0 * np.outer(perp, perp) - np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k / (1.0 + c)


def displaced(matrices, displacement):
    """`matrices` (F, B, 4, 4) with every body moved by its frame's `displacement` (F, 3)."""
    out = np.array(matrices, dtype=np.float64, copy=True)
    out[..., :3, 3] += np.asarray(displacement)[:, None, :]
    return out


# --------------------------------------------------------------------------------------------
# Spin: the root's rotation re-timed in each flight

def _quaternions(m):
    """Unit quaternions (w, x, y, z) of rotation matrices m (n, 3, 3) (Shepperd's method)."""
    m = np.asarray(m, dtype=np.float64)
    q = np.empty((len(m), 4))
    for i, r in enumerate(m):
        tr = r[0, 0] + r[1, 1] + r[2, 2]
        k = int(np.argmax([tr, r[0, 0], r[1, 1], r[2, 2]]))
        if k == 0:
            s = 2.0 * np.sqrt(1.0 + tr)
            q[i] = (s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s)
        elif k == 1:
            s = 2.0 * np.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
            q[i] = ((r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s)
        elif k == 2:
            s = 2.0 * np.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
            q[i] = ((r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s)
        else:
            s = 2.0 * np.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
            q[i] = ((r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4)
    for i in range(1, len(q)):        # one hemisphere along the motion, for the slerp
        if q[i] @ q[i - 1] < 0.0:
            q[i] = -q[i]
    return q


def _matrices(q):
    w, x, y, z = np.moveaxis(np.asarray(q), -1, 0)
    return np.stack((np.stack((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)), -1),
                     np.stack((2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)), -1),
                     np.stack((2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)), -1)),
                    -2)


def _slerp(q, times):
    """Rotations (n, 3, 3) at fractional indices `times` into the keyed quaternions `q`."""
    i = np.clip(np.floor(times).astype(np.int64), 0, len(q) - 2)
    u = (times - i)[:, None]
    a, b = q[i], q[i + 1]
    cos = np.clip((a * b).sum(-1, keepdims=True), -1.0, 1.0)
    angle = np.arccos(cos)
    sin = np.sin(angle)
    small = sin < 1e-9
    wa = np.where(small, 1 - u, np.sin((1 - u) * angle) / np.where(small, 1, sin))
    wb = np.where(small, u, np.sin(u * angle) / np.where(small, 1, sin))
    out = wa * a + wb * b
    return _matrices(out / np.linalg.norm(out, axis=-1, keepdims=True))


def _retimed(roots, rel, quats, window, taus):
    """Body matrices of the frames `window` (indices) with the root's rotation read at the
    fractional frame indices `taus` (its location kept)."""
    root = roots[window].copy()
    root[:, :3, :3] = _slerp(quats, taus)
    return root[:, None] @ rel[window]


SPIN_ITERATIONS = 40


def retimed_spin(character, settings, matrices, roots, flight):
    """(F, 4, 4) root world matrices whose rotation is re-timed in each flight that has a
    take-off and a landing frame, so that the angular momentum about the centre of mass
    stays as constant as a re-timing makes it: the root turns through the keyed rotations,
    reaching each later or sooner, and lands as keyed; the bodies keep their pose relative
    to the root (the limbs as keyed). The frame each flight frame reads its rotation at,
    tau, rises monotonically from take-off to landing (its steps are exp(s) shares of the
    flight, the s found by Levenberg-Marquardt on L(t) - c over the flight's frames, c free).
    Returns (roots, matrices) re-timed."""
    mats = np.asarray(matrices, dtype=np.float64)
    roots = np.asarray(roots, dtype=np.float64)
    rel = np.linalg.inv(roots)[:, None] @ mats
    quats = _quaternions(roots[:, :3, :3])
    out_roots, out = roots.copy(), mats.copy()
    last_index = len(mats) - 1
    for is_flight, first, last in check.runs(flight):
        if not is_flight or first == 0 or last == last_index:
            continue
        a, b = first - 1, last + 1
        window = np.arange(max(a - 1, 0), min(b + 1, last_index) + 1)
        inside = (window >= first) & (window <= last)
        taus = _solve_taus(character, settings, roots, rel, quats, window, inside, a, b)
        out[window] = _retimed(roots, rel, quats, window, taus)
        out_roots[window, :3, :3] = _slerp(quats, taus)
    return out_roots, out


def _solve_taus(character, settings, roots, rel, quats, window, inside, a, b):
    n = int(inside.sum())
    index = np.nonzero(inside)[0]
    measured = np.nonzero((window >= a + 1) & (window <= b - 1))[0]

    def taus_of(s):
        steps = np.exp(s - s.max())
        return a + (b - a) * np.cumsum(steps)[:-1] / steps.sum()

    def window_taus(s):
        taus = window.astype(np.float64)
        taus[index] = taus_of(s)
        return taus

    def residuals(x):
        s, c = x[:n + 1], x[n + 1:]
        taus = window_taus(s)
        L = check.dynamics(character, _retimed(roots, rel, quats, window, taus), settings.dt)[3]
        return np.concatenate(((L[measured] - c).ravel() / scale, [1e-3 * s.mean()]))

    L0 = check.dynamics(character, _retimed(roots, rel, quats, window,
                                            window.astype(np.float64)), settings.dt)[3]
    scale = max(float(np.linalg.norm(L0[measured], axis=1).max()), check.L_FLOOR)
    x = np.concatenate((np.zeros(n + 1), L0[measured].mean(axis=0)))
    r = residuals(x)
    damping = 1e-3
    for _ in range(SPIN_ITERATIONS):
        jac = np.empty((len(r), len(x)))
        for k in range(len(x)):
            h = 1e-6 * max(1.0, abs(x[k]))
            step = x.copy()
            step[k] += h
            jac[:, k] = (residuals(step) - r) / h
        jtj, jtr = jac.T @ jac, jac.T @ r
        while True:
            trial = x - np.linalg.solve(jtj + damping * np.diag(np.diag(jtj) + 1e-12), jtr)
            rt = residuals(trial)
            if rt @ rt < r @ r:
                x, r, damping = trial, rt, damping / 3
                break
            damping *= 4
            if damping > 1e8:
                break
        if damping > 1e8 or r @ r < 1e-16:
            break
    return window_taus(x[:n + 1])


# --------------------------------------------------------------------------------------------
# Poses: rigid body matrices, legs reaching their feet

def rigid64(m):
    """The 4x4 `m` with its 3x3 part made the nearest rotation (scale and round-off off)."""
    u, _, vt = np.linalg.svd(m[:3, :3])
    out = np.array(m, dtype=np.float64, copy=True)
    out[:3, :3] = u @ vt
    out[3] = (0.0, 0.0, 0.0, 1.0)
    return out


def reach_drop(hips, knees, ankles, shift, up):
    """How far a pelvis moved by `shift` must go down along the unit `up` for every leg (its
    keyed hip, knee and ankle: rows of the (n, 3) arrays) to reach its keyed ankle with the
    knee a little bent (0.999 of the leg's length); 0 when they reach already."""
    drop = 0.0
    for hip, knee, ankle in zip(hips, knees, ankles):
        reach = 0.999 * (np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
        v = hip + shift - ankle
        vz = v @ up
        h2 = max(v @ v - vz * vz, 0.0)
        if h2 >= reach * reach:
            raise ValueError("Physics fix: the centre of mass is too far outside the feet "
                             "for the legs to reach them; move the feet under the body")
        drop = max(drop, vz - np.sqrt(reach * reach - h2))
    return drop
