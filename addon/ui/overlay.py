"""Viewport overlay: a line from each joint empty to the origins of its two objects, so the
joint graph of a ragdoll or a chain can be read at a glance; mechanisms draw their own lines
(overlay_lines: a gear's two hinges, a pulley's rope, a path's curve, a wheel's
axle and suspension). With the sidebar's Overlay toggles (`Scene.ligament_overlay`): each
joint's limits in its frame with the current angle marked (`limit_segments`), the bodies'
collision shapes as wireframes (`shape_segments`), the contacts of the simulated frame shown
(`contact_segments`); the geometry comes from scene/limit_shapes.py. Not drawn in
background mode (no GPU there)."""

import math

import bpy
import numpy as np

from mathutils import Matrix, Vector
from ..runtime import cache
from ..world import mechanisms
from ..scene import limit_shapes as ls
from ..scene.curves import spline_polylines
from ..scene.errors import SceneError
from ..scene.shapes import fit_shape


_handle = None
JOINT_COLOR = (1.0, 0.55, 0.1, 0.9)
PROBLEM_COLOR = (1.0, 0.15, 0.15, 0.9)
LIMIT_COLOR = (0.3, 0.8, 1.0, 0.8)
MARKER_COLOR = (1.0, 1.0, 0.2, 1.0)
SHAPE_COLOR = (0.4, 1.0, 0.4, 0.6)
CONTACT_COLOR = (1.0, 0.2, 0.8, 1.0)


def _rigid(m):
    loc, rot, _ = m.decompose()
    return Matrix.LocRotScale(loc, rot, None)


def _local(frame, point):
    """`point` (world) in the frame of the rigid 4x4 `frame`."""
    return tuple(frame.inverted() @ point)


def limit_segments(empty, size=1.0):
    """(limits, markers): world segments ((n, 2, 3) arrays) of a joint's limits in its frame
    and of the current angle: where body B's origin is seen from the joint (its direction for
    a ragdoll's cone and a hinge's arc, its place along a slider's axis or a distance)."""
    js = empty.ligament_joint
    frame = _rigid(empty.matrix_world)
    r = empty.empty_display_size * size
    b = js.object_b
    here = _local(frame, b.matrix_world.translation) if b is not None else None
    limits, marks = [], []
    t = js.type
    if t == 'RAGDOLL':
        limits.append(ls.swing_cone(js.swing_1, js.swing_2, r))
        if js.use_limit_ang:
            limits.append(ls.twist_arc(js.limit_ang_lower, js.limit_ang_upper, r * 0.5))
        if here is not None:
            marks.append(ls.direction_marker(here, r))
    elif t == 'HINGE':
        if js.use_limit_ang:
            limits.append(ls.hinge_arc(js.limit_ang_lower, js.limit_ang_upper, r))
        if here is not None and math.hypot(here[0], here[1]) > 1e-9:
            marks.append(ls.angle_marker(math.atan2(here[1], here[0]), (0, 0, 1), (1, 0, 0), r))
    elif t == 'PRISMATIC':
        if js.use_limit_lin:
            limits.append(ls.linear_range(js.limit_lin_lower, js.limit_lin_upper, tick=r * 0.3))
        if here is not None:
            marks.append(ls.linear_range(here[0], here[0], tick=r * 0.6)[1:2])
    elif t in {'DISTANCE', 'ROPE'} and here is not None and Vector(here).length > 1e-9:
        d = Vector(here).normalized()
        lo, hi = (js.limit_lin_lower, js.limit_lin_upper) if t == 'DISTANCE' else \
            (0.0, js.rope_length or Vector(here).length)
        if t == 'ROPE' or js.use_limit_lin:
            limits.append(ls.linear_range(lo, hi, d, tick=r * 0.3))
        marks.append(ls.linear_range(Vector(here).length, Vector(here).length, d,
                                     tick=r * 0.6)[1:2])
    m = np.array(frame)
    return [ls.transform(x, m) for x in limits], [ls.transform(x, m) for x in marks]


