"""Mechanism joints on empties (issue 14): gear, rack and pinion, pulley, wheel, line and path,
read from the scene into the solver's add_gear, add_rack_and_pinion, add_pulley, add_wheel,
add_line and add_path; the ratio from teeth counts or radii; paths sampled from Curve
objects; the lines the overlay draws for each.

Conventions. The empty's world matrix at the start frame is the joint frame, as for the other
joints (a hinge turns about local Z, a slider along local X):

    Gear             Hinge A, Hinge B: two hinge empties (their B bodies are geared):
                     B's hinge angle = -ratio x A's (ratio = teeth A / teeth B, or radius A /
                     radius B; negative turns them the same way, as a belt). Limits: the
                     play of angle_B + ratio angle_A (radians) instead of a rigid coupling.
    Rack and pinion  Hinge A (the pinion), Slider B (the rack): slide = ratio x angle
                     (metres per radian: the pinion's radius).
    Pulley           A's and B's centres hang on a rope over the points Fixed A and Fixed B
                     (two objects, read where they are at the start frame): |A - Fixed A| +
                     ratio |B - Fixed B| <= Length (0: the length at the start). The rope goes
                     slack, never pushes. A point that is a body, or parented to one, rides
                     on that body (a block and tackle on a swinging beam, a lift's counter-
                     weight over a moving crane; one body may carry both); any other object
                     stays where it was at the start frame.
    Wheel            A the chassis, B the wheel; the empty is the wheel's centre. B spins
                     about local Z (the axle, as a hinge; motor: its spin), slides along
                     local Y (the suspension: linear limits are its travel, the spring holds
                     the chassis up), Steering turns the axle about local Y; keyed or
                     driven, it is read every frame (World.set_steering).
    Line             B's point at the empty stays on the line of A through it along local X
                     (as a slider); every rotation is free. Limits, motor, spring along it.
    Path             B's point at the empty stays on the spline of the Curve object nearest
                     to it (Bezier splines sampled into BEZIER_SAMPLES points a segment, Poly
                     splines as they are; closed when the spline is cyclic). A curve that is
                     animated is read again every frame (World.set_path_points): its object's
                     or a parent's keys from their F-curves, a changing spline (shape keys,
                     hooks and other modifiers, keyed points) from the depsgraph evaluated at
                     that frame. The bead follows it as a kinematic path (it is carried, not
                     pushed with the curve's velocity). Object A is not used. Motor: speed
                     (m/s) along the curve.
    Custom           World.add_custom over the letters A, B (the two bodies; an unset A is
                     the world) and C, D (Point C / D: a body picked there is that body,
                     any other object a fixed point where it is at the start frame). pA and pB are the empty's location carried by A and
                     by B, uA and uB its local Z turning with them; xA, XA, YA, ZA the body's
                     centre and axes (solver/custom.py has the vocabulary). Held at 0, or
                     between Lower and Upper; Stiffness > 0 makes it a spring.

A coupling (gear, rack and pinion) needs the joints it couples built first: `build_order`
puts couplings last, and a coupling whose joint was skipped is skipped too, saying why.
"""

import importlib

import bpy
import numpy as np
from mathutils import Vector
from mathutils.geometry import interpolate_bezier

from . import bridge, kernels

custom = importlib.import_module(kernels.MODULE_NAME + ".custom")   # the solver's

# Built here, in this order of the UI.
TYPES = ('GEAR', 'RACK_AND_PINION', 'PULLEY', 'WHEEL', 'LINE', 'PATH', 'CUSTOM')
# Couplings: (type of joint_a, type of joint_b).
COUPLINGS = {'GEAR': ('HINGE', 'HINGE'), 'RACK_AND_PINION': ('HINGE', 'PRISMATIC')}
BEZIER_SAMPLES = 64      # points a Bezier segment: a Bezier circle of radius r is off the
                         # true curve by under 1e-4 r between samples
JOINT_NAMES = {'HINGE': "hinge", 'PRISMATIC': "slider"}


def _error(message):
    return bridge.SceneError(message)   # bridge imports this module: looked up at call time


def build_order(empties):
    """The joint empties in build order: couplings after the joints they couple (stable)."""
    return sorted(empties, key=lambda e: e.ligament_joint.type in COUPLINGS)


