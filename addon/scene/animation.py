"""Animation at any frame: an object's (or pose bone's) own channels and its world matrix, from
its action's F-curves, so the cache can simulate frames the depsgraph has not evaluated (a jump
ahead, a bake, a render of frame 80 from frame 1); what only the depsgraph knows (NLA strips,
drivers, constraints, delta transforms, bone and vertex parents) from the depsgraph evaluated
at the frame (`evaluated_at`, once a frame for every object that needs it); and the
conversions between rotation modes."""

import math

from mathutils import Euler, Matrix, Quaternion, Vector

from ..blender_version import SLOTTED_ACTIONS
from .errors import SceneError
from .frames import depsgraph_at


TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
                   "scale")


EULER_MODES = {'XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'}

# An Axis Angle object moved off its keys by the simulation (a hit body, world/hits.py): Blender
# has no delta rotation for Axis Angle in its API, so the simulation writes the rotation itself
# and mutes the rotation's F-curves meanwhile (`hold_axis_angle`, `release_axis_angle`). The
# object keeps its own values and which curves were muted for it in these properties.
OWN_AXIS_ANGLE = "ligament_own_axis_angle"
MUTED_FOR_SIM = "ligament_muted_for_sim"


def _slot_fcurves(obj):
    """Every F-curve of the object's assigned action (its slot), muted or not."""
    ad = obj.animation_data
    if ad is None or ad.action is None:
        return ()
    action = ad.action
    if SLOTTED_ACTIONS:
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(action, ad.action_slot)
        return bag.fcurves if bag is not None else ()
    return action.fcurves   # Blender 4.2/4.3


def action_fcurves(obj):
    """{(data_path, index): FCurve} of the object's assigned action (its slot), unmuted (a
    curve the simulation muted is the user's: it counts as it was, `hold_axis_angle`)."""
    fcurves = _slot_fcurves(obj)
    if not fcurves:
        return {}
    held = obj.get(MUTED_FOR_SIM)
    held = () if held is None else tuple(held)
    return {(fc.data_path, fc.array_index): fc for fc in fcurves
            if not fc.mute or (fc.array_index in held and fc.data_path == "rotation_axis_angle")}


def hold_axis_angle(obj, values):
    """Show the Axis Angle rotation `values` on `obj` in place of its own (its keys or its
    still value): its own values are kept aside and its unmuted rotation F-curves muted, once,
    until `release_axis_angle`."""
    if OWN_AXIS_ANGLE not in obj:
        obj[OWN_AXIS_ANGLE] = tuple(obj.rotation_axis_angle)
        muted = []
        for fc in _slot_fcurves(obj):
            if fc.data_path == "rotation_axis_angle" and not fc.mute:
                fc.mute = True
                muted.append(fc.array_index)
        obj[MUTED_FOR_SIM] = muted
    obj.rotation_axis_angle = values


def release_axis_angle(obj):
    """The object's own Axis Angle rotation back: its curves unmuted, its values restored."""
    if OWN_AXIS_ANGLE not in obj:
        return
    held = set(obj.get(MUTED_FOR_SIM, ()))
    for fc in _slot_fcurves(obj):
        if fc.data_path == "rotation_axis_angle" and fc.array_index in held:
            fc.mute = False
    obj.rotation_axis_angle = tuple(obj[OWN_AXIS_ANGLE])
    del obj[OWN_AXIS_ANGLE]
    if MUTED_FOR_SIM in obj:
        del obj[MUTED_FOR_SIM]


def release_all_axis_angles(objects):
    """Every Axis Angle rotation `hold_axis_angle` shows among `objects` released (the user's
    curves unmuted, values back): {object: the rotation shown}, for `hold_all_axis_angles` to
    show it again. A file is saved this way, so one opened without the add-on (or before the
    next frame change) holds the user's animation as keyed, not muted."""
    shown = {}
    for obj in objects:
        if obj.library is None and OWN_AXIS_ANGLE in obj:
            shown[obj] = tuple(obj.rotation_axis_angle)
            release_axis_angle(obj)
    return shown


def hold_all_axis_angles(shown):
    """Show again what `release_all_axis_angles` released."""
    for obj, values in shown.items():
        hold_axis_angle(obj, values)


def axis_angle_played_elsewhere(obj):
    """An Axis Angle object whose rotation NLA strips or drivers play: they would write over
    a rotation `hold_axis_angle` shows."""
    ad = obj.animation_data
    if obj.rotation_mode != 'AXIS_ANGLE' or ad is None:
        return False
    return (ad.use_nla and any(not t.mute and len(t.strips) for t in ad.nla_tracks)) or \
        any(d.data_path == "rotation_axis_angle" and not d.mute for d in ad.drivers)


def own_rotation_values(obj):
    """`rotation_values`, for an Axis Angle object the simulation holds its own values aside."""
    if obj.rotation_mode == 'AXIS_ANGLE':
        own = obj.get(OWN_AXIS_ANGLE)
        if own is not None:
            return tuple(own)
    return rotation_values(obj)


