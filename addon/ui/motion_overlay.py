"""The viewport drawing of the active armature's last physics check (motion/draw.py makes the
lines and points; this hands them to the GPU). Not drawn in background mode (no GPU there)."""

import bpy

from ..motion import draw, rig
from .overlay import draw_lines

_handle = None


def geometry(context):
    """motion/draw.py's drawing of the active armature's last check at the current frame,
    or None (nothing checked in this session, or its drawing is off)."""
    arm = getattr(context, "active_object", None)
    if arm is None or arm.type != 'ARMATURE' or not arm.ligament_motion.show_drawing:
        return None
    last = rig.last_check(arm)
    if last is None:
        return None
    frames, report, settings = last
    motion = arm.ligament_motion
    index = int(round(context.scene.frame_current - frames[0]))
    return draw.drawing(report, frames, settings, index, motion.tolerance,
                        motion.momentum_tolerance)


def _draw():
    import gpu
    from gpu_extras.batch import batch_for_shader
    context = bpy.context
    shapes = geometry(context)
    if not shapes:
        return
    gpu.state.blend_set('ALPHA')
    draw_lines(context.region, [(colour, segments.reshape(-1, 3))
                                for colour, segments in shapes["lines"]])
    points: gpu.types.GPUShader = gpu.shader.from_builtin('UNIFORM_COLOR')
    gpu.state.point_size_set(8.0)
    for colour, pts in shapes["points"]:
        points.uniform_float("color", colour)
        batch_for_shader(points, 'POINTS', {"pos": pts.tolist()}).draw(points)
    gpu.state.point_size_set(1.0)
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
