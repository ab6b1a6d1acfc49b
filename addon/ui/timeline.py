"""The cached frames drawn in the Timeline, as Blender draws its point caches there: a strip
along the bottom over the simulated range (faint) and the frames the cache holds (solid). An
edit of keys shortens the solid part to the frames it keeps. Not drawn in background mode
(no GPU there)."""

import bpy

from ..runtime import cache


_handle = None
RANGE_COLOR = (1.0, 0.55, 0.1, 0.25)
CACHED_COLOR = (1.0, 0.55, 0.1, 0.9)
STRIP_HEIGHT = 4       # pixels at a UI scale of 1
STRIP_BOTTOM = 2


def cached_strips(scene):
    """[(first frame, last frame + 1, colour)] to draw for `scene`: the simulated range and
    the cached frames in it."""
    ws = scene.ligament_world
    if not ws.enabled:
        return []
    strips = [(ws.frame_start, ws.frame_end + 1, RANGE_COLOR)]
    info = cache.frame_info(scene)
    if info is not None:
        strips.append((info[0], info[1] + 1, CACHED_COLOR))
    return strips


def _draw():
    import gpu
    from gpu_extras.batch import batch_for_shader

    context = bpy.context
    if context.scene is None or getattr(context.space_data, "mode", None) != 'TIMELINE':
        return
    strips = cached_strips(context.scene)
    if not strips:
        return
    view = context.region.view2d
    scale = context.preferences.system.ui_scale
    y0 = STRIP_BOTTOM * scale
    y1 = y0 + STRIP_HEIGHT * scale
    shader: gpu.types.GPUShader = gpu.shader.from_builtin('UNIFORM_COLOR')
    gpu.state.blend_set('ALPHA')
    for first, last, color in strips:
        x0 = view.view_to_region(first, 0, clip=False)[0]
        x1 = view.view_to_region(last, 0, clip=False)[0]
        coords = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        batch = batch_for_shader(shader, 'TRIS', {"pos": coords}, indices=((0, 1, 2), (0, 2, 3)))
        shader.uniform_float("color", color)
        batch.draw(shader)
    gpu.state.blend_set('NONE')


def register():
    global _handle
    if bpy.app.background:
        return
    _handle = bpy.types.SpaceDopeSheetEditor.draw_handler_add(_draw, (), 'WINDOW',
                                                              'POST_PIXEL')


def unregister():
    global _handle
    if _handle is not None:
        bpy.types.SpaceDopeSheetEditor.draw_handler_remove(_handle, 'WINDOW')
        _handle = None
