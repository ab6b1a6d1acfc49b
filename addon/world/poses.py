"""Body poses and object transforms: the solver's centre-of-mass pose of a body from its
object's matrix and back, local transforms in the object's rotation mode, and the delta
transform through which a keyed dynamic body is moved."""

import math

from mathutils import Matrix, Quaternion, Vector

from ..scene.animation import axis_angle_played_elsewhere, basis_at, hold_axis_angle, \
    quaternion_to_rotation, release_axis_angle, rotation_to_quaternion, without_delta
from ..scene.errors import SceneError


def shape_pose(body, m):
    """(shape origin, rotation) of `body` for its object's world matrix `m`, as tuples: what
    `World.set_kinematic_target` takes."""
    q = m.to_quaternion()
    return tuple(m.translation + q @ body.offset), tuple(q)


def start_velocity(pose, after, dt):
    """(linear, angular velocity) that take a body from `pose` to `after` (each a (position,
    quaternion) pair, `shape_pose`'s) in `dt`: how an animation moves it over a frame."""
    (p0, q0), (p1, q1) = pose, after
    v = tuple((b - a) / dt for a, b in zip(p0, p1))
    turn = Quaternion(q1) @ Quaternion(q0).inverted()
    axis, angle = turn.to_axis_angle()
    angle = angle - 2 * math.pi if angle > math.pi else angle
    return v, tuple(axis * (angle / dt))


def body_pose(body, position, orientation):
    """(object origin, rotation) in world space for a body pose (centre of mass `position`,
    orientation (w,x,y,z))."""
    q = Quaternion(orientation)
    return Vector(position) - q @ body.offset, q


def local_pose(obj, origin, q, scale, parent_world, previous, delta=False):
    """(location, rotation values in the object's mode) that put `obj` at world `origin`,
    `q`; `previous` (the last frame's rotation values) keeps eulers and quaternions
    continuous. `delta`: the object has a delta transform of its own, which the channels
    written go through."""
    if obj.parent is None:
        loc, rot = origin, q
    else:
        world = Matrix.LocRotScale(origin, q, scale)
        local = (parent_world @ obj.matrix_parent_inverse).inverted_safe() @ world
        loc, rot, _ = local.decompose()
    if delta:
        loc, rot = without_delta(obj, loc, rot)
    return tuple(loc), quaternion_to_rotation(obj.rotation_mode, rot, previous)


def check_delta(obj):
    """Refuse a keyed dynamic body whose delta transform the simulation cannot own."""
    s = obj.ligament_body
    if axis_angle_played_elsewhere(obj) and s.kind == 'DYNAMIC':
        raise SceneError(f"Object '{obj.name}' is a keyed Dynamic body in Axis Angle rotation "
                         "mode whose rotation an NLA strip or a driver plays; Blender has no "
                         "delta rotation for Axis Angle, so the simulated rotation would be "
                         "written over: set its Rotation Mode to Quaternion or an Euler order")
    if s.sim_delta:
        return
    if Vector(obj.delta_location).length > 1e-9 or \
            Quaternion(obj.delta_rotation_quaternion).rotation_difference(Quaternion()).angle \
            > 1e-9 or Vector(obj.delta_rotation_euler).length > 1e-9:
        raise SceneError(f"Object '{obj.name}' is a keyed Dynamic body with a delta transform "
                         "of its own; the simulation moves it through its delta transform "
                         "after the start frame: clear it (Object > Clear > Delta transforms "
                         "in the N panel) or apply it into the keys")


def apply_delta(obj, frame, loc, rot):
    """Make the keyed object show the pose (location, rotation values in its mode) at
    `frame` through its delta transform (an Axis Angle one, which has none Blender lets us
    set, through its rotation with the rotation's curves muted: `hold_axis_angle`)."""
    loc_k, q_k, _ = basis_at(obj, frame)
    obj.delta_location = Vector(loc) - loc_k
    if obj.rotation_mode == 'AXIS_ANGLE':    # no delta rotation: the rotation itself
        hold_axis_angle(obj, rot)
        if not obj.ligament_body.sim_delta:
            obj.ligament_body.sim_delta = True
        return
    q = rotation_to_quaternion(obj.rotation_mode, rot)
    turn = q @ q_k.inverted()
    if obj.rotation_mode == 'QUATERNION':
        obj.delta_rotation_quaternion = turn
    else:
        obj.delta_rotation_euler = turn.to_euler(obj.rotation_mode, obj.delta_rotation_euler)
    if not obj.ligament_body.sim_delta:
        obj.ligament_body.sim_delta = True


def clear_delta(obj):
    """The keys alone again (at and before the start frame, and when the simulation stops)."""
    if not obj.ligament_body.sim_delta:
        return
    obj.delta_location = (0.0, 0.0, 0.0)
    obj.delta_rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    obj.delta_rotation_euler = (0.0, 0.0, 0.0)
    release_axis_angle(obj)
    obj.ligament_body.sim_delta = False


def apply_pose(obj, loc, rot):
    obj.location = loc
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        obj.rotation_quaternion = rot
    elif mode == 'AXIS_ANGLE':
        obj.rotation_axis_angle = rot
    else:
        obj.rotation_euler = rot[:3]
