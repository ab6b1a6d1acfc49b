"""Pins: an empty whose `ligament_joint.type` is 'PIN' pulls its body's point (Object B's
`pin_offset`, in the body's local space) to where the empty is, every frame
(`World.add_pin`, `set_pin_target`). The empty is read as any object the simulation follows
(`matrix_world_at`: moved, parented, keyed); its keyed `ligament_joint.enabled` switches the
pin on and off frame by frame."""

from mathutils import Vector

from ..scene.animation import matrix_world_at
from ..scene.errors import SceneError
from ..scene.objects import enabled_fcurve
from .joint_settings import joint_object


def add_pin(world, empty, ids, start, known):
    """The pin of `empty` added to `world` at the start frame; returns its joint id. The
    body's point is where `pin_offset` puts it on the body at the start; the target starts
    where the empty is (a pin away from its point pulls the body there over the first
    frame)."""
    js = empty.ligament_joint
    b = joint_object(empty, "b", ids)
    body = js.object_b
    point = matrix_world_at(body, start, known) @ Vector(js.pin_offset)
    m = matrix_world_at(empty, start, known)
    try:
        j = world.add_pin(b, tuple(point), orientation=target_rotation(m) if js.pin_orientation
                          else None, hertz=js.pin_hertz, damping_ratio=js.pin_damping_ratio,
                          max_force=js.pin_max_force, max_torque=js.pin_max_torque)
        world.set_pin_target(j, tuple(m.translation))
    except ValueError as exc:
        raise SceneError(f"Pin '{empty.name}': {exc}") from None
    return j


def target_rotation(m):
    """The rotation of a world matrix (its scale taken out), as (w, x, y, z)."""
    return tuple(m.to_3x3().normalized().to_quaternion())


def is_on(empty, frame):
    """Whether the pin acts in the step that ends at `frame`: its keyed switch there, or
    the switch as it is when not keyed."""
    fc = enabled_fcurve(empty)
    if fc is None:
        return empty.ligament_joint.enabled
    return fc.evaluate(frame) >= 0.5


class Pins:
    """The scene's pins, sent their target and switch before each step."""

    def __init__(self, objects, joints):
        """`objects`: the scene's objects by name, a dict (`scene.objects[name]` walks the
        scene's objects: over a crowd's joints, quadratic)."""
        self.pins = [(j, objects[name]) for name, j in joints
                     if objects[name].ligament_joint.type == 'PIN']

    def __bool__(self):
        return bool(self.pins)

    def before_step(self, world, frame, known):
        for j, empty in self.pins:
            m = matrix_world_at(empty, frame, known)
            orient = target_rotation(m) if empty.ligament_joint.pin_orientation else None
            world.set_pin_target(j, tuple(m.translation), orient)
            world.set_pin(j, enabled=is_on(empty, frame))
