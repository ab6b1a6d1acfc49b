"""Properties > Bone: a ragdoll bone's own switches, and the bone chain it belongs to."""

import bpy

from ...authoring import chain
from ...authoring import ragdoll


class BONE_PT_ligament_ragdoll(bpy.types.Panel):
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "bone"
    bl_label = "Ligament Ragdoll"

    @classmethod
    def poll(cls, context):
        pb = getattr(context, "active_pose_bone", None)
        return pb is not None and pb.id_data.ligament_ragdoll.enabled and any(
            c.name.startswith(ragdoll.CONSTRAINT) for c in pb.constraints)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        pb = context.active_pose_bone
        arm: bpy.types.Object = pb.id_data
        layout.active = not arm.ligament_ragdoll.baked
        layout.prop(pb, "ligament_simulated")
        layout.prop(pb, "ligament_drive_strength")
        layout.prop(pb, "ligament_contact_override")
        col = layout.column()
        col.active = pb.ligament_contact_override
        col.prop(pb, "ligament_contact_distance")
        col.prop(pb, "ligament_contact_speed")


class BONE_PT_ligament_chain(bpy.types.Panel):
    """The bone chain of the active bone: its settings live on the chain's root bone."""
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "bone"
    bl_label = "Ligament Bone Chain"

    @classmethod
    def poll(cls, context):
        return getattr(context, "active_pose_bone", None) is not None

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        pb = context.active_pose_bone
        arm: bpy.types.Object = pb.id_data
        root = chain.chain_of_bone(arm, pb.name)
        if root is None:
            layout.operator("ligament.add_bone_chain", icon='CON_SPLINEIK')
            return
        root_bone = arm.pose.bones[root]
        settings = root_bone.ligament_chain
        layout.label(text=f"Chain from '{root}'")
        layout.active = not arm.ligament_ragdoll.baked
        layout.prop(settings, "preset")
        # the spring and gravity are the root pose bone's own (a library override keeps them)
        col = layout.column(align=True)
        col.prop(root_bone, "ligament_chain_stiffness")
        col.prop(root_bone, "ligament_chain_damping")
        layout.prop(root_bone, "ligament_chain_gravity_factor")
        layout.prop(settings, "radius")
        col = layout.column(align=True)
        col.prop(settings, "swing_limit")
        col.prop(settings, "twist_limit")
        layout.operator("ligament.remove_bone_chain", icon='X')


classes = (
    BONE_PT_ligament_ragdoll,
    BONE_PT_ligament_chain,
)
