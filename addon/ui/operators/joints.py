"""Create joint empties between bodies: one pair (`add_joint`) or a chain (`connect`)."""

from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.props import EnumProperty
from mathutils import Matrix, Vector

from ...authoring.pins import pin_collection as joint_collection
from ...world import mechanisms
from ...runtime import cache
from ...scene.shapes import local_vertices
from ..properties import JOINT_TYPES

if TYPE_CHECKING:      # the stubs' name of Object.empty_display_type's items
    from bpy.stub_internal.rna_enums import ObjectEmptyDrawtypeItems


PIVOTS = (
    ('CENTER', "Center", "Pivot halfway between the two objects"),
    ('ACTIVE', "Active", "Pivot at the active object (B)"),
    ('SELECTED', "Selected", "Pivot at the other selected object (A)"),
)

DISPLAY: "dict[str, ObjectEmptyDrawtypeItems]" = {
    'BALL': 'SPHERE', 'FIXED': 'CUBE', 'DISTANCE': 'PLAIN_AXES', 'ROPE': 'PLAIN_AXES',
    'GEAR': 'PLAIN_AXES', 'RACK_AND_PINION': 'PLAIN_AXES', 'PULLEY': 'PLAIN_AXES',
    'PATH': 'SPHERE', 'CUSTOM': 'PLAIN_AXES'}
# What Add Joint wants selected for the types that do not join two bodies (A, then active B).
SELECTION = {'GEAR': "Select two hinge joint empties; the active one becomes Hinge B",
             'RACK_AND_PINION': "Select a hinge empty (the pinion) and a slider empty (the rack)",
             'PATH': "Select a Curve object and a body"}
# The types Add Joint makes (a Pin is made by Add Pin, on one body)
PAIR_TYPES = tuple(t for t in JOINT_TYPES if t[0] != 'PIN')
# Connect chains bodies pairwise: the types that join two bodies at a pivot.
CHAIN_TYPES = tuple(t for t in PAIR_TYPES if t[0] not in {'PULLEY', 'PATH', *SELECTION})


def create_joint(scene, a, b, joint_type, pivot):
    """A joint empty between bodies `a` and `b` (B is the active one); for a gear or a rack
    and pinion `a` and `b` are the joint empties it couples, for a path the curve and the
    body."""
    pa, pb = a.matrix_world.translation, b.matrix_world.translation
    location = {'CENTER': (pa + pb) / 2, 'ACTIVE': pb.copy(), 'SELECTED': pa.copy()}[pivot]
    if joint_type in {'WHEEL', 'PATH'}:
        location = pb.copy()          # the wheel's centre; the bead's point
    empty = bpy.data.objects.new(f"{joint_type.title()} {a.name}-{b.name}", None)
    empty.empty_display_type = DISPLAY.get(joint_type, 'ARROWS')
    size = min(max(a.dimensions), max(b.dimensions)) * 0.35
    empty.empty_display_size = max(size, 0.05)
    rot = Matrix.Identity(3)
    if joint_type == 'RAGDOLL' and (pb - pa).length > 1e-6:
        # Ragdoll twist runs along the empty's local Y: point it from A to B, like a bone.
        rot = (pb - pa).normalized().to_track_quat('Y', 'Z').to_matrix()
    if joint_type == 'WHEEL':
        rot = _wheel_frame(b)
    empty.matrix_world = Matrix.Translation(location) @ rot.to_4x4()
    coll = joint_collection(scene)
    coll.objects.link(empty)
    js = empty.ligament_joint
    js.type = joint_type
    if joint_type in mechanisms.COUPLINGS:
        js.joint_a, js.joint_b = a, b
    elif joint_type == 'PATH':
        js.curve, js.object_b = a, b
    else:
        js.object_a, js.object_b = a, b
    if joint_type == 'PULLEY':
        # Two points to hang the rope from, above the bodies (move them where the pulley is).
        top = max(pa.z + a.dimensions.z, pb.z + b.dimensions.z) + 1.0
        for which, p in (("a", pa), ("b", pb)):
            fixed = bpy.data.objects.new(f"{empty.name} Fixed {which.upper()}", None)
            fixed.empty_display_type = 'SPHERE'
            fixed.empty_display_size = 0.1
            fixed.location = (p.x, p.y, top)
            coll.objects.link(fixed)
            setattr(js, "fixed_" + which, fixed)
    if joint_type == 'WHEEL':
        radius = max(b.dimensions) / 2
        js.use_spring, js.spring_damping = True, 0.7
        js.use_limit_lin, js.limit_lin_lower, js.limit_lin_upper = True, -radius / 2, radius / 2
    js.enabled = True
    return empty


