"""A balance assist for a character standing on its contacts: a force at its centre of mass
toward its support polygon, fading to zero as balance returns, and the take-off push its
pose drives alone cannot give.

Balance is judged on the extrapolated centre of mass (Hof's XcoM, the capture point of the
linear inverted pendulum): xi = c + v / w0, the centre of mass c and its velocity v projected
along gravity onto the ground plane, w0 = sqrt(g / h) with h the height of the centre of mass
above the contacts. A standing pendulum whose xi is inside the support polygon can come to
rest over it without help; one whose xi is outside falls unless something pushes. At rest xi
is the projected centre of mass.

The assist's force is M a along the ground plane, a = gain w0^2 e: e how far xi is short of
being `margin` inside the polygon (its distance outside plus the margin; the margin less its
depth inside), toward the polygon (to its nearest point from outside, along the nearest
edge's inward normal from inside), capped at `max_share` M g. A gain of 1 cancels gravity's
tipping of the pendulum (its acceleration w0^2 (c - pivot)); the default 3 brings it back.
It is zero wherever xi is `margin` inside the polygon, and zero in flight (no contacts): so a
balanced character, or one in the air, moves under its drives and gravity alone.

The force is spread over the character's dynamic bodies in proportion to their masses (each
gets m_i a at its own centre of mass): its sum acts at the centre of mass and has no moment
about it, so it moves the character without turning it. It goes through `World.apply_force`
before each step.
"""

import numpy as np

from . import validate
from .polygon import convex_hull


def ground_axes(gravity):
    """(up, u, w): the unit vector against `gravity` and two unit vectors across it (a right
    handed frame u, w, up)."""
    g = np.asarray(gravity, dtype=np.float64)
    size = float(np.linalg.norm(g))
    if size <= 0.0:
        raise ValueError("the balance assist needs gravity: the world's gravity is zero")
    up = -g / size
    u = np.cross(up, (1.0, 0.0, 0.0) if abs(up[0]) < 0.9 else (0.0, 1.0, 0.0))
    u /= np.linalg.norm(u)
    return up, u, np.cross(up, u)


def shortfall(point, hull, margin):
    """(e, direction): how far 2D `point` is short of being `margin` inside the convex
    polygon `hull` (k, 2) counter-clockwise (0 when it is), and the unit direction (2,) that
    takes it in. A hull of one point or a segment has no inside: e is the distance to it."""
    p = np.asarray(point, dtype=np.float64)
    hull = np.asarray(hull, dtype=np.float64)
    if len(hull) == 1:
        d = hull[0] - p
        n = float(np.linalg.norm(d))
        return n, (d / n if n > 0.0 else np.zeros(2))
    edges = [(hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull) if len(hull) > 2
                                                                 else 1)]
    best, nearest, inward = np.inf, None, None
    inside = len(hull) > 2
    for a, b in edges:
        ab = b - a
        t = float(np.clip((p - a) @ ab / (ab @ ab), 0.0, 1.0))
        q = a + t * ab
        dist = float(np.linalg.norm(p - q))
        normal = np.array((-ab[1], ab[0])) / np.linalg.norm(ab)    # inward (counter-clockwise)
        if (p - a) @ normal < 0.0:
            inside = False
        if dist < best:
            best, nearest, inward = dist, q, normal
    if inside:
        e = margin - best
        return (e, inward) if e > 0.0 else (0.0, np.zeros(2))
    d = nearest - p
    return best + (margin if len(hull) > 2 else 0.0), d / best


