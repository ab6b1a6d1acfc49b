"""Cache operators."""

import bpy
from bpy.props import EnumProperty

from .. import cache, presets


def _quality_items(self, context):
    _quality_items.cache = presets.enum_items(  # Blender needs the strings kept alive
        presets.quality_levels, lambda level: f"{level.get('description', '')} ("
        f"{level['substeps']} substeps, {level['iterations']} iterations)")
    return _quality_items.cache


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


class LIGAMENT_OT_quality_preset(bpy.types.Operator):
    """Set the solver substeps and iterations from a quality level (presets/quality.toml)"""
    bl_idname = "ligament.quality_preset"
    bl_label = "Quality Preset"
    bl_options = {'REGISTER', 'UNDO'}

    level: EnumProperty(name="Quality", items=_quality_items)

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        try:
            level = presets.quality_levels()[self.level]
        except (OSError, ValueError, KeyError) as exc:
            self.report({'ERROR'}, f"Quality preset '{self.level}': {exc}")
            return {'CANCELLED'}
        ws = context.scene.ligament_world
        ws.substeps = level["substeps"]
        ws.iterations = level["iterations"]
        return {'FINISHED'}


classes = (LIGAMENT_OT_reset, LIGAMENT_OT_quality_preset)
register, unregister = bpy.utils.register_classes_factory(classes)
