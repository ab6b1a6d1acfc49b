"""Properties > Scene: the Ligament World panel, next to Blender's Rigid Body World."""

import bpy

from ...scene.objects import world_settings


class SCENE_PT_ligament_world(bpy.types.Panel):
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "scene"
    bl_label = "Ligament World"
    bl_options = {'DEFAULT_CLOSED'}

    def draw_header(self, context):
        self.layout.prop(context.scene.ligament_world, "enabled", text="")

    def draw(self, context):
        draw_world(self.layout, context.scene)


def draw_world(layout, scene):
    layout.use_property_split = True
    ws = scene.ligament_world
    layout.active = ws.enabled
    col = layout.column(align=True)
    col.prop(ws, "frame_start", text="Simulation Start")
    col.prop(ws, "frame_end", text="End")
    col = layout.column(align=True)
    col.operator_menu_enum("ligament.quality_preset", "level", text="Quality Preset",
                           icon='PRESET')
    col.prop(ws, "substeps")
    # an automatic count (0) shows what it comes to
    counts = world_settings(scene)
    col.prop(ws, "jointed_substeps", text="Jointed Substeps" if ws.jointed_substeps else
             f"Jointed (Auto: {counts['jointed_substeps']})")
    col.prop(ws, "calm_substeps", text="Calm Substeps" if ws.calm_substeps else
             f"Calm (Auto: {counts['calm_substeps']})")
    col.prop(ws, "iterations")
    # the solver steps independent islands on Blender's own thread setting (Render >
    # Performance), shown here too
    col = layout.column(align=True)
    col.prop(scene.render, "threads_mode", text="Threads")
    sub = col.row(align=True)
    sub.enabled = scene.render.threads_mode == 'FIXED'
    sub.prop(scene.render, "threads", text="Count")
    # the solver's tolerances follow the scene's length unit (Scene > Units), shown here too
    layout.prop(scene.unit_settings, "scale_length", text="Unit Scale")


class SCENE_PT_ligament_world_field_weights(bpy.types.Panel):
    """Which force fields push the bodies, as the Rigid Body World's Field Weights."""
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "scene"
    bl_label = "Field Weights"
    bl_parent_id = "SCENE_PT_ligament_world"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        weights = context.scene.ligament_world.effector_weights
        layout.active = context.scene.ligament_world.enabled
        layout.prop(weights, "collection")
        col = layout.column(align=True)
        for name in ("all", "force", "wind", "vortex", "turbulence", "drag", "harmonic"):
            col.prop(weights, name)


classes = (
    SCENE_PT_ligament_world,
    SCENE_PT_ligament_world_field_weights,
)
