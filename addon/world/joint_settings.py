"""What every joint reads from its empty: its two bodies (with the errors that say which is
missing), its frame at the start frame, limits, spring, collisions and breaking."""


from ..scene.animation import matrix_world_at
from ..scene.errors import SceneError


def joint_object(empty, which, ids):
    js = empty.ligament_joint
    obj = getattr(js, "object_" + which)
    label = which.upper()
    if obj is None:
        raise SceneError(f"Joint '{empty.name}': object {label} is not set (or was deleted); "
                         f"pick it in Properties > Physics > Ligament Joint, or disable the joint")
    if obj.name not in ids:
        if not obj.ligament_body.enabled:
            raise SceneError(f"Joint '{empty.name}': object {label} '{obj.name}' is not a "
                             f"Ligament body; add one with Ligament > Add Body")
        raise SceneError(f"Joint '{empty.name}': object {label} '{obj.name}' is not in the "
                         f"scene (deleted?); pick another object or disable the joint")
    return ids[obj.name]


def joint_frame(empty, start, known):
    """(matrix, anchor, (x, y, z) axes) of a joint empty at the start frame."""
    m = matrix_world_at(empty, start, known)
    r = m.to_3x3().normalized()
    return m, tuple(m.translation), tuple(tuple(r.col[i]) for i in range(3))


def joint_common(js):
    """The arguments every joint kind takes: collisions between its bodies, breaking."""
    common = dict(collide_connected=not js.disable_collisions)
    if js.breakable:
        common.update(break_force=js.break_threshold, break_torque=js.break_threshold)
    return common


def joint_bodies(empty, ids):
    """Body ids of the joint's objects A and B (SceneError if unset, not bodies, the same)."""
    a = joint_object(empty, "a", ids)
    b = joint_object(empty, "b", ids)
    require_distinct(empty, a, b)
    return a, b


def require_distinct(empty, a, b, hint="pick two different bodies"):
    """SceneError when the joint's objects A and B are one body: a joint holds two."""
    if a == b:
        raise SceneError(f"Joint '{empty.name}': object A and object B are the same object; "
                         f"{hint}")


def angle_limits(js):
    return (js.limit_ang_lower, js.limit_ang_upper) if js.use_limit_ang else (None, None)
