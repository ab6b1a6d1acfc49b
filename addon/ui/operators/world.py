"""Cache operators."""

import bpy
from bpy.props import EnumProperty

from ... import kernels
from ...authoring import presets
from ...runtime import cache


def _quality_items(self, context):
    """The quality levels of presets/quality.toml."""
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


class LIGAMENT_OT_prepare_solver(bpy.types.Operator):
    """Compile the solver's kernels now, in a background process (needed once per solver
    version where the extension ships none: Windows, macOS). Esc stops it"""
    bl_idname = "ligament.prepare_solver"
    bl_label = "Prepare Solver"

    def invoke(self, context, event):
        if kernels.ready():
            self.report({'INFO'}, "The solver is ready")
            return {'FINISHED'}
        kernels.ensure_started(retry=True)
        self._timer = context.window_manager.event_timer_add(0.5, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def execute(self, context):
        kernels.prepare_blocking(report=lambda line: print(line, flush=True))
        return {'FINISHED'}

    def modal(self, context, event):
        if event.type == 'ESC':
            kernels.stop()
            return self._end(context, {'CANCELLED'}, "Solver preparation stopped")
        if event.type == 'TIMER' and not kernels.running():
            if kernels.ready():
                return self._end(context, {'FINISHED'}, "The solver is ready")
            return self._end(context, {'CANCELLED'}, kernels.status() or "stopped")
        return {'PASS_THROUGH'}

    def _end(self, context, result, message):
        context.window_manager.event_timer_remove(self._timer)
        self.report({'INFO'} if result == {'FINISHED'} else {'WARNING'}, message)
        return result


class LigamentPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__.rpartition(".addon.")[0]   # the extension's package

    def draw(self, context):
        layout = self.layout
        status = kernels.status()
        layout.label(text=status or "Solver ready: its kernels are compiled for this "
                                    "version", icon='TIME' if status else 'CHECKMARK')
        layout.operator("ligament.prepare_solver", icon='PLAY')


classes = (LIGAMENT_OT_reset, LIGAMENT_OT_quality_preset, LIGAMENT_OT_prepare_solver,
           LigamentPreferences)
register, unregister = bpy.utils.register_classes_factory(classes)