def ratio(js):
    """The joint's ratio from its Ratio From setting."""
    if js.ratio_mode == 'TEETH' and js.type != 'RACK_AND_PINION':
        return js.teeth_a / js.teeth_b
    if js.ratio_mode == 'RADII':
        return js.radius_a if js.type == 'RACK_AND_PINION' else js.radius_a / js.radius_b
    return js.ratio


def add(world, empty, m, ids, start, known, built, skipped, common, lim_a, lim_l, spring):
    """Build the mechanism joint of `empty` (frame `m` at the start frame) in `world`; the
    other arguments are bridge._add_joint's. Raises SceneError or ValueError."""
    js = empty.ligament_joint
    t = js.type
    anchor = tuple(m.translation)
    r = m.to_3x3().normalized()
    x, y, z = (tuple(r.col[i]) for i in range(3))
    if t in COUPLINGS:
        ja = _coupled(empty, "a", COUPLINGS[t][0], built, skipped)
        jb = _coupled(empty, "b", COUPLINGS[t][1], built, skipped)
        if t == 'GEAR':
            return world.add_gear(ja, jb, ratio(js), lower=lim_a[0], upper=lim_a[1], **common)
        return world.add_rack_and_pinion(ja, jb, ratio(js), **common)
    if t == 'CUSTOM':
        return _add_custom(world, empty, anchor, z, ids, start, known, common)
    b = bridge._joint_object(empty, "b", ids)
    if t == 'PATH':
        motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force) \
            if js.use_motor else {}
        points, closed, _ = path_points(empty, js.curve, start, known, anchor)
        return world.add_path(b, anchor, points, closed=closed, align=js.path_align,
                              friction=js.path_friction, **motor, **common)
    a = bridge._joint_object(empty, "a", ids)
    if a == b:
        raise _error(f"Joint '{empty.name}': object A and object B are the same object; "
                         "pick two different bodies")
    if t == 'PULLEY':
        (fa, ca), (fb, cb) = (_fixed_point(empty, w, start, known, ids) for w in "ab")
        for carrier, load, which in ((ca, a, "A"), (cb, b, "B")):
            if carrier is not None and carrier == load:
                raise _error(f"Joint '{empty.name}': Fixed {which} rides on object {which}, "
                             f"the body its own rope holds; pick a point on another body "
                             "or in the world")
        pa, pb = world.positions[a].copy(), world.positions[b].copy()
        rho = ratio(js)
        length = js.rope_length or float(np.linalg.norm(pa - fa) + rho * np.linalg.norm(pb - fb))
        return world.add_pulley(a, b, pa, pb, fa, fb, ratio=rho, upper=length,
                                fixed_bodies=(ca, cb), **common)
    if t == 'WHEEL':
        motor = dict(motor_speed=js.motor_velocity, max_motor_torque=js.motor_max_force) \
            if js.use_motor else {}
        return world.add_wheel(a, b, anchor, y, z, lower=lim_l[0], upper=lim_l[1],
                               steering=steering_at(empty, start), **motor, **spring,
                               **common)
    if t == 'LINE':
        motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force) \
            if js.use_motor else {}
        return world.add_line(a, b, anchor, x, lower=lim_l[0], upper=lim_l[1], **motor,
                              **spring, **common)
    raise _error(f"Joint '{empty.name}': unknown type {t}")


def _coupled(empty, which, kind, built, skipped):
    """The solver id of the joint picked as joint_a / joint_b, which must be a built `kind`."""
    other = getattr(empty.ligament_joint, "joint_" + which)
    name = JOINT_NAMES[kind]
    role = f"{name.title()} {which.upper()}"
    if other is None:
        raise _error(f"Joint '{empty.name}': {role} is not set (or was deleted); pick a "
                         f"{name} joint empty in Properties > Physics > Ligament Joint")
    oj = other.ligament_joint
    if other.type != 'EMPTY' or not oj.enabled:
        raise _error(f"Joint '{empty.name}': {role} '{other.name}' is not a Ligament "
                         f"joint; pick a {name} joint empty")
    if oj.type != kind:
        raise _error(f"Joint '{empty.name}': {role} '{other.name}' is a "
                         f"{_type_name(oj.type)} joint, not a {name}; pick a {name} joint "
                         f"empty or set its type to {name.title()}")
    if other.name not in built:
        why = (skipped or {}).get(other.name)
        raise _error(f"Joint '{empty.name}': {role} '{other.name}' is not acting"
                         + (f" ({why})" if why else " (not in the scene?)")
                         + "; fix that joint first")
    return built[other.name]