def shape_segments(obj, depsgraph):
    """World segments of a body's collision shape as the build fits it (scene/shapes.py)."""
    s = obj.ligament_body
    loc, rot, scale = obj.matrix_world.decompose()
    try:
        shape, offset = fit_shape(obj, s.shape, scale, depsgraph, s.kind)
    except (ValueError, SceneError):    # what the scene check reports; nothing to draw
        return np.zeros((0, 2, 3))
    name = type(shape).__name__
    if name == 'Sphere':
        seg = ls.sphere_wire(shape.radius)
    elif name == 'Capsule':
        seg = ls.capsule_wire(shape.radius, shape.half_height)
    elif name == 'Cylinder':
        seg = ls.cylinder_wire(shape.radius, shape.half_height)
    elif name == 'Box':
        seg = ls.box_wire(shape.half_extents)
    elif hasattr(shape, "triangles"):
        seg = ls.hull_wire(shape.vertices, shape.triangles)
        offset = (0.0, 0.0, 0.0)
    else:
        return np.zeros((0, 2, 3))
    m = Matrix.LocRotScale(loc + rot @ Vector(tuple(offset)), rot, None)
    return ls.transform(seg, np.array(m))


def contact_segments(scene, length):
    """World segments of the contacts of the frame shown, when the scene's Simulation has
    just stepped to it (empty otherwise)."""
    sim = cache.get(scene)
    if sim is None or sim.world_frame != scene.frame_current:
        return np.zeros((0, 2, 3))
    c = sim.world.contacts()
    keep = c["separations"] <= 0.0          # touching, not speculative
    return ls.contact_normals(c["points"][keep], c["normals"][keep], length)


def _extras(context, scene):
    """{color: [segment arrays]} the overlay toggles ask for."""
    o = getattr(scene, "ligament_overlay", None)
    out = {LIMIT_COLOR: [], MARKER_COLOR: [], SHAPE_COLOR: [], CONTACT_COLOR: []}
    if o is None:
        return out
    depsgraph = context.evaluated_depsgraph_get() if o.show_shapes else None
    for obj in scene.objects:
        if not obj.visible_get():
            continue
        if o.show_limits and obj.type == 'EMPTY' and obj.ligament_joint.enabled:
            limits, marks = limit_segments(obj, o.size)
            out[LIMIT_COLOR] += limits
            out[MARKER_COLOR] += marks
        if o.show_shapes and obj.ligament_body.enabled:
            out[SHAPE_COLOR].append(shape_segments(obj, depsgraph))
    if o.show_contacts:
        out[CONTACT_COLOR].append(contact_segments(scene, 0.1 * o.size))
    return out


def draw_lines(region, groups, width=2.0):
    """Draw `groups` ([(colour RGBA, segment end points: a flat list of points or an (n, 3)
    array)]) as lines `width` pixels wide, from a draw handler of `region`."""
    import gpu
    from gpu_extras.batch import batch_for_shader
    shader: gpu.types.GPUShader = gpu.shader.from_builtin('POLYLINE_UNIFORM_COLOR')
    shader.uniform_float("viewportSize", (region.width, region.height))
    shader.uniform_float("lineWidth", width)
    for colour, coords in groups:
        if len(coords):
            shader.uniform_float("color", colour)
            batch_for_shader(shader, 'LINES', {"pos": [tuple(c) for c in coords]}).draw(shader)


def _draw():
    import gpu

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
        for obj in ((j.object_b,) if j.type == 'PIN' else (j.object_a, j.object_b)):
            if obj is None or obj.name not in scene.objects or not obj.ligament_body.enabled:
                bad += [p, p + e.matrix_world.col[2].xyz * e.empty_display_size]
            elif j.type == 'PIN':      # the empty to the body's pinned point
                ok += [p, obj.matrix_world @ Vector(j.pin_offset)]
            else:
                ok += [p, obj.matrix_world.translation]
    groups = [(JOINT_COLOR, ok), (PROBLEM_COLOR, bad)]
    for color, arrays in _extras(context, scene).items():
        arrays = [a for a in arrays if len(a)]
        if arrays:
            groups.append((color, np.concatenate(arrays).reshape(-1, 3)))
    if not any(len(coords) for _, coords in groups):
        return
    gpu.state.blend_set('ALPHA')
    draw_lines(context.region, groups)
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
