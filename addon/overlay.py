"""Viewport overlay: a line from each joint empty to the origins of its two objects, so the
joint graph of a ragdoll or a chain can be read at a glance; mechanisms draw their own lines
(mechanisms.overlay_lines: a gear's two hinges, a pulley's rope, a path's curve, a wheel's
axle and suspension). Not drawn in background mode (no GPU there)."""

import bpy

from . import mechanisms

_handle = None
JOINT_COLOR = (1.0, 0.55, 0.1, 0.9)
PROBLEM_COLOR = (1.0, 0.15, 0.15, 0.9)


def _draw():
    import gpu
    from gpu_extras.batch import batch_for_shader

    context = bpy.context
    scene = context.scene
    if scene is None:
        return
    overlay = getattr(context.space_data, "overlay", None)
    if overlay is not None and not overlay.show_overlays:
        return
    ok, bad = [], []
    for e in scene.objects:
        if e.type != 'EMPTY' or not e.ligament_joint.enabled or not e.visible_get():
            continue
        j = e.ligament_joint
        if j.type in mechanisms.TYPES:
            good, missing = mechanisms.overlay_lines(e)
            ok += good
            bad += missing
            continue
        p = e.matrix_world.translation
        for obj in (j.object_a, j.object_b):
            if obj is None or obj.name not in scene.objects or not obj.ligament_body.enabled:
                bad += [p, p + e.matrix_world.col[2].xyz * e.empty_display_size]
            else:
                ok += [p, obj.matrix_world.translation]
    if not ok and not bad:
        return
    shader = gpu.shader.from_builtin('POLYLINE_UNIFORM_COLOR')
    region = context.region
    shader.uniform_float("viewportSize", (region.width, region.height))
    shader.uniform_float("lineWidth", 2.0)
    gpu.state.blend_set('ALPHA')
    for coords, color in ((ok, JOINT_COLOR), (bad, PROBLEM_COLOR)):
        if coords:
            shader.uniform_float("color", color)
            batch_for_shader(shader, 'LINES', {"pos": [tuple(c) for c in coords]}).draw(shader)
    gpu.state.blend_set('NONE')


def register():
    global _handle
    if bpy.app.background:
        return
    _handle = bpy.types.SpaceView3D.draw_handler_add(_draw, (), 'WINDOW', 'POST_VIEW')


def unregister():
    global _handle
    if _handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handle, 'WINDOW')
        _handle = None
