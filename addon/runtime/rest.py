"""Rest poses: the transform each dynamic body starts from at the start frame, kept on the
object (`ligament_body.rest_*`) because the live simulation moves the object itself."""


from ..scene.animation import basis_at, has_transform_animation, quaternion_to_rotation, rotation_to_quaternion, rotation_values


def _close(a, b, tol=1e-6):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def current_values(obj):
    return tuple(obj.location), rotation_values(obj)


def rest_values(scene, obj, start):
    """(location, rotation values, rotation mode) the dynamic body starts from, persisted."""
    s = obj.ligament_body
    mode = obj.rotation_mode
    if has_transform_animation(obj):
        loc, q, _ = basis_at(obj, start)
        values = (tuple(loc), quaternion_to_rotation(mode, q), mode)
    elif s.rest_valid and s.sim_pose:
        # The object shows a simulated pose (written by us, maybe saved in the file).
        values = (tuple(s.rest_location), tuple(s.rest_rotation), s.rest_rotation_mode)
        if values[2] != mode:  # the rotation mode changed since: convert
            q = rotation_to_quaternion(values[2], values[1])
            values = (values[0], quaternion_to_rotation(mode, q), mode)
    else:
        values = (*current_values(obj), mode)
    store_rest(s, values)
    return tuple(s.rest_location), tuple(s.rest_rotation), mode


def store_rest(s, values):
    if not (s.rest_valid and _close(tuple(s.rest_location), values[0], 0.0)
            and _close(tuple(s.rest_rotation), values[1], 0.0)
            and s.rest_rotation_mode == values[2]):
        s.rest_location = values[0]
        s.rest_rotation = values[1]
        s.rest_rotation_mode = values[2]
        s.rest_valid = True