class BalanceAssist:
    """The balance assist of the character made of the bodies `bodies` of `world`.

    gain        the force's stiffness in units of the pendulum's own w0^2 = g / h
    margin      how far inside the support polygon (world length units) balance is reached
    max_share   the force's cap, a share of the character's weight
    contact_tolerance   a contact point of one of `bodies` with any other body counts as
                support when its separation is at most this (length units; speculative
                contacts further apart do not)

    `apply()` before each `world.step(dt)` pushes and returns the force; `impulse` is the
    total impulse it gave (N s, the sum of |force| dt over the steps, `dt` passed to apply)."""

    def __init__(self, world, bodies, gain=3.0, margin=0.02, max_share=0.5,
                 contact_tolerance=0.01):
        self.world = world
        self.bodies = np.unique(np.asarray(bodies, dtype=np.int64))
        if not len(self.bodies):
            raise ValueError("bodies: the balance assist needs the character's bodies")
        n = len(world.masses)
        bad = self.bodies[(self.bodies < 0) | (self.bodies >= n)]
        if len(bad):
            raise ValueError(f"bodies: {bad.tolist()} are not bodies of this world")
        self.gain = validate.number("gain", gain, minimum=0.0)
        self.margin = validate.number("margin", margin, minimum=0.0)
        self.max_share = validate.number("max_share", max_share, minimum=0.0)
        self.contact_tolerance = validate.number("contact_tolerance", contact_tolerance,
                                                 minimum=0.0)
        self.impulse = 0.0
        self.last_force = np.zeros(3)

    def _dynamic(self):
        m = self.world.masses[self.bodies]
        keep = np.isfinite(m)
        return self.bodies[keep], m[keep]

    def centre_of_mass(self):
        """(position, velocity) of the character's centre of mass (its dynamic bodies')."""
        ids, m = self._dynamic()
        if not len(ids):
            return None, None
        w = self.world
        total = m.sum()
        return (m @ w.positions[ids] / total, m @ w.linear_velocities[ids] / total)

    def support_points(self):
        """(k, 3) the last step's contact points between the character and anything else
        that touch (separation within `contact_tolerance`)."""
        c = self.world.contacts()
        pair = np.asarray(c["bodies"]).reshape(-1, 2)
        mine = np.isin(pair, self.bodies)
        touching = (mine[:, 0] != mine[:, 1]) & \
            (np.asarray(c["separations"]) <= self.contact_tolerance)
        return np.asarray(c["points"]).reshape(-1, 3)[touching]

    def force(self, support=None):
        """The assist's force (3,) now: zero with no support (in flight) or with the
        extrapolated centre of mass `margin` inside the support polygon. `support`: (k, 3)
        points to stand on instead of the world's contacts."""
        c, v = self.centre_of_mass()
        points = self.support_points() if support is None else \
            np.asarray(support, dtype=np.float64).reshape(-1, 3)
        if c is None or not len(points):
            return np.zeros(3)
        up, u, w = ground_axes(self.world.gravity)
        g = float(np.linalg.norm(self.world.gravity))
        height = float((c - points.mean(axis=0)) @ up)
        if height <= 0.0:          # lying on its supports: nothing to balance
            return np.zeros(3)
        w0 = np.sqrt(g / height)
        xi = c + v / w0
        basis = np.stack((u, w))
        e, direction = shortfall(basis @ xi, convex_hull(points @ basis.T), self.margin)
        if e <= 0.0:
            return np.zeros(3)
        m = self._dynamic()[1].sum()
        size = min(m * self.gain * w0 * w0 * e, self.max_share * m * g)
        return size * (direction @ basis)

    def apply(self, dt=None, support=None):
        """Push the character by `force()` over the next step (each dynamic body by its share
        of the mass, at its centre of mass); returns the force. With `dt`, adds its impulse
        to `impulse`."""
        f = self.force(support)
        self.last_force = f
        if not f.any():
            return f
        ids, m = self._dynamic()
        share = m / m.sum()
        for b, s in zip(ids.tolist(), share.tolist()):
            self.world.apply_force(b, f * s)
        if dt is not None:
            self.impulse += float(np.linalg.norm(f)) * float(dt)
        return f

    def launch(self, velocity):
        """Give the character's centre of mass the velocity `velocity` (3,) at once, its
        bodies' motion relative to it kept: each dynamic body gets m_i (velocity - v_com) at
        its centre of mass (a take-off's push, which pose drives between the bodies cannot
        give). Returns the impulse (3,) on the whole character."""
        target = validate.vector("velocity", velocity)
        _, v = self.centre_of_mass()
        if v is None:
            return np.zeros(3)
        ids, m = self._dynamic()
        dv = target - v
        for b, mass in zip(ids.tolist(), m.tolist()):
            self.world.apply_impulse(b, dv * mass)
        return dv * m.sum()
