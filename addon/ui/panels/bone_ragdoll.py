"""Properties > Bone: a ragdoll bone's own switches."""

import bpy

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
        layout.active = not pb.id_data.ligament_ragdoll.baked
        layout.prop(pb.ligament_ragdoll, "simulated")
        layout.prop(pb.ligament_ragdoll, "drive_strength")


classes = (
    BONE_PT_ligament_ragdoll,
)