def strip_fcurves(strip):
    """The F-curves an NLA strip plays (its action's, for its slot)."""
    action = strip.action
    if action is None:
        return ()
    if SLOTTED_ACTIONS:
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(action, strip.action_slot)
        return tuple(bag.fcurves) if bag is not None else ()
    return tuple(action.fcurves)


def transform_fcurves(obj):
    """{(data_path, index): FCurve} of the object's assigned action, transforms only."""
    return {key: fc for key, fc in action_fcurves(obj).items() if key[0] in TRANSFORM_PATHS}


def has_transform_animation(obj):
    return bool(transform_fcurves(obj))


# the paths whose drivers move an object
_MOVING_PATHS = TRANSFORM_PATHS + ("delta_location", "delta_rotation_euler",
                                   "delta_rotation_quaternion", "delta_scale")


def moved_by_depsgraph(obj):
    """Whether Blender moves `obj` by more than its action's F-curves and an Object parent
    (which `matrix_world_at` evaluates itself): an NLA strip, a driver on its transform, a
    constraint, a parent of another type (a bone, a vertex)."""
    ad = obj.animation_data
    if ad is not None:
        if ad.use_nla and any(not t.mute and len(t.strips) for t in ad.nla_tracks):
            return True
        if any(d.data_path in _MOVING_PATHS and not d.mute for d in ad.drivers):
            return True
    if any(not c.mute and c.influence > 0.0 for c in obj.constraints):
        return True
    return obj.parent is not None and obj.parent_type != 'OBJECT'


def played_beyond_action(obj):
    """Whether more than `obj`'s active action animates it (NLA strips, drivers): then its
    animated values are the ones Blender shows after evaluating the frame, not its F-curves'."""
    ad = obj.animation_data
    if ad is None:
        return False
    return (ad.use_nla and any(not t.mute and len(t.strips) for t in ad.nla_tracks)) or \
        any(not d.mute for d in ad.drivers)


def has_delta(obj):
    """Whether `obj` has a delta transform of its own (not one the simulation wrote)."""
    if obj.ligament_body.sim_delta:
        return False
    return Vector(obj.delta_location).length > 1e-9 or \
        Vector(obj.delta_rotation_euler).length > 1e-9 or \
        Quaternion(obj.delta_rotation_quaternion).rotation_difference(Quaternion()).angle \
        > 1e-9 or (Vector(obj.delta_scale) - Vector((1.0, 1.0, 1.0))).length > 1e-9


def needs_depsgraph(obj):
    """Whether only the depsgraph gives `obj`'s world matrix (`matrix_world_at` does not
    compose deltas, constraints, drivers or NLA strips), or an armature's pose (its bones
    played by NLA strips or drivers)."""
    return moved_by_depsgraph(obj) or has_delta(obj) or \
        (obj.type == 'ARMATURE' and played_beyond_action(obj))


def is_moving(obj):
    """Whether `obj`'s world transform can change from frame to frame: its transform keys,
    what only the depsgraph moves (`moved_by_depsgraph`), or a moving parent."""
    while obj is not None:
        if has_transform_animation(obj) or moved_by_depsgraph(obj):
            return True
        obj = obj.parent
    return False


def delta_matrix(obj, loc, rot, scale):
    """The object's matrix_basis for channels (`loc`, quaternion `rot`, `scale`) with its
    delta transform, as Blender composes it (BKE_object_to_mat4: location + delta location,
    delta rotation @ rotation, scale * delta scale)."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        drot = Quaternion(obj.delta_rotation_quaternion).normalized()
    elif mode == 'AXIS_ANGLE':   # Blender has no delta axis-angle in its API: none
        drot = Quaternion()
    else:
        drot = Euler(obj.delta_rotation_euler, mode).to_quaternion()
    s = Vector(scale)
    ds = Vector(obj.delta_scale)
    return compose(Vector(loc) + Vector(obj.delta_location), drot @ Quaternion(rot),
                   Vector((s.x * ds.x, s.y * ds.y, s.z * ds.z)))


def without_delta(obj, loc, rot):
    """The channels (location, quaternion) that give matrix_basis (`loc`, `rot`) through the
    object's delta transform: the inverse of `delta_matrix`'s location and rotation."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        drot = Quaternion(obj.delta_rotation_quaternion).normalized()
    elif mode == 'AXIS_ANGLE':
        drot = Quaternion()
    else:
        drot = Euler(obj.delta_rotation_euler, mode).to_quaternion()
    return Vector(loc) - Vector(obj.delta_location), drot.inverted() @ Quaternion(rot)


