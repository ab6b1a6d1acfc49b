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
                     (two objects, read where they are at the start frame, fixed in the world
                     after it): |A - Fixed A| + ratio |B - Fixed B| <= Length (0: the length
                     at the start). The rope goes slack, never pushes.
    Wheel            A the chassis, B the wheel; the empty is the wheel's centre. B spins
                     about local Z (the axle, as a hinge; motor: its spin), slides along
                     local Y (the suspension: linear limits are its travel, the spring holds
                     the chassis up), Steering turns the axle about local Y.
    Line             B's point at the empty stays on the line of A through it along local X
                     (as a slider); every rotation is free. Limits, motor, spring along it.
    Path             B's point at the empty stays on the spline of the Curve object nearest
                     to it (Bezier splines sampled into BEZIER_SAMPLES points a segment, Poly
                     splines as they are; closed when the spline is cyclic), read at the start
                     frame. The curve is fixed in the world: the solver's paths do not move, so
                     an animated curve is followed where it is at the start frame only.
                     Object A is not used. Motor: speed (m/s) along the curve.

A coupling (gear, rack and pinion) needs the joints it couples built first: `build_order`
puts couplings last, and a coupling whose joint was skipped is skipped too, saying why.
"""

import numpy as np
from mathutils import Vector
from mathutils.geometry import interpolate_bezier

from . import bridge

# Built here, in this order of the UI; 'CUSTOM' (add_custom, built elsewhere) is not one.
TYPES = ('GEAR', 'RACK_AND_PINION', 'PULLEY', 'WHEEL', 'LINE', 'PATH')
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
    b = bridge._joint_object(empty, "b", ids)
    if t == 'PATH':
        motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force) \
            if js.use_motor else {}
        points, closed = path_points(empty, js.curve, start, known, anchor)
        return world.add_path(b, anchor, points, closed=closed, align=js.path_align,
                              friction=js.path_friction, **motor, **common)
    a = bridge._joint_object(empty, "a", ids)
    if a == b:
        raise _error(f"Joint '{empty.name}': object A and object B are the same object; "
                         "pick two different bodies")
    if t == 'PULLEY':
        fixed = [_fixed_point(empty, w, start, known) for w in "ab"]
        pa, pb = world.positions[a].copy(), world.positions[b].copy()
        rho = ratio(js)
        length = js.rope_length or float(np.linalg.norm(pa - fixed[0])
                                         + rho * np.linalg.norm(pb - fixed[1]))
        return world.add_pulley(a, b, pa, pb, fixed[0], fixed[1], ratio=rho, upper=length,
                                **common)
    if t == 'WHEEL':
        motor = dict(motor_speed=js.motor_velocity, max_motor_torque=js.motor_max_force) \
            if js.use_motor else {}
        return world.add_wheel(a, b, anchor, y, z, lower=lim_l[0], upper=lim_l[1],
                               steering=js.steering, **motor, **spring, **common)
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


def _fixed_point(empty, which, start, known):
    obj = getattr(empty.ligament_joint, "fixed_" + which)
    if obj is None:
        raise _error(f"Joint '{empty.name}': the pulley's Fixed {which.upper()} is not set; "
                         f"pick the object (an empty) the rope runs over")
    return np.array(bridge.matrix_world_at(obj, start, known).translation)


# --------------------------------------------------------------------------------------------
# Curves

def spline_polylines(curve, matrix):
    """[(points n x 3 in the world for the object matrix `matrix`, closed)] of the Curve
    object's Bezier and Poly splines (NURBS are left out), consecutive repeats removed."""
    out = []
    mat = np.array(matrix)
    for spline in curve.data.splines:
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
    """(points, closed) of the spline of `curve` nearest to `anchor`, at the start frame."""
    if curve is None:
        raise _error(f"Joint '{empty.name}': the path's Curve is not set (or was deleted); "
                         "pick a Curve object")
    if curve.type != 'CURVE':
        raise _error(f"Joint '{empty.name}': the path's Curve '{curve.name}' is a "
                         f"{curve.type.lower()}, not a Curve object; pick a Curve")
    lines = spline_polylines(curve, bridge.matrix_world_at(curve, start, known))
    if not lines:
        raise _error(f"Joint '{empty.name}': Curve '{curve.name}' has no Bezier or Poly "
                         "spline with two points or more; add one (NURBS splines: set the "
                         "spline type to Bezier or Poly)")
    p = np.asarray(anchor)
    return min(lines, key=lambda line: np.min(np.linalg.norm(line[0] - p, axis=1)))


def curve_is_animated(curve):
    """Whether the curve moves or changes over time (the path does not follow it)."""
    if bridge.has_transform_animation(curve):
        return True
    ad = curve.data.animation_data
    return ad is not None and ad.action is not None


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