def _type_name(t):
    from .properties import JOINT_TYPES
    return next((label.lower() for key, label, _ in JOINT_TYPES if key == t), t)


def _fixed_point(empty, which, start, known, ids):
    """(where the pulley's Fixed A / B is at the start frame, the body that carries it or
    None): a body picked as the point, or an object parented (at any depth) to one, moves
    with that body (the solver's four-body pulley); anything else stays fixed in the world."""
    obj = getattr(empty.ligament_joint, "fixed_" + which)
    if obj is None:
        raise _error(f"Joint '{empty.name}': the pulley's Fixed {which.upper()} is not set; "
                         f"pick the object (an empty) the rope runs over")
    point = np.array(bridge.matrix_world_at(obj, start, known).translation)
    body = carrier(obj, ids)
    return point, (None if body is None else ids[body.name])


def carrier(obj, ids=None):
    """The body a pulley's fixed point rides on: `obj` itself or its nearest parent that is a
    Ligament body (in `ids`, the built world's bodies, when given); None: fixed in the world."""
    while obj is not None:
        if obj.name in ids if ids is not None else obj.ligament_body.enabled:
            return obj
        obj = obj.parent
    return None


# --------------------------------------------------------------------------------------------
# Custom

def custom_letters(js):
    """How many letters the joint's expression has: A, B, and C / D when their points are
    set (D alone counts C too: the letters run in order)."""
    return 4 if js.point_d is not None else 3 if js.point_c is not None else 2


def expression_problem(js):
    """What is wrong with the joint's expression as written (the solver's message: the
    symbol or mismatch and its column), or None. Parsing needs no sympy and no world."""
    try:
        custom.Expression(js.expression, custom_letters(js))
    except ValueError as exc:
        return str(exc)
    return None


def _add_custom(world, empty, anchor, axis, ids, start, known, common):
    js = empty.ligament_joint
    where = "fix the Expression in Properties > Physics > Ligament Joint"
    problem = expression_problem(js)
    if problem:
        raise _error(f"Joint '{empty.name}': {problem}; {where}")
    a = None if js.object_a is None else bridge._joint_object(empty, "a", ids)
    b = bridge._joint_object(empty, "b", ids)
    if a == b:
        raise _error(f"Joint '{empty.name}': object A and object B are the same object; "
                     "pick two different bodies (or clear A for the world)")
    bodies, anchors, axes = [a, b], [anchor, anchor], [axis, axis]
    for which in "cd"[:custom_letters(js) - 2]:
        obj = getattr(js, "point_" + which)
        if obj is None:
            raise _error(f"Joint '{empty.name}': Point D is set but Point C is not; the "
                         "letters run in order: set Point C (or use C in place of D)")
        m = bridge.matrix_world_at(obj, start, known)
        # A body stands for itself: the expression's letter is that body (up to four).
        bodies.append(ids.get(obj.name))
        anchors.append(tuple(m.translation))
        axes.append(tuple(m.to_3x3().normalized().col[2]))
    stiffness = js.custom_stiffness or None
    try:
        return world.add_custom(
            bodies, js.expression, lower=js.custom_lower if js.custom_use_lower else None,
            upper=js.custom_upper if js.custom_use_upper else None, stiffness=stiffness,
            damping=js.custom_damping if stiffness else 0.0, anchors=anchors, axes=axes,
            **common)
    except ImportError as exc:
        raise _error(f"Joint '{empty.name}': {exc}") from None
    except ValueError as exc:
        text = str(exc)
        if text.startswith("expression"):
            raise _error(f"Joint '{empty.name}': {text}; {where}") from None
        raise


# --------------------------------------------------------------------------------------------
# Curves

