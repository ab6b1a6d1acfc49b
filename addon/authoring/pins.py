"""Pin empties: made on a body (Add Pin) or where a drag grabs one (authoring/drag.py). A Pin
is an Empty whose `ligament_joint.type` is 'PIN' and whose Object B is the body; the body's
point `pin_offset` (in its local space) is pulled to wherever the empty is (world/pins.py)."""

import bpy
from mathutils import Matrix, Vector

from ..scene import ragdolls

COLLECTION = "Ligament Joints"


def pin_collection(scene):
    """The collection pins and joints are made in ("Ligament Joints"), linked to the
    scene."""
    coll = bpy.data.collections.get(COLLECTION)
    if coll is None:
        coll = bpy.data.collections.new(COLLECTION)
    if coll.name not in scene.collection.children and not any(
            coll.name in c.children for c in scene.collection.children_recursive):
        scene.collection.children.link(coll)
    return coll


def body_centre(obj):
    """The world centre of the body's bounding box (its centre of mass for the symmetric
    shapes)."""
    corners = [Vector(c) for c in obj.bound_box]
    return obj.matrix_world @ (sum(corners, Vector()) / 8.0)


def bone_bodies(arm):
    """{bone name: the ragdoll body that moves it} of a ragdolled armature."""
    targets, bodies = ragdolls.members_by_role(arm, ('TARGET', 'BODY'))
    by_part = {b.ligament_ragdoll_part.part: b for b in bodies}
    return {t.ligament_ragdoll_part.bone: by_part[t.ligament_ragdoll_part.part]
            for t in targets if t.ligament_ragdoll_part.part in by_part}


def create_pin(scene, body, point=None, hertz=0.0, damping_ratio=1.0, max_force=0.0,
               orientation=False, name=None):
    """A Pin empty at `point` (world; default the body's centre), turned as the body is,
    pulling the body's point there."""
    point = body_centre(body) if point is None else Vector(point)
    _, rot, _ = body.matrix_world.decompose()
    empty = bpy.data.objects.new(name or f"Pin {body.name}", None)
    empty.empty_display_type = 'SPHERE'
    empty.empty_display_size = max(min(body.dimensions) * 0.6, 0.05)
    empty.matrix_world = Matrix.Translation(point) @ rot.to_matrix().to_4x4()
    pin_collection(scene).objects.link(empty)
    js = empty.ligament_joint
    js.type = 'PIN'
    js.object_b = body
    js.pin_offset = body.matrix_world.inverted_safe() @ point
    js.pin_hertz, js.pin_damping_ratio, js.pin_max_force = hertz, damping_ratio, max_force
    js.pin_orientation = orientation
    js.enabled = True
    return empty