def evaluated_at(scene, frame, objs):
    """{name: world matrix} of `objs` at `frame` as Blender shows them there: the scene's
    depsgraph evaluated once at `frame` (`depsgraph_at`; whoever simulates puts the frame
    back). A delta transform the simulation wrote (a hit body off its keys) is left out:
    what is read is the animation."""
    if not objs:
        return {}
    depsgraph = depsgraph_at(scene, frame)
    out = {}
    for o in objs:
        ev = o.evaluated_get(depsgraph)
        m = ev.matrix_world.copy()
        if o.ligament_body.sim_delta:
            rot = current_rotation(ev) if o.rotation_mode != 'AXIS_ANGLE' else \
                basis_at(o, frame)[1]   # its rotation curves are muted meanwhile
            own = compose(ev.location, rot, ev.scale)
            m = m @ ev.matrix_basis.inverted_safe() @ own
        out[o.name] = m
    return out


def rotation_values(obj):
    """The rotation of an object (or pose bone) in its own rotation mode, as 4 floats."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        return tuple(obj.rotation_quaternion)
    if mode == 'AXIS_ANGLE':
        return tuple(obj.rotation_axis_angle)
    return (*obj.rotation_euler, 0.0)


def rotation_to_quaternion(mode, values):
    if mode == 'QUATERNION':
        return Quaternion(values[:4]).normalized()
    if mode == 'AXIS_ANGLE':
        axis = Vector(values[1:4])
        if axis.length < 1e-12:
            return Quaternion()
        return Quaternion(axis.normalized(), values[0])
    return Euler(values[:3], mode).to_quaternion()


def current_rotation(obj):
    """The object's (or pose bone's) rotation now as a quaternion: `rotation_to_quaternion`
    of its `rotation_values`, read without the lists."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        return obj.rotation_quaternion.normalized()
    if mode == 'AXIS_ANGLE':
        return rotation_to_quaternion(mode, tuple(obj.rotation_axis_angle))
    return Euler(obj.rotation_euler, mode).to_quaternion()


def quaternion_to_rotation(mode, q, previous=None):
    """`q` in `mode` as 4 floats; continuous with `previous` (same mode) when given."""
    if mode == 'QUATERNION':
        if previous is not None and q.dot(Quaternion(previous)) < 0.0:
            q = -q
        return tuple(q)
    if mode == 'AXIS_ANGLE':
        # the angle from the vector part: 2 acos(w) (Quaternion.to_axis_angle, in float32)
        # loses small angles to w's rounding near 1 (0.001 rad comes out 7 % off)
        w, x, y, z = (float(c) for c in q)
        n = math.sqrt(x * x + y * y + z * z)
        if n < 1e-30:
            return (0.0, 0.0, 1.0, 0.0)    # Blender's own axis for no rotation
        return (2.0 * math.atan2(n, w), x / n, y / n, z / n)   # 0..2 pi, as Blender's
    if previous is not None:
        e = q.to_euler(mode, Euler(previous[:3], mode))
    else:
        e = q.to_euler(mode)
    return (*e, 0.0)


def basis_at(obj, frame, fcurves=None):
    """(location, rotation quaternion, scale) of the object's own channels at `frame`; a
    pose bone works too, given its fcurves keyed by the short path ("location", index)."""
    fcurves = transform_fcurves(obj) if fcurves is None else fcurves
    mode = obj.rotation_mode
    if not fcurves:   # its channels as they are (read directly: a crowd has thousands)
        q = current_rotation(obj) if mode != 'AXIS_ANGLE' else \
            rotation_to_quaternion(mode, own_rotation_values(obj))
        return Vector(obj.location), q, Vector(obj.scale)
    loc = list(obj.location)
    scale = list(obj.scale)
    rot = list(own_rotation_values(obj))
    rot_path = {'QUATERNION': "rotation_quaternion", 'AXIS_ANGLE': "rotation_axis_angle"}.get(
        mode, "rotation_euler")
    for (path, index), fc in fcurves.items():
        value = fc.evaluate(frame)
        if path == "location":
            loc[index] = value
        elif path == "scale":
            scale[index] = value
        elif path == rot_path:
            rot[index] = value
    return Vector(loc), rotation_to_quaternion(mode, rot), Vector(scale)


def compose(loc, quat, scale):
    return Matrix.LocRotScale(Vector(loc), Quaternion(quat), Vector(scale))


def matrix_world_at(obj, frame, known):
    """World matrix of `obj` at `frame`. `known` maps object names to world matrices already
    known for this frame (simulated bodies, rest poses), and is filled as a memo."""
    m = known.get(obj.name)
    if m is not None:
        return m
    loc, rot, scale = basis_at(obj, frame)
    local = compose(loc, rot, scale)
    if obj.parent is not None:
        parent = matrix_world_at(obj.parent, frame, known)
        m = parent @ parent_link(obj) @ local
    else:
        m = local
    known[obj.name] = m
    return m


def parent_link(obj):
    if obj.parent_type in {'OBJECT'}:
        return obj.matrix_parent_inverse
    raise SceneError(f"Object '{obj.name}': parent type {obj.parent_type} is not supported; "
                     "parent it to an object (Ctrl P > Object) or clear the parent")