def spline_polylines(curve, matrix, data=None):
    """[(points n x 3 in the world for the object matrix `matrix`, closed)] of the Curve
    object's Bezier and Poly splines (NURBS are left out), consecutive repeats removed.
    `data`: the Curve datablock to read (default the object's own; an evaluated copy for an
    animated spline)."""
    out = []
    mat = np.array(matrix)
    for spline in (curve.data if data is None else data).splines:
        closed = spline.use_cyclic_u
        if spline.type == 'BEZIER':
            bp = spline.bezier_points
            n = len(bp)
            pts = []
            for i in range(n if closed else n - 1):
                p0, p1 = bp[i], bp[(i + 1) % n]
                pts += interpolate_bezier(p0.co, p0.handle_right, p1.handle_left, p1.co,
                                          BEZIER_SAMPLES + 1)[:-1]
            if not closed and n:
                pts.append(bp[n - 1].co)
            local = np.array([tuple(p) for p in pts], dtype=np.float64).reshape(-1, 3)
        elif spline.type == 'POLY':
            local = np.array([tuple(p.co)[:3] for p in spline.points],
                             dtype=np.float64).reshape(-1, 3)
        else:
            continue
        world = local @ mat[:3, :3].T + mat[:3, 3]
        if len(world):
            step = np.linalg.norm(np.diff(world, axis=0), axis=1)
            world = world[np.concatenate(([True], step > 1e-9))]
            if closed and len(world) > 1 and np.linalg.norm(world[-1] - world[0]) <= 1e-9:
                world = world[:-1]
        if len(world) >= (3 if closed else 2):
            out.append((world, closed))
    return out


def path_points(empty, curve, start, known, anchor):
    """(points, closed, index in spline_polylines) of the spline of `curve` nearest to
    `anchor`, at the start frame (an animated spline: as the depsgraph shows it now)."""
    if curve is None:
        raise _error(f"Joint '{empty.name}': the path's Curve is not set (or was deleted); "
                         "pick a Curve object")
    if curve.type != 'CURVE':
        raise _error(f"Joint '{empty.name}': the path's Curve '{curve.name}' is a "
                         f"{curve.type.lower()}, not a Curve object; pick a Curve")
    matrix = bridge.matrix_world_at(curve, start, known)
    if curve_motion(curve) == 'SPLINE':     # the caller puts the frame back (keep_frame)
        scene = bpy.context.scene if empty.name in bpy.context.scene.objects else \
            empty.users_scene[0]
        lines = _evaluated_polylines(curve, matrix, depsgraph_at(scene, start))
    else:
        lines = spline_polylines(curve, matrix)
    if not lines:
        raise _error(f"Joint '{empty.name}': Curve '{curve.name}' has no Bezier or Poly "
                         "spline with two points or more; add one (NURBS splines: set the "
                         "spline type to Bezier or Poly)")
    p = np.asarray(anchor)
    index = min(range(len(lines)),
                key=lambda i: np.min(np.linalg.norm(lines[i][0] - p, axis=1)))
    return (*lines[index], index)


def _animated(idb):
    ad = getattr(idb, "animation_data", None)
    return ad is not None and (ad.action is not None or len(ad.drivers) > 0)


def curve_motion(curve):
    """How a path's curve changes over time: None (it does not), 'TRANSFORM' (its object
    or a parent has transform keys: the spline moves rigidly) or 'SPLINE' (the evaluated
    spline changes: keyed or driven curve data or shape keys, or modifiers such as hooks,
    which may follow other objects)."""
    data = curve.data
    if _animated(data) or (data.shape_keys is not None and _animated(data.shape_keys)) or \
            len(curve.modifiers) > 0:
        return 'SPLINE'
    obj = curve
    while obj is not None:
        if bridge.has_transform_animation(obj):
            return 'TRANSFORM'
        obj = obj.parent
    return None


def curve_is_animated(curve):
    """Whether the curve moves or changes over time (the path follows it every frame)."""
    return curve_motion(curve) is not None


def _evaluated_polylines(curve, matrix, depsgraph):
    """spline_polylines of the curve as `depsgraph` evaluates it (shape keys and deforming
    modifiers applied; default: the context's)."""
    if depsgraph is None:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = curve.evaluated_get(depsgraph)
    data = ev.to_curve(depsgraph, apply_modifiers=True)
    try:
        return spline_polylines(curve, matrix, data)
    finally:
        ev.to_curve_clear()


# --------------------------------------------------------------------------------------------
# What mechanism joints read every frame: animated path curves, keyed or driven steering

def steering_fcurve(empty):
    """The F-curve keying the wheel empty's Steering, or None."""
    return bridge.action_fcurves(empty).get(("ligament_joint.steering", 0))


def steering_driven(empty):
    ad = empty.animation_data
    return ad is not None and any(d.data_path == "ligament_joint.steering" for d in ad.drivers)


def steering_at(empty, frame):
    """The wheel's steering angle at `frame` from its keys (else its value now)."""
    fc = steering_fcurve(empty)
    return fc.evaluate(frame) if fc is not None else empty.ligament_joint.steering


