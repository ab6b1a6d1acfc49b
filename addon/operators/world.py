"""Cache operators."""

import bpy

from .. import cache


class LIGAMENT_OT_reset(bpy.types.Operator):
    """Drop the simulation cache; the next frame change simulates again from the start frame"""
    bl_idname = "ligament.reset"
    bl_label = "Reset Cache"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        scene = context.scene
        cache.invalidate(scene)
        if scene.frame_current <= scene.ligament_world.frame_start:
            cache.restore_rest(scene)
        scene.frame_set(scene.frame_current)
        return {'FINISHED'}


classes = (LIGAMENT_OT_reset,)
register, unregister = bpy.utils.register_classes_factory(classes)
