"""Properties > Physics on a mesh: the Ligament Body panel and its subpanels."""

import bpy

from ...runtime import cache
from ...scene.animation import has_transform_animation
from ...scene.objects import is_compound_part
from ...scene.shapes import compound_parts
from ..operators.bodies import GEOMETRY_TYPES
from .common import PhysicsButtonsPanel

class PHYSICS_PT_ligament_body(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Ligament Body"

    @classmethod
    def poll(cls, context):
        obj = context.object
        # an empty can be a Compound body, its children the parts
        return obj is not None and (obj.type in GEOMETRY_TYPES or
                                    (obj.type == 'EMPTY' and not obj.ligament_joint.enabled))

    def draw_header(self, context):
        self.layout.prop(context.object.ligament_body, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        layout.prop(s, "kind")
        layout.prop(s, "shape")
        obj = context.object
        if s.shape == 'COMPOUND':
            layout.label(text=f"{len(compound_parts(obj))} parts: its child objects",
                         icon='OUTLINER_OB_GROUP_INSTANCE')
        if obj.type == 'MESH':
            layout.operator("ligament.split_convex_parts", icon='MOD_EXPLODE')
        if is_compound_part(obj):
            layout.label(text=f"A part of the Compound body '{obj.parent.name}'",
                         icon='LINKED')
        if s.baked:
            layout.label(text="Baked: playing back keyframes", icon='KEYINGSET')
        elif s.enabled and has_transform_animation(context.object):
            start = context.scene.ligament_world.frame_start
            if s.kind == 'DYNAMIC':
                layout.label(text=f"Keys set its pose at frame {start}; simulated after it",
                             icon='KEYINGSET')
                layout.label(text="Type Animated follows the keys instead", icon='BLANK1')
            elif s.kind == 'ANIMATED':
                layout.label(text="Follows its keys; pushes dynamic bodies", icon='KEYINGSET')


class PHYSICS_PT_ligament_body_settings(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Settings"
    bl_parent_id = "PHYSICS_PT_ligament_body"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        col = layout.column()
        col.active = s.enabled and (s.kind == 'DYNAMIC' or
                                    (s.kind == 'ANIMATED' and s.hit_impulse > 0.0))
        col.prop(s, "mass")
        layout.prop(s, "collision_group")


class PHYSICS_PT_ligament_body_surface(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Surface Response"
    bl_parent_id = "PHYSICS_PT_ligament_body"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        layout.operator_menu_enum("ligament.material_preset", "material", icon='PRESET')
        layout.prop(s, "friction")
        layout.prop(s, "restitution")


class PHYSICS_PT_ligament_body_dynamics(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Dynamics"
    bl_parent_id = "PHYSICS_PT_ligament_body"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled and s.kind == 'DYNAMIC'
        col = layout.column(heading="Damping")
        col.prop(s, "linear_damping", text="Translation")
        col.prop(s, "angular_damping", text="Rotation")


class PHYSICS_PT_ligament_body_hit(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Hit Reaction"
    bl_parent_id = "PHYSICS_PT_ligament_body"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.ligament_body.kind == 'ANIMATED'

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        layout.prop(s, "hit_impulse")
        col = layout.column()
        col.active = s.hit_impulse > 0.0
        col.prop(s, "blend_back")
        frames = cache.hit_frames(context.scene, context.object.name)
        if frames:
            shown = ", ".join(str(f) for f in frames[:8]) + (" ..." if len(frames) > 8 else "")
            layout.label(text=f"Hit at frame {shown}", icon='FORCE_FORCE')
        elif frames is not None:
            layout.label(text="Not hit in the simulated frames", icon='BLANK1')


classes = (
    PHYSICS_PT_ligament_body,
    PHYSICS_PT_ligament_body_settings,
    PHYSICS_PT_ligament_body_hit,
    PHYSICS_PT_ligament_body_surface,
    PHYSICS_PT_ligament_body_dynamics,
)
