"""Create joint empties between bodies: one pair (`add_joint`) or a chain (`connect`)."""

import bpy
from bpy.props import EnumProperty
from mathutils import Matrix, Vector

from .. import cache
from ..properties import JOINT_TYPES

COLLECTION = "Ligament Joints"

PIVOTS = (
    ('CENTER', "Center", "Pivot halfway between the two objects"),
    ('ACTIVE', "Active", "Pivot at the active object (B)"),
    ('SELECTED', "Selected", "Pivot at the other selected object (A)"),
)

DISPLAY = {'BALL': 'SPHERE', 'FIXED': 'CUBE', 'DISTANCE': 'PLAIN_AXES', 'ROPE': 'PLAIN_AXES'}


def joint_collection(scene):
    coll = bpy.data.collections.get(COLLECTION)
    if coll is None:
        coll = bpy.data.collections.new(COLLECTION)
    if coll.name not in scene.collection.children and not any(
            coll.name in c.children for c in scene.collection.children_recursive):
        scene.collection.children.link(coll)
    return coll


def create_joint(scene, a, b, joint_type, pivot):
    """A joint empty between bodies `a` and `b` (B is the active one)."""
    pa, pb = a.matrix_world.translation, b.matrix_world.translation
    location = {'CENTER': (pa + pb) / 2, 'ACTIVE': pb.copy(), 'SELECTED': pa.copy()}[pivot]
    empty = bpy.data.objects.new(f"{joint_type.title()} {a.name}-{b.name}", None)
    empty.empty_display_type = DISPLAY.get(joint_type, 'ARROWS')
    size = min(max(a.dimensions), max(b.dimensions)) * 0.35
    empty.empty_display_size = max(size, 0.05)
    rot = Matrix.Identity(3)
    if joint_type == 'RAGDOLL' and (pb - pa).length > 1e-6:
        # Ragdoll twist runs along the empty's local Y: point it from A to B, like a bone.
        rot = (pb - pa).normalized().to_track_quat('Y', 'Z').to_matrix()
    empty.matrix_world = Matrix.Translation(location) @ rot.to_4x4()
    joint_collection(scene).objects.link(empty)
    js = empty.ligament_joint
    js.type = joint_type
    js.object_a = a
    js.object_b = b
    js.enabled = True
    return empty


def _check_bodies(op, objs):
    for o in objs:
        if not o.ligament_body.enabled:
            op.report({'ERROR'}, f"Object '{o.name}' is not a Ligament body; select it and use "
                                 "Ligament > Add Body first")
            return False
    return True


class LIGAMENT_OT_add_joint(bpy.types.Operator):
    """Join the two selected bodies with a joint empty (the active object is B)"""
    bl_idname = "ligament.add_joint"
    bl_label = "Add Joint"
    bl_options = {'REGISTER', 'UNDO'}

    type: EnumProperty(name="Type", items=JOINT_TYPES, default='HINGE')
    pivot: EnumProperty(name="Pivot", items=PIVOTS, default='CENTER')

    @classmethod
    def poll(cls, context):
        sel = context.selected_objects
        if len(sel) != 2 or context.active_object not in sel:
            cls.poll_message_set("Select two bodies; the active one becomes object B")
            return False
        return True

    def execute(self, context):
        b = context.active_object
        a = next(o for o in context.selected_objects if o != b)
        if not _check_bodies(self, (a, b)):
            return {'CANCELLED'}
        empty = create_joint(context.scene, a, b, self.type, self.pivot)
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Added joint '{empty.name}'")
        return {'FINISHED'}


class LIGAMENT_OT_connect(bpy.types.Operator):
    """Connect the selected bodies with joints, chained in order of distance from the active
    one or all to the active one"""
    bl_idname = "ligament.connect"
    bl_label = "Connect"
    bl_options = {'REGISTER', 'UNDO'}

    type: EnumProperty(name="Type", items=JOINT_TYPES, default='BALL')
    pivot: EnumProperty(name="Pivot", items=PIVOTS, default='CENTER')
    connection_pattern: EnumProperty(
        name="Connection Pattern",
        items=(('CHAIN_DISTANCE', "Chain by Distance", "Connect each object to its nearest "
                                                        "neighbour, starting at the active one"),
               ('SELECTED_TO_ACTIVE', "Selected to Active", "Connect every object to the "
                                                             "active one")),
        default='CHAIN_DISTANCE')

    @classmethod
    def poll(cls, context):
        if len(context.selected_objects) < 2 or context.active_object is None:
            cls.poll_message_set("Select two or more bodies and make one active")
            return False
        return True

    def execute(self, context):
        active = context.active_object
        others = [o for o in context.selected_objects if o != active]
        if not _check_bodies(self, [active, *others]):
            return {'CANCELLED'}
        pairs = []
        if self.connection_pattern == 'SELECTED_TO_ACTIVE':
            pairs = [(o, active) for o in others]
        else:
            chain = [active]
            while others:
                last = chain[-1].matrix_world.translation
                others.sort(key=lambda o: (o.matrix_world.translation - last).length)
                chain.append(others.pop(0))
            pairs = list(zip(chain[:-1], chain[1:]))
        for a, b in pairs:
            create_joint(context.scene, a, b, self.type, self.pivot)
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Added {len(pairs)} joints")
        return {'FINISHED'}


classes = (LIGAMENT_OT_add_joint, LIGAMENT_OT_connect)
register, unregister = bpy.utils.register_classes_factory(classes)
