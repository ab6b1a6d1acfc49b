"""Dynamic bone chains: make the selected pose bones (or the active bone and its children) a
chain, remove a chain."""

import bpy
from bpy.props import EnumProperty, FloatProperty

from ...authoring import chain
from ...runtime import cache
from ..properties import CHAIN_PRESETS


def _pose_armature(cls, context):
    arm = context.active_object
    if arm is None or arm.type != 'ARMATURE' or context.mode != 'POSE':
        cls.poll_message_set("Select bones of an armature in Pose Mode")
        return None
    return arm


class LIGAMENT_OT_add_bone_chain(bpy.types.Operator):
    """Make the selected bones (or the active bone and its children) a dynamic chain: each
    bone a capsule sprung toward its rest pose, the chain's root following the animation"""
    bl_idname = "ligament.add_bone_chain"
    bl_label = "Add Bone Chain"
    bl_options = {'REGISTER', 'UNDO'}

    preset: EnumProperty(name="Preset", items=CHAIN_PRESETS[:3], default='HAIR',
                         description="Stiffness, damping, gravity and limits of the chain")
    radius: FloatProperty(name="Radius", default=0.0, min=0.0, soft_max=0.2, unit='LENGTH',
                          description="Collision radius of the capsules (0: from the preset, "
                                      "a fraction of the bones' length)")

    @classmethod
    def poll(cls, context):
        return _pose_armature(cls, context) is not None and \
            context.active_pose_bone is not None

    def execute(self, context):
        arm = context.active_object
        selected = [pb.name for pb in (context.selected_pose_bones or [])
                    if pb.id_data == arm]      # Pose Mode may hold several armatures
        if len(selected) < 2:     # the active bone and everything below it
            bone = context.active_pose_bone.bone
            selected = [bone.name] + [b.name for b in bone.children_recursive]
        try:
            made = chain.create(context.scene, arm, selected, self.preset,
                                self.radius if self.radius > 0 else None)
        except ValueError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        bones = sum(n for _, n in made)
        self.report({'INFO'}, f"Armature '{arm.name}': {len(made)} bone chain"
                              f"{'s' if len(made) != 1 else ''}, {bones} dynamic bones")
        return {'FINISHED'}


class LIGAMENT_OT_remove_bone_chain(bpy.types.Operator):
    """Remove the bone chain the active bone belongs to (its bodies, joints and bone
    constraints)"""
    bl_idname = "ligament.remove_bone_chain"
    bl_label = "Remove Bone Chain"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        arm = _pose_armature(cls, context)
        pb = context.active_pose_bone
        if arm is None or pb is None or chain.chain_of_bone(arm, pb.name) is None:
            cls.poll_message_set("The active bone is in no bone chain")
            return False
        return True

    def execute(self, context):
        arm = context.active_object
        root = chain.chain_of_bone(arm, context.active_pose_bone.name)
        try:
            chain.remove(context.scene, arm, root)
        except ValueError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Removed the bone chain of '{root}'")
        return {'FINISHED'}


classes = (LIGAMENT_OT_add_bone_chain, LIGAMENT_OT_remove_bone_chain)
register, unregister = bpy.utils.register_classes_factory(classes)
