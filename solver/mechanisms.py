"""World's mechanism joints: gear, rack and pinion, pulley, line, wheel and path.

A mixin of `World` (world.py), kept in its own file: the methods validate their input (a
ValueError names the bad argument), describe the joint in the joint tables (joints/layout.py)
and return its id, like every add_* of World. The rows are built by joints/gear.py,
rack_and_pinion.py, pulley.py, line.py, wheel.py and path.py.
"""

import math

import numpy as np

from . import validate, vectors
from .atomic import atomic_joint
from .joints import layout as L

_IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


class Mechanisms:
    """add_gear, add_rack_and_pinion, add_pulley, add_line, add_wheel, set_steering, add_path,
    set_path_points."""

    # --- helpers ----------------------------------------------------------------------

    def _joint_world(self, j):
        """((anchor A, frame A), (anchor B, frame B)) of joint j in the world, now."""
        jt, jf = self._jt.data[j], self._jf.data[j]
        out = []
        for body, anchor, frame in ((jt[L.BODY_A], L.ANCHOR_A, L.FRAME_A),
                                    (jt[L.BODY_B], L.ANCHOR_B, L.FRAME_B)):
            x, q = (np.zeros(3), _IDENTITY) if body < 0 else \
                (self._bs.view[body, 0:3], self._bs.view[body, 3:7])
            out.append((x + vectors.qmat(q) @ jf[anchor:anchor + 3], vectors.qmul(q, jf[frame:frame + 4])))
        return out

    def _hinge_angle(self, j):
        """The hinge's angle now: twist of fA^-1 fB about the frame's X (joints/hinge.py)."""
        (_, fa), (_, fb) = self._joint_world(j)
        q = vectors.qmul(vectors.qconj(fa), fb)
        if q[0] < 0.0:
            q = -q
        return 2.0 * math.atan2(q[1], q[0])

    def _coupled(self, name, joint, kind, mechanism):
        """The id of the joint a gear or rack and pinion couples, checked."""
        n = self._jt.n
        if isinstance(joint, (bool, np.bool_)) or not isinstance(joint, (int, np.integer)) \
                or not 0 <= int(joint) < n:
            raise ValueError(f"{name} must be a {L.TYPE_NAMES[kind]} joint id from "
                             f"add_{L.TYPE_NAMES[kind]}, got {joint!r}")
        j = int(joint)
        if self._jt.data[j, L.TYPE] != kind:
            raise ValueError(f"{name} must be a {L.TYPE_NAMES[kind]} joint, but joint {j} is a "
                             f"{L.TYPE_NAMES[self._jt.data[j, L.TYPE]]}")
        if self._jt.data[j, L.BODY_B] < 0:
            raise ValueError(f"{name}: a {mechanism} moves body b of joint {j}, which is the "
                             f"static world; create the joint with the moving body as b")
        if not self._jt.data[j, L.FLAGS] & L.ENABLED:
            raise ValueError(f"{name}: joint {j} was removed, and a {mechanism} on it would "
                             "hold nothing; couple a joint that is still in the world")
        if self._jt.data[j, L.FLAGS] & L.BROKEN:
            raise ValueError(f"{name}: joint {j} is broken, and a {mechanism} on it would "
                             "hold nothing; couple a joint that is still whole")
        return j

    @staticmethod
    def _path_tangent(directions, closed, k, u):
        """The tangent at parameter u of segment k, blended from the vertex tangents as
        joints/path.py does (directions: the segments' unit directions)."""
        n = len(directions)

        def vertex(i):
            if not closed and (i == 0 or i == n):
                return directions[min(i, n - 1)]
            t = directions[(i - 1) % n] + directions[i % n]
            return t / np.linalg.norm(t)

        t = (1.0 - u) * vertex(k) + u * vertex(k + 1)
        return t / np.linalg.norm(t)

    @staticmethod
    def _ratio(ratio, positive=False):
        rho = validate.number("ratio", ratio)
        if rho == 0.0 or (positive and rho < 0.0):
            raise ValueError(f"ratio must be {'> 0' if positive else 'non-zero'}, got {ratio!r}")
        return rho

    @staticmethod
    def _path_points(points, closed, count=None):
        """(points n x 3, segment vectors, segment lengths) of a path's polyline, checked
        (`count`: the number of points it must have)."""
        try:
            pts = np.array(points, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"points must be a list of (x, y, z) points, got {points!r}") \
                from None
        if pts.ndim != 2 or pts.shape[1] != 3 or not np.all(np.isfinite(pts)):
            raise ValueError(f"points must be finite (x, y, z) points (an n x 3 array), got "
                             f"shape {pts.shape}")
        if closed and len(pts) > 2 and np.array_equal(pts[0], pts[-1]) and \
                (count is None or len(pts) == count + 1):
            pts = pts[:-1]
        if count is not None and len(pts) != count:
            raise ValueError(f"points must hold the path's {count} points (a path keeps its "
                             f"point count), got {len(pts)}")
        if len(pts) < (3 if closed else 2):
            raise ValueError(f"points must hold at least {3 if closed else 2} distinct points "
                             f"for {'a closed' if closed else 'an open'} path, got {len(pts)}")
        ends = np.roll(pts, -1, axis=0) if closed else pts[1:]
        seg = ends - pts[:len(ends)]
        lengths = np.linalg.norm(seg, axis=1)
        if lengths.min() < 1e-9:
            i = int(np.argmin(lengths))
            raise ValueError(f"points {i} and {(i + 1) % len(pts)} are the same point: every "
                             f"point of a path must differ from the next")
        return pts, seg, lengths

    # --- joints -----------------------------------------------------------------------

    @atomic_joint
    def add_gear(self, hinge_a, hinge_b, ratio, lower=None, upper=None, collide_connected=False,
                 break_force=None, break_torque=None):
        """Couple two hinges so that angle_b = -ratio x angle_a: the hinges' b bodies turn
        together like meshing gears (ratio = teeth_a / teeth_b, or radius_a / radius_b; a
        negative ratio turns them the same way, as a belt does). The sum angle_b + ratio x
        angle_a keeps its value at creation, or with `lower` / `upper` stays in that range
        (radians). Exact while the hinges' a sides do not turn (the world, or a frame at
        rest); the coupled bodies do not collide unless collide_connected."""
        ja = self._coupled("hinge_a", hinge_a, L.HINGE, "gear")
        jb = self._coupled("hinge_b", hinge_b, L.HINGE, "gear")
        if ja == jb:
            raise ValueError(f"hinge_a and hinge_b must be two different hinges, got {ja} twice")
        rho = self._ratio(ratio)
        ba, bb = int(self._jt.data[ja, L.BODY_B]), int(self._jt.data[jb, L.BODY_B])
        if ba == bb:
            raise ValueError(f"hinge_a and hinge_b both turn body {ba}: a gear couples two "
                             f"bodies")
        j = self._new_joint(L.GEAR, ba, bb, self._bs.view[ba, 0:3], self._bs.view[bb, 0:3],
                            _IDENTITY, collide_connected, break_force, break_torque)
        ta, tb = self._hinge_angle(ja), self._hinge_angle(jb)
        jf = self._jf.data[j]
        jf[[L.RATIO, L.LINK_A, L.LINK_B, L.TRACK_A, L.TRACK_B, L.OFFSET]] = \
            (rho, ja, jb, ta, tb, tb + rho * ta)
        self._set_range(j, lower, upper, "lower", "upper")
        return j

    @atomic_joint
    def add_rack_and_pinion(self, hinge, prismatic, ratio, collide_connected=False,
                            break_force=None, break_torque=None):
        """Couple a hinge (the pinion, its b body) and a prismatic (the rack, its b body) so
        that slide = ratio x angle, counted from their values at creation (metres per radian:
        the pinion's pitch radius, negative to run the other way)."""
        jh = self._coupled("hinge", hinge, L.HINGE, "rack and pinion")
        js = self._coupled("prismatic", prismatic, L.PRISMATIC, "rack and pinion")
        rho = self._ratio(ratio)
        bh, bs = int(self._jt.data[jh, L.BODY_B]), int(self._jt.data[js, L.BODY_B])
        if bh == bs:
            raise ValueError(f"the hinge and the prismatic both move body {bh}: a rack and "
                             f"pinion couples two bodies")
        (pa, fa), (pb, _) = self._joint_world(js)
        slide = float(vectors.qmat(fa)[:, 0] @ (pb - pa))
        angle = self._hinge_angle(jh)
        j = self._new_joint(L.RACK_AND_PINION, bh, bs, self._bs.view[bh, 0:3],
                            self._bs.view[bs, 0:3], _IDENTITY, collide_connected, break_force,
                            break_torque)
        self._jf.data[j, [L.RATIO, L.LINK_A, L.LINK_B, L.TRACK_A, L.OFFSET]] = \
            (rho, jh, js, angle, slide - rho * angle)
        return j

    @atomic_joint
    def add_pulley(self, a, b, anchor_a, anchor_b, fixed_a, fixed_b, ratio=1.0, lower=None,
                   upper=None, fixed_bodies=(None, None), collide_connected=False,
                   break_force=None, break_torque=None):
        """A rope from anchor_a (on a) over the point fixed_a, then over fixed_b down to
        anchor_b (on b), the b side reeved `ratio` times (a block and tackle):
        |anchor_a - fixed_a| + ratio |anchor_b - fixed_b| keeps its length at creation, or
        with `lower` / `upper` stays in that range; only `upper` gives a rope that goes slack
        below it and never pushes.

        The fixed points are world points, or points on bodies (Nape's 4-body pulley):
        fixed_bodies = (the body carrying fixed_a, the body carrying fixed_b), None for the
        world; both may be one body (a block with two wheels). The rope then pulls on those
        bodies too, and all the pulley's bodies are one island (they sleep and wake together,
        and do not collide with each other unless collide_connected). A rope's two ends may
        not sit on one body: fixed_bodies[0] must differ from a, fixed_bodies[1] from b.
        joint_impulse reports the impulse on b."""
        pa, pb = validate.vector("anchor_a", anchor_a), validate.vector("anchor_b", anchor_b)
        fa, fb = validate.vector("fixed_a", fixed_a), validate.vector("fixed_b", fixed_b)
        rho = self._ratio(ratio, positive=True)
        for name, p, f in (("anchor_a", pa, fa), ("anchor_b", pb, fb)):
            if np.linalg.norm(p - f) < 1e-9:
                raise ValueError(f"{name} must not coincide with fixed_{name[-1]}: the rope "
                                 f"needs a direction")
        for name, value in (("lower", lower), ("upper", upper)):
            validate.optional_number(name, value, minimum=0.0)
        if isinstance(fixed_bodies, (str, bytes)) or not hasattr(fixed_bodies, "__len__") \
                or len(fixed_bodies) != 2:
            raise ValueError(f"fixed_bodies must be a pair (body carrying fixed_a, body "
                             f"carrying fixed_b), None for the world, got {fixed_bodies!r}")
        ia = self._body("a", a, allow_world=True)
        ib = self._body("b", b, allow_world=True)
        ic, id_ = (self._body(f"fixed_bodies[{i}]", body, allow_world=True)
                   for i, body in enumerate(fixed_bodies))
        for end, load, carrier, name in (("fixed_a", ia, ic, "a"), ("fixed_b", ib, id_, "b")):
            if carrier >= 0 and carrier == load:
                raise ValueError(f"fixed_bodies: body {carrier} carries both ends of rope "
                                 f"{name} ({end} and anchor_{name}); hang {end} on another "
                                 f"body or in the world (None)")
        j = self._new_joint(L.PULLEY, a, b, pa, pb, _IDENTITY, collide_connected, break_force,
                            break_torque, more=(ic, id_))
        jf = self._jf.data[j]
        for col, body, point in ((L.FIXED_A, ic, fa), (L.FIXED_B, id_, fb)):
            if body >= 0:           # stored in the carrying body's frame
                point = vectors.qmat(self._bs.view[body, 3:7]).T @ (point - self._bs.view[body, 0:3])
            jf[col:col + 3] = point
        jf[L.RATIO] = rho
        jf[L.LENGTH] = np.linalg.norm(pa - fa) + rho * np.linalg.norm(pb - fb)
        self._set_range(j, lower, upper, "lower", "upper")
        return j

    @atomic_joint
    def add_line(self, a, b, anchor, axis, lower=None, upper=None, motor_speed=None,
                 max_motor_force=0.0, spring_hz=0.0, spring_damping=0.0, spring_stiffness=None,
                 spring_damper=None, collide_connected=False, break_force=None,
                 break_torque=None):
        """B's anchor stays on the line of A through `anchor` along `axis`; every rotation is
        free (Nape's LineJoint). Displacement along the axis (m, 0 at creation) takes limits,
        a motor and a spring toward 0, as the prismatic's."""
        p = validate.vector("anchor", anchor)
        frame = vectors.frame_from_axis(validate.direction("axis", axis))
        j = self._new_joint(L.LINE, a, b, p, p, frame, collide_connected, break_force,
                            break_torque)
        self._set_range(j, lower, upper, "lower", "upper")
        self._set_motor(j, motor_speed, max_motor_force, "max_motor_force")
        self._set_spring(j, spring_hz, spring_damping, spring_stiffness, spring_damper)
        return j

    @atomic_joint
    def add_wheel(self, chassis, wheel, anchor, suspension_axis, wheel_axis, lower=None,
                  upper=None, spring_hz=0.0, spring_damping=0.0, motor_speed=None,
                  max_motor_torque=0.0, steering=0.0, spring_stiffness=None, spring_damper=None,
                  collide_connected=False, break_force=None, break_torque=None):
        """A wheel on a chassis: the wheel's `anchor` (its centre) slides along
        `suspension_axis` (travel in m, 0 at creation, limited to [lower, upper], sprung
        toward 0 at spring_hz with spring_damping), the wheel spins freely about
        `wheel_axis` (driven at motor_speed rad/s with at most max_motor_torque N m), and
        the axle is turned by `steering` radians about the suspension axis (`set_steering`).
        chassis may be None (the world)."""
        self._body("chassis", chassis, allow_world=True)
        self._body("wheel", wheel)
        p = validate.vector("anchor", anchor)
        s = validate.direction("suspension_axis", suspension_axis)
        axle = validate.direction("wheel_axis", wheel_axis)
        if np.linalg.norm(np.cross(s, axle)) < 1e-3:
            raise ValueError("wheel_axis must not be parallel to suspension_axis")
        frame = vectors.frame_from_axis(s, axle)
        j = self._new_joint(L.WHEEL, chassis, wheel, p, p, frame, collide_connected, break_force,
                            break_torque)
        self._set_range(j, lower, upper, "lower", "upper")
        self._set_spring(j, spring_hz, spring_damping, spring_stiffness, spring_damper)
        self._set_motor(j, motor_speed, max_motor_torque, "max_motor_torque")
        self._jf.data[j, L.STEERING] = validate.number("steering", steering)
        return j

    def set_steering(self, joint, angle):
        """Turn a wheel joint's axle to `angle` radians about its suspension axis (between
        steps); a change wakes its bodies."""
        j = self._joint(joint)
        if self._jt.data[j, L.TYPE] != L.WHEEL:
            raise ValueError(f"joint {j} is a {L.TYPE_NAMES[self._jt.data[j, L.TYPE]]}: "
                             f"set_steering works on wheel joints")
        before = self._joint_settings(j)
        self._jf.data[j, L.STEERING] = validate.number("angle", angle)
        self._wake_if_changed(j, before)

    @atomic_joint
    def add_path(self, body, anchor, points, closed=False, align=False, motor_speed=None,
                 max_motor_force=0.0, friction=0.0, collide_connected=False, break_force=None,
                 break_torque=None):
        """The body's `anchor` stays on a curve: the polyline through `points` (n x 3, world;
        sample curves densely), closed back to its first point if `closed` (a last point
        equal to the first is dropped). Open curves end at their first and last points.
        align=True keeps the body's axis that lies along the tangent at creation along the
        tangent (it turns freely about it). Along the curve (toward later points): a motor
        (motor_speed m/s, at most max_motor_force N) or, without one, a friction force of at
        most `friction` N. An anchor off the curve is pulled onto its nearest point."""
        b = self._body("body", body)
        p = validate.vector("anchor", anchor)
        pts, seg, lengths = self._path_points(points, closed)
        fric = validate.number("friction", friction, minimum=0.0)
        u = np.clip(np.einsum("ij,ij->i", p - pts[:len(seg)], seg) / lengths ** 2, 0.0, 1.0)
        k = int(np.argmin(np.linalg.norm(pts[:len(seg)] + u[:, None] * seg - p, axis=1)))
        frame = vectors.frame_from_axis(self._path_tangent(seg / lengths[:, None], closed, k, u[k]))
        j = self._new_joint(L.PATH, None, b, p, p, frame, collide_connected, break_force,
                            break_torque)
        jf = self._jf.data[j]
        jf[[L.PATH_START, L.PATH_COUNT, L.TRACK_A, L.FRICTION]] = (self._jpts.n, len(pts), k, fric)
        for point in pts:
            self._jpts.append(point)
        self._set_flags(j, on=(L.CLOSED if closed else 0) | (L.ALIGN if align else 0))
        self._set_motor(j, motor_speed, max_motor_force, "max_motor_force")
        return j

    def set_path_points(self, joint, points):
        """Move a path joint's curve (between steps): the polyline through `points` (world),
        as many points as the path was made with (closed or open as it was). The curve is
        kinematic: its motion carries the body through the path's rows (the position
        projection puts the anchor back on the moved curve each step), it is not a body
        that pushes with a velocity of its own. save_state keeps the points."""
        j = self._joint(joint)
        if self._jt.data[j, L.TYPE] != L.PATH:
            raise ValueError(f"joint {j} is a {L.TYPE_NAMES[self._jt.data[j, L.TYPE]]}: "
                             f"set_path_points works on path joints")
        start, count = (int(v) for v in self._jf.data[j, [L.PATH_START, L.PATH_COUNT]])
        closed = bool(self._jt.data[j, L.FLAGS] & L.CLOSED)
        pts = self._path_points(points, closed, count)[0]
        rows = self._jpts.data[start:start + count]
        if not np.array_equal(rows, pts):
            rows[:] = pts
            self._wake_joint(j)
