"""Viewport overlay: a line from each joint empty to the origins of its two objects, so the
joint graph of a ragdoll or a chain can be read at a glance; mechanisms draw their own lines
(overlay_lines: a gear's two hinges, a pulley's rope, a path's curve, a wheel's
axle and suspension). Not drawn in background mode (no GPU there)."""

import bpy

from mathutils import Vector
from ..world import mechanisms
from ..scene.curves import spline_polylines


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
            good, missing = overlay_lines(e)
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


def overlay_lines(empty):
    """(ok, bad): segment end points (pairs of Vectors, flat) to draw for a mechanism joint
    now; `bad` marks what is missing (a short line along the empty's Z)."""
    js = empty.ligament_joint
    m = empty.matrix_world
    p = m.translation
    size = empty.empty_display_size
    ok = []
    missing = [p, p + m.col[2].xyz * size]

    def origin(obj):
        return obj.matrix_world.translation

    if js.type in mechanisms.COUPLINGS:
        ja, jb = js.joint_a, js.joint_b
        if ja is None or jb is None:
            return [], missing
        # The line between the two coupled joints' anchors, and the empty to its middle.
        ok += [origin(ja), origin(jb), p, (origin(ja) + origin(jb)) / 2]
        return ok, []
    if js.type == 'CUSTOM':
        # The anchor (the empty) joined to each body, and to Points C and D.
        ends = [o for o in (js.object_a, js.object_b) if o is not None]
        if js.object_b is None or any(not o.ligament_body.enabled for o in ends) or \
                mechanisms.expression_problem(js):
            return [], missing
        for o in ends + [o for o in (js.point_c, js.point_d) if o is not None]:
            ok += [p, origin(o)]
        return ok, []
    bodies = [js.object_b] if js.type == 'PATH' else [js.object_a, js.object_b]
    if any(o is None or not o.ligament_body.enabled for o in bodies):
        return [], missing
    if js.type == 'PULLEY':
        if js.fixed_a is None or js.fixed_b is None:
            return [], missing
        fa, fb = origin(js.fixed_a), origin(js.fixed_b)
        return [origin(js.object_a), fa, fa, fb, fb, origin(js.object_b)], []
    if js.type == 'PATH':
        if js.curve is None or js.curve.type != 'CURVE':
            return [], missing
        for pts, closed in spline_polylines(js.curve, js.curve.matrix_world):
            vs = [Vector(v) for v in pts]
            ends = vs[1:] + (vs[:1] if closed else [])
            for q0, q1 in zip(vs, ends):
                ok += [q0, q1]
        return ok + [p, origin(js.object_b)], []
    ok += [p, origin(js.object_a), p, origin(js.object_b)]
    if js.type == 'WHEEL':
        axle, suspension = m.col[2].xyz.normalized(), m.col[1].xyz.normalized()
        ok += [p - axle * size, p + axle * size, p - suspension * size * 2,
               p + suspension * size * 2]
    elif js.type == 'LINE':
        along = m.col[0].xyz.normalized()
        ok += [p - along * size * 3, p + along * size * 3]
    return ok, []
