"""The plain joints (ball, hinge, slider, fixed, distance, rope, ragdoll, motor) added to the
World from their empties' settings; ball, ragdoll and plain hinge joints in one batch call per
kind. Mechanism kinds are handed to world/mechanisms.py, pins to world/pins.py."""

import math
import numpy as np

from . import mechanisms
from .pins import add_pin
from ..scene.errors import SceneError
from .joint_settings import angle_limits, joint_bodies, joint_common, joint_frame


def _ragdoll_settings(js, x, y):
    """`World.add_ragdoll`'s arguments from the joint's settings and the empty's axes: twist
    about local Y (the bone), swing_1 about local X, swing_2 about local Z; without angle
    limits the twist is free (-pi to pi)."""
    lower, upper = (js.limit_ang_lower, js.limit_ang_upper) if js.use_limit_ang else \
        (-math.pi, math.pi)
    return dict(twist_axis=y, swing1=js.swing_1, swing2=js.swing_2, twist_lower=lower,
                twist_upper=upper, swing_axis=x)


class JointBatch:
    """Ball, ragdoll and plain hinge joints (no motor, no spring) gathered and added to the
    world in one call per kind (`World.add_ball_sockets`, `add_ragdolls`, `add_hinges`): a
    few milliseconds for a crowd of ragdolls instead of tens of microseconds a joint. Each
    joint's arguments are the ones `add_joint` passes the single call; a batch the world
    refuses is added again joint by joint, which names the bad one."""

    ADD = {'BALL': "add_ball_sockets", 'HINGE': "add_hinges", 'RAGDOLL': "add_ragdolls"}
    PLURAL = {"anchor": "anchors", "axis": "axes", "twist_axis": "twist_axes",
              "swing_axis": "swing_axes"}   # the batch calls' names of the per-joint ones

    def __init__(self, world, ids, start, known, bodies, built, joints, skipped):
        self.world, self.ids, self.start, self.known = world, ids, start, known
        self.bodies, self.built, self.joints, self.skipped = bodies, built, joints, skipped
        self.pending = {}

    def take(self, empty):
        """Gather the joint if it is a batched kind (True), else leave it (False)."""
        js = empty.ligament_joint
        t = js.type
        if t not in self.ADD or (t == 'HINGE' and (js.use_motor or js.use_spring)):
            return False
        a, b = joint_bodies(empty, self.ids)
        _, anchor, (x, y, z) = joint_frame(empty, self.start, self.known)
        args: dict[str, object] = dict(anchor=anchor, **joint_common(js))
        if t == 'HINGE':
            lower, upper = angle_limits(js)
            args.update(axis=z, lower=lower, upper=upper)
        elif t == 'RAGDOLL':
            args.update(_ragdoll_settings(js, x, y))
        self.pending.setdefault(t, []).append((empty, a, b, args))
        return True

    def flush(self):
        for t, rows in self.pending.items():
            empties, a, b, args = zip(*rows)
            keys: set[str] = set().union(*args)   # breaking is given for breakable joints only
            columns = {self.PLURAL.get(k, k): [row.get(k) for row in args] for k in keys}
            try:
                ids = getattr(self.world, self.ADD[t])(list(a), list(b), **columns)
            except ValueError:   # one by one: the bad joint is named (and maybe skipped)
                for e in empties:
                    try:
                        self._added(e, add_joint(self.world, e, self.ids, self.start,
                                                  self.known, self.bodies, self.built,
                                                  self.skipped))
                    except SceneError as exc:
                        if self.skipped is None:
                            raise
                        self.skipped[e.name] = str(exc)
                continue
            for e, j in zip(empties, ids.tolist()):
                self._added(e, j)
        self.pending = {}

    def _added(self, empty, joint):
        self.built[empty.name] = joint
        self.joints.append((empty.name, joint))


def add_joint(world, empty, ids, start, known, bodies, built=None, skipped=None):
    """`built`: {empty name: joint id} of the joints built so far (couplings read it),
    `skipped`: build_world's."""
    js = empty.ligament_joint
    m, anchor, (x, y, z) = joint_frame(empty, start, known)
    common = joint_common(js)
    lim_a = angle_limits(js)
    lim_l = (js.limit_lin_lower, js.limit_lin_upper) if js.use_limit_lin else (None, None)
    motor = {}
    spring = {}
    if js.use_spring and js.spring_mode == 'STIFFNESS':
        spring = dict(spring_stiffness=js.spring_stiffness, spring_damper=js.spring_damper)
    elif js.use_spring:
        spring = dict(spring_hz=js.spring_frequency, spring_damping=js.spring_damping)
    t = js.type
    if t == 'PIN':
        return add_pin(world, empty, ids, start, known)
    if t in mechanisms.TYPES:
        try:
            return mechanisms.add(world, empty, m, ids, start, known, built or {}, skipped,
                                  common, lim_a, lim_l, spring)
        except (ValueError, TypeError) as exc:
            raise SceneError(f"Joint '{empty.name}': {exc}") from None
    a, b = joint_bodies(empty, ids)
    try:
        if t == 'BALL':
            return world.add_ball_socket(a, b, anchor, **common)
        if t == 'FIXED':
            return world.add_fixed(a, b, anchor, **common)
        if t == 'HINGE':
            if js.use_motor:
                motor = dict(motor_speed=js.motor_velocity, max_motor_torque=js.motor_max_force)
            return world.add_hinge(a, b, anchor, z, lower=lim_a[0], upper=lim_a[1],
                                   **motor, **spring, **common)
        if t == 'PRISMATIC':
            if js.use_motor:
                motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force)
            return world.add_prismatic(a, b, anchor, x, lower=lim_l[0], upper=lim_l[1],
                                       **motor, **spring, **common)
        if t == 'RAGDOLL':
            return world.add_ragdoll(a, b, anchor, **_ragdoll_settings(js, x, y), **common)
        if t == 'MOTOR':
            return world.add_angular_motor(a, b, z, speed=js.motor_velocity,
                                           max_torque=js.motor_max_force,
                                           ratio=mechanisms.ratio(js), **common)
        anchor_b = tuple(world.positions[b])
        if t == 'DISTANCE':
            return world.add_distance(a, b, anchor, anchor_b, min_length=lim_l[0] if js.use_limit_lin else None,
                                      max_length=lim_l[1] if js.use_limit_lin else None,
                                      **spring, **common)
        if t == 'ROPE':
            length = js.rope_length or float(np.linalg.norm(np.subtract(anchor_b, anchor)))
            return world.add_rope(a, b, anchor, anchor_b, length, **common)
    except (ValueError, TypeError) as exc:
        raise SceneError(f"Joint '{empty.name}': {exc}") from None
    raise SceneError(f"Joint '{empty.name}': unknown type {t}")