def _wheel_frame(wheel):
    """Axle (local Z) along the wheel's thinnest axis, suspension (local Y) as near the world's
    up as it can be."""
    i = min(range(3), key=lambda k: wheel.dimensions[k])
    axle = wheel.matrix_world.col[i].xyz.normalized()
    up = Vector((0, 0, 1)) if abs(axle.z) < 0.9 else Vector((1, 0, 0))
    suspension = (up - axle * up.dot(axle)).normalized()
    return Matrix((suspension.cross(axle), suspension, axle)).transposed()


def _selection_problem(joint_type, a, b):
    """Why the selection (A, active B) cannot take a joint of this type, or None."""
    if joint_type in mechanisms.COUPLINGS:
        want = mechanisms.COUPLINGS[joint_type]
        if not all(o.type == 'EMPTY' and o.ligament_joint.enabled and o.ligament_joint.type == t
                   for o, t in zip((a, b), want)):
            return SELECTION[joint_type]
        return None
    if joint_type == 'PATH':
        return None if a.type == 'CURVE' and b.ligament_body.enabled else SELECTION['PATH']
    for o in (a, b):
        if not o.ligament_body.enabled:
            return (f"Object '{o.name}' is not a Ligament body; select it and use Ligament > "
                    "Add Body first")
    return None


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

    type: EnumProperty(name="Type", items=PAIR_TYPES, default='HINGE')
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
        if self.type == 'RACK_AND_PINION' and a.type == 'EMPTY' and \
                a.ligament_joint.type == 'PRISMATIC':
            a, b = b, a               # the hinge first, whichever is active
        if self.type == 'PATH' and b.type == 'CURVE':
            a, b = b, a
        problem = _selection_problem(self.type, a, b)
        if problem:
            self.report({'ERROR'}, problem)
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

    type: EnumProperty(name="Type", items=CHAIN_TYPES, default='BALL')
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


class LIGAMENT_OT_measure_radii(bpy.types.Operator):
    """Set the ratio from the radii of the turning bodies, measured from their geometry about
    each joint's axis (a gear's hinges, a rack's pinion, a motor's two bodies)"""
    bl_idname = "ligament.measure_radii"
    bl_label = "Measure Radii"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'EMPTY' and \
            obj.ligament_joint.type in {'GEAR', 'RACK_AND_PINION', 'MOTOR'}

    def execute(self, context):
        empty = context.object
        js = empty.ligament_joint
        if js.type == 'MOTOR':       # about the motor's axis through each body's origin
            pairs = [(o, empty, o) for o in (js.object_a, js.object_b)]
        else:                        # about each hinge's axis
            hinges = [js.joint_a] if js.type == 'RACK_AND_PINION' else [js.joint_a, js.joint_b]
            pairs = [(None if h is None else h.ligament_joint.object_b, h, h) for h in hinges]
        depsgraph = context.evaluated_depsgraph_get()
        radii = []
        for body, frame, centre in pairs:
            if body is None or frame is None:
                self.report({'ERROR'}, "Pick the joints and their bodies first")
                return {'CANCELLED'}
            radii.append(turning_radius(body, frame.matrix_world.col[2].xyz,
                                        centre.matrix_world.translation, depsgraph))
        js.radius_a = radii[0]
        if len(radii) > 1:
            js.radius_b = radii[1]
        js.ratio_mode = 'RADII'
        self.report({'INFO'}, "Radii " + ", ".join(f"{r:.4g}" for r in radii))
        return {'FINISHED'}


def turning_radius(body, axis, centre, depsgraph):
    """The largest distance of the body's evaluated geometry from the line through `centre`
    along `axis` (world)."""
    v, _ = local_vertices(body, depsgraph)
    m = np.array(body.matrix_world)
    world = v @ m[:3, :3].T + m[:3, 3]
    axis = np.array(axis.normalized())
    rel = world - np.array(centre)
    return float(np.max(np.linalg.norm(rel - np.outer(rel @ axis, axis), axis=1)))


classes = (LIGAMENT_OT_add_joint, LIGAMENT_OT_connect, LIGAMENT_OT_measure_radii)
register, unregister = bpy.utils.register_classes_factory(classes)
