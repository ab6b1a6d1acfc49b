"""Mechanism joints on empties: gear, rack and pinion, pulley, wheel, line, path and custom,
read from the scene into the solver's add_gear, add_rack_and_pinion, add_pulley, add_wheel,
add_line, add_path and add_custom; the ratio from teeth counts or radii. Paths are sampled
from Curve objects (scene/curves.py); what changes every frame is sent by world/inputs.py.

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
import numpy as np

from .. import kernels
from ..scene.animation import matrix_world_at
from ..scene.curves import path_points, steering_at
from ..scene.errors import SceneError
from .joint_settings import joint_object, require_distinct


custom = importlib.import_module(kernels.MODULE_NAME + ".custom")   # the solver's


# Built here, in this order of the UI.
TYPES = ('GEAR', 'RACK_AND_PINION', 'PULLEY', 'WHEEL', 'LINE', 'PATH', 'CUSTOM')


# Couplings: (type of joint_a, type of joint_b).
COUPLINGS = {'GEAR': ('HINGE', 'HINGE'), 'RACK_AND_PINION': ('HINGE', 'PRISMATIC')}


JOINT_NAMES = {'HINGE': "hinge", 'PRISMATIC': "slider"}



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
    other arguments are add_joint's. Raises SceneError or ValueError."""
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
    b = joint_object(empty, "b", ids)
    if t == 'PATH':
        motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force) \
            if js.use_motor else {}
        points, closed, _ = path_points(empty, js.curve, start, known, anchor)
        return world.add_path(b, anchor, points, closed=closed, align=js.path_align,
                              friction=js.path_friction, **motor, **common)
    a = joint_object(empty, "a", ids)
    require_distinct(empty, a, b)
    if t == 'PULLEY':
        (fa, ca), (fb, cb) = (_fixed_point(empty, w, start, known, ids) for w in "ab")
        for carrier, load, which in ((ca, a, "A"), (cb, b, "B")):
            if carrier is not None and carrier == load:
                raise SceneError(f"Joint '{empty.name}': Fixed {which} rides on object {which}, "
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
    raise SceneError(f"Joint '{empty.name}': unknown type {t}")


def _coupled(empty, which, kind, built, skipped):
    """The solver id of the joint picked as joint_a / joint_b, which must be a built `kind`."""
    other = getattr(empty.ligament_joint, "joint_" + which)
    name = JOINT_NAMES[kind]
    role = f"{name.title()} {which.upper()}"
    if other is None:
        raise SceneError(f"Joint '{empty.name}': {role} is not set (or was deleted); pick a "
                         f"{name} joint empty in Properties > Physics > Ligament Joint")
    oj = other.ligament_joint
    if other.type != 'EMPTY' or not oj.enabled:
        raise SceneError(f"Joint '{empty.name}': {role} '{other.name}' is not a Ligament "
                         f"joint; pick a {name} joint empty")
    if oj.type != kind:
        raise SceneError(f"Joint '{empty.name}': {role} '{other.name}' is a "
                         f"{_type_name(oj)} joint, not a {name}; pick a {name} joint "
                         f"empty or set its type to {name.title()}")
    if other.name not in built:
        why = (skipped or {}).get(other.name)
        raise SceneError(f"Joint '{empty.name}': {role} '{other.name}' is not acting"
                         + (f" ({why})" if why else " (not in the scene?)")
                         + "; fix that joint first")
    return built[other.name]


def _type_name(js):
    """The joint type's name as the UI shows it, in lower case ("ball", "slider")."""
    return js.bl_rna.properties["type"].enum_items[js.type].name.lower()


def _fixed_point(empty, which, start, known, ids):
    """(where the pulley's Fixed A / B is at the start frame, the body that carries it or
    None): a body picked as the point, or an object parented (at any depth) to one, moves
    with that body (the solver's four-body pulley); anything else stays fixed in the world."""
    obj = getattr(empty.ligament_joint, "fixed_" + which)
    if obj is None:
        raise SceneError(f"Joint '{empty.name}': the pulley's Fixed {which.upper()} is not set; "
                         f"pick the object (an empty) the rope runs over")
    point = np.array(matrix_world_at(obj, start, known).translation)
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
        raise SceneError(f"Joint '{empty.name}': {problem}; {where}")
    a = None if js.object_a is None else joint_object(empty, "a", ids)
    b = joint_object(empty, "b", ids)
    require_distinct(empty, a, b, "pick two different bodies (or clear A for the world)")
    bodies, anchors, axes = [a, b], [anchor, anchor], [axis, axis]
    for which in "cd"[:custom_letters(js) - 2]:
        obj = getattr(js, "point_" + which)
        if obj is None:
            raise SceneError(f"Joint '{empty.name}': Point D is set but Point C is not; the "
                         "letters run in order: set Point C (or use C in place of D)")
        m = matrix_world_at(obj, start, known)
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
        raise SceneError(f"Joint '{empty.name}': {exc}") from None
    except ValueError as exc:
        text = str(exc)
        if text.startswith("expression"):
            raise SceneError(f"Joint '{empty.name}': {text}; {where}") from None
        raise