class FrameInputs:
    """The mechanism settings that change over time, sent to the world before each step:
    the points of paths whose curve is animated and the steering of wheels whose Steering is
    keyed or driven. Keys are evaluated at the frame from their F-curves; what only the
    depsgraph knows (an evaluated spline, a driver) from the depsgraph evaluated at the
    frame (`depsgraph_at`), once a frame and only when one of these needs it."""

    def __init__(self, scene, joints, start):
        objs = {o.name: o for o in scene.objects}
        self.paths = []       # (joint id, empty, curve, spline index, mode, closed, count)
        self.wheels = []      # (joint id, empty, F-curve or None for a driver)
        for name, j in joints:
            e = objs[name]
            js = e.ligament_joint
            if js.type == 'PATH':
                mode = curve_motion(js.curve)
                if mode is not None:
                    anchor = bridge.matrix_world_at(e, start, {}).translation
                    pts, closed, index = path_points(e, js.curve, start, {}, anchor)
                    self.paths.append((j, e, js.curve, index, mode, closed, len(pts)))
            elif js.type == 'WHEEL':
                fc = steering_fcurve(e)
                if fc is not None or steering_driven(e):
                    self.wheels.append((j, e, fc))
        self.needs_depsgraph = any(p[4] == 'SPLINE' for p in self.paths) or \
            any(fc is None for _, _, fc in self.wheels)

    def __bool__(self):
        return bool(self.paths or self.wheels)

    def before_step(self, world, scene, frame, known):
        """Send the frame's path points and steering angles to `world`."""
        depsgraph = depsgraph_at(scene, frame) if self.needs_depsgraph else None
        for j, e, curve, index, mode, closed, count in self.paths:
            matrix = bridge.matrix_world_at(curve, frame, known)
            lines = _evaluated_polylines(curve, matrix, depsgraph) if mode == 'SPLINE' \
                else spline_polylines(curve, matrix)
            if index >= len(lines) or len(lines[index][0]) != count or \
                    lines[index][1] != closed:
                raise _error(f"Joint '{e.name}': Curve '{curve.name}' changed its splines at "
                             f"frame {frame} (a path keeps its spline's number of points); "
                             "animate the points, not how many there are")
            try:
                world.set_path_points(j, lines[index][0])
            except ValueError as exc:
                raise _error(f"Joint '{e.name}': Curve '{curve.name}' at frame {frame}: "
                             f"{exc}") from None
        for j, e, fc in self.wheels:
            if fc is not None:
                angle = fc.evaluate(frame)
            else:
                angle = e.evaluated_get(depsgraph).ligament_joint.steering
            world.set_steering(j, angle)


_evaluating = []     # non-empty while depsgraph_at updates the scene (handlers ignore it)
_evaluations = [0]   # how many times depsgraph_at has updated a scene (`evaluations`)


def evaluations():
    """A count of the scene updates depsgraph_at has made: while it stays the same, nothing
    here moved an animated object (an update at another frame writes its animated values)."""
    return _evaluations[0]


def evaluating():
    """Whether the depsgraph is being updated by depsgraph_at (not by the user)."""
    return bool(_evaluating)


class keep_frame:
    """with keep_frame(scene): ... puts the scene back on its frame (and its depsgraph) if
    depsgraph_at moved it."""

    def __init__(self, scene):
        self.scene = scene

    def __enter__(self):
        self.frame = self.scene.frame_current

    def __exit__(self, *exc):
        if self.scene.frame_current != self.frame:
            depsgraph_at(self.scene, self.frame)


def depsgraph_at(scene, frame):
    """The scene's depsgraph evaluated at `frame`. The frame handler runs before Blender
    evaluates the new frame, and a bake or a jump ahead simulates frames the scene is not
    on: the scene is set to `frame` (without the frame handlers) and its view layer updated;
    whoever simulates puts the frame back (cache.Simulation.poses_at)."""
    context = bpy.context
    view_layer = context.view_layer if getattr(context, "scene", None) == scene and \
        context.view_layer is not None else scene.view_layers[0]
    _evaluating.append(frame)
    _evaluations[0] += 1
    try:
        if scene.frame_current != frame:
            scene.frame_current = frame
        view_layer.update()
    finally:
        _evaluating.pop()
    return view_layer.depsgraph


# --------------------------------------------------------------------------------------------
# Overlay (no GPU here: the overlay draws these, tests read them)

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

    if js.type in COUPLINGS:
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
                expression_problem(js):
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
